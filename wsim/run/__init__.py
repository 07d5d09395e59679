"""Running games: settings checked once, the kernels' runner, parts, datasets and clusters.

settings.py   every option of a run checked and parsed once (Settings)
chunk.py      Chunk: the kernels' output for a range of games (a leaf: no kernels imported)
runner.py     Runner: a run's games played on the kernel threads; one game's move log
part.py       play_part: one part of a run played into its Parquet bytes (local and Dask)
batch.py      write_dataset: a `wsim simulate` run, planned, played part by part, committed
cluster.py    --dask: the parts (or ladder ranges) played as tasks on a Dask cluster
stepgame.py   KernelGame: one game driven decision by decision from Python
verify.py     kernel games replayed by the reference engine
compiling.py  the kernel families, what compiling them costs, and `wsim compile`
"""
