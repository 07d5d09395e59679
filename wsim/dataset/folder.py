"""An output folder that nothing can lose: lock, recovery, atomic files, atomic replacement.

Every command that writes a folder (`simulate`, `ladder`, `balance`, `ablate`, `survey`,
`rebalance`) goes through `OutputFolder`, which keeps these promises (docs/interfaces.md §0 and §2):

- One writer: an exclusive `flock` on DIR/.wsim-lock from the first check of the folder to the
  end. The lock file may stay behind; it is never data. A folder the command created and left
  empty (it failed before writing) is removed again.
- Only outputs: no output folder inside wsim's own package, and --overwrite never removes a
  folder in place of a file the command writes.
- Recovery first: once locked, a replacement interrupted by a crash is completed (its journal
  exists) or dropped (no journal), and wsim's own temporary files are removed.
- Files appear whole: written to `.NAME.tmp` in the same folder, fsynced, renamed.
- A replacement (`--overwrite`), and every report even into an empty folder, is staged in
  DIR/.wsim-staging/new, on DIR's own filesystem (so it works when DIR is a mount point), and
  swapped in by renames only. (A new dataset's parts go straight in: `--resume` completes them.)

The commit of a replacement, and why every crash point is recoverable:
  1. new files are written and fsynced in new/, then new/ is fsynced;
  2. the journal .wsim-staging/commit.json (old and new file names) is written atomically;
  3. old files are renamed DIR -> old/ (the old manifest first), then new files new/ -> DIR (the
     new manifest last), and DIR is fsynced;
  4. the journal is removed, then the staging folder with the old files.
A crash before 2 leaves the old files in place: recovery drops the staging folder. A crash
after 2 leaves a journal: recovery finishes 3 and 4. Where each file stands (DIR, old/, new/)
says which steps of 3 are done, so finishing is idempotent. An error during 3 in a live run is
rolled back there and then (the old files return); if even that fails, the journal stays and
the next command finishes the commit, so DIR never stays mixed.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable

from wsim import signals
from wsim.errors import WsimError
from wsim.inputfile import open_regular, read_regular

LOCK = ".wsim-lock"
NOTE_LIMIT = 4096  # bytes of a lock file's note (OutputFolder.announce) that a reader takes
STAGING = ".wsim-staging"
JOURNAL = "commit.json"
PACKAGE = Path(__file__).parents[1]  # wsim's own package folder: never an output


class DatasetError(WsimError):
    """An output or dataset folder that cannot be written or read as asked."""


def check_target(out: Path) -> str:
    """Refusals that need no lock, before a command writes to folder `out`: a path that is not a
    folder, or a folder another wsim run is writing. Returns probe(out): "dir" or "missing"."""
    kind = probe(out)
    problem = _unusable(out, kind)
    if problem:
        raise DatasetError(f"--out: {problem}")
    if kind == "dir" and lock_is_held(out):
        raise DatasetError(f"{out} is being written by another wsim run")
    return kind


def _unusable(path: Path, kind: str) -> str | None:
    """Why `path`, of probe kind `kind`, cannot be an output folder (None when it can)."""
    if kind == "other":
        return f"{path} exists and is not a folder"
    if kind not in ("dir", "missing"):
        return f"{path} cannot be used ({kind})"
    package = Path(os.path.realpath(PACKAGE))
    if Path(os.path.realpath(path)).is_relative_to(package):
        return f"{path} is inside wsim's own package ({package}); write outputs elsewhere"
    return None


def os_problem(e: OSError) -> str:
    """The readable part of an OSError: its strerror, else its text."""
    return e.strerror or str(e)


def write_durably(fd: int, data: bytes):
    """Make `data` the whole content of the file open (for writing) as `fd`, on disk (fsync)."""
    os.lseek(fd, 0, os.SEEK_SET)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def fsync_dir(path: Path):
    """Make the renames inside `path` durable (a power loss keeps them)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def probe(path: Path) -> str:
    """What `path` is, without raising: 'missing', 'dir', 'other', or what else it is (a link to
    nothing, an OS error's text)."""
    try:
        if path.is_dir():
            return "dir"
        if path.exists():
            return "other"
        return "a symbolic link to nothing" if path.is_symlink() else "missing"
    except OSError as e:  # e.g. a name too long for the filesystem
        return os_problem(e)


