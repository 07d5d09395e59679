"""The `wsim` command line. Kept empty: entry.py installs the signal handlers before anything
heavy is imported, and importing it runs this file first.

entry.py     the console script: signal handlers, then the click application, exit statuses
app.py       the click group and the one mapping of errors to exit statuses
options.py   options shared by commands, their bounds, the --out check, reading the data file
render.py    the text renderers (cards, score, trade, the run summary, tables of CSV rows)
facts.py     `cards`, `score`, `trade`: the card data and scenario positions
runs.py      `simulate`, `check`, `replay`, `compile`, `bench`
agents.py    `ladder`, `tune`, `learn`
analysis.py  `balance`, `ablate`, `survey`, `rebalance`
"""
