"""What the ETL has built: the catalog rows of partitions (``schema.catalog_etl``), the
selection of tables with their dependencies, each table's status against its files, and the
rebuild of a damaged catalog from the partition files. The runner (``etl.runner``) builds what
these say is missing."""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from etl import storage
from etl.integrity import changed_partitions, identity
from etl.lock import etl_lock
from etl.spec import TableSpec
from etl.views import create_etl_views
from schema.catalog import catalog_path, open_read_only, session_scope
from schema.catalog_etl import Partition, VerifiedFile
from schema.errors import UserError, typed_line
from schema.storage import file_sha256

# --- data directory and catalog ------------------------------------------------------------


def prepare_data_dir(data_dir: str | os.PathLike, create: bool = True) -> Path:
    """Validate (and create) the data directory; return its absolute path.

    Raises:
        UserError: the path is a file, cannot be created, or is not writable.
    """
    path = Path(data_dir).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise UserError(f"data directory {path} is not a directory")
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create data directory {path}: {exc.strerror}") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise UserError(f"data directory {path} is not writable")
    return path


@dataclass(frozen=True)
class Record:
    """A catalog row, detached from its session."""

    key: str
    rows: int
    bytes: int
    checksum: str
    code_version: str
    seconds: float


def load_records(data_dir: Path, names: Iterable[str]) -> dict[str, dict[str, Record]]:
    """Catalog rows of the given tables: ``{table: {key: Record}}``.

    Reads with a plain read-only DuckDB connection (the ``Partition`` table, declared in
    ``schema.catalog_etl``): readers never block each other, and the SQLAlchemy DuckDB dialect
    is kept to the writes (with it, duckdb 2.0 prints nanobind leak warnings at exit).
    """
    names = list(names)
    out: dict[str, dict[str, Record]] = {n: {} for n in names}
    path = catalog_path(data_dir)
    if not path.exists() or not names:
        return out
    query = (f"SELECT table_name, key, rows, bytes, checksum, code_version, seconds "
             f"FROM {Partition.__tablename__} WHERE list_contains(?, table_name)")
    con = open_read_only(path)
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        if Partition.__tablename__ not in tables:
            return out
        for name, key, rows, size, checksum, version, seconds in con.execute(
                query, [names]).fetchall():
            out[name][key] = Record(key, rows, size, checksum, version, seconds)
    finally:
        con.close()
    return out


def record_partitions(data_dir: Path, written: list[tuple[storage.WrittenPartition, str]]) -> None:
    """Insert or replace the catalog rows of freshly published partitions."""
    if not written:
        return

    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    with session_scope(data_dir) as session:
        for w, version in written:
            session.merge(Partition(table_name=w.table, key=w.key, rows=w.rows, bytes=w.bytes,
                                    checksum=w.checksum, code_version=version, built_at=now,
                                    seconds=w.seconds))
            _merge_identity(session, data_dir, w.table, w.key)
    for w, _ in written:
        storage.forget_pending(data_dir, w.table, w.key)


def _merge_identity(session, data_dir: Path, name: str, key: str) -> None:
    try:
        size, mtime, ctime, inode = identity(storage.partition_path(data_dir, name, key))
    except OSError:
        return
    session.merge(VerifiedFile(table_name=name, key=key, bytes=size, mtime_ns=mtime,
                               ctime_ns=ctime, inode=inode))


def stamp_verified(data_dir: Path, name: str, keys: Iterable[str]) -> None:
    """Record the file identity of partitions whose SHA-256 was just found to match (see
    ``etl.integrity``), so readers need not hash them again."""
    keys = list(keys)
    if not keys:
        return

    with session_scope(data_dir) as session:
        for key in keys:
            _merge_identity(session, data_dir, name, key)


def forget_partitions(data_dir: Path, name: str, keys: Iterable[str]) -> None:
    """Delete the catalog rows (not the files) of partitions ``keys`` of table ``name``."""
    keys = list(keys)
    if not keys:
        return

    with session_scope(data_dir) as session:
        for model in (Partition, VerifiedFile):
            session.query(model).filter(model.table_name == name,
                                        model.key.in_(keys)).delete()


# --- table selection -----------------------------------------------------------------------


