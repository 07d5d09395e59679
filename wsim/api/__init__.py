"""The public Python API (docs/api.md), exposed lazily as `wsim.<name>`: `runs` (simulate,
iter_batches, open_dataset, Dataset), `game` (Game, Move, Decision), `analysis` (balance, ablate,
ladder, survey, rebalance), `facts` (cards, score, trade), `datasets` (check, replay) and `tuning`
(tune). The command line calls these functions and prints their results."""
