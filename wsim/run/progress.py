"""Live progress of the long runs (simulate, survey, rebalance, ladder, ablate, tune, bench).

One `Tracker` per run counts what was played and shows it in one of three ways, chosen by the
caller's `progress` value (the command line passes True, or False with --quiet; the Python API
passes what its caller gave, checked by wsim.errors.progress_value):

- True, stderr a terminal: a bar drawn by tqdm (games done, rate, time left, the step of a
  search), imported only when a bar is drawn, so that a start stays light;
- True, stderr not a terminal (a log, CI, a script's captured stderr): one plain line every
  LINE_SECONDS (a minute) at most, none before the first interval has passed, so that a short
  run leaves its log as it was;
- a function: called with an `Update` at each kernel call (about twice a second) and at each
  new step;
- False: nothing.

The games are counted as they come back from the kernels (wsim.run.runner's play calls), so the
count is exact; `total` is what the run plays at most (a search that succeeds early stops early,
and its bar then ends at what it played).
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass

LINE_SECONDS = 60.0  # the plain lines' interval when stderr is not a terminal
LINE_SECONDS_ENV = "WSIM_PROGRESS_SECONDS"  # overrides it (tests; a log that wants more or fewer lines)


@dataclass(frozen=True)
class Update:
    """What a `progress` function receives: `done` of at most `total` units (`unit`, "games"
    unless said otherwise) played, at `rate` units a second since the run started,
    `seconds_left` at that rate (None while nothing is known), the search's `step` ("" for a
    run without steps) and the run's `label` (a population's name, "baseline", "" alone)."""

    done: int
    total: int | None
    rate: float
    seconds_left: float | None
    step: str = ""
    unit: str = "games"
    label: str = ""

    def as_dict(self) -> dict:
        """The fields as a dict (for a log or JSON)."""
        return {"done": self.done, "total": self.total, "rate": self.rate, "seconds_left": self.seconds_left,
                "step": self.step, "unit": self.unit, "label": self.label}


def line_seconds() -> float:
    """The plain lines' interval: LINE_SECONDS, or the environment's WSIM_PROGRESS_SECONDS."""
    text = os.environ.get(LINE_SECONDS_ENV, "")
    try:
        value = float(text)
    except ValueError:
        return LINE_SECONDS
    return value if math.isfinite(value) and value >= 0 else LINE_SECONDS


def duration(seconds: float) -> str:
    """A short duration: 42 s, 3 min 5 s, 2 h 10 min."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


class Tracker:
    """The progress of one run (module docstring). Use as a context manager, or call close()."""

    def __init__(self, progress, total: int | None, *, label: str = "", unit: str = "games", step: str = ""):
        self.total = total
        self.done = 0
        self.label, self.unit, self._step = label, unit, step
        self._started = time.perf_counter()
        self._call = progress if callable(progress) else None
        self._mode = "call" if self._call else "off" if progress is not True else (
            "bar" if _is_terminal(sys.stderr) else "lines")
        self._bar = None
        self._last_line = self._started
        self._interval = line_seconds()
        if self._mode == "bar":
            self._bar = _new_bar(total, label, unit)
            if step:
                self._bar.set_postfix_str(step)

    @property
    def drawn(self) -> bool:
        """Whether a bar is drawn on the terminal (lines above it go through note and echo)."""
        return self._bar is not None

    @property
    def shown(self) -> bool:
        """Whether this run shows progress on stderr (a bar or the plain lines)."""
        return self._mode in ("bar", "lines")

    def update(self) -> Update:
        """The run's state now."""
        elapsed = max(time.perf_counter() - self._started, 1e-9)
        rate = self.done / elapsed
        left = None
        if self.total is not None and rate > 0:
            left = max(0, self.total - self.done) / rate
        return Update(self.done, self.total, rate, left, self._step, self.unit, self.label)

    def advance(self, count: int):
        """`count` more units played."""
        self.done += count
        if self._bar is not None:
            self._bar.update(count)
        elif self._mode == "lines":
            now = time.perf_counter()
            if now - self._last_line >= self._interval:
                self._last_line = now
                sys.stderr.write(self.line() + "\n")
                sys.stderr.flush()
        elif self._call is not None:
            self._call(self.update())

    def step(self, text: str):
        """The search's step is now `text` (shown beside the count)."""
        self._step = text
        if self._bar is not None:
            self._bar.set_postfix_str(text)
        elif self._call is not None:
            self._call(self.update())

    def add_total(self, count: int):
        """The run plays `count` more units than said at the start (or fewer, if negative)."""
        self.total = (self.total or 0) + count
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def note(self, text: str):
        """A line above the bar (a search's step and what it found), on a terminal only."""
        if self._bar is not None:
            self._bar.write(text, file=sys.stderr)

    def echo(self, text: str):
        """A line of the command's output (stdout), written above the bar when one is drawn."""
        if self._bar is not None:
            self._bar.write(text, file=sys.stdout)
        else:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    def line(self) -> str:
        """The plain progress line (stderr not a terminal)."""
        u = self.update()
        head = f"{u.label}: " if u.label else ""
        if u.total:
            count = f"{u.done:,} / {u.total:,} {u.unit} ({100 * u.done / u.total:.0f}%)"
        else:
            count = f"{u.done:,} {u.unit}"
        left = f", about {duration(u.seconds_left)} left" if u.seconds_left is not None else ""
        step = f"; {u.step}" if u.step else ""
        return f"  {head}{count}, {u.rate:,.0f} {u.unit}/s{left}{step}"

    def close(self, complete: bool = True):
        """End the run's progress; complete: the run ended normally (a bar then shows what it
        played as its whole, a search that stopped early included)."""
        if self._bar is not None:
            if complete and self._bar.total != self.done:
                self._bar.total = self.done
                self._bar.refresh()
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Tracker:
        return self

    def __exit__(self, kind, value, traceback):
        self.close(complete=kind is None)


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def _new_bar(total, label: str, unit: str):
    """A tqdm bar on stderr (tqdm imported here: only a terminal run pays for it)."""
    from tqdm import tqdm

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
        known = size.columns > 0 and size.lines > 0
    except (AttributeError, OSError, ValueError):
        known = False
    # a terminal that reports no size (a fresh pseudo-terminal) would get no bar at all from tqdm
    width = {"dynamic_ncols": True} if known else {"ncols": 100, "nrows": 24}
    return tqdm(total=total, desc=label or None, unit=f" {unit}", unit_scale=False, file=sys.stderr,
                mininterval=0.5, smoothing=0.2, leave=True, **width)


def start(progress, total: int | None, *, label: str = "", unit: str = "games", step: str = "") -> Tracker:
    """A Tracker for a run of `total` units with `progress` True, False or a function."""
    return Tracker(progress, total, label=label, unit=unit, step=step)
