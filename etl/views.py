"""DuckDB views over the ETL tables, in ``<data_dir>/poker.duckdb`` (beside the catalog).

For every ETL table with partitions recorded in the catalog (``etl_partitions``), a view
``<name>`` reads exactly those partition files that exist (an explicit file list, not a glob:
a stray or unrecorded file in the folder is never counted; the view of a table whose files are
gone is dropped). Paths in views are relative to the data directory: every connection made
here sets DuckDB's ``file_search_path`` to it, so a data directory can be moved or copied
whole. ``queries.views`` adds the views of the later stages.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb

from etl.storage import TABLES_DIR, partition_path
from schema.catalog import CATALOG_FILE, catalog_error

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@contextmanager
def connect(data_dir: str | os.PathLike,
            read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived connection to ``<data_dir>/poker.duckdb`` with paths relative to it."""
    data_dir = Path(data_dir).absolute()
    try:
        con = duckdb.connect(str(data_dir / CATALOG_FILE), read_only=read_only)
    except duckdb.Error as exc:
        if "lock" in str(exc).lower():  # another process writes: callers retry
            raise
        raise (catalog_error(data_dir / CATALOG_FILE, exc) or exc) from None
    try:
        # a bound value: the path is never pasted into SQL text
        con.execute("SET file_search_path = ?", [str(data_dir)])
        yield con
    finally:
        con.close()


def create_table_views(con: duckdb.DuckDBPyConnection, data_dir: Path
                       ) -> tuple[list[str], list[str]]:
    """(Re)create the ETL table views on ``con``; the views made and one-line notes."""
    made: list[str] = []
    notes: list[str] = []
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
    return made, notes


def create_etl_views(data_dir: str | os.PathLike) -> tuple[list[str], list[str]]:
    """Open the catalog and (re)create the ETL table views (see :func:`create_table_views`)."""
    data_dir = Path(data_dir).absolute()
    with connect(data_dir) as con:
        return create_table_views(con, data_dir)


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
