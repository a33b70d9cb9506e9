"""DuckDB views over everything on disk, in ``<data_dir>/poker.duckdb`` (beside the catalog).

The ETL table views of ``etl.views`` (each reads exactly its catalog-recorded partition
files); then every ``queries/*.sql`` file (views of other stages, e.g. ``abstractions.sql``) runs in name
order (a file that fails is retried after the others, so it may use their views); a file
whose stage has written nothing yet is skipped. Paths in views are relative to
the data directory: every connection made here or by ``cli.py sql`` sets DuckDB's
``file_search_path`` to it, so a data directory can be moved or copied whole.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from etl.views import connect, create_table_views  # noqa: F401 (connect is re-exported)

SQL_DIR = Path(__file__).resolve().parent


def create_views(data_dir: str | os.PathLike) -> tuple[list[str], list[str]]:
    """(Re)create the views; return the views and .sql files made, and one-line notes on the
    files that failed.

    A ``.sql`` file that fails (e.g. its stage has written nothing yet) is skipped with a note;
    the table views do not depend on it.
    """
    data_dir = Path(data_dir).absolute()
    with connect(data_dir) as con:
        made, notes = create_table_views(con, data_dir)
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
