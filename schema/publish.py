"""Put a staged build folder live together with its catalog row, so that catalog and files
always agree: a reader sees the previous build (files and row) or the new one, never a mix.

Used by ``build-abstraction`` and ``import`` (``--replace`` included). The catalog is opened
(and waited for: a long ``cli.py sql`` may hold it) *before* any file moves, so a Ctrl-C
while waiting leaves the previous build untouched; from the first rename to the commit,
SIGINT and SIGTERM are deferred (a few renames and one row), and any error in between moves
the previous build's folder back before it propagates.

Only a kill that cannot be deferred (SIGKILL, power loss) can stop it between the renames and
the commit. For that a journal is written first (``.staging/publish-<folder>-<name>.json``);
the next publish of the name reads it and, before anything else, finishes the step (the row
was committed: the old folder is removed) or undoes it (it was not: the old folder comes
back).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

from sqlalchemy.orm import Session

from schema.catalog import session_scope
from schema.interrupt import deferred_stop
from schema.storage import AtomicFile


def publish(data_dir: str | Path, staging: Path, root: Path, row,
            check: Callable[[Session], None] | None = None) -> None:
    """Replace folder ``root`` by the complete folder ``staging`` and merge catalog ``row``
    (a model with ``name`` and ``created``), as one step.

    ``check(session)`` runs once the catalog is held and before anything moves (e.g. refuse a
    name that exists without ``--replace``); what it raises leaves everything as it was.
    """
    work = root.parent.parent / ".staging"
    journal = work / f"publish-{root.parent.name}-{root.name}.json"
    old = journal.with_suffix(".old")
    root.parent.mkdir(parents=True, exist_ok=True)
    with session_scope(data_dir) as s:
        _recover(s, type(row), row.name, root, journal, old)
        if check is not None:
            check(s)
        with deferred_stop():
            # the work left is milliseconds: a stop asked for now is honoured by finishing it
            # (the caller's next step sees a completed build) rather than by leaving a mix
            had_old = root.exists()
            with AtomicFile(journal, checksum=False) as f:
                Path(f.tmp).write_text(json.dumps({"had_old": had_old,
                                                   "created": row.created.isoformat()}))
            moved_old = swapped = False
            try:
                if had_old:
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
                journal.unlink()
                raise
    shutil.rmtree(old, ignore_errors=True)
    journal.unlink(missing_ok=True)


def _recover(s: Session, model, name: str, root: Path, journal: Path, old: Path) -> None:
    """Finish or undo a publish of ``root`` that was killed between its renames and its
    commit (see the module's docstring)."""
    if not journal.exists():
        if old.exists():
            shutil.rmtree(old)  # killed after its commit, while removing the old folder
        return
    try:
        j = json.loads(journal.read_text())
        had_old, created = bool(j["had_old"]), str(j["created"])
    except (OSError, ValueError, KeyError, TypeError):
        had_old, created = old.exists(), ""
    current = s.get(model, name)
    if current is not None and current.created.isoformat() == created:
        shutil.rmtree(old, ignore_errors=True)  # committed: the new build is whole
    elif had_old:
        if old.exists():  # the old folder had moved aside: it comes back
            if root.exists():
                shutil.rmtree(root)
            old.rename(root)
    elif root.exists():
        shutil.rmtree(root)  # there was none before: these are files that never got a row
    journal.unlink(missing_ok=True)
