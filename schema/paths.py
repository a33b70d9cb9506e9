"""Where data lives: the data directory every library function is given (``data_dir``); the
command line resolves it once (``cli.py``: ``--data-dir``, else ``$POKER_DATA_DIR``, else
``./data``) and passes it on. Nothing here reads the environment."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from schema.errors import ParameterError

def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The data directory ``explicit`` (None or empty: ``./data``), absolute (against the
    working directory now), so that nothing resolves it twice."""
    return Path(explicit or "data").expanduser().absolute()


def check_dir(path: str | os.PathLike, what: str, writable: bool = False) -> Path:
    """Refuse a directory to be used (created if missing) that is a file or lies under one,
    or, with ``writable``, whose nearest existing ancestor cannot be written; returns it
    absolute. ``what`` names it in the message, e.g. "data directory", or "`report`" (a
    parameter, which the command line names by its option: ``ParameterError``).

    Raises:
        ParameterError: ``path`` or one of its parents exists and is not a directory (or is not
            writable).
    """
    path = Path(path).expanduser().absolute()
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                raise ParameterError(f"{what} {path} is not a directory"
                                + (f" ({p} is a file)" if p != path else ""))
            if writable and not _can_write_in(p):
                raise ParameterError(f"{what} {path}: {p} is not writable")
            break
    return path


def _can_write_in(folder: Path) -> bool:
    """Can a file be made in ``folder``? Asked of the file system itself: ``os.access`` says
    yes to root everywhere, also where nothing can be created (/proc, a read-only mount)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def output_file(path: str | os.PathLike, what: str, default_name: str,
                suffix: str | None = None) -> Path:
    """Where a command writes one output file, checked before any work is done: an existing
    directory means ``default_name`` inside it; missing parent directories are created when
    the file is written (as every command's output directories are); a parent that is a file
    or cannot be written, or a wrong ``suffix``, is refused.

    Raises:
        ParameterError: as :func:`check_dir` for the parent, or a wrong suffix.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        path = path / default_name
    if suffix and path.suffix.lower() != suffix:
        raise ParameterError(f"{what} must name a {suffix} file, got {str(path)!r}")
    check_dir(path.parent, what, writable=True)
    return path.absolute()


def check_data_dir(path: str | os.PathLike) -> None:
    """Refuse a data directory that is a file or lies under one (the CLI checks it first)."""
    check_dir(path, "data directory")


def stored_path(data: str | os.PathLike, path: str | os.PathLike) -> str:
    """How the catalog records ``path``: relative to the data directory when it lies inside
    it (so a copied or moved data directory reads its own files), else absolute."""
    path = Path(path).absolute()
    try:
        return str(path.relative_to(Path(data).absolute()))
    except ValueError:
        return str(path)


def resolve_stored(data: str | os.PathLike, stored: str, default: Path) -> Path:
    """The file or folder a catalog row names: ``default`` (its usual place in this data
    directory) when it exists -- so a data directory copied with absolute paths recorded
    reads its own files, not the original's --, else ``stored`` (relative to the data
    directory, or absolute)."""
    if default.exists():
        return default
    p = Path(stored)
    return p if p.is_absolute() else Path(data) / p
