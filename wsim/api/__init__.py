"""The public Python API (docs/api.md), exposed lazily as `wsim.<name>`: `runs` (simulate,
iter_batches, open_dataset, Dataset), `game` (Game, Move, Decision), `analysis` (balance, ablate,
ladder, survey, rebalance), `facts` (cards, score, trade), `datasets` (check, replay), `tuning`
(tune) and `learning` (learn). The command line calls these functions and prints their results."""
