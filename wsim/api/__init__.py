"""The public Python API (docs/api.md), exposed lazily as `wsim.<name>`: `runs` (simulate,
iter_batches, open_dataset, Dataset), `game` (Game, Move, Decision) and `analysis` (balance,
ablate, ladder, survey). The command line calls these functions and prints their results."""
