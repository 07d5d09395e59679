"""The project's error base: every user or environment mistake is a `WsimError`.

The command line maps a WsimError (and an OSError) to `Error: <message>` with exit status 2 in
one place (`wsim.cli.app.WsimGroup`); anything else that escapes is a bug in wsim.
"""

import contextvars
import reprlib
from numbers import Integral


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


def whole_number(value, name: str, lo: int, hi: int) -> int:
    """value as an int in lo..hi, else a WsimError naming the argument as the caller typed it."""
    if not is_whole(value, lo, hi):
        raise WsimError(f"{option(name)}: expected a whole number from {lo:,} to {hi:,}, got {brief(value)}")
    return int(value)
