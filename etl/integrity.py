"""Partitions changed since they were verified: what a reader checks before trusting a table.

DuckDB does not verify Parquet page checksums, so a byte flipped in a partition would read back
as a wrong number. The ETL records each partition's SHA-256 (``etl_partitions``) and, when the
hash last matched, the file's identity (``etl_verified``: size, mtime, ctime, inode). Any write
to a file changes its ctime, so a reader (``cli.py sql``, the API) stats every recorded
partition -- cheap -- and hashes only the files whose identity changed; one whose hash no longer
matches is refused with a one-line error. (Decay that changes no metadata is the job of the
full check, ``cli.py etl status``, e.g. scheduled nightly.) Partitions recorded before
identities were (no ``etl_verified`` row) are trusted when not modified after being recorded.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import duckdb

from etl.storage import partition_path, pending_checksum
from schema.errors import UserError
from schema.storage import file_sha256


def identity(path: Path) -> tuple[int, int, int, int]:
    """(size, mtime_ns, ctime_ns, inode) of a file."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def changed_partitions(con: duckdb.DuckDBPyConnection, data_dir: Path) -> list[tuple]:
    """(table, key, path, checksum) of every recorded partition whose file exists and was
    changed since it was verified (see module docstring)."""
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if "etl_partitions" not in tables:
        return []
    if "etl_verified" in tables:
        query = ("SELECT p.table_name, p.key, p.checksum, p.built_at, v.bytes, v.mtime_ns, "
                 "v.ctime_ns, v.inode FROM etl_partitions p LEFT JOIN etl_verified v "
                 "ON v.table_name = p.table_name AND v.key = p.key")
    else:
        query = ("SELECT table_name, key, checksum, built_at, NULL, NULL, NULL, NULL "
                 "FROM etl_partitions")
    out = []
    for name, key, checksum, built_at, size, mtime, ctime, inode in con.execute(query).fetchall():
        path = partition_path(data_dir, name, key)
        try:
            now = identity(path)
        except OSError:
            continue  # missing: the views leave it out, etl status reports it
        if size is not None:
            if now != (size, mtime, ctime, inode):
                out.append((name, key, path, checksum))
        elif built_at is None or now[1] > _ns(built_at) + 2_000_000_000:
            out.append((name, key, path, checksum))
    return out


def _ns(when: dt.datetime) -> int:
    """Nanoseconds since the epoch of a naive UTC datetime (as the catalog stores them)."""
    return int(when.replace(tzinfo=dt.timezone.utc).timestamp() * 1e9)


def referenced_sql(con: duckdb.DuckDBPyConnection, query: str) -> tuple[set[str], list[str]]:
    """The names ``query`` reads and the SQL texts involved: the query and the definitions of
    the views it reads, transitively (parsed on an empty in-memory connection, so nothing is
    bound or read).

    Raises:
        duckdb.Error: the query cannot be parsed.
    """
    views = dict(con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal")
                 .fetchall())
    parser = duckdb.connect()
    try:
        todo, seen, texts = set(parser.get_table_names(query)), set(), [query]
        while todo:
            name = todo.pop()
            seen.add(name)
            if name in views:
                texts.append(views[name])
                try:
                    todo |= set(parser.get_table_names(views[name])) - seen
                except duckdb.Error:
                    pass  # e.g. a table function it cannot bind: its text is searched below
    finally:
        parser.close()
    return seen, texts


def check_unchanged(con: duckdb.DuckDBPyConnection, data_dir: Path,
                    query: str | None = None) -> None:
    """Raise if a recorded partition that ``query`` reads (default: any) was changed since it
    was verified and no longer matches its recorded SHA-256. A query reads a table if it
    names it (through views too) or a path in its folder.

    Raises:
        UserError: names the damaged partition and the way back (``etl --refresh``).
    """
    changed = changed_partitions(con, data_dir)
    if changed and query is not None:
        try:
            names, texts = referenced_sql(con, query)
            changed = [c for c in changed if c[0] in names
                       or any(f"tables/{c[0]}/" in t for t in texts)]
        except duckdb.Error:
            pass  # cannot tell what it reads: check every table
    for name, key, path, checksum in changed:
        digest = file_sha256(path)
        # a partition being replaced by a running refresh: published, not yet recorded
        if digest != checksum and digest != pending_checksum(data_dir, name, key):
            raise UserError(f"damaged partition {name} part-{key}: the file changed since it "
                            f"was built (checksum mismatch); rebuild: cli.py etl --refresh")
