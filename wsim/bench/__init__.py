"""`wsim bench`: what wsim's speed and memory are, measured and recorded (docs/speed.md). The
layer above every other but the command line: it times them all, the environments included.

suite.py       run_benchmarks: the table of sections, run in order and recorded
record.py      a record's header (versions, machine) and its file in bench/results/
games.py       kernel games/s: the best of equal runs of the same games
rollout.py     a rollout seat's games/s and the playouts it runs (also for --against's probe)
playouts.py    a rollout seat's playouts counted through the step API (loaded into REV's tree too)
breakdown.py   where a game's time goes: the deal, the loop floor, the instrumented components
profiling.py   profile_run: games through the instrumented loop (the breakdown, compile profile)
envs.py        the environments' steps/s: AEC, Parallel, and the batched one quoted two ways
yardsticks.py  what no kernel change moves: the reference engine and the trading solver
startup.py     child processes timed: cold and warm start, first uses, a big run's seconds and RSS
against.py     `wsim bench --against REV`: this tree and commit REV timed at the same time
"""
