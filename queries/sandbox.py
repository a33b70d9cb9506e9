"""Untrusted, ad-hoc SQL: it reads the data directory and nothing else, writes nothing anywhere
(issue 15) and cannot take the machine's memory (issue 50). ``cli.py sql`` and the JSON API
use it.

Every query runs in a child process of its own (:mod:`queries.sandbox_worker`): a DuckDB
instance configured for it alone (two queries never share settings, locks or memory), working
in the data directory (relative paths there, never in the caller's working directory, which
this module never changes), its address space capped (``RLIMIT_AS``) so that the memory limit
holds for every operator, string functions included. The promises, each enforced twice where
DuckDB allows:

- **one read-only statement**: exactly one ``SELECT`` (``FROM``, ``WITH``, ``VALUES``,
  ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``, ``PIVOT`` parse as one) or a plain ``EXPLAIN`` of
  one; ``COPY``, ``EXPORT``, ``ATTACH``, ``INSTALL``/``LOAD``, ``SET``, ``PRAGMA``,
  ``CALL`` and ``EXPLAIN ANALYZE`` are refused before they run; the database file is opened
  read-only besides;
- **files inside the data directory only**: ``enable_external_access = false`` with the data
  directory (absolute) as the one allowed directory, and the child works in it;
- **bounded**: a memory limit (DuckDB's, and the child's address space: over it the query
  fails with "memory limit exceeded"), a time limit (the child is killed), Ctrl-C stops it;
- **no silent corruption**: a partition file changed since the ETL verified it is re-hashed
  first, a mismatch or a recorded partition missing on disk is an error naming it
  (``etl.integrity``; DuckDB itself does not verify Parquet page checksums);
- **settings locked** (``lock_configuration``): a query cannot lift any of the above; no
  option value is ever pasted into SQL text (settings go through DuckDB's config API or bound
  parameters);
- **streamed**: results come as Arrow record batches through a pipe, so ``--format csv/json``
  prints rows as they are produced and a large result never sits in memory whole.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import duckdb
import pyarrow as pa

from etl.integrity import check_unchanged
from etl.tables import tables_override
from schema.catalog import CATALOG_FILE, catalog_error, open_read_only
from schema.errors import ParameterError, UserError, first_line

DEFAULT_MEMORY_LIMIT = "4GB"
DEFAULT_TIMEOUT = 600.0  # seconds
BATCH_ROWS = 10_000
_EXPLAIN = re.compile(r"^\s*EXPLAIN\s+(?!ANALY[SZ]E\b)(.*)$", re.IGNORECASE | re.DOTALL)
#: A memory limit: a number and a unit, nothing else (it reaches DuckDB as a config value).
_MEMORY = re.compile(r"^\s*(\d{1,9}(?:\.\d{1,6})?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$",
                     re.IGNORECASE)
_UNITS = {"b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12,
          "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}
MIN_MEMORY = 16 * 2 ** 20
#: Address space the query process may use beyond its memory limit: DuckDB's threads, the
#: allocator's bookkeeping and the result batches in flight (measured: 256 MiB suffice).
ADDRESS_SLACK = 384 * 2 ** 20
ROOT = Path(__file__).resolve().parents[1]
ERROR_MARK = "sandbox-error: "


@dataclass(frozen=True)
class Limits:
    """Resource limits of a sandboxed query."""

    memory_limit: str = DEFAULT_MEMORY_LIMIT
    timeout: float | None = DEFAULT_TIMEOUT  # seconds; None: no limit
    threads: int | None = None


def memory_bytes(text: str) -> int:
    """The bytes of a memory limit such as ``500MB`` or ``1.5GiB``.

    Raises:
        UserError: anything but a number and a unit, or less than 16 MiB.
    """
    m = _MEMORY.match(str(text))
    if not m:
        raise ParameterError(f"`memory_limit` must be a number and a unit such as 500MB or "
                             f"2GiB, got {str(text)[:40]!r}")
    n = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if n < MIN_MEMORY:
        raise ParameterError(f"`memory_limit` must be at least 16MiB, got {m.group(0).strip()}")
    return n


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
    """A locked-down read-only connection to ``<data_dir>/poker.duckdb`` (see module doc): a
    DuckDB instance of its own, configured through the config API and bound parameters. Made
    in the query process (:mod:`queries.sandbox_worker`), whose working directory is the data
    directory; ``query``: the partitions it reads are checked (all if None).

    Raises:
        UserError: no database, or it cannot be opened (a one-line reason).
    """
    data_dir = Path(data_dir).absolute()
    path = data_dir / CATALOG_FILE
    if not path.exists():
        raise UserError(f"no database at {path}: build something first (`cli.py etl`)")
    config = {"memory_limit": f"{memory_bytes(limits.memory_limit)}B",
              "file_search_path": str(data_dir),
              "autoinstall_known_extensions": False, "autoload_known_extensions": False}
    if limits.threads:
        config["threads"] = int(limits.threads)
    for attempt in range(50):  # a writer holds the file a moment: retried, as open_read_only
        try:
            con = duckdb.connect(str(path), read_only=True, config=config)
            break
        except duckdb.Error as exc:
            if "lock" not in str(exc).lower() or attempt == 49:
                raise (catalog_error(path, exc) or UserError(first_line(exc))) from None
            time.sleep(0.2)
    try:
        # the data directory, absolute, is the one place files are read from (DuckDB resolves
        # relative entries against the process's working directory: none are given)
        con.execute("SET allowed_directories = ?", [[str(data_dir) + os.sep]])
        con.execute("SET enable_external_access = false")
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


def catalog_rows(data_dir: str | os.PathLike, query: str) -> list[dict]:
    """Rows of one of our own fixed queries over the catalog tables (no user SQL, no files):
    a plain read-only connection in this process, nothing locked or shared beyond it."""
    con = _open_read_only(Path(data_dir).absolute() / CATALOG_FILE)
    try:
        cur = con.execute(query)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
    except duckdb.Error as exc:
        raise UserError(first_line(exc)) from None
    finally:
        con.close()


def stream(data_dir: str | os.PathLike, query: str, limits: Limits = Limits(),
           limit: int | None = None, batch_rows: int = BATCH_ROWS
           ) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """Run ``query`` in the sandbox; its schema and an iterator of its record batches.

    The query runs in a child process (module doc); a thread here reads its Arrow stream, and
    the caller's thread enforces ``limits.timeout`` (from the start of the query to the last
    batch; the child is killed) and, in the main thread, Ctrl-C (the child is killed, then
    KeyboardInterrupt is raised). Closing the iterator early (or an error) ends the child.

    Raises:
        UserError: refused statement, DuckDB's error, memory or time limit exceeded.
        KeyboardInterrupt: Ctrl-C (main thread only).
    """
    data_dir, request = _request(data_dir, query, limits, limit, batch_rows)
    child = _QueryProcess(data_dir, request, limits)
    kind, value = child.take()
    if kind == "error":
        raise child.fail() from None
    return value, child.batches()


def _request(data_dir: str | os.PathLike, query: str, limits: Limits, limit: int | None,
             batch_rows: int) -> tuple[Path, dict]:
    """The data directory (absolute) and the child's request, every input checked first.

    Raises:
        UserError: refused statement, a bad memory or time limit, no database.
    """
    query = check_statement(query)
    memory = memory_bytes(limits.memory_limit)
    if limits.timeout is not None and not 0 < limits.timeout < float("inf"):
        raise ParameterError(f"`timeout` must be positive and finite, got {limits.timeout}")
    data_dir = Path(data_dir).absolute()
    if not (data_dir / CATALOG_FILE).exists():
        raise UserError(f"no database at {data_dir / CATALOG_FILE}: build something first "
                        "(`cli.py etl`)")
    request = {"data_dir": str(data_dir), "query": query, "memory_limit": limits.memory_limit,
               "memory_bytes": memory, "threads": limits.threads, "limit": limit,
               "batch_rows": batch_rows, "timeout": limits.timeout,
               "tables": tables_override()}  # the ETL tables this process uses
    return data_dir, request


def _start_child(data_dir: Path) -> subprocess.Popen:
    """The query process (:mod:`queries.sandbox_worker`), working in the data directory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    env["MALLOC_ARENA_MAX"] = "2"
    # -P: the data directory (the child's working directory) is not put on sys.path
    return subprocess.Popen([sys.executable, "-P", "-m", "queries.sandbox_worker"],
                            cwd=data_dir, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)


