"""``cli.py sql "SELECT ..."``: ad-hoc SQL over the views and the catalog in ``poker.duckdb``.

The views are refreshed first (``queries.views``: every table directory and ``queries/*.sql``),
then the one statement runs in the sandbox of ``queries.sandbox``: read-only (SELECT or
EXPLAIN SELECT only; no COPY, ATTACH, EXPORT, INSTALL/LOAD, SET), files inside the data
directory only, a memory and a time limit (``--timeout``), Ctrl-C stops it; csv and json
results are streamed as they are produced.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import decimal
import errno
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
from rich.console import Console
from rich.table import Table
from rich.text import Text

from queries import compare_cli, sandbox
from queries.views import create_views
from schema.errors import UserError
from schema.optional import import_optional


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "sql", help="run ad-hoc SQL on the database (views over every table + catalog)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("query", help="one SQL statement, e.g. \"SELECT count(*) FROM handval\"")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output format (default: table)")
    p.add_argument("--limit", type=int, default=None, help="print at most N rows")
    p.add_argument("--timeout", type=float, default=sandbox.DEFAULT_TIMEOUT,
                   help=f"seconds before the query is stopped (default {sandbox.DEFAULT_TIMEOUT:g})")
    p.add_argument("--memory-limit", default=sandbox.DEFAULT_MEMORY_LIMIT,
                   help=f"DuckDB memory limit (default {sandbox.DEFAULT_MEMORY_LIMIT})")
    p.set_defaults(func=main)
    register_compare(subparsers)


def main(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 0:
        raise UserError(f"--limit must be non-negative, got {args.limit}")
    if not args.query.strip().strip(";").strip():
        raise UserError("no SQL statement given, e.g. \"SELECT count(*) FROM handval\"")
    if args.timeout is not None and not 0 < args.timeout < float("inf"):
        raise UserError(f"--timeout must be positive and finite, got {args.timeout}")
    sandbox.memory_bytes(args.memory_limit)  # a number and a unit, else a one-line error
    limits = sandbox.Limits(memory_limit=args.memory_limit, timeout=args.timeout)
    data_dir = args.data_dir  # absolute; the query runs in it (queries.sandbox)
    refresh_views(data_dir)
    return _print_result(data_dir, args, limits)


def _print_result(data_dir, args, limits) -> int:
    schema, batches = sandbox.stream(data_dir, args.query, limits, args.limit)
    try:
        if args.format == "csv":
            write_csv_stream(schema, batches, sys.stdout)
        elif args.format == "json":
            write_json_stream(batches, sys.stdout)
        else:
            print_table(_head(schema, batches, TABLE_MAX_ROWS))
    finally:
        batches.close()
    return 0


#: Rows the table format shows (it lays out every row in memory); csv and json stream all.
TABLE_MAX_ROWS = 10_000


def _head(schema: pa.Schema, batches, n: int) -> pa.Table:
    got, rows = [], 0
    for b in batches:
        got.append(b)
        rows += b.num_rows
        if rows > n:
            print(f"note: showing the first {n:,} rows; use --format csv or json for all of "
                  f"them, or --limit", file=sys.stderr)
            break
    return pa.Table.from_batches(got, schema=schema).slice(0, n)


def refresh_views(data_dir) -> None:
    """Views over what other stages wrote since the last etl run (a short write on the
    catalog; skipped if a writer holds it this moment, or the directory is read-only)."""
    if data_dir.is_dir():
        try:
            _, notes = create_views(data_dir)
        except duckdb.InterruptException:  # Ctrl-C while DuckDB ran the view statements
            raise KeyboardInterrupt from None
        except Exception:  # noqa: BLE001 (duckdb.Error, OSError, UserError: query as they are)
            return
        for note in notes:
            if note.startswith("warning: "):  # e.g. a strategy left out (queries.views)
                print(note, file=sys.stderr)


def run_query(data_dir, query: str, limit: int | None = None,
              limits: sandbox.Limits = sandbox.Limits()) -> pa.Table:
    """Run one read-only statement in the sandbox (``queries.sandbox``), views refreshed
    first; its result as an Arrow table (empty if it returns none).

    Raises:
        UserError: no database yet, a refused statement, or DuckDB's error (first line).
    """
    refresh_views(data_dir)
    return sandbox.run(data_dir, query, limits, limit)


def write_csv_stream(schema: pa.Schema, batches, out) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(schema.names)
    for b in batches:
        for row in b.to_pylist():
            writer.writerow([_cell(v) for v in row.values()])
        out.flush()


def write_json_stream(batches, out) -> None:
    out.write("[")
    first = True
    for b in batches:
        for row in b.to_pylist():
            out.write(("" if first else ", ") + json.dumps(row, default=_json_default))
            first = False
        out.flush()
    out.write("]\n")


def print_table(table: pa.Table) -> None:
    out = Table()
    for name, typ in zip(table.column_names, table.schema.types):
        numeric = pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_decimal(typ)
        out.add_column(name, justify="right" if numeric else "left")
    for row in table.to_pylist():
        out.add_row(*(Text(_cell(v)) for v in row.values()))
    # not a terminal (pipe, file): no wrapping of wide results at 80 columns
    console = Console(width=None if sys.stdout.isatty() else 100_000)
    console.print(out)
    # the count below the table, not as its caption (a caption wraps to a narrow table's width)
    sys.stdout.write(f"{table.num_rows:,} row(s)\n")


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


def register_compare(subparsers: argparse._SubParsersAction) -> None:
    """``compare`` and ``experiment`` (issue 5; ``queries.compare``, ``queries.experiment``)."""
    compare_cli.register(subparsers)
    s = subparsers.add_parser("serve", help="the JSON API (look-ups, range grids, read-only SQL)",
                              description=SERVE_DOC,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    s.add_argument("--token", default=None,
                   help="bearer token every request must carry (required off loopback)")
    s.add_argument("--workers", type=int, default=1,
                   help="server processes sharing the port (default 1; each opens the "
                        "strategies it is asked for, memory-mapped)")
    s.set_defaults(func=serve)


#: ``serve --help`` (the endpoints are listed in queries/api.py, imported only to serve: FastAPI
#: costs ~0.2 s, which every other command would pay at start-up).
SERVE_DOC = """The JSON API: stored strategies and abstractions, look-ups, range grids and read-only SQL.

    python cli.py serve                      # http://127.0.0.1:8000, OpenAPI docs at /docs
    python cli.py serve --host 0.0.0.0 --token SECRET   # off loopback a token is required

