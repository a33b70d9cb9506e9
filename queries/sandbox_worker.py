"""The process one sandboxed query runs in (:func:`queries.sandbox.stream` starts it).

It reads its request (JSON) on standard input, works in the data directory, opens its own
DuckDB instance (:func:`queries.sandbox.connect`), caps its address space at what it uses
once set up plus the memory limit (``RLIMIT_AS``: DuckDB's ``memory_limit`` does not cover
every allocation, e.g. ``repeat`` builds its string outside the buffer manager), writes the
result as an Arrow IPC stream on standard output and a failure as one line, prefixed with
``sandbox-error: ``, on standard error (exit status 2).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import threading
from pathlib import Path

import duckdb
import pyarrow as pa

from etl.tables import all_tables, use_tables
from queries.sandbox import ADDRESS_SLACK, ERROR_MARK, Limits, connect
from schema.catalog import CATALOG_FILE, catalog_error, is_damage
from schema.errors import UserError, first_line

#: Seconds past its time limit after which the process ends itself (its parent kills it at the
#: limit; this covers a parent that died).
GRACE = 30.0


def _address_space() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _limit_memory(memory: int) -> None:
    if not hasattr(resource, "RLIMIT_AS"):
        return
    used = _address_space()
    if used:
        cap = used + memory + ADDRESS_SLACK
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _unbuilt_table(message: str) -> str | None:
    """For DuckDB's "Table with name X does not exist": the ETL command that builds X."""
    if "Table with name " not in message or "does not exist" not in message:
        return None
    name = message.split("Table with name ", 1)[1].split(" does not exist", 1)[0].strip()
    try:
        known = {t.lower(): t for t in all_tables()}
    except Exception:  # noqa: BLE001 (a broken table registry: DuckDB's message stands)
        return None
    table = known.get(name.lower())
    if table is None:
        return None
    return (f"table {table} is not built yet: build it with `python cli.py etl --tables "
            f"{table}`")


def _memory_message(memory_limit: str) -> str:
    return f"memory limit exceeded (`memory_limit` {memory_limit})"


def run(request: dict) -> None:
    limits = Limits(memory_limit=request["memory_limit"], timeout=request.get("timeout"),
                    threads=request.get("threads"))
    con = connect(request["data_dir"], limits, request["query"])
    _limit_memory(int(request["memory_bytes"]))
    try:
        rel = con.sql(request["query"])
        out = sys.stdout.buffer
        if rel is None:
            with pa.ipc.new_stream(out, pa.schema([])):
                pass
            return
        if request.get("limit") is not None:
            rel = rel.limit(int(request["limit"]))
        reader = rel.to_arrow_reader(int(request.get("batch_rows") or 10_000))
        with pa.ipc.new_stream(out, reader.schema) as writer:
            for batch in reader:
                writer.write_batch(batch)
        out.flush()
    finally:
        con.close()


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the query
    request = json.loads(sys.stdin.read())
    use_tables(request.get("tables"))  # the parent's ETL tables, for _unbuilt_table
    if request.get("timeout"):
        timer = threading.Timer(float(request["timeout"]) + GRACE, os._exit, args=(3,))
        timer.daemon = True
        timer.start()
    try:
        run(request)
        return 0
    except (BrokenPipeError, OSError):  # the reader stopped early (Ctrl-C, an error): fine
        return 0
    except UserError as exc:
        message = str(exc).splitlines()[0] if str(exc) else "bad query"
    except MemoryError:
        message = _memory_message(request["memory_limit"])
    except duckdb.OutOfMemoryException:
        message = _memory_message(request["memory_limit"])
    except duckdb.Error as exc:
        text = first_line(exc)
        if "bad_alloc" in text or "bad allocation" in text or "Out of Memory" in text:
            message = _memory_message(request["memory_limit"]) + f": {text}"
        elif is_damage(exc):
            message = str(catalog_error(Path(request["data_dir"]) / CATALOG_FILE, exc))
        else:
            message = _unbuilt_table(text) or text
    except pa.ArrowException as exc:
        message = first_line(exc)
    try:
        sys.stderr.write(ERROR_MARK + message.replace("\n", " ") + "\n")
        sys.stderr.flush()
    except OSError:
        pass
    return 2


if __name__ == "__main__":
    code = main()
    try:
        sys.stdout.flush()
    except OSError:
        pass
    os._exit(code)
