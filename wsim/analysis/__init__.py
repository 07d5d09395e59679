"""Analysis of datasets (docs/interfaces.md §5): imported only by the commands that use it.

balance/           `wsim balance`: reading datasets, win rates and card effects, plots, the report
ablate.py          `wsim ablate`: the same games with and without card edits, and their report
survey.py          `wsim survey`: populations on the same deals, verdicts; survey_page.py its page
populations.py     the survey's populations (--population, the built-in set)
verdicts.py        robust / depends on population / not resolved, and games_needed
playtest.py        --reference: people's counts read, checked and compared
rebalance/         `wsim rebalance`: levers, measurements, the MILP, the held-out run, the report
edits.py           --edit: card-data edits applied to the data text
stats.py           proportions with their 95% intervals, shared by the reports and the ladder
significance.py    p-values and Benjamini–Hochberg q-values
"""
