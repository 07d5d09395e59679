"""`python -m wsim ...`: the same as the `wsim` console script."""

from wsim.entry import run

run()
