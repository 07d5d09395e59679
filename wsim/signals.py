"""Signals as exceptions, and critical sections that finish before a signal is acted on.

SIGTERM and SIGHUP (sent by `timeout`, `docker stop`, Slurm, CI cancellation, a closed
terminal) raise `Terminated`, so that the same clean-up as for Ctrl-C (KeyboardInterrupt) runs;
the command line then exits 128 + the signal number (143, 129; 130 for Ctrl-C).

A signal that arrives inside `deferred()` (a commit of renames, a roll-back) is held until the
section ends: a half-done commit is recoverable, but a finished one is simpler for everybody.

An exception raised by the handler can be swallowed when the signal lands in Python code that C
calls back into (llvmlite's object-cache callback while numba loads the kernels ignores it).
So every signal is also remembered, and `check()`, called after each kernel call and when the
command ends, raises it again if it never ended the command. A signal's exception can also reach
the command line dressed as another error: Python wraps an exception raised inside a class's
`__set_name__` (a dataclass made during a lazy import) in a RuntimeError, and numba reports a load
it was interrupted in as its own RuntimeError; `behind()` finds the signal under such an error.
Python would also print a swallowed exception as "Exception ignored ..." with a traceback;
`install()` keeps that quiet for these exceptions alone (sys.unraisablehook), since the signal is
acted on anyway.
This module imports nothing heavy: the console entry point installs it before anything else.
"""

from __future__ import annotations

import signal
import sys
from contextlib import contextmanager

HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised in the main thread (a BaseException, like KeyboardInterrupt)."""

    def __init__(self, signum: int):
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


_depth = 0
_pending: list = []  # signals held by deferred()
_received: list = []  # signals raised by the handler, in case one was swallowed
_held = False  # install(held=True) is in force


def _raise_for(signum: int):
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def _handler(signum, frame):
    if _depth:
        _pending.append(signum)
        return
    _received.append(signum)
    _raise_for(signum)


def check():
    """Raise a signal whose exception was swallowed on its way (module docstring)."""
    if _received:
        signum = _received[0]
        _received.clear()
        _raise_for(signum)


def swallowed():
    """The signal number of a swallowed signal, or None (cleared)."""
    signum = _received[0] if _received else None
    _received.clear()
    return signum


def behind(error: BaseException):
    """The signal number an exception stands for, or None: a KeyboardInterrupt or Terminated in
    its chain of causes and contexts, else a signal whose exception was swallowed on the way
    (module docstring; cleared)."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, KeyboardInterrupt):
            swallowed()
            return signal.SIGINT
        if isinstance(error, Terminated):
            swallowed()
            return error.signum
        error = error.__cause__ or error.__context__
    return swallowed()


def stop_text(signum: int) -> str:
    """The last line of a command a signal ended: "interrupted" or "terminated by SIGTERM"."""
    return "interrupted" if signum == signal.SIGINT else f"terminated by {signal.Signals(signum).name}"


_other_unraisable = sys.unraisablehook  # the hook install() found, for every other exception


def _quiet_unraisable(unraisable):
    """sys.unraisablehook: a signal's exception swallowed by C (module docstring) is not printed."""
    if isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
        return
    _other_unraisable(unraisable)


def install(held: bool = False):
    """Route SIGINT, SIGTERM and SIGHUP through `_handler` (main thread only).

    held: signals wait (as in `deferred()`) until `release()`: the console script installs its
    handlers when its module is imported, and releases them inside the `try` that maps them to
    exit statuses, so that no instant is left where a signal would escape as a traceback.
    """
    global _depth, _held, _other_unraisable
    for signum in HANDLED:
        signal.signal(signum, _handler)
    if sys.unraisablehook is not _quiet_unraisable:
        _other_unraisable = sys.unraisablehook
        sys.unraisablehook = _quiet_unraisable
    if held and not _held:
        _held = True
        _depth += 1


def release():
    """End the hold of `install(held=True)`: a signal that came meanwhile is raised now."""
    global _depth, _held
    if not _held:
        return
    _held = False
    _depth -= 1
    if not _depth and _pending:
        signum = _pending[0]
        _pending.clear()
        _raise_for(signum)


@contextmanager
def deferred():
    """A critical section: signals received inside it are acted on when it ends.

    Only with the handlers of `install()` in place (the console entry point); elsewhere (tests
    calling the click group in-process) Python's default Ctrl-C handling applies.
    """
    global _depth
    _depth += 1
    try:
        yield
    except BaseException:
        _depth -= 1
        if not _depth:
            _pending.clear()  # an exception is already on its way out: it ends the command
        raise
    _depth -= 1
    if not _depth and _pending:
        signum = _pending[0]
        _pending.clear()
        _raise_for(signum)
