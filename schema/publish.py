"""Put a staged build folder live together with its catalog row, so that catalog and files
always agree: a reader sees the previous build (files and row) or the new one, never a mix.

Used by ``build-abstraction`` and ``import`` (``--replace`` included). The catalog is opened
(and waited for: a long ``cli.py sql`` may hold it) *before* any file moves, so a Ctrl-C
while waiting leaves the previous build untouched; from the first rename to the commit,
SIGINT and SIGTERM are deferred (a few renames and one row), and any error in between moves
the previous build's folder back before it propagates.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

from sqlalchemy.orm import Session

from schema.catalog import session_scope
from schema.interrupt import deferred_stop


def publish(data_dir: str | Path, staging: Path, root: Path, row,
            check: Callable[[Session], None] | None = None) -> None:
    """Replace folder ``root`` by the complete folder ``staging`` and merge catalog ``row``,
    as one step.

    ``check(session)`` runs once the catalog is held and before anything moves (e.g. refuse a
    name that exists without ``--replace``); what it raises leaves everything as it was.
    """
    old = staging.with_name(staging.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    root.parent.mkdir(parents=True, exist_ok=True)
    with session_scope(data_dir) as s:
        if check is not None:
            check(s)
        with deferred_stop():
            # the work left is milliseconds: a stop asked for now is honoured by finishing it
            # (the caller's next step sees a completed build) rather than by leaving a mix
            moved_old = swapped = False
            try:
                if root.exists():
                    root.rename(old)
                    moved_old = True
                staging.rename(root)
                swapped = True
                s.merge(row)
                s.commit()
            except BaseException:
                s.rollback()
                if swapped:
                    root.rename(staging)
                if moved_old:
                    old.rename(root)
                raise
    shutil.rmtree(old, ignore_errors=True)
