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
import re
from pathlib import Path

import duckdb

import pyarrow.parquet as pq

from etl.views import connect, create_table_views  # noqa: F401 (connect is re-exported)
from schema.strategy import STRATEGIES_DIR
from solve.holdem.figures import FIGURES_VERSION

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
        notes += _strategy_rows(con, data_dir)
        for view, (pattern, columns, *where) in JSON_SOURCES.items():
            _json_source(con, data_dir, view, pattern, columns, *where)
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


#: A strategy file's path as the explicit view lists it: nothing that could end a SQL string.
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_.+=@-]+/[A-Za-z0-9_.+=@-]+/[A-Za-z0-9_.+=@-]+\.parquet$")


def _strategy_rows(con: duckdb.DuckDBPyConnection, data_dir: Path) -> list[str]:
    """The ``strategy_rows`` view, every stored strategy table as written (``strategies.sql``
    builds the ``strategies`` view on it): over the glob of their files, or, if one cannot be
    read (damaged, truncated, not Parquet) -- the glob would make every query on the view fail
    -- over the readable files only, each strategy left out named in a ``warning:`` note. No
    file at all: no view (the strategies stage has written nothing yet)."""
    files = sorted((data_dir / STRATEGIES_DIR).glob("*/*.parquet"))
    good, notes = [], []
    for f in files:
        rel = f.relative_to(data_dir).as_posix()
        try:
            pq.read_metadata(f)
        except Exception as exc:  # noqa: BLE001 (pyarrow's errors and OSError alike)
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            notes.append(f"warning: strategy {f.parent.name} left out of the strategies view: "
                         f"{rel} cannot be read ({first})")
            continue
        if not _SAFE_PATH.match(rel):
            notes.append(f"warning: strategy {f.parent.name} left out of the strategies view: "
                         f"its path {rel!r} cannot be listed")
            continue
        good.append(rel)
    if not good:
        con.execute("DROP VIEW IF EXISTS strategy_rows")
        return notes
    # paths checked by _SAFE_PATH: no quote can occur in them
    source = (f"'{STRATEGIES_DIR}/*/*.parquet'" if not notes
              else "[" + ", ".join(f"'{r}'" for r in good) + "]")
    con.execute("CREATE OR REPLACE VIEW strategy_rows AS SELECT * FROM "
                f"read_parquet({source}, union_by_name = true)")
    return notes


#: Views over JSON files other stages keep (``view: (glob relative to the data directory,
#: DuckDB column types[, a condition on the rows])``), read by the ``.sql`` files; typed, so
#: with no file yet the view exists and is empty rather than missing (``read_json`` fails on a
#: glob matching nothing). A ``FigureStore`` figure of another ``FIGURES_VERSION`` means
#: something else (it reads as absent in Python too), so those views keep only the current.
JSON_SOURCES = {
    # every Texas Hold'em solve's checkpoint log (solve.holdem.run)
    "holdem_run_logs": (f"{STRATEGIES_DIR}/*/run.json", {
        "abstraction": "VARCHAR", "sampler": "VARCHAR", "regret": "VARCHAR",
        "averaging": "VARCHAR",
        "log": "STRUCT(iterations BIGINT, solve_seconds DOUBLE, clock VARCHAR, lbr_mbb DOUBLE, "
               "lbr_hw DOUBLE, lbr_seat0_mbb DOUBLE, lbr_seat1_mbb DOUBLE, "
               "vs_always_call_mbb DOUBLE, vs_always_raise_mbb DOUBLE)[]"}),
    # exact best responses (solve.holdem.best_response.run_exact, a FigureStore figure)
    "holdem_exact_figures": (f"{STRATEGIES_DIR}/*/evaluations/exact-best-response-*.json", {
        "key": "STRUCT(spec VARCHAR, strategy STRUCT(iterations BIGINT, weights VARCHAR), "
               "deck BIGINT[], version BIGINT)",
        "value": "STRUCT(br_seat0_mbb DOUBLE, br_seat1_mbb DOUBLE, exploitability_mbb DOUBLE, "
                 "value_mbb DOUBLE, flops BIGINT)"}, f"key.version = {FIGURES_VERSION}"),
    # LBR's chips per board and seat over whole boards (solve.holdem.assess.stored_board_lbr:
    # evaluate --lbr-boards, the curve, the methods comparison, bench_lbr_fulldeck), boards
    # first, first + 1, ... of the seed's sample
    "holdem_lbr_figures": (f"{STRATEGIES_DIR}/*/evaluations/lbr-*.json", {
        "key": "STRUCT(iterations BIGINT, weights VARCHAR, boards BIGINT, seed BIGINT, "
               "\"first\" BIGINT, tau VARCHAR, version BIGINT)",
        "value": "DOUBLE[][]"}, f"key.version = {FIGURES_VERSION}"),
    # the exact best responses begun, finished or not (their flop folders' keys,
    # solve.holdem.best_response.FlopStore)
    "holdem_exact_keys": (f"{STRATEGIES_DIR}/*/evaluations/exact-br-*/key.json", {
        "spec": "VARCHAR", "strategy": "STRUCT(iterations BIGINT, weights VARCHAR)",
        "deck": "BIGINT[]"}),
    # how many flops each of them has summed in order so far (solve.holdem.exact_store)
    "holdem_exact_prefixes": (f"{STRATEGIES_DIR}/*/evaluations/exact-br-*/prefix.json", {
        "flops": "BIGINT", "of": "BIGINT"}),
}


def _json_source(con: duckdb.DuckDBPyConnection, data_dir: Path, view: str, pattern: str,
                 columns: dict[str, str], where: str = "true") -> None:
    """``view`` over the JSON files matching ``pattern`` (with a ``filename`` column, relative
    to the data directory) whose rows meet ``where``, or an empty view of the same columns when
    there is none."""
    if any(data_dir.glob(pattern)):
        spec = ", ".join(f"{k}: '{v}'" for k, v in columns.items())
        source = (f"SELECT * FROM read_json('{pattern}', filename = true, "
                  f"union_by_name = true, columns = {{{spec}}}) WHERE {where}")
    else:
        cols = ", ".join(f"NULL::{v} AS {k}" for k, v in columns.items())
        source = f"SELECT {cols}, NULL::VARCHAR AS filename WHERE false"
    con.execute(f"CREATE OR REPLACE VIEW {view} AS {source}")
