"""Analysis of datasets (docs/interfaces.md §5): imported only by the commands that use it.

balance/      `wsim balance`: reading datasets, win rates and card effects, plots, the report
ablate.py     `wsim ablate`: the same games with and without card edits, and their report
edits.py      --edit: card-data edits applied to the data text
stats.py      proportions with their 95% intervals, shared by the reports
"""