class _QueryProcess:
    """One running sandboxed query: the child process, the thread that reads its Arrow stream
    into a small queue, and the caller's side (time limit, Ctrl-C, the child's error).

    Made by :func:`stream`, which takes the schema with :meth:`take` and hands out
    :meth:`batches`; :meth:`end` (once, whatever ends the query) stops all three.
    """

    def __init__(self, data_dir: Path, request: dict, limits: Limits):
        self.limits = limits
        self.proc = _start_child(data_dir)
        self.deadline = None if limits.timeout is None else time.monotonic() + limits.timeout
        self.out: queue.Queue = queue.Queue(maxsize=4)
        self.stop = threading.Event()
        self.worker = threading.Thread(target=self._produce, args=(request,),
                                       name="sandbox-query", daemon=True)
        self.interrupted = threading.Event()
        self.previous = None  # the SIGINT handler to restore, while ours is installed
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, lambda *_: self.interrupted.set())
        self.ended = False
        self.worker.start()

    def _produce(self, request: dict) -> None:
        """The reader thread: send the request, then queue the schema, every batch and the end
        (or the exception that stopped the stream)."""
        proc, out = self.proc, self.out
        try:
            proc.stdin.write(json.dumps(request).encode())
            proc.stdin.close()
            reader = pa.ipc.open_stream(proc.stdout)
            out.put(("schema", reader.schema))
            for batch in reader:
                if self.stop.is_set():
                    return
                out.put(("batch", batch))
            out.put(("end", None))
        except BaseException as exc:  # noqa: BLE001 (the child's stderr says why)
            if not self.stop.is_set():
                out.put(("error", exc))

    def take(self) -> tuple[str, object]:
        """The reader thread's next item, waiting at most until the deadline.

        Raises:
            KeyboardInterrupt: Ctrl-C (the child is killed).
            UserError: the time limit passed (the child is killed).
        """
        while True:
            if self.interrupted.is_set():
                self.end(kill=True)
                raise KeyboardInterrupt
            wait = 0.1 if self.deadline is None else min(0.1, self.deadline - time.monotonic())
            if wait <= 0:
                self.end(kill=True)
                raise ParameterError(f"query exceeded the time limit of "
                                     f"{self.limits.timeout:g} s (`timeout`)")
            try:
                return self.out.get(timeout=wait)
            except queue.Empty:
                continue

    def end(self, kill: bool) -> None:
        """Stop the child (killed unless it finished), the reader thread and the handler."""
        if self.ended:
            return
        self.ended = True
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
            self.previous = None
        self.stop.set()
        proc = self.proc
        if kill and proc.poll() is None:
            proc.kill()
        while self.worker.is_alive():
            try:
                self.out.get_nowait()
            except queue.Empty:
                pass
            self.worker.join(timeout=0.05)
        proc.wait()
        proc.stdout.close()

    def fail(self) -> UserError:
        """The child's one-line error (it has finished or died; else it is ended)."""
        proc = self.proc
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # e.g. blocked writing what nobody reads now
            proc.kill()
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        self.end(kill=False)
        proc.stderr.close()
        marked = [ln[len(ERROR_MARK):] for ln in err.splitlines() if ln.startswith(ERROR_MARK)]
        if marked:
            return (ParameterError if "`memory_limit`" in marked[-1] else UserError)(marked[-1])
        if proc.returncode is not None and proc.returncode < 0:
            name = signal.Signals(-proc.returncode).name
            return ParameterError(f"memory limit exceeded (`memory_limit` "
                             f"{self.limits.memory_limit}): the query process ended by {name}")
        last = [ln for ln in err.splitlines() if ln.strip()]
        return UserError(f"the query process failed (exit {proc.returncode})"
                         + (f": {last[-1][:200]}" if last else ""))

    def batches(self) -> Iterator[pa.RecordBatch]:
        """The record batches after the schema; the child is ended however iteration stops."""
        proc = self.proc
        done = False
        try:
            while True:
                kind, value = self.take()
                if kind == "end":
                    done = True
                    self.end(kill=False)
                    if proc.returncode:
                        raise self.fail()
                    return
                if kind == "error":
                    done = True
                    raise self.fail() from None
                yield value
        finally:
            if not done:
                self.end(kill=True)
            if proc.stderr and not proc.stderr.closed:
                proc.stderr.close()


def run(data_dir: str | os.PathLike, query: str, limits: Limits = Limits(),
        limit: int | None = None) -> pa.Table:
    """The whole result of ``query`` as an Arrow table (see :func:`stream`)."""
    schema, batches = stream(data_dir, query, limits, limit)
    return pa.Table.from_batches(list(batches), schema=schema)