Endpoints: /strategies, /abstractions, /strategies/NAME/lookup?hole=..&board=..&history=..,
/strategies/NAME/range?history=..&board=.., /sql?q=SELECT..., and a range-grid page at /
(queries/api.py)."""


def serve(args) -> int:
    """``cli.py serve``: run the API with uvicorn until Ctrl-C."""
    api = import_optional("queries.api")
    uvicorn = import_optional("uvicorn")
    if api is None or uvicorn is None:
        raise UserError("serve needs fastapi and uvicorn: pip install -r requirements.txt")
    if not api.is_loopback(args.host) and not args.token:
        raise UserError(f"--host {args.host} is reachable from other machines: give --token")
    if not 0 < args.port < 65536:
        raise UserError(f"--port must be 1..65535, got {args.port}")
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    data_dir = args.data_dir
    _check_port_free(args.host, args.port)
    print(f"serving {data_dir} on http://{args.host}:{args.port} (docs at /docs)"
          + (f", {args.workers} worker processes" if args.workers > 1 else ""))
    try:
        if args.workers == 1:
            uvicorn.run(api.create_app(data_dir, args.token), host=args.host, port=args.port,
                        log_level="warning")
            return 0
        return _serve_workers(api, data_dir, args)
    except SystemExit as exc:  # uvicorn exits so when it cannot start (e.g. the port was
        # taken between the check and the bind): one line, not its log
        if exc.code not in (0, None):
            raise UserError(f"the server could not start on {args.host}:{args.port} "
                            f"(uvicorn exit {exc.code}); is port {args.port} in use?") from None
    return 0


def _check_port_free(host: str, port: int) -> None:
    """Refuse a port another process listens on, before uvicorn's own error and log lines.

    Raises:
        UserError: ``error: port N is in use`` (or the address cannot be bound at all).
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UserError(f"--host {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            s.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UserError(f"port {port} is in use") from None
            raise UserError(f"cannot listen on {host}:{port}: {exc.strerror}") from None



def _serve_workers(api, data_dir, args) -> int:
    """``serve --workers N``: uvicorn's supervisor in a process of its own (``python -m
    uvicorn``), so that its spawned workers do not import this CLI again as their main module:
    that takes seconds on a busy machine, longer than uvicorn waits for a new worker to answer
    its health check, and it would restart them for ever. SIGINT and SIGTERM are passed on."""
    api_cli = import_optional("queries.api_cli")  # the workers' factory (reads this env)
    env = dict(os.environ)
    env[api_cli.DATA_DIR_ENV] = str(data_dir)
    if args.token:
        env[api_cli.TOKEN_ENV] = args.token
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn",
                             "queries.api_cli:app_from_environment",
                             "--factory", "--workers", str(args.workers), "--host", args.host,
                             "--port", str(args.port), "--log-level", "warning"],
                            env=env, start_new_session=True)
    stopping = []

    def forward(signum, _frame):
        stopping.append(signum)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if code and not stopping:
        raise UserError(f"the server stopped with exit status {code}")
    return 0