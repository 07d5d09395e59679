"""A signal that reaches the command line dressed as another error still ends the command with
the contract's last line and exit status (docs/interfaces.md §0; finding F15 of the round-5
findings): Python 3.11 wraps an exception raised inside `__set_name__` (a dataclass made during a
lazy import) in a RuntimeError, and numba reports a kernel load it was interrupted in as its own
RuntimeError after llvmlite swallowed the KeyboardInterrupt. An EOFError, which click calls an
"Abort" like Ctrl-C, is no interrupt."""

from __future__ import annotations

import ctypes
import os
import signal

import pytest

from wsim import signals
from wsim.cli import entry

pytestmark = pytest.mark.system  # the console entry point's signal handlers, in this process


@pytest.fixture
def handlers():
    """The process's signal handlers, put back after the test."""
    saved = {s: signal.getsignal(s) for s in signals.HANDLED}
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)
    signals.swallowed()


def _signalled_inside_set_name(*_args, **_kwargs):
    """A class made while SIGTERM arrives: the handler's Terminated is raised in __set_name__."""

    class Field:
        def __set_name__(self, owner, name):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100_000):  # the handler runs in here
                pass

    type("Tables", (), {"lookup": Field()})
    raise AssertionError("the signal was not delivered inside __set_name__")


def _swallowed_then_failed(*_args, **_kwargs):
    """Ctrl-C inside a C callback (its exception ignored), then the library's own error."""

    @ctypes.CFUNCTYPE(None)
    def callback():
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100_000):
            pass

    callback()
    raise RuntimeError("no compiled object yet for <Library 'play_out'>")


@pytest.mark.parametrize("stand_in, status, last", [
    (_signalled_inside_set_name, 143, "terminated by SIGTERM"),
    (_swallowed_then_failed, 130, "interrupted"),
])
def test_a_signal_dressed_as_another_error_ends_with_its_status(monkeypatch, capfd, handlers, stand_in, status,
                                                              last):
    monkeypatch.setattr("wsim.tables.load", stand_in)
    assert entry.main(["cards"]) == status
    lines = [ln for ln in capfd.readouterr().err.splitlines() if ln.strip()]
    assert lines[-1] == last and not any("Traceback" in ln for ln in lines)


def test_an_error_without_a_signal_is_still_a_bug(monkeypatch, handlers):
    def fails(*_args, **_kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("wsim.tables.load", fails)
    with pytest.raises(RuntimeError, match="a bug"):
        entry.main(["cards"])


def test_an_eof_error_is_not_an_interrupt(monkeypatch, capfd, handlers):
    """click turns an EOFError into its Ctrl-C `Abort`: it was reported as "interrupted", 130
    (finding F11's empty model file)."""
    def fails(*_args, **_kwargs):
        raise EOFError("No data left in file")

    monkeypatch.setattr("wsim.tables.load", fails)
    with pytest.raises(EOFError):
        entry.main(["cards"])
    assert "interrupted" not in capfd.readouterr().err
