"""A single output file (`wsim tune`'s weights, `wsim learn`'s model, the PPO example's weights),
kept to the rules of the output folders (docs/interfaces.md §0):

- Checked before any work: `--out` must name a file (not end in "/") in a folder that exists, and
  must not be something other than a regular file (a folder, a FIFO, a device: never replaced,
  even with --overwrite); an existing file needs --overwrite.
- One writer: a hidden lock .NAME.wsim-lock beside the file, held from the first check under it to
  the commit, then removed.
- Room first: the file's temporary name is created and an upper bound of its size reserved before
  the work, so that a read-only or full filesystem is refused before any game.
- Whole: the content goes to .NAME.tmp, fsynced, then takes the name (without --overwrite by a
  link, which never replaces a file something else put there meanwhile); a failure or a signal
  leaves no temporary file.
"""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager
from pathlib import Path

from wsim.dataset.folder import drop_lock, os_problem, take_lock, write_durably
from wsim.errors import WsimError


class OutFileError(WsimError):
    """An output file that cannot be written as asked; the message names --out and the fix."""


def check_out(out: str, what: str) -> Path:
    """The target of `--out` (as typed: a trailing "/" names a folder), refused before any lock
    when it cannot be a file: a name of a folder, a missing folder, something that is not a
    regular file. `what` names the file in messages ("the model file")."""
    if out.endswith(("/", os.sep)):
        raise OutFileError(f"--out: {out} names a folder; give {what}'s name")
    target = Path(out)
    if not target.parent.is_dir():
        why = "exists and is not a folder" if os.path.lexists(target.parent) else "does not exist (create it first)"
        raise OutFileError(f"--out: the folder {target.parent} {why}")
    _refuse_other_kind(target)
    return target


def _refuse_other_kind(target: Path):
    if target.exists() and not target.is_file():
        raise OutFileError(f"--out: {target} is not a regular file")


def refuse_present(target: Path, overwrite: bool):
    """Refuse a target that is not a regular file, or that exists (a symbolic link counts, even
    one to nothing) without overwrite."""
    if not os.path.lexists(target):
        return
    _refuse_other_kind(target)
    if not overwrite:
        raise OutFileError(f"--out: {target} exists (use --overwrite to replace it)")


@contextmanager
def held_file(target: Path, option: str = "--out"):
    """Hold the writer's lock of a single output file for the block: a hidden .NAME.wsim-lock
    beside it, removed at the end. Its folder must exist."""
    lock = target.parent / f".{target.name}.wsim-lock"
    fd = take_lock(lock, target, option)
    try:
        yield
    finally:
        drop_lock(lock, fd, remove=True)


@contextmanager
def out_file(out: str, overwrite: bool, room: int, what: str):
    """`--out` held for the block, checked (module docstring) and `room` bytes reserved before
    the block runs. Yields write(data: bytes), which the block calls once, at its end: the bytes
    become the file. The block's work happens between the checks and the write, so a refusal
    costs nothing; an error or a signal in the block leaves the target as it was."""
    target = check_out(out, what)
    with held_file(target):
        refuse_present(target, overwrite)
        tmp = target.parent / f".{target.name}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as e:
            raise OutFileError(f"--out: cannot write to {target.parent} ({os_problem(e)})") from None
        try:
            try:
                if hasattr(os, "posix_fallocate"):  # not on macOS
                    os.posix_fallocate(fd, 0, room)
            except OSError as e:
                if e.errno not in (errno.EOPNOTSUPP, errno.EINVAL):  # some filesystems cannot reserve
                    raise OutFileError(f"--out: cannot write to {target.parent} ({os_problem(e)})") from None

            def write(data: bytes):
                _commit(fd, tmp, target, data, overwrite)

            yield write
        finally:
            os.close(fd)
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass


def _commit(fd: int, tmp: Path, target: Path, data: bytes, overwrite: bool):
    try:
        write_durably(fd, data)
        if overwrite:
            os.replace(tmp, target)
        else:
            os.link(tmp, target)
    except FileExistsError:
        raise OutFileError(f"--out: {target} appeared meanwhile (use --overwrite to replace it)") from None
    except OSError as e:
        raise OutFileError(f"cannot write {target} ({os_problem(e)})") from None
