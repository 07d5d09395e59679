"""The reference engine: the rules of docs/rules.md in plain Python, written to be read. It replays
the kernels' games to check them (wsim/run/verify.py, `wsim replay`) and scores and prices
scenario positions (`wsim score`, `wsim trade`).

state.py      cities and positions, and what follows from them (production, prices, powers)
trade.py      the exact trading solver
scoring.py    final scoring, every end-of-game choice made for the best total
engine.py     legal moves, the simultaneous turn, ages, military, whole games
replay.py     a move log replayed by the engine and checked event by event
positions.py  the JSON documents of `wsim score` and `wsim trade`
science.py    the science sets a city scored, for the play tables of `wsim ladder` and `wsim survey`
"""
