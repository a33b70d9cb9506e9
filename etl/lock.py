"""One ETL run per data directory at a time: an exclusive ``flock`` on ``<data_dir>/.etl.lock``.

The kernel releases a ``flock`` when its holder dies (even by SIGKILL), so a killed run never
leaves a stale lock behind. The holder's pid is written into the file for the error message.
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from schema.catalog import wait_note
from schema.errors import ParameterError, UserError

LOCK_FILE = ".etl.lock"


class LockHeldError(ParameterError):
    """Another ETL run holds the lock of this data directory."""


@contextmanager
def etl_lock(data_dir: str | os.PathLike, wait: bool = False) -> Iterator[Path]:
    """Hold the data directory's ETL lock for the duration of the block.

    Args:
        data_dir: the data directory (must exist and be writable).
        wait: block until the lock is free instead of failing.

    Raises:
        LockHeldError: ``wait`` is false and another process holds the lock.
    """
    path = Path(data_dir) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise UserError(f"cannot open the lock file {path}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            holder = _read_pid(fd)
            who = f" (pid {holder})" if holder else ""
            raise LockHeldError(f"another etl run holds {path}{who}; wait for it to finish "
                                f"or re-run with `wait`") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _read_pid(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode().strip()
    except OSError:
        return ""


@contextmanager
def file_lock(path: str | os.PathLike, note: str | None = None) -> Iterator[Path]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the block, waiting
    for another holder: what serialises two writers of the same named build. ``note`` is
    printed on stderr once the wait has lasted ``schema.catalog.wait_note()`` seconds (a
    writer that sits still says why, a moment's wait says nothing)."""
    fd = _open_lock(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            timer = None
            if note:
                timer = threading.Timer(wait_note(), print, (note,),
                                        {"file": sys.stderr, "flush": True})
                timer.daemon = True
                timer.start()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            finally:
                if timer is not None:
                    timer.cancel()
        yield Path(path)
    finally:
        os.close(fd)


@contextmanager
def try_file_lock(path: str | os.PathLike) -> Iterator[bool]:
    """:func:`file_lock` without waiting: yields whether this process holds the lock for the
    block (False: another process holds it, and nothing is held)."""
    fd = _open_lock(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
        else:
            yield True
    finally:
        os.close(fd)


def _open_lock(path: str | os.PathLike) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
