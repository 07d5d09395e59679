"""numba's compiles, watched and caused: what a command compiled and how long it took, and
`wsim compile`, which fills the kernel cache ahead of use.

The kernels are compiled on first use and cached on disk (kernels/__init__.py says where). A
run compiles only its policy family (kernels/game.py): `games` for random, greedy and
heuristic seats, `rollout` when a seat searches, `learned` when a seat plays the learned policy
(and `wsim learn`'s training games, which record positions on a tape). Two more families serve
other callers: `step`, the step-level API driven from Python (wsim.run.stepgame: tests, agents),
`profile`, the instrumented game loop of `wsim bench` (warmed by wsim.bench.profiling.warm, a
layer above, which `wsim compile profile` calls), and `env`, the batched environment's kernels
(kernels/batched.py; warmed by wsim.env.vector.warm, the layer above, which `wsim compile env`
calls).

CompileWatch listens to numba's event API ("numba:compile" fires once per specialisation that
the cache could not supply, before it is compiled), so it sees exactly what was compiled: the
start-up report of `wsim simulate`, the first-run notice, and the test that pins one
specialisation per kernel function all read it.
"""

from __future__ import annotations

import time
from collections import Counter

from numba.core import event

FAMILIES = ("games", "rollout", "step", "profile", "learned", "env")
DEFAULT_FAMILIES = ("games", "rollout")
# the families whose warm-up lives in a layer above this one: `wsim compile` calls it there
ABOVE = {"profile": "wsim.bench.profiling.warm(tables)", "env": "wsim.env.vector.warm()"}


class CompileWatch(event.Listener):
    """While entered: every numba compile, by function, and the seconds spent compiling.

    on_first(watch) is called when the first compile starts (once), e.g. to tell the user;
    `silenced` says whether the caller asked for no progress notes (set by silence()).
    """

    def __init__(self, on_first=None):
        self.specialisations: Counter = Counter()  # "module.qualname" -> specialisations compiled
        self.seconds = 0.0
        self._on_first = on_first
        self.silenced = False
        self._depth = 0
        self._started = 0.0

    def on_start(self, ev):
        if self._depth == 0:
            self._started = time.perf_counter()
            if self._on_first is not None:
                self._on_first(self)
                self._on_first = None
        self._depth += 1
        func = ev.data["dispatcher"].py_func
        self.specialisations[f"{func.__module__}.{func.__qualname__}"] += 1

    def on_end(self, ev):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._started

    def silence(self):
        """Ask on_first for no progress note (a warning it has to give stays)."""
        self.silenced = True

    @property
    def compiled(self) -> bool:
        return bool(self.specialisations)

    def kernels(self) -> dict:
        """Specialisations compiled per wsim kernel function ("module.function" under wsim.kernels)."""
        prefix = "wsim.kernels."
        return {k[len(prefix):]: v for k, v in sorted(self.specialisations.items()) if k.startswith(prefix)}

    def __enter__(self) -> "CompileWatch":
        event.register("numba:compile", self)
        return self

    def __exit__(self, *exc):
        event.unregister("numba:compile", self)


def cache_problem() -> str | None:
    """None when numba can write the kernel cache, else why it cannot (said once by the
    command line: numba itself then compiles every run again without a word)."""
    import os
    import tempfile

    import numba

    where = numba.config.CACHE_DIR  # the hashed folder kernels/__init__.py chose
    try:
        os.makedirs(where, exist_ok=True)
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as e:
        return (f"the kernel cache {where} cannot be written ({e.strerror or e}): every run compiles the "
                "kernels again (set NUMBA_CACHE_DIR to a writable folder)")
    return None


def warm(family: str, tables) -> None:
    """Load one family's kernels from the cache, or compile them (playing as little as it takes)."""
    from wsim.run.runner import Runner
    from wsim.run.settings import Settings

    if family == "games":
        Runner(tables, Settings(players=3, policies=("random", "greedy", "heuristic"))).load()
    elif family == "rollout":
        Runner(tables, Settings(players=3, policies=("rollout", "random", "random"))).load()
    elif family == "step":
        from wsim.run.stepgame import KernelGame

        for policy in ("random", "heuristic"):  # decisions driven from Python, then the loop
            game = KernelGame(tables, players=3, seed=0, game=0, policy=policy)
            for seat, kind in next(game.rounds()):  # the first round
                options = game.legal(seat, kind)
                game.clone().policy_row(seat, kind)  # wsim.Game.policy_move's path
                game.apply(seat, kind, options, game.decide(seat, kind, options))
            game.features(0)
            game.clone().resample_hidden(0, 1)
            game.clone().play_out()
            game.results()
    elif family == "learned":
        from wsim.run.tape import record
        from wsim.run.stepgame import KernelGame

        Runner(tables, Settings(players=3, policies=("learned", "random", "heuristic"), model="shipped")).load()
        record(tables, Settings(players=3, policies=("heuristic",) * 3), 0, 1, 0.5, 0.5, 0)  # training games
        game = KernelGame(tables, players=3, seed=0, game=0, policy="learned")
        for seat, kind in next(game.rounds()):
            options = game.legal(seat, kind)
            game.apply(seat, kind, options, game.decide(seat, kind, options))
    elif family in ABOVE:
        raise ValueError(f"the {family} family sits above this layer: {ABOVE[family]} loads it")
    else:
        raise ValueError(f"unknown kernel family {family!r}")
