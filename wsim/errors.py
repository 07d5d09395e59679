"""The project's error base: every user or environment mistake is a `WsimError`, and the one
validation of the arguments a caller passes (the Python API, the environment, the settings the
command line shares with them).

The command line maps a WsimError (and an OSError) to `Error: <message>` with exit status 2 in
one place (`wsim.cli.app.WsimGroup`); anything else that escapes is a bug in wsim.

The argument checks (`whole_number`, `flag`, `path_value`, `text`, `one_of`, `real_number`,
`text_list`, `progress_value`, `callback`) are the only place an argument's type is looked at
(tests/test_arguments.py holds every public function to that): whole numbers are Python's or
numpy's integers (never a bool, a float or a string), flags are `bool`, paths are `str` or
`os.PathLike`. Each refusal names the argument as the caller typed it (`option`) and raises
before anything is changed.
"""

import contextvars
import math
import os
import reprlib
from numbers import Integral, Real
from pathlib import Path


class WsimError(ValueError):
    """A mistake in the user's input or environment; the message names the field and the fix."""


# How a message names a setting: "python" (`chunk_size:`, the API's default) or "cli"
# (`--chunk-size:`, set by the command line for the calls it makes through the API).
OPTION_STYLE: contextvars.ContextVar = contextvars.ContextVar("wsim_option_style", default="python")


def option(name: str) -> str:
    """A setting's name as the caller typed it: `chunk_size` from Python, `--chunk-size` on the
    command line (OPTION_STYLE)."""
    return "--" + name.replace("_", "-") if OPTION_STYLE.get() == "cli" else name


class _Brief(reprlib.Repr):
    """reprlib with message-sized limits, mappings in their own order, and no huge-int repr."""

    def __init__(self):
        super().__init__()
        self.maxstring = self.maxother = 60
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 6
        self.maxlevel = 3

    def repr_dict(self, x, level):
        # reprlib sorts the keys; repr (and the file) keep their order.
        if not x:
            return "{}"
        if level <= 0:
            return "{" + self.fillvalue + "}"
        pieces = [f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}"
                  for k, v in list(x.items())[:self.maxdict]]
        if len(x) > self.maxdict:
            pieces.append(self.fillvalue)
        return "{" + ", ".join(pieces) + "}"

    def repr_int(self, x, level):
        # repr() of a huge int is slow, or refused past 4300 digits.
        if x.bit_length() > 128:
            return f"<a whole number of about {int(x.bit_length() * 0.30103) + 1} digits>"
        return repr(x)

    # repr_str slices before it calls repr(), so it bounds bytes (YAML !!binary) as well.
    repr_bytes = reprlib.Repr.repr_str


_BRIEF = _Brief()
_MAX_BRIEF = 160


def brief(value) -> str:
    """repr(value) for short ordinary values; bounded text for long, huge or nested ones."""
    if type(value) is str and len(value) <= _BRIEF.maxstring:
        return repr(value)  # the common case (names in every message prefix), kept cheap
    text = _BRIEF.repr(value)
    # Nested lists still give 6 x 6 x 6 items: cut to what fits in one message line.
    return text if len(text) <= _MAX_BRIEF else text[:_MAX_BRIEF - 3] + "..."


def is_whole(value, lo: int, hi: int) -> bool:
    """Whether value is a whole number in lo..hi: Python's or numpy's integers, not a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool) and lo <= value <= hi


def whole_number(value, name: str, lo: int, hi: int, error=WsimError) -> int:
    """value as an int in lo..hi, else `error` (a WsimError) naming the argument as the caller
    typed it."""
    if not is_whole(value, lo, hi):
        raise error(f"{option(name)}: must be a whole number from {lo:,} to {hi:,}, got {brief(value)}")
    return int(value)


def optional_whole(value, name: str, lo: int, hi: int, error=WsimError) -> int | None:
    """None, or value as an int in lo..hi (whole_number)."""
    return None if value is None else whole_number(value, name, lo, hi, error)


def flag(value, name: str, error=WsimError) -> bool:
    """value when it is True or False: a string ("no", "False"), a number or None is refused, as
    reading it by truthiness would turn "no" into yes."""
    if type(value) is not bool:
        raise error(f"{option(name)}: must be True or False, got {brief(value)}")
    return value


def path_value(value, name: str, what: str, error=WsimError) -> Path:
    """value as a Path when it names `what` ("a folder", "a card data file"): a non-empty str or
    an os.PathLike giving one (bytes are refused: messages and metadata are text)."""
    text_form = os.fspath(value) if isinstance(value, os.PathLike) else value
    if type(text_form) is not str or text_form == "":
        raise error(f"{option(name)}: must name {what}, got {brief(value)}")
    return Path(text_form)


def optional_path(value, name: str, what: str, error=WsimError) -> Path | None:
    """None, or value as a Path (path_value)."""
    return None if value is None else path_value(value, name, what, error)


def count_list(value, name: str = "players") -> list:
    """A --players value as a list: a whole number, a list or tuple of them, or a text "3,4,5"
    (the entries as given: each caller holds them to its own range)."""
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",")]
        if not all(p.isdigit() for p in parts):
            raise WsimError(f"{option(name)}: player counts such as 4 or 3,4,5, got {brief(value)}")
        return [int(p) for p in parts]
    return list(value) if isinstance(value, (list, tuple)) else [value]


def text(value, name: str, what: str, error=WsimError) -> str:
    """value when it is a str; `what` says what it should hold ("a policy name")."""
    if not isinstance(value, str):
        raise error(f"{option(name)}: must be {what}, got {brief(value)}")
    return value


def one_of(value, name: str, choices, error=WsimError) -> str:
    """value when it is one of the strings `choices`."""
    if not isinstance(value, str) or value not in choices:
        raise error(f"{option(name)}: must be one of {', '.join(choices)}, got {brief(value)}")
    return value


def real_number(value, name: str, lo: float, hi: float, error=WsimError) -> float:
    """value as a float strictly between lo and hi: Python's or numpy's real numbers (not a bool,
    not NaN)."""
    if (not isinstance(value, Real) or isinstance(value, bool) or not math.isfinite(value)
            or not lo < value < hi):
        raise error(f"{option(name)}: must be a number above {lo:g} and below {hi:g}, got {brief(value)}")
    return float(value)


def text_list(value, name: str, what: str, *, empty: bool = False, error=WsimError) -> list:
    """value as a list of str: a list or tuple of them (a single str is not a list of texts;
    an empty list only with empty=True). `what` shows the form ("'NAME=POLICIES' texts")."""
    if (not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value)
            or (not value and not empty)):
        raise error(f"{option(name)}: must be a {'' if empty else 'non-empty '}list of {what}, got {brief(value)}")
    return list(value)


def callback(value, name: str, error=WsimError):
    """None, or value when it can be called."""
    if value is not None and not callable(value):
        raise error(f"{option(name)}: must be a function (or None), got {brief(value)}")
    return value


def progress_value(value, name: str = "progress", error=WsimError):
    """A run's progress= argument: True (drawn on stderr), False (none) or a function that
    receives each update."""
    if type(value) is not bool and not callable(value):
        raise error(f"{option(name)}: must be True, False or a function, got {brief(value)}")
    return value
