"""Opening input files without blocking: every input file must be a regular file (docs/interfaces.md §0).

Opening a FIFO for reading waits for a writer, and Arrow retries that open when a signal
interrupts it, so a FIFO named like a part would hang wsim beyond even SIGTERM. Every input
(data, scenario and weights files, a dataset's parts, manifest and journal, model files and
`wsim learn`'s work files) is therefore opened here: without waiting (O_NONBLOCK), checked with
fstat to be a regular file, and only then read, from that same descriptor, so that nothing can
swap the file between the check and the read. A reader may bound what it takes (read_regular's
limit): a file larger than any it expects is refused unread.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)

# O_NOCTTY: opening a terminal device never makes it the controlling terminal. Neither flag
# exists on Windows, where FIFOs and terminals cannot be opened this way anyway.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


class NotRegularFile(OSError):
    """An input path that names a directory, FIFO, device or socket instead of a regular file.
    An OSError, so that every reader's handling of unreadable files covers it; its text is
    "a FIFO (named pipe), not a regular file" (no file name: callers name the file)."""

    def __init__(self, kind: str, filename=None):
        super().__init__(None, f"{kind}, not a regular file", filename)
        self.kind = kind

    def __str__(self) -> str:
        return self.strerror


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """`path` open for reading (binary, buffered), once it is known to be a regular file;
    NotRegularFile otherwise, OSError when it cannot be opened."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _NOT_REGULAR if test(mode)), "a special file")
            raise NotRegularFile(kind, os.fspath(path))
        os.set_blocking(fd, True)  # a regular file: reads behave as usual
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class TooLarge(OSError):
    """A regular input file holding more bytes than its reader takes. An OSError, as
    NotRegularFile; its text is "larger than 1,048,576 bytes" (callers name the file)."""

    def __init__(self, limit: int, filename=None):
        super().__init__(None, f"larger than {limit:,} bytes", filename)
        self.limit = limit

    def __str__(self) -> str:
        return self.strerror


def read_regular(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The whole content of regular file `path` (see open_regular); with `limit`, TooLarge when
    it holds more than `limit` bytes (never more than limit + 1 are read: a file growing
    meanwhile, or one of /proc that reports a size of 0, is bounded too)."""
    with open_regular(path) as f:
        if limit is None:
            return f.read()
        if os.fstat(f.fileno()).st_size > limit:
            raise TooLarge(limit, os.fspath(path))
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise TooLarge(limit, os.fspath(path))
    return raw
