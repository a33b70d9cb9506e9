"""Stored strategy runs: a strategy table under ``strategies/<name>/`` and its catalog row
(``schema.catalog_solve.SolveRun``). Library code: the CLI commands and ``compare`` store
their results through here."""

from __future__ import annotations

import datetime as dt
import re

from schema.catalog import session_scope
from schema.catalog_solve import SolveRun
from schema.paths import stored_path
from schema.storage import atomic_write_parquet
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