def resolve(tables: dict[str, TableSpec], names: Iterable[str] | None = None) -> list[str]:
    """The requested tables plus everything they depend on, dependencies first.

    Raises:
        UserError: an unknown table name, or a dependency cycle.
    """
    wanted = list(tables) if names is None else [n.strip() for n in names if n.strip()]
    unknown = [n for n in wanted if n not in tables]
    if unknown:
        known = ", ".join(tables) or "none registered"
        raise UserError(f"unknown table {unknown[0]!r} (known: {known})")
    order: list[str] = []
    visiting: set[str] = set()

    def visit(name: str, chain: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in visiting:
            raise UserError(f"dependency cycle: {' -> '.join(chain + (name,))}")
        if name not in tables:
            raise UserError(f"table {chain[-1]!r} depends on unknown table {name!r}")
        visiting.add(name)
        for dep in tables[name].depends_on:
            visit(dep, chain + (name,))
        visiting.discard(name)
        order.append(name)

    for n in wanted:
        visit(n, ())
    return order


def effective_version(tables: dict[str, TableSpec], name: str) -> str:
    """The code version a partition of ``name`` is recorded with: the table's own
    ``full_version`` and, after ``<-``, those of the tables it reads, so rebuilding a dependency
    with other code makes its dependents stale too."""
    spec = tables[name]
    deps = [effective_version(tables, d) for d in spec.depends_on]
    return spec.full_version + (f" <- {' + '.join(deps)}" if deps else "")


# --- status --------------------------------------------------------------------------------


@dataclass
class TableStatus:
    """Every partition of one table checked against the catalog."""

    name: str
    version: str
    description: str
    checks: list[storage.PartitionCheck]
    extra: list[str] = field(default_factory=list)  # recorded keys the table no longer has
    stray: list[str] = field(default_factory=list)  # other files in its folder (relative)
    recorded: int = 0  # partitions the catalog records (any code version)

    @property
    def in_use(self) -> bool:
        """Was this table ever asked for? A table with no recorded partition and no file is
        simply not built yet, which is not a fault of a healthy install."""
        return bool(self.recorded or self.stray or any(c.state != storage.MISSING
                                                         for c in self.checks))

    def keys(self, *states: str) -> list[str]:
        return [c.key for c in self.checks if c.state in states]

    def count(self, state: str) -> int:
        return sum(1 for c in self.checks if c.state == state)

    @property
    def complete(self) -> bool:
        return all(c.state in (storage.OK, storage.STALE) for c in self.checks)

    @property
    def rows(self) -> int:
        return sum(c.rows for c in self.checks if c.state in (storage.OK, storage.STALE))

    @property
    def bytes(self) -> int:
        return sum(c.bytes for c in self.checks if c.state in (storage.OK, storage.STALE))


def check_table(data_dir: Path, spec: TableSpec, records: dict[str, Record],
                checksum: bool = True, threads: int | None = None,
                version: str | None = None) -> TableStatus:
    """Check every partition of ``spec`` (hashing files in parallel threads) against
    ``version`` (default: ``spec.full_version``; the runner passes ``effective_version``)."""
    keys = list(spec.partitions())
    if len(set(keys)) != len(keys):
        raise ValueError(f"table {spec.name!r} lists a partition key twice")
    version = version or spec.full_version
    paths = [storage.partition_path(data_dir, spec.name, k) for k in keys]
    with cf.ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        checks = list(pool.map(
            lambda p: storage.check_partition(p, records.get(storage.key_of(p)), version,
                                              checksum), paths))
    files = storage.partition_files(data_dir, spec.name)
    extra = sorted(k for k in set(files) - set(keys) if k in records)
    ours = [files[k] for k in keys if k in files] + [files[k] for k in extra]
    folder = storage.table_dir(data_dir, spec.name)
    stray = [str(p.relative_to(folder)) for p in storage.stray_files(data_dir, spec.name, ours)]
    return TableStatus(spec.name, version, spec.description, checks, extra, stray,
                       recorded=len(records))


def status(data_dir: str | os.PathLike, tables: dict[str, TableSpec],
           names: Iterable[str] | None = None, checksum: bool = True) -> list[TableStatus]:
    """The state of every partition of the requested tables (no lock; read only). Without
    ``checksum`` (``--quick``) only files changed since they were verified are hashed."""
    path = prepare_data_dir(data_dir, create=False)
    order = resolve(tables, names)
    records = load_records(path, order)
    out = [check_table(path, tables[n], records[n], checksum,
                       version=effective_version(tables, n)) for n in order]
    if not checksum:  # quick: still hash the files changed since they were verified
        changed = _changed_keys(path)
        for st in out:
            for i, c in enumerate(st.checks):
                if c.state in (storage.OK, storage.STALE) and (st.name, c.key) in changed:
                    st.checks[i] = storage.check_partition(
                        storage.partition_path(path, st.name, c.key), records[st.name][c.key],
                        st.version, checksum=True)
    return out


def last_built(data_dir: str | os.PathLike) -> dict[str, str]:
    """Per table, when its newest recorded partition was built (ISO 8601, UTC)."""
    path = catalog_path(Path(data_dir))
    if not path.exists():
        return {}
    try:
        con = open_read_only(path, attempts=1)
    except (duckdb.Error, UserError):
        return {}
    try:
        rows = con.execute("SELECT table_name, max(built_at) FROM etl_partitions "
                           "GROUP BY 1").fetchall()
    except duckdb.Error:
        return {}
    finally:
        con.close()
    return {name: when.isoformat(timespec="seconds") + "Z" for name, when in rows if when}


def _changed_keys(path: Path) -> set[tuple[str, str]]:
    """(table, key) of recorded partitions changed since verified (``etl.integrity``)."""
    if not catalog_path(path).exists():
        return set()
    try:
        con = open_read_only(catalog_path(path), attempts=1)
    except (duckdb.Error, UserError):
        return set()  # a writer holds it: the quick check stays quick
    try:
        return {(name, key) for name, key, _, _ in changed_partitions(con, path)}
    finally:
        con.close()



@dataclass
class RebuiltCatalog:
    """What ``etl --rebuild-catalog`` did."""

    moved_to: Path | None       # the damaged catalog, kept aside
    recorded: int               # partitions recorded from their files
    unknown_version: int        # of which the file names no code version (stale: --refresh)
    unreadable: list[str]       # files that could not be read (table/part-key)


def rebuild_catalog(data_dir: str | os.PathLike, tables: dict[str, TableSpec]) -> RebuiltCatalog:
    """Move a damaged catalog aside (``poker.duckdb.damaged-TIME``, never deleted) and record
    every readable partition file of the registry's tables in a new one: rows and code version
    from its footer, size, SHA-256. Files that name no code version are recorded as version
    ``unknown`` (stale: ``--refresh`` rebuilds them); unreadable ones are left out (missing:
    the next run rebuilds them). Abstraction, strategy and evaluation rows are not in the
    partition files: rebuild those stages' outputs with their commands."""
    path = prepare_data_dir(data_dir, create=False)
    with etl_lock(path):
        cat = catalog_path(path)
        moved = None
        if cat.exists():
            stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S")
            moved = cat.with_name(f"{cat.name}.damaged-{stamp}")
            os.replace(cat, moved)
            wal = cat.with_name(cat.name + ".wal")
            if wal.exists():
                os.replace(wal, moved.with_name(moved.name + ".wal"))
        written, unknown, unreadable = [], 0, []
        for name, spec in tables.items():
            for key in spec.partitions():
                f = storage.partition_path(path, name, key)
                if not f.is_file():
                    continue
                try:
                    rows = pq.ParquetFile(f).metadata.num_rows
                    version = storage.file_version(f)
                except (OSError, pa.ArrowException):
                    unreadable.append(f"{name}/part-{key}")
                    continue
                unknown += not version
                written.append((storage.WrittenPartition(
                    name, key, str(f), rows, f.stat().st_size, file_sha256(f), 0.0),
                    version or "unknown"))
        record_partitions(path, written)
        refresh_views(path)
    return RebuiltCatalog(moved, len(written), unknown, unreadable)



def refresh_views(path: Path) -> tuple[list[str], list[str]]:
    """The ETL table views (``etl.views``); the later stages' views are refreshed by their
    readers (``cli.py sql``, ``compare``)."""
    try:
        return create_etl_views(path)
    except Exception as exc:  # duckdb.Error (e.g. held by another process), OSError
        return [], [f"views not refreshed: {typed_line(exc)} (they are on the next run or "
                    f"`cli.py sql`)"]
