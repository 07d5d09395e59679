"""Balance analysis (`wsim balance`, `wsim ablate`; docs/interfaces.md §5): reading datasets, the
statistics of win rates and card effects, plots and the HTML report. Imported only by those
commands: it needs the `analysis` extra (duckdb, statsmodels, matplotlib).

read.py     DuckDB aggregates of a dataset's parts: the small tables the statistics work on
effects.py  card effects on winning (average marginal effects, grouped jackknife), paired datasets
size.py     how far from fair: points of win share, victory points, the verdict
answers.py  the page's top: one verdict sentence per wonder side and card, farthest first
plots.py    the plots, as deterministic SVG text
report.py   `wsim balance`: the CSVs and the self-contained HTML page
"""
