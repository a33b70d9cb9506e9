"""A DuckDB connection for untrusted, ad-hoc SQL: it reads the data directory and nothing else,
and writes nothing anywhere (issue 15). ``cli.py sql`` and the JSON API use it.

The promises, each enforced twice where DuckDB allows:

- **one read-only statement**: exactly one ``SELECT`` (``FROM``, ``WITH``, ``VALUES``,
  ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``, ``PIVOT`` parse as one) or a plain ``EXPLAIN`` of
  one; ``COPY``, ``EXPORT``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``, ``PRAGMA``,
  ``CALL`` and ``EXPLAIN ANALYZE`` are refused before they run; the database file is opened
  read-only besides;
- **files inside the data directory only**: ``enable_external_access = false`` with the data
  directory as the one allowed directory (``read_csv('/etc/passwd')``, ``glob('/etc/*')``,
  ``read_text`` outside it and extension installs fail; ``..`` is normalised first). The views'
  paths are relative (``tables/...``) and allowed by those relative names, which DuckDB may
  also resolve against the working directory: a process serving queries works in the data
  directory (``cli.py sql`` changes into it);
- **bounded**: a memory limit, a time limit (the query is interrupted), Ctrl-C interrupts it;
- **no silent corruption**: a partition file changed since the ETL verified it is re-hashed
  first, and a mismatch is an error naming it (``etl.integrity``; DuckDB itself does not
  verify Parquet page checksums);
- **settings locked** (``lock_configuration``): a query cannot lift any of the above;
- **streamed**: results come in Arrow record batches, so ``--format csv/json`` prints rows as
  they are produced and a large result never sits in memory whole.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import duckdb
import pyarrow as pa

from etl.integrity import check_unchanged
from schema.catalog import CATALOG_FILE, open_read_only
from schema.errors import UserError, first_line

DEFAULT_MEMORY_LIMIT = "4GB"
DEFAULT_TIMEOUT = 600.0  # seconds
BATCH_ROWS = 10_000
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?!ANALY[SZ]E\b)(.*)$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Limits:
    """Resource limits of a sandboxed query."""

    memory_limit: str = DEFAULT_MEMORY_LIMIT
    timeout: float | None = DEFAULT_TIMEOUT  # seconds; None: no limit
    threads: int | None = None


def check_statement(query: str) -> str:
    """The one read-only statement in ``query``.

    Raises:
        UserError: no statement, several, a syntax error, or one that is not a query.
    """
    try:
        stmts = duckdb.extract_statements(query)
    except duckdb.Error as exc:
        raise UserError(first_line(exc)) from None
    if not stmts:
        raise UserError("no SQL statement given, e.g. \"SELECT count(*) FROM handval\"")
    if len(stmts) > 1:
        raise UserError(f"one statement at a time, got {len(stmts)}")
    kind = stmts[0].type
    if kind == duckdb.StatementType.SELECT:
        return query
    if kind == duckdb.StatementType.EXPLAIN:
        m = _EXPLAIN.match(stmts[0].query)
        if m:
            try:
                inner = duckdb.extract_statements(m.group(1))
            except duckdb.Error:
                inner = []
            if len(inner) == 1 and inner[0].type == duckdb.StatementType.SELECT:
                return query
        raise UserError("only EXPLAIN of a SELECT is allowed (EXPLAIN ANALYZE runs its "
                        "statement)")
    name = str(kind).rsplit(".", 1)[-1]
    raise UserError(f"read-only SQL: only SELECT (and EXPLAIN SELECT) may run, not {name}")


def connect(data_dir: str | os.PathLike, limits: Limits = Limits(),
            query: str | None = None) -> duckdb.DuckDBPyConnection:
    """A locked-down read-only connection to ``<data_dir>/poker.duckdb`` (see module doc).

    Raises:
        UserError: no database, or it cannot be opened (a one-line reason).
    """
    data_dir = Path(data_dir).absolute()
    path = data_dir / CATALOG_FILE
    if not path.exists():
        raise UserError(f"no database at {path}: build something first (`cli.py etl`)")
    con = _open_read_only(path)
    try:
        root = str(data_dir).replace("'", "''")
        con.execute(f"SET file_search_path = '{root}'")
        # the views' paths are relative to the data directory (file_search_path), and DuckDB
        # checks them as written: allow its subdirectories by their relative names too
        rel = [f"'{p.name.replace(chr(39), chr(39) * 2)}/'" for p in sorted(data_dir.iterdir())
               if p.is_dir() and not p.name.startswith(".")]
        con.execute(f"SET allowed_directories = ['{root}/'{''.join(', ' + r for r in rel)}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET autoinstall_known_extensions = false")
        con.execute("SET autoload_known_extensions = false")
        con.execute(f"SET memory_limit = '{limits.memory_limit}'")
        if limits.threads:
            con.execute(f"SET threads = {int(limits.threads)}")
        con.execute("SET lock_configuration = true")
    except duckdb.InterruptException:  # Ctrl-C while setting up
        con.close()
        raise KeyboardInterrupt from None
    except duckdb.Error as exc:
        con.close()
        raise UserError(f"could not set up the read-only connection: {first_line(exc)}") from None
    try:
        # DuckDB does not verify Parquet page checksums: the tables ``query`` reads (all if
        # None) must be as the ETL verified them
        check_unchanged(con, data_dir, query)
    except BaseException:
        con.close()
        raise
    return con


def _open_read_only(path: Path) -> duckdb.DuckDBPyConnection:
    try:
        return open_read_only(path)
    except duckdb.Error as exc:
        raise UserError(first_line(exc)) from None


def stream(data_dir: str | os.PathLike, query: str, limits: Limits = Limits(),
           limit: int | None = None, batch_rows: int = BATCH_ROWS
           ) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """Run ``query`` in the sandbox; its schema and an iterator of its record batches.

    The query runs in a worker thread; the caller's thread enforces ``limits.timeout`` (from
    the start of the query to the last batch) and turns Ctrl-C into an interrupt of the query.
    Closing the iterator early (or an error) closes the connection.

    Raises:
        UserError: refused statement, DuckDB's error, time limit exceeded, interrupted.
    """
    query = check_statement(query)
    con = connect(data_dir, limits, query)
    deadline = None if limits.timeout is None else time.monotonic() + limits.timeout
    out: queue.Queue = queue.Queue(maxsize=4)
    stop = threading.Event()

    def produce() -> None:
        try:
            rel = con.sql(query)
            if rel is None:
                out.put(("schema", pa.schema([])))
                out.put(("end", None))
                return
            if limit is not None:
                rel = rel.limit(limit)
            reader = rel.to_arrow_reader(batch_rows)
            out.put(("schema", reader.schema))
            for batch in reader:
                if stop.is_set():
                    return
                out.put(("batch", batch))
            out.put(("end", None))
        except BaseException as exc:  # handed to the consumer
            out.put(("error", exc))

    worker = threading.Thread(target=produce, name="sandbox-query", daemon=True)
    # Ctrl-C while the query runs: stop it (the handler runs between the main thread's
    # waits; a KeyboardInterrupt raised at an arbitrary point could leave the query running)
    interrupted = threading.Event()
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, lambda *_: interrupted.set())
    worker.start()

    def take():
        while True:
            if interrupted.is_set():
                _abort()
                raise UserError("interrupted")
            wait = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
            if wait <= 0:
                _abort()
                raise UserError(f"query exceeded the time limit of {limits.timeout:g} s "
                                "(--timeout)")
            try:
                return out.get(timeout=wait)
            except queue.Empty:
                continue

    def _abort() -> None:
        stop.set()
        _drain()

    def _drain(limit: float = 30.0) -> None:
        """Stop the worker: interrupt the query again and again (an interrupt that lands
        before the query starts running is lost) and empty the queue (a producer may wait on
        it); close the connection once the worker is gone (closing under a running query
        would wait for it)."""
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        end = time.monotonic() + limit
        while worker.is_alive() and time.monotonic() < end:
            if stop.is_set():
                con.interrupt()
                try:
                    out.get_nowait()
                except queue.Empty:
                    pass
            worker.join(timeout=0.1)
        if not worker.is_alive():
            con.close()

    def fail(exc: BaseException):
        _drain()
        if isinstance(exc, duckdb.InterruptException):
            return UserError("interrupted")
        if isinstance(exc, duckdb.Error):
            return UserError(first_line(exc))
        return exc

    kind, value = take()
    if kind == "error":
        raise fail(value) from None
    schema = value

    def batches() -> Iterator[pa.RecordBatch]:
        done = False
        try:
            while True:
                kind, value = take()
                if kind == "end":
                    done = True
                    return
                if kind == "error":
                    done = True
                    raise fail(value) from None
                yield value
        finally:
            if not done:
                stop.set()
            _drain()

    return schema, batches()


def run(data_dir: str | os.PathLike, query: str, limits: Limits = Limits(),
        limit: int | None = None) -> pa.Table:
    """The whole result of ``query`` as an Arrow table (see :func:`stream`)."""
    schema, batches = stream(data_dir, query, limits, limit)
    return pa.Table.from_batches(list(batches), schema=schema)