def lock_is_held(path: Path) -> bool:
    """Whether some process holds the wsim lock of folder `path` (read-only probe)."""
    try:
        fd = os.open(path / LOCK, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO in its place must not block
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def lock_note(path: Path) -> dict:
    """What the run holding folder `path`'s lock announced (OutputFolder.announce): {} when
    nothing was, or it does not read as a note."""
    try:
        with open_regular(path / LOCK) as f:
            doc = json.loads(f.read(NOTE_LIMIT))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def take_lock(lock: Path, busy: Path, option: str = "--out", make_folder: bool = False) -> int:
    """An exclusive flock on the file `lock` (created if missing, with its folder when
    `make_folder`); returns its descriptor. DatasetError "`busy` is being written by another
    wsim run" when another process holds it, else a DatasetError naming `option`.

    A holder may remove its lock file before it lets go (OutputFolder.release,
    wsim.dataset.outfile.held_file, wsim.agents.learn.Work): a lock then taken on the removed
    file guards nothing, so the file is opened again until the lock held is the one the path names.
    """
    while True:
        try:
            if make_folder:
                lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise DatasetError(f"{option}: cannot write to {lock.parent} ({os_problem(e)})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.samestat(os.fstat(fd), os.stat(lock)):
                return fd
        except FileNotFoundError:
            pass  # removed by the holder that let go: take the new one
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise DatasetError(f"{busy} is being written by another wsim run") from None
            raise DatasetError(f"{option}: cannot lock {lock} ({os_problem(e)})") from None
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def drop_lock(lock: Path, fd: int, remove: bool):
    """Let go of a lock from take_lock, removing its file first (while still held) if asked."""
    try:
        if remove:
            os.unlink(lock)
    except OSError:
        pass  # a lock file left behind is never data
    finally:
        os.close(fd)


def temp_name(name: str) -> str:
    """The hidden temporary name a file is written under before its rename."""
    return f".{name}.tmp"


def is_temp_of(name: str, owns: Callable[[str], bool]) -> bool:
    """Whether `name` is the temporary name of a file that `owns` claims."""
    return name.startswith(".") and name.endswith(".tmp") and owns(name[1:-4])


class OutputFolder:
    """One command's output folder, locked for the lifetime of the object (use it in `with`).

    `owns(name)` says which file names the command writes (for a dataset: part files and the
    manifest); only their temporary files are cleaned by recovery.
    """

    def __init__(self, path: Path, owns: Callable[[str], bool], option: str = "--out"):
        self.path = Path(path)
        self.owns = owns
        self.option = option
        self.staging = self.path / STAGING
        self._lock_fd = None
        self._created = []  # the folders lock() created, deepest first
        self._replacing = False

    # -- errors ---------------------------------------------------------------------------------
    def fail(self, what: str, e: OSError | None = None) -> DatasetError:
        detail = f" ({os_problem(e)})" if e is not None else ""
        return DatasetError(f"{self.option}: {what}{detail}")

    # -- lock and recovery ----------------------------------------------------------------------
    def __enter__(self) -> "OutputFolder":
        self.lock()
        return self

    def __exit__(self, *exc):
        self.release()

    def lock(self):
        """Create the folder if needed, take the writer's lock, then recover (see module doc)."""
        problem = _unusable(self.path, probe(self.path))
        if problem:
            raise self.fail(problem)
        self._created = [p for p in (self.path, *self.path.parents) if not os.path.lexists(p)]
        self._lock_fd = take_lock(self.path / LOCK, self.path, self.option, make_folder=True)
        self._clear_note()  # a note a crashed run left is not this run's
        try:
            with signals.deferred():
                self.recover()
        except BaseException:
            self.release()
            raise

    def announce(self, note: dict):
        """Write `note` (JSON, under NOTE_LIMIT bytes) into the held lock file, for readers of
        the folder while it is written: `wsim check` takes a dataset's planned games from it
        before any part exists. A note is never data: one that cannot be written is left out."""
        data = json.dumps(note).encode()
        try:
            os.ftruncate(self._lock_fd, 0)
            os.pwrite(self._lock_fd, data[:NOTE_LIMIT], 0)
        except OSError:
            pass

    def _clear_note(self):
        """Empty the held lock file of its note, if it has one (an empty file stays untouched:
        a run that writes nothing changes no file)."""
        try:
            if os.fstat(self._lock_fd).st_size > 0:
                os.ftruncate(self._lock_fd, 0)
        except OSError:
            pass

    def release(self):
        """Let go of the lock; a folder lock() created and nothing was written to is removed."""
        if self._lock_fd is None:
            return
        try:
            empty = bool(self._created) and os.listdir(self.path) == [LOCK]
        except OSError:
            empty = False
        self._clear_note()  # the lock file left behind says nothing
        drop_lock(self.path / LOCK, self._lock_fd, remove=empty)
        self._lock_fd = None
        for folder in self._created if empty else ():
            try:
                folder.rmdir()
            except OSError:
                break  # no longer empty: another run writes there now

    def recover(self):
        """Finish or drop an interrupted replacement, and remove wsim's temporary files."""
        try:
            if self.staging.exists():
                journal = self.staging / JOURNAL
                if journal.exists():
                    try:
                        plan = json.loads(read_regular(journal))
                        old, new = list(plan["old"]), list(plan["new"])
                    except (ValueError, KeyError, TypeError):
                        raise self.fail(f"{journal} is damaged: remove {self.staging} by hand after "
                                        "checking which dataset you want to keep") from None
                    self._roll_forward(old, new)
                    self._finish()
                else:
                    shutil.rmtree(self.staging)
            for p in self.path.iterdir():
                if is_temp_of(p.name, self.owns):
                    p.unlink()
        except OSError as e:
            raise self.fail(f"cannot recover {self.path} from an interrupted run", e) from None

    # -- what is there --------------------------------------------------------------------------
    def replaced(self, overwrite: bool, what: str, folders: tuple = ()) -> list:
        """Under the lock: the entries this command will replace (those `owns` claims), after
        refusing a non-empty folder without --overwrite (`what` names the output). A folder in
        place of a name the command writes as a file (only `folders` are written as folders)
        is not the command's own output: it is refused, never removed with its contents."""
        present = self.entries()
        if present and not overwrite:
            raise _not_empty(self.path, what)
        claimed = [n for n in present if self.owns(n)]
        for name in claimed:
            try:
                is_folder = name not in folders and stat.S_ISDIR(os.lstat(self.path / name).st_mode)
            except OSError as e:
                raise self.fail(f"cannot read {self.path / name}", e) from None
            if is_folder:
                raise self.fail(f"{self.path / name} is a folder, not a file wsim wrote; --overwrite replaces "
                                "only wsim's own files (move it away first)")
        return claimed

    def entries(self) -> list:
        """Names in the folder, less the lock file and the staging folder (sorted)."""
        try:
            return sorted(n for n in os.listdir(self.path) if n not in (LOCK, STAGING))
        except OSError as e:
            raise self.fail(f"cannot list {self.path}", e) from None

    # -- writing --------------------------------------------------------------------------------
    def begin_replacement(self):
        """From now on, files go to the staging folder; `commit` swaps them in."""
        try:
            (self.staging / "new").mkdir(parents=True)
            (self.staging / "old").mkdir()
        except OSError as e:
            raise self.fail(f"cannot write to {self.path}", e) from None
        self._replacing = True

    @property
    def target(self) -> Path:
        """Where `write` puts files: the staging folder during a replacement, else the folder."""
        return self.staging / "new" if self._replacing else self.path

    def write(self, name: str, data: bytes):
        """Write a whole file: a hidden temporary name, fsync, rename."""
        tmp = self.target / temp_name(name)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                write_durably(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, self.target / name)
        except OSError as e:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            raise self.fail(f"cannot write {self.path / name}", e) from None

    def sync(self):
        """Make the files written so far durable (before a manifest claims them)."""
        try:
            fsync_dir(self.target)
        except OSError as e:
            raise self.fail(f"cannot write to {self.path}", e) from None

    def commit(self, old: Iterable[str], new: Iterable[str]):
        """Swap a staged replacement in: the files `old` (in the folder) give way to `new`.

        `old` should list the manifest first and `new` should list it last, so that no instant
        shows a manifest beside a partial set of parts.
        """
        old, new = list(old), list(new)
        with signals.deferred():
            try:
                fsync_dir(self.staging / "new")
                self._write_journal(old, new)
            except OSError as e:
                raise self.fail(f"cannot write to {self.path}", e) from None
            try:
                self._roll_forward(old, new)
            except OSError as e:
                problem = self.fail(f"cannot replace the dataset in {self.path}", e)
                try:
                    self._roll_back(old, new)
                except OSError:
                    raise DatasetError(f"{problem}; the replacement is half done and the next wsim "
                                       f"command writing to {self.path} will finish it") from None
                raise DatasetError(f"{problem}; the old dataset is kept") from None
            try:
                self._finish()
            except OSError as e:
                raise self.fail(f"the new dataset is in place, but cleaning {self.staging} failed", e) from None
            self._replacing = False

    def abort(self):
        """After a failure or a signal: remove temporary files; a replacement's staging goes too.

        Whole files written directly into the folder stay (a later --resume completes them).
        """
        with signals.deferred():
            try:
                if self._replacing and (self.staging / JOURNAL).exists():
                    return  # interrupted mid-commit: only the journal's owner (recovery) may touch it
                if self._replacing:
                    shutil.rmtree(self.staging)
                    self._replacing = False
                for p in self.path.iterdir():
                    if is_temp_of(p.name, self.owns):
                        p.unlink()
            except OSError:
                pass  # recovery under the next lock removes what is left

    # -- the commit's steps (see the module docstring) ------------------------------------------
    def _write_journal(self, old: list, new: list):
        tmp = self.staging / temp_name(JOURNAL)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            write_durably(fd, json.dumps({"old": old, "new": new}).encode())
        finally:
            os.close(fd)
        os.replace(tmp, self.staging / JOURNAL)
        fsync_dir(self.staging)

    def _roll_forward(self, old: list, new: list):
        here, aside, staged = self.path, self.staging / "old", self.staging / "new"
        new_set = set(new)
        for name in old:
            # the copy in the folder is still the old one unless the new one has moved in
            if (here / name).exists() and (name not in new_set or (staged / name).exists()):
                os.replace(here / name, aside / name)
        for name in new:
            if (staged / name).exists():
                os.replace(staged / name, here / name)
        fsync_dir(here)

    def _roll_back(self, old: list, new: list):
        here, aside, staged = self.path, self.staging / "old", self.staging / "new"
        old_set = set(old)
        for name in new:
            # the copy in the folder is a new one if the old one was moved aside (or never existed)
            if ((here / name).exists() and not (staged / name).exists()
                    and (name not in old_set or (aside / name).exists())):
                os.replace(here / name, staged / name)
        for name in old:
            if (aside / name).exists():
                os.replace(aside / name, here / name)
        fsync_dir(here)
        (self.staging / JOURNAL).unlink()
        shutil.rmtree(self.staging)

    def _finish(self):
        (self.staging / JOURNAL).unlink()
        fsync_dir(self.staging)
        shutil.rmtree(self.staging)


def _not_empty(out: Path, what: str) -> DatasetError:
    return DatasetError(f"--out: {out} is not empty (use --overwrite to replace the {what} in it)")


def precheck_output(out: Path, overwrite: bool, what: str):
    """Before any work (no lock needed): refuse what check_target refuses, and a non-empty
    `out` without --overwrite; `what` names what --overwrite would replace, for the message.
    OutputFolder.replaced checks the folder again under the lock."""
    kind = check_target(out)
    if not overwrite and kind == "dir" and [n for n in os.listdir(out) if n not in (LOCK, STAGING)]:
        raise _not_empty(out, what)


def write_file_atomically(path: Path, blob: bytes):
    """A whole file or none: written durably under the project's temporary name, then renamed
    into place (a report's own files: the atlas's and `wsim editions`' options and tables)."""
    tmp = path.with_name(temp_name(path.name))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_durably(fd, blob)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def refuse_resumable(out: Path, names: list, mode: str, *, what: str, done: str, error: type):
    """The refusals of a resumable report folder (`wsim atlas`, `wsim editions`): what it played is
    in its `data/` folder, and `done` is the file written last. For mode "new", a folder holding
    other `names` (its entries but the lock and the staging area); for "resume", a non-empty one
    with no `data/`. `what` names the report in the messages, raised as `error` (the command's
    WsimError). Called before any work (no lock) and again under the lock."""
    if mode == "new" and names:
        if "data" in names and done not in names:
            raise error(f"--out: {out} holds an unfinished {what} (use --resume to complete it, or "
                        "--overwrite to replace it)")
        raise error(f"--out: {out} is not empty (use --overwrite to replace the {what} in it)")
    if mode == "resume" and names and "data" not in names:
        raise error(f"--resume: {out} holds no {what} to resume (no data/ folder), and is not empty")


def entries_before_lock(out: Path) -> list:
    """The entries of `out` but the lock and the staging area ([] when it is no folder yet), for a
    check before the lock is taken (check_target refuses what cannot be an output folder)."""
    if check_target(out) != "dir":
        return []
    return [n for n in os.listdir(out) if n not in (LOCK, STAGING)]


@contextmanager
def output_files(out: Path, owns: Callable[[str], bool], overwrite: bool, what: str):
    """Hold folder `out` for a command that writes whole files into it (`ladder`, `balance`)
    from its first check to its commit (docs/interfaces.md §0: one writer at a time). Before the block
    runs, the folder is locked and, when not empty, refused without `overwrite`; the block does
    the command's work, then calls the commit it is given, once, with the files {name: bytes}.
    The files are staged, into an empty folder too, and swapped in together once every one is
    whole (a full disk or a signal between two of them leaves the folder as it was, never half
    a report); the old files that `owns` claims give way to them then, other files are kept.
    (An invocation refused by precheck_output leaves not even a lock file.)"""
    precheck_output(out, overwrite, what)
    with OutputFolder(out, owns=owns) as folder:
        old = folder.replaced(overwrite, what)

        def commit(files: dict):
            try:
                folder.begin_replacement()
                for name, data in files.items():
                    folder.write(name, data)
                folder.sync()
                folder.commit(old, list(files))
            except BaseException:
                folder.abort()
                raise

        yield commit
