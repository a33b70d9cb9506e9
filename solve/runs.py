"""Stored strategy runs: a strategy table under ``strategies/<name>/`` and its catalog row
(``schema.catalog_solve.SolveRun``). Library code: the CLI commands and ``compare`` store
their results through here."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path

from schema.catalog import session_scope
from schema.catalog_solve import SolveRun
from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir
from schema.paths import stored_path
from schema.progress import progress_bar
from schema.storage import atomic_write_parquet, file_sha256
from solve.holdem.table import upgrade_strategy_table
from solve.table import strategy_path, write_strategy

#: A strategy name: what ``--name`` accepts (a folder name under ``strategies/``).
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*\Z")  # \Z: "$" lets a final newline through


def check_catalog(ddir) -> None:
    """Open the catalog before solving, so that an unusable one (damaged, not writable) is a
    one-line error up front rather than after the solve, with its strategy table unrecorded."""
    with session_scope(ddir):
        pass


def record_run(ddir, name, game, abstraction, algorithm, iterations, wall, expl, abs_expl,
               value, path, digest) -> None:
    """The catalog row of a stored strategy table (the DuckDB views over it are refreshed by
    their readers: ``cli.py sql``, ``compare``)."""
    with session_scope(ddir) as s:
        s.merge(SolveRun(name=name, game=game, abstraction=abstraction, algorithm=algorithm,
                         iterations=int(iterations), wall_seconds=float(wall),
                         exploitability=None if expl is None else float(expl),
                         abstract_exploitability=None if abs_expl is None else float(abs_expl),
                         value=float(value), path=stored_path(ddir, path), sha256=digest,
                         created=dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)))


def store_strategy(ddir, name, strategy, game, abstraction, algorithm, iterations, wall, expl,
                   abs_expl, value):
    """Write ``strategy``'s table and its catalog row; returns (path, SHA-256)."""
    path, digest = write_strategy(ddir, name, strategy)
    record_run(ddir, name, game, abstraction, algorithm, iterations, wall, expl, abs_expl, value,
               path, digest)
    return path, digest


def store_kuhn3(ddir, name, table, algorithm, iterations, wall, nash_conv, value):
    """Write a 3-player Kuhn table and catalog row (exploitability column holds NashConv)."""
    path = strategy_path(ddir, name)
    digest = atomic_write_parquet(table, path)
    record_run(ddir, name, "kuhn3", None, algorithm, iterations, wall, nash_conv, None, value,
               path, digest)
    return path


def list_strategies(data_dir=None) -> list[dict]:
    """Every stored strategy, by name: its catalog row (game, abstraction, algorithm,
    iterations, wall seconds, figures), the solve time and clock a Hold'em run recorded in its
    ``run.json`` (else the wall seconds), and the bytes its folder holds on disk (checkpoints
    and kept averages included: what deleting it would free)."""
    ddir = resolve_data_dir(data_dir)
    if not (ddir / "poker.duckdb").exists():
        return []
    with session_scope(ddir) as s:
        rows = [{c: getattr(r, c) for c in ("name", "game", "abstraction", "algorithm",
                                            "iterations", "wall_seconds", "exploitability",
                                            "value", "created")}
                for r in s.query(SolveRun).order_by(SolveRun.name).all()]
    for r in rows:
        folder = strategy_path(ddir, r["name"]).parent
        r["solve_seconds"], r["clock"] = r["wall_seconds"], "wall"
        meta = folder / "run.json"
        if meta.is_file():
            try:
                got = json.loads(meta.read_text())
                r["solve_seconds"] = float(got["solve_seconds"])
                r["clock"] = got.get("clock", "wall")
            except (ValueError, KeyError, TypeError):
                pass  # an unreadable run.json: the catalog's wall seconds stand
        r["bytes"] = _folder_bytes(folder)
    return rows


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def upgrade_strategy(data_dir, name: str) -> dict:
    """Bring stored Texas Hold'em strategy ``name``'s table up to the current schema: add the
    ``uniform_start`` column a table written before it lacks (so that the ``strategies`` view
    says "never trained" where the average is still the uniform start), computed from its own
    rows in one streaming pass (``solve.holdem.table.upgrade_strategy_table``). The table and
    the catalog row's SHA-256 change together: the new table is written beside the old one
    (``.NAME.parquet.upgrade``, :func:`pending_upgrade_path`), the catalog row takes its
    digest, then it is renamed over the old. Killed before the catalog commit, the old table
    and row stand (the pending file is redone); killed after it, the pending file is the
    journal: a re-run finds its digest in the catalog and finishes the rename. Returns the
    upgrade's summary plus ``path``; a table already current is left as it is."""
    ddir = resolve_data_dir(data_dir)
    if not NAME_PATTERN.match(name):
        raise UserError(f"no strategy named {name!r}")
    path = strategy_path(ddir, name)
    pending = pending_upgrade_path(path)
    if pending.is_file() and _finish_pending(ddir, name, path, pending):
        return {"upgraded": True, "resumed": True, "rows": None, "infosets": None,
                "uniform_start": None, "digest": file_sha256(path), "path": path}
    if not path.is_file():
        raise UserError(f"no strategy table {path} (see: cli.py strategies)")
    with progress_bar(total=None, desc=f"upgrade {name}", unit="row") as bar:
        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)

        out = upgrade_strategy_table(path, out=pending, progress=progress)
    if out["upgraded"]:
        _set_digest(ddir, name, out["digest"])
        os.replace(pending, path)
    return {**out, "resumed": False, "path": path}


def pending_upgrade_path(path: Path) -> Path:
    """Where :func:`upgrade_strategy` writes a table's upgraded copy before the rename (a
    hidden name no ``*.parquet`` reader takes for a table)."""
    return path.with_name(f".{path.name}.upgrade")


def _set_digest(ddir: Path, name: str, digest: str) -> None:
    if (ddir / "poker.duckdb").exists():
        with session_scope(ddir) as s:
            row = s.get(SolveRun, name)
            if row is not None:
                row.sha256 = digest


def _finish_pending(ddir: Path, name: str, path: Path, pending: Path) -> bool:
    """An earlier upgrade of ``name`` was cut off with its copy written at ``pending``: if the
    catalog already records the copy's digest (killed between the commit and the rename),
    finish the rename and say so (True); else drop the copy, the old table and row standing
    (False: the caller upgrades again)."""
    recorded = None
    if (ddir / "poker.duckdb").exists():
        with session_scope(ddir) as s:
            row = s.get(SolveRun, name)
            recorded = None if row is None else row.sha256
    if recorded is not None and recorded == file_sha256(pending):
        os.replace(pending, path)
        return True
    pending.unlink()
    return False
