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
import json
import os
import re
from pathlib import Path

import duckdb

from etl.storage import TABLES_DIR, partition_path, pending_checksum
from schema.errors import UserError
from schema.storage import file_sha256


def identity(path: Path) -> tuple[int, int, int, int]:
    """(size, mtime_ns, ctime_ns, inode) of a file."""
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def changed_partitions(con: duckdb.DuckDBPyConnection, data_dir: Path) -> list[tuple]:
    """(table, key, path, checksum) of every recorded partition whose file exists and was
    changed since it was verified (see module docstring)."""
    return _partitions(con, data_dir)[0]


def missing_partitions(con: duckdb.DuckDBPyConnection, data_dir: Path) -> list[tuple]:
    """(table, key, path) of every partition the catalog records whose file is gone."""
    return _partitions(con, data_dir)[1]


def _partitions(con: duckdb.DuckDBPyConnection, data_dir: Path) -> tuple[list, list]:
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if "etl_partitions" not in tables:
        return [], []
    if "etl_verified" in tables:
        query = ("SELECT p.table_name, p.key, p.checksum, p.built_at, v.bytes, v.mtime_ns, "
                 "v.ctime_ns, v.inode FROM etl_partitions p LEFT JOIN etl_verified v "
                 "ON v.table_name = p.table_name AND v.key = p.key")
    else:
        query = ("SELECT table_name, key, checksum, built_at, NULL, NULL, NULL, NULL "
                 "FROM etl_partitions")
    changed, missing = [], []
    for name, key, checksum, built_at, size, mtime, ctime, inode in con.execute(query).fetchall():
        path = partition_path(data_dir, name, key)
        try:
            now = identity(path)
        except FileNotFoundError:
            missing.append((name, key, path))
            continue
        except OSError:
            continue  # unreadable: the query itself says so
        if size is not None:
            if now != (size, mtime, ctime, inode):
                changed.append((name, key, path, checksum))
        elif built_at is None or now[1] > _ns(built_at) + 2_000_000_000:
            changed.append((name, key, path, checksum))
    return changed, missing


def _ns(when: dt.datetime) -> int:
    """Nanoseconds since the epoch of a naive UTC datetime (as the catalog stores them)."""
    return int(when.replace(tzinfo=dt.timezone.utc).timestamp() * 1e9)


#: Table functions that read no file (anything else a query calls in FROM may read one).
_NO_FILES = {"range", "generate_series", "unnest", "repeat", "repeat_row", "json_each",
             "json_tree", "sql_auto_complete", "test_all_types", "which_secret", "icu_calendar_names"}
_FILE_READERS = {"read_parquet", "parquet_scan", "read_csv", "read_csv_auto", "sniff_csv",
                 "read_json", "read_json_auto", "read_ndjson", "read_json_objects",
                 "read_ndjson_objects", "read_ndjson_auto", "read_text", "read_blob", "glob",
                 "parquet_metadata", "parquet_schema", "parquet_file_metadata",
                 "parquet_kv_metadata", "parquet_bloom_probe", "read_xlsx"}
ALL = None  # "every table": what a query reads when it cannot be told


def _ast(parser: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    """The statements of ``sql`` as DuckDB's parser sees them (``json_serialize_sql``)."""
    text = parser.execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0]
    tree = json.loads(text)
    if tree.get("error"):
        raise ValueError(tree.get("error_message", "cannot serialize"))
    return tree["statements"]


def _walk(node, names: set[str], paths: list) -> None:
    """Collect, lower-cased, the relation names a parsed statement reads (a CTE's name too: a
    table of that name is then checked, which is only cautious), and the path arguments of its file-reading table functions (``None`` for a path that is not
    a literal, or a function that might read files by means unknown here)."""
    if isinstance(node, list):
        for x in node:
            _walk(x, names, paths)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if kind == "BASE_TABLE":
        name = str(node.get("table_name", ""))
        names.add(name.lower())
        if "/" in name or "." in name or _GLOB.search(name):  # a file: FROM 'x.parquet'
            paths.append(name)
    elif kind == "TABLE_FUNCTION":
        fn = node.get("function") or {}
        fname = str(fn.get("function_name", "")).lower()
        if fname in _FILE_READERS:
            args = [a.get("expression") for a in fn.get("arguments") or [] if not a.get("name")]
            first = args[0] if args else None
            paths.extend(_literal_paths(first))
        elif fname not in _NO_FILES and not fname.startswith(("duckdb_", "pragma_")):
            paths.append(None)
    for value in node.values():
        if isinstance(value, (dict, list)):
            _walk(value, names, paths)


