"""DuckDB views over everything on disk, in ``<data_dir>/poker.duckdb`` (beside the catalog).

For every ETL table with partitions recorded in the catalog (``etl_partitions``), a view
``<name>`` reads exactly those partition files that exist (an explicit file list, not a glob:
a stray or unrecorded file in the folder is never counted; the view of a table whose files are
gone is dropped); then
every ``queries/*.sql`` file (views of other stages, e.g. ``abstractions.sql``) runs in name
order (a file that fails is retried after the others, so it may use their views); a file
whose stage has written nothing yet is skipped. Paths in views are relative to
the data directory: every connection made here or by ``cli.py sql`` sets DuckDB's
``file_search_path`` to it, so a data directory can be moved or copied whole.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from etl.storage import TABLES_DIR, partition_path
from schema.catalog import CATALOG_FILE

SQL_DIR = Path(__file__).resolve().parent
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@contextmanager
def connect(data_dir: str | os.PathLike,
            read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived connection to ``<data_dir>/poker.duckdb`` with paths relative to it."""
    data_dir = Path(data_dir).absolute()
    try:
        con = duckdb.connect(str(data_dir / CATALOG_FILE), read_only=read_only)
    except duckdb.Error as exc:
        from schema.catalog import catalog_error

        if "lock" in str(exc).lower():  # another process writes: callers retry
            raise
        raise (catalog_error(data_dir / CATALOG_FILE, exc) or exc) from None
    try:
        # A setting, not a query: DuckDB has no parameter binding for SET.
        con.execute(f"SET file_search_path = '{_quote(str(data_dir))}'")
        yield con
    finally:
        con.close()


def create_views(data_dir: str | os.PathLike) -> tuple[list[str], list[str]]:
    """(Re)create the views; return the views and .sql files made, and one-line notes on the
    files that failed.

    A ``.sql`` file that fails (e.g. its stage has written nothing yet) is skipped with a note;
    the table views do not depend on it.
    """
    data_dir = Path(data_dir).absolute()
    made: list[str] = []
    notes: list[str] = []
    with connect(data_dir) as con:
        present = recorded_partitions(con, data_dir)
        for (name,) in con.execute(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal AND "
                "(contains(sql, ?) OR contains(sql, ?))",
                [f"read_parquet('{TABLES_DIR}/", f"read_parquet(['{TABLES_DIR}/"]).fetchall():
            if name not in present:  # its table directory is gone
                con.execute(f'DROP VIEW "{name}"')
        for name, files in sorted(present.items()):
            if not _NAME.match(name):
                notes.append(f"table directory {name!r} is not a valid view name; skipped")
                continue
            listed = ", ".join(f"'{_quote(f)}'" for f in files)
            con.execute(f'CREATE OR REPLACE VIEW "{name}" AS SELECT * FROM '
                        f"read_parquet([{listed}])")
            made.append(name)
        # A file may use views of files later in name order: failed files are retried
        # while a pass makes progress.
        pending, failed = sorted(SQL_DIR.glob("*.sql")), []
        while pending:
            failed = []
            for sql_file in pending:
                try:
                    con.execute("BEGIN")
                    con.execute(sql_file.read_text())
                    con.execute("COMMIT")
                except duckdb.Error as exc:
                    con.execute("ROLLBACK")
                    failed.append((sql_file, str(exc).strip().splitlines()[0]))
                    continue
                made.append(sql_file.name)
            if len(failed) == len(pending):
                break
            pending = [f for f, _ in failed]
        no_files = any("No files found" in first for _, first in failed)
        for sql_file, first in failed:
            # else its stage (or the stage of a view it uses) has written nothing yet
            if "No files found" not in first and not (no_files and "does not exist" in first):
                notes.append(f"{sql_file.name} skipped: {first}")
    return made, notes


def recorded_partitions(con: duckdb.DuckDBPyConnection, data_dir: Path) -> dict[str, list[str]]:
    """Per ETL table, the relative paths of its catalog-recorded partition files that exist,
    in key order (no catalog table yet: none)."""
    try:
        rows = con.execute("SELECT table_name, key FROM etl_partitions "
                           "ORDER BY table_name, key").fetchall()
    except duckdb.CatalogException:
        return {}
    out: dict[str, list[str]] = {}
    for name, key in rows:
        path = partition_path(data_dir, name, key)
        if path.is_file():
            out.setdefault(name, []).append(path.relative_to(data_dir).as_posix())
    return out


def _quote(text: str) -> str:
    return text.replace("'", "''")
