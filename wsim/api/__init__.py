"""The public Python API (docs/api.md), exposed lazily as `wsim.<name>`: `runs` (simulate,
iter_batches, open_dataset, Dataset) and `game` (Game, Move, Decision)."""
