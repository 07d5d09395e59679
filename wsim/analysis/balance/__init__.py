"""Balance analysis (`wsim balance`, `wsim ablate`; docs/interfaces.md §5): reading datasets, the
statistics of win rates and card effects, plots and the HTML report. Imported only by those
commands: it needs the `analysis` extra (duckdb, statsmodels, matplotlib)."""
