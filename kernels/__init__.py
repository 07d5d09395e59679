"""numba kernels (installed as wsim.kernels): integer arrays in, integer arrays out.

Every kernel takes the compiled tables as arguments (never module globals, which numba's
cache would freeze); see wsim.kernels.layout for their layout.

numba's on-disk cache checks only the timestamp of the file that holds a function, not of the
files its callees and constants come from: an edit to layout.py would leave stale compiled
offsets in every other kernel's cache. So the cache lives in a folder named after a hash of all
kernel sources, wsim/codes.py and wsim/effects.py (key_sources; under NUMBA_CACHE_DIR when that is set, else this package's
__pycache__): any edit starts a fresh cache, and `make clean` removes old ones.

Reference counting: numba's runtime (NRT) counts the references to an array with atomic
instructions wherever an array variable is copied, which includes the parameters of every
function inlined at numba's level and the arguments of calls LLVM does not inline. Kernels that
allocate nothing are compiled with `_nrt=False`, which removes the counting from them. Only the
rollout search (its scratch arrays: rollout.take_search_decision, decide_rollout, _base_of)
and the Python-facing helpers that allocate keep the runtime, and say so with `_nrt=True`.
Measured (5 players, one thread, best of five runs of 4,000 games): random 12,679 -> 18,706
games/s, greedy 7,151 -> 11,423, heuristic 6,486 -> 10,075; the games are the same.

Compile time (a cold start compiles every kernel a run reaches; tests/test_compile.py pins one
specialisation per function). numba compiles a function once per tuple of argument types, and
it types a constant argument as a literal (`f(x, 0)` and `f(x, y)` are two compiles), an int32
and an int64 as two types, and a call as soon as it first sees it, before a variable assigned
in a loop has widened from its literal start. So:
- small helpers are `inline="always"` (numba inlines them before typing: no compile of their
  own, and a literal argument prunes their branches);
- a larger function is called with the same types everywhere: entity ids and seat indices
  reach it as int64 where callers differ (`np.int64(...)`), and scalars carried through a
  loop start as `np.int64(0)`, not `0`;
- each function that allocates nothing says `_nrt=False` itself, so that it is compiled with
  the same flags whoever calls it first.
The two policy families and the threads are in kernels/game.py.
"""

import hashlib
from pathlib import Path

import numba


def sources_key(paths) -> str:
    """A short hash of the names and contents of `paths` (the kernel sources)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def key_sources() -> list:
    """The files the compiled kernels are made from: every kernel source, and the two front
    modules kernels import (their constants are baked into the compiled code)."""
    from wsim import codes, effects

    here = Path(__file__).resolve().parent
    return sorted(here.glob("*.py")) + [Path(codes.__file__).resolve(), Path(effects.__file__).resolve()]


def _cache_dir() -> str:
    here = Path(__file__).resolve().parent
    key = sources_key(key_sources())
    base = Path(numba.config.CACHE_DIR) if numba.config.CACHE_DIR else here / "__pycache__"
    return str(base / f"wsim-{key}")


def _load_numba_registries_without_scipy():
    """Import numba's array-function registry with scipy's BLAS hidden from it.

    numba.np.arraymath checks at import whether BLAS exists by importing scipy.linalg (60-130
    ms of every start where scipy is installed, as with wsim's analysis extra), only to pick how
    np.correlate and np.convolve multiply floats. The kernels use neither, and a warm start has
    a budget of a second; with the module hidden, numba takes its plain loop for those two.
    A process that imported scipy.linalg already keeps numba's normal check.
    """
    import sys

    name = "scipy.linalg.cython_blas"
    hide = name not in sys.modules
    if hide:
        sys.modules[name] = None  # an import of it raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if hide and sys.modules.get(name, 0) is None:
            del sys.modules[name]


_load_numba_registries_without_scipy()
# Before any kernel module is imported: numba picks the cache folder when a kernel is decorated.
numba.config.CACHE_DIR = _cache_dir()
