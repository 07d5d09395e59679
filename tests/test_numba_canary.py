"""A canary for numba's private `_nrt=False` flag (kernels/__init__.py): the kernels that
allocate nothing are compiled without numba's reference-counting runtime, which makes the hot
loop faster. The flag is not public API; if a numba release drops or renames it, these tests
say so before the kernels silently run with the runtime again (or fail to compile)."""

import inspect

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError


def test_numba_still_compiles_without_its_runtime_when_asked():
    @njit(_nrt=False)
    def allocates(n):
        return np.zeros(n).sum()

    @njit(_nrt=False)
    def reads(a):
        return a.sum()

    @njit
    def allocates_with_runtime(n):
        return np.zeros(n).sum()

    # without the runtime an allocation has no implementation: the flag is honoured
    with pytest.raises(TypingError):
        allocates(3)
    assert reads(np.ones(3)) == 3.0
    assert allocates_with_runtime(3) == 0.0


def test_the_hot_kernels_declare_it():
    from wsim.kernels import decide, game, trade, turn

    hot = [game.play_games, decide.take_decision, turn.resolve, turn.legal_moves, trade._solve]
    for f in hot:
        assert f.targetoptions.get("_nrt") is False, f.py_func.__qualname__
    # and every kernel says which it is: with the runtime, without it, or inlined into its callers
    import importlib
    from pathlib import Path

    import wsim.kernels

    for path in sorted(Path(wsim.kernels.__file__).parent.glob("*.py")):
        module = importlib.import_module(f"wsim.kernels.{path.stem}")
        for name, f in inspect.getmembers(module, lambda x: hasattr(x, "targetoptions")):
            if f.py_func.__module__ == module.__name__:
                options = f.targetoptions
                assert "_nrt" in options or options.get("inline") == "always", f"{path.stem}.{name}"
