"""`python -m wsim ...`: the same as the `wsim` console script."""

from wsim.cli.entry import run

run()