def _literal_paths(expr) -> list:
    """The literal string(s) of a path argument (a string or a list of strings), else [None]."""
    if not isinstance(expr, dict):
        return [None]
    if expr.get("class") == "CONSTANT":
        lit = expr.get("literal") or {}
        if lit.get("kind") == "STRING":
            return [lit.get("text", "")]
        return [None]
    if expr.get("class") == "FUNCTION" and expr.get("function_name") == "list_value":
        out = []
        for child in expr.get("children") or []:
            out.extend(_literal_paths(child))
        return out or [None]
    return [None]


_GLOB = re.compile(r"[*?\[{]")


def tables_under(data_dir: Path, pattern: str, tables: set[str]):
    """The ETL tables whose partition files a path or glob ``pattern`` (relative to the data
    directory or absolute) may match: the folder above its first wildcard, resolved, decides
    (``tables/x/*`` one table, ``tables/*/*`` or ``./*/*/*`` every table, ``cache/...`` none)."""
    parts = Path(pattern).parts
    fixed = []
    for part in parts:
        if _GLOB.search(part):
            break
        fixed.append(part)
    else:
        fixed = fixed[:-1] if fixed else fixed  # a file: its folder decides
    base = Path(os.path.realpath(data_dir / Path(*fixed) if fixed else data_dir))
    root = Path(os.path.realpath(data_dir / TABLES_DIR))
    if base == root or root.is_relative_to(base):
        return set(tables)
    if base.is_relative_to(root):
        return {base.relative_to(root).parts[0]} & set(tables)
    return set()


def read_tables(con: duckdb.DuckDBPyConnection, data_dir: Path, query: str,
                tables: set[str]):
    """The ETL tables (of ``tables``) whose partitions ``query`` may read: by name whatever
    its case or quoting (DuckDB's names are case-insensitive), through views (transitively),
    and by path (``read_parquet``, ``glob``, ``FROM 'tables/x/part-0.parquet'``) whatever the
    spelling of the path; every table when it cannot be told (e.g. a computed path).

    Raises:
        duckdb.Error, ValueError: the query cannot be parsed.
    """
    views = {name.lower(): sql for name, sql in con.execute(
        "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal").fetchall()}
    by_lower = {t.lower(): t for t in tables}
    parser = duckdb.connect()
    try:
        names: set[str] = set()
        paths: list = []
        _walk(_ast(parser, query), names, paths)
        out: set[str] = set()
        seen: set[str] = set()
        todo = set(names)
        while todo:
            name = todo.pop()
            seen.add(name)
            if name in by_lower:
                out.add(by_lower[name])
            if name in views:
                text = views[name]
                for t in tables:  # the views of our stages name their folders literally
                    if f"{TABLES_DIR}/{t}/" in text:
                        out.add(t)
                if re.search(re.escape(TABLES_DIR) + r"/[^'\"]*[*?\[{]", text):
                    return set(tables)
                try:
                    todo |= {n.lower() for n in parser.get_table_names(text)} - seen
                except duckdb.Error:
                    pass  # e.g. a table function it cannot bind: its text was searched above
        for p in paths:
            if p is None:
                return set(tables)
            out |= tables_under(data_dir, p, set(tables))
    finally:
        parser.close()
    return out


def check_unchanged(con: duckdb.DuckDBPyConnection, data_dir: Path,
                    query: str | None = None) -> None:
    """Raise if a recorded partition that ``query`` reads (default: any) is missing on disk,
    or was changed since it was verified and no longer matches its recorded SHA-256
    (:func:`read_tables` tells what a query reads).

    Raises:
        UserError: names the partition and the way back (``etl``, ``etl --refresh``).
    """
    changed, missing = _partitions(con, data_dir)
    if (changed or missing) and query is not None:
        tables = {c[0] for c in changed} | {m[0] for m in missing}
        try:
            reads = read_tables(con, data_dir, query, tables)
        except (duckdb.Error, ValueError, KeyError, TypeError):
            reads = tables  # cannot tell what it reads: check every table
        changed = [c for c in changed if c[0] in reads]
        missing = [m for m in missing if m[0] in reads]
    for name, key, path in missing:
        raise UserError(f"missing partition {name} part-{key}: recorded in the catalog but "
                        f"{path.name} is not on disk; rebuild: python cli.py etl --tables {name}")
    for name, key, path, checksum in changed:
        digest = file_sha256(path)
        # a partition being replaced by a running refresh: published, not yet recorded
        if digest != checksum and digest != pending_checksum(data_dir, name, key):
            raise UserError(f"damaged partition {name} part-{key}: the file changed since it "
                            f"was built (checksum mismatch); rebuild: cli.py etl --refresh")
