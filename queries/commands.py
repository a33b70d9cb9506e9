"""``cli.py sql "SELECT ..."``: ad-hoc SQL over the views and the catalog in ``poker.duckdb``.

The views are refreshed first (``queries.views``: every table directory and ``queries/*.sql``),
then the query runs on a read-only connection (it cannot change the database) whose DuckDB
``file_search_path`` is the data directory, so the views' relative paths resolve.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import decimal
import json
import sys
import time

import duckdb
import pyarrow as pa

from schema.catalog import CATALOG_FILE
from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sql", help="run ad-hoc SQL on the database (views over every table + catalog)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("query", help="one SQL statement, e.g. \"SELECT count(*) FROM handval\"")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output format (default: table)")
    p.add_argument("--limit", type=int, default=None, help="print at most N rows")
    p.set_defaults(func=main)
    register_compare(subparsers)


def main(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 0:
        raise UserError(f"--limit must be non-negative, got {args.limit}")
    if not args.query.strip().strip(";").strip():
        raise UserError("no SQL statement given, e.g. \"SELECT count(*) FROM handval\"")
    result = run_query(resolve_data_dir(), args.query, args.limit)
    if args.format == "csv":
        write_csv(result, sys.stdout)
    elif args.format == "json":
        json.dump(to_records(result), sys.stdout, default=_json_default)
        sys.stdout.write("\n")
    else:
        print_table(result)
    return 0


def run_query(data_dir, query: str, limit: int | None = None) -> pa.Table:
    """Run one statement read-only; its result as an Arrow table (empty if it returns none).

    Raises:
        UserError: no database yet, or DuckDB rejects the query (message's first line).
    """
    from queries.views import connect, create_views

    path = (data_dir / CATALOG_FILE).absolute()
    if data_dir.is_dir():
        try:  # views over what other stages wrote since the last etl run
            create_views(data_dir)
        except (duckdb.Error, OSError):
            pass  # e.g. a writer holds the database this moment: query the views as they are
    if not path.exists():
        raise UserError(f"no database at {path}: build something first (`cli.py etl`)")
    for attempt in range(50):
        try:
            with connect(data_dir, read_only=True) as con:
                rel = con.sql(query)
                if rel is None:
                    return pa.table({})
                if limit is not None:
                    rel = rel.limit(limit)
                return rel.to_arrow_table()
        except duckdb.IOException as exc:
            # another process (an etl run recording a partition) holds the file for a moment
            if "lock" in str(exc).lower() and attempt < 49:
                time.sleep(0.2)
                continue
            raise UserError(_first_line(exc)) from None
        except duckdb.Error as exc:
            raise UserError(_first_line(exc)) from None
    raise AssertionError("unreachable")


def to_records(table: pa.Table) -> list[dict]:
    return table.to_pylist()


def write_csv(table: pa.Table, out) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.column_names)
    for row in table.to_pylist():
        writer.writerow([_cell(v) for v in row.values()])


def print_table(table: pa.Table) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    out = Table(caption=f"{table.num_rows:,} row(s)")
    for name, typ in zip(table.column_names, table.schema.types):
        numeric = pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_decimal(typ)
        out.add_column(name, justify="right" if numeric else "left")
    for row in table.to_pylist():
        out.add_row(*(Text(_cell(v)) for v in row.values()))
    # not a terminal (pipe, file): no wrapping of wide results at 80 columns
    Console(width=None if sys.stdout.isatty() else 100_000).print(out)


def _cell(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _json_default(value):
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def register_compare(subparsers: argparse._SubParsersAction) -> None:
    """``compare`` and ``experiment`` (issue 5; ``queries.compare``, ``queries.experiment``)."""
    from queries import compare, experiment

    compare.register(subparsers)
    experiment.register(subparsers)
