"""Running games: settings checked once, the kernels' runner, teacher games, step-level games,
compiling and Dask tasks. Writes no file: the files layer (wsim/dataset/) drives this
one.

settings.py       every option of a run checked and parsed once (Settings)
weights.py        the policies' default parameter rows and weights files
chunk.py          Chunk: the kernels' output for a range of games (a leaf: no kernels imported)
runner.py         Runner: a run's games played on the kernel threads; one game's move log
lock.py           the per-process kernel lock (one kernel call at a time)
progress.py       the progress of every long run (a bar, a line a minute, a callback, nothing)
cluster.py        --dask: tasks (a dataset's parts, a ladder's ranges) played on a Dask cluster
tasks.py          what a Dask worker runs: its tables, a range of games, recorded games
stepgame.py       KernelGame: one game driven decision by decision from Python
verify.py         kernel games replayed by the reference engine
compiling.py      the kernel families, what compiling them costs, and `wsim compile`
model.py          the learned policy's model file: weights and a JSON header, read and checked
tape.py           teacher games: sampled decisions' afterstate inputs with their outcomes (learn)
"""
