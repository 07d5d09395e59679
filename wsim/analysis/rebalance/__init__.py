"""`wsim rebalance` (docs/rebalance.md): the smallest edit of the printed numbers after which
every wonder side's win rate is within a tolerance of the fair share. Lowest first:

plan.py        the options checked into a Plan (the population at every player count), and the
               games and time a search takes at most
levers.py      the numbers the search may change, their bounds, changes as --edit texts and data
games.py       the runs played a chunk at a time (here or on Dask) and tallied into Rates
model.py       each lever's measured effect on the sides, and the MILP that solves for edits
held_out.py    the input and the chosen edits on held-out games, paired: result.csv's table
search.py      the search itself: measure, solve, verify, then the held-out run (Result)
page.py        the report's HTML page (it only renders: report.py builds its data)
report.py      the report's files, and run_rebalance: the search with its report written
"""
