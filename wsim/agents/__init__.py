"""Agents: fitting the heuristic's weights (`wsim tune`), training the learned player (`wsim
learn`), ranking policies (`wsim ladder`) and
the mechanics a policy uses (the tune's variety term). The policies' parameter rows and weights
files are facts of a run: wsim/run/weights.py.

tune.py       `wsim tune`: CMA-ES self-play fitting of the heuristic's weights
ladder.py     `wsim ladder`: every ordered pair of policies on the same deals, ratings
mechanics.py  which wonder stages and ways of scoring a set of games used
learn.py      `wsim learn`: the learned player's iterations (teacher games, data, evaluation)
fit.py        the learned player's fit (scikit-learn, the `learn` extra)
"""
