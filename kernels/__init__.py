"""numba kernels (installed as wsim.kernels): integer arrays in, integer arrays out.

Every kernel takes the compiled tables as arguments (never module globals, which numba's
cache would freeze); see wsim.kernels.layout for their layout.

numba's on-disk cache checks only the timestamp of the file that holds a function, not of the
files its callees and constants come from: an edit to layout.py would leave stale compiled
offsets in every other kernel's cache. So the cache lives in a folder named after a hash of all
kernel sources and wsim/codes.py (under NUMBA_CACHE_DIR when that is set, else this package's
__pycache__): any edit starts a fresh cache, and `make clean` removes old ones.

Reference counting: numba's runtime (NRT) counts the references to an array with atomic
instructions wherever an array variable is copied, which includes the parameters of every
function inlined at numba's level and the arguments of calls LLVM does not inline. Kernels that
allocate nothing are compiled with `_nrt=False`, which removes the counting from them and from
every function they call (numba compiles a callee with its caller's flags, so an allocation
anywhere below such a kernel is a compile error, never a leak). Only run_batch (each block's
state), the rollout search (its scratch arrays) and the Python-facing helpers keep the runtime;
game.play_game hands every decision but a rollout search to take_decision for that reason.
Measured (5 players, one thread, best of five runs of 4,000 games): random 12,679 -> 18,706
games/s, greedy 7,151 -> 11,423, heuristic 6,486 -> 10,075; the games are the same.
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


def _cache_dir() -> str:
    from wsim import codes

    here = Path(__file__).resolve().parent
    key = sources_key(sorted(here.glob("*.py")) + [Path(codes.__file__).resolve()])
    base = Path(numba.config.CACHE_DIR) if numba.config.CACHE_DIR else here / "__pycache__"
    return str(base / f"wsim-{key}")


# Before any kernel module is imported: numba picks the cache folder when a kernel is decorated.
numba.config.CACHE_DIR = _cache_dir()
