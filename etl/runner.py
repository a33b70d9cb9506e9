"""The ETL runner: build the partitions of the equity tables that are missing, stale or damaged.

A table (``etl.spec.TableSpec``) is a list of partitions; a partition is the unit of work, of
storage (one Parquet file) and of refresh. A run

1. resolves the requested tables and their ``depends_on`` into a dependency order;
2. takes the data directory's lock (``etl.lock``) so two runs never write the same files;
3. checks every partition against its catalog row (``schema.catalog_etl.Partition``): file
   present, size, Parquet footer, row count, SHA-256, code version;
4. computes the missing ones (with ``refresh``: also the stale and damaged ones, and only those)
   in a local process pool or on a Dask cluster; workers write staged files and return their
   metadata; this process moves each file into place and records it in the catalog at once
   (a background thread batches the rows of partitions that finish together), so a run
   killed at any moment loses at most the partitions in flight and a re-run finishes the rest;
5. recreates the DuckDB views (``queries.views``) and returns a per-table report.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import multiprocessing
import os
import queue
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from etl import storage
from etl.integrity import changed_partitions, identity
from etl.lock import etl_lock
from etl.spec import TableSpec
from etl.views import create_etl_views
from schema.errors import UserError, first_line
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
    from schema.catalog import catalog_path, open_read_only
    from schema.catalog_etl import Partition

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
    from schema.catalog import session_scope
    from schema.catalog_etl import Partition

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
    from schema.catalog_etl import VerifiedFile

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
    from schema.catalog import session_scope

    with session_scope(data_dir) as session:
        for key in keys:
            _merge_identity(session, data_dir, name, key)


def forget_partitions(data_dir: Path, name: str, keys: Iterable[str]) -> None:
    """Delete the catalog rows (not the files) of partitions ``keys`` of table ``name``."""
    keys = list(keys)
    if not keys:
        return
    from schema.catalog import session_scope
    from schema.catalog_etl import Partition, VerifiedFile

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
    return TableStatus(spec.name, version, spec.description, checks, extra, stray)


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
    import duckdb

    from schema.catalog import catalog_path, open_read_only

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
    import duckdb

    from schema.catalog import catalog_path, open_read_only

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


# --- executing -----------------------------------------------------------------------------


def build_partition(name: str, key: str, compute: Callable[[str, Path], pa.Table],
                    schema: pa.Schema, data_dir: str, token: str,
                    version: str = "") -> storage.WrittenPartition:
    """Worker side: compute one partition and write it to its staging path."""
    t0 = time.perf_counter()
    table = compute(key, Path(data_dir))
    if not isinstance(table, pa.Table):
        raise TypeError(f"{name} compute({key!r}) returned {type(table).__name__}, "
                        f"not a pyarrow.Table")
    path, digest = storage.write_staged(data_dir, name, key, table, schema, token, version)
    return storage.WrittenPartition(name, key, str(path), table.num_rows, path.stat().st_size,
                                    digest, time.perf_counter() - t0)


def _init_worker(numba_threads: int, coordinator: int) -> None:
    # Several worker processes share the cores: give each numba a fair share of threads.
    os.environ.setdefault("NUMBA_NUM_THREADS", str(numba_threads))
    threading.Thread(target=_exit_with, args=(coordinator,), daemon=True).start()


def _exit_with(pid: int, every: float = 0.5) -> None:
    """End this worker soon after the coordinating process is gone (e.g. SIGKILLed), even in
    the middle of a partition: nobody would publish its file."""
    while True:
        time.sleep(every)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:  # exists (pid reused by another user): keep going
            pass


class _Executor:
    """The same submit / as-completed interface over in-process, process pool and Dask."""

    def __init__(self, workers: int, scheduler: str | None):
        self.kind = "dask" if scheduler else ("inline" if workers == 1 else "processes")
        self.workers = workers
        self._pool: Any = None
        self._client: Any = None
        if scheduler:
            try:
                from distributed import Client
            except ImportError:  # pragma: no cover - pinned in requirements.txt
                raise UserError("--scheduler needs the 'distributed' package") from None
            try:
                self._client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                text = (exc.args[0] if exc.args and isinstance(exc.args[0], str)
                        else str(exc)).strip() or type(exc).__name__
                raise UserError(f"cannot reach Dask scheduler {scheduler}: "
                                f"{text.splitlines()[0]}") from None
        elif self.kind == "processes":
            cores = os.cpu_count() or 1
            self._pool = cf.ProcessPoolExecutor(
                max_workers=workers, mp_context=multiprocessing.get_context("forkserver"),
                initializer=_init_worker, initargs=(max(1, cores // workers), os.getpid()))

    def map_unordered(self, fn: Callable, jobs: list[tuple]
                      ) -> Iterator[tuple[tuple, Any, BaseException | None]]:
        """Yield ``(job, result, error)`` as jobs finish."""
        if self.kind == "inline":
            for job in jobs:
                try:
                    yield job, fn(*job), None
                except Exception as exc:  # reported per partition by the caller
                    yield job, None, exc
            return
        if self.kind == "dask":
            from distributed import as_completed
            futures = {self._client.submit(fn, *job, pure=False,
                                           key=f"etl-{job[0]}-{job[1]}-{job[-1]}"): job
                       for job in jobs}
        else:
            as_completed = cf.as_completed
            futures = {self._pool.submit(fn, *job): job for job in jobs}
        try:
            for fut in as_completed(list(futures)):
                try:
                    yield futures[fut], fut.result(), None
                except Exception as exc:
                    yield futures[fut], None, exc
        finally:
            for fut in futures:
                fut.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        if self._client is not None:
            self._client.close()


# --- the run -------------------------------------------------------------------------------


@dataclass
class TableReport:
    """What a run did to one table."""

    name: str
    partitions: int
    built: int = 0
    stale: list[str] = field(default_factory=list)  # kept (no --refresh)
    damaged: list[str] = field(default_factory=list)  # kept (no --refresh)
    removed_extra: int = 0
    quarantined: list[str] = field(default_factory=list)  # stray files moved (data-dir paths)
    complete: bool = False
    failures: list[tuple[str, str]] = field(default_factory=list)  # (key, one-line error)
    blocked_by: str = ""  # a dependency that is not complete
    rows: int = 0
    bytes: int = 0
    compute_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.complete


@dataclass
class RunReport:
    tables: list[TableReport]
    executor: str
    workers: int
    wall_seconds: float
    views: list[str] = field(default_factory=list)
    view_errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tables)


def run(data_dir: str | os.PathLike, tables: dict[str, TableSpec],
        names: Iterable[str] | None = None, *, workers: int | None = None, refresh: bool = False,
        scheduler: str | None = None, wait: bool = False, progress: bool = True,
        views: bool = True, log: Callable[[str], None] | None = None) -> RunReport:
    """Build what is missing (with ``refresh``: also stale and damaged partitions).

    Args:
        data_dir: the data directory (created if missing).
        tables: the registry (``etl.tables.all_tables()``, or test tables).
        names: tables to build (default: all); their dependencies are included.
        workers: local worker processes (default: number of cores; 1 = in this process).
            Ignored with ``scheduler``.
        refresh: also rebuild stale (other code version) and damaged partitions, and remove
            partition files the table no longer has.
        scheduler: ``tcp://HOST:PORT`` of a Dask distributed scheduler whose workers see the
            same data directory.
        wait: wait for another run's lock instead of failing.
        progress: show progress bars (stderr).
        views: recreate the DuckDB views afterwards.
        log: where one-line notes go (default: stderr).

    Raises:
        UserError: bad data directory, unknown table, lock held, unreachable scheduler.
    """
    log = log or (lambda msg: print(msg, file=sys.stderr))
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise UserError(f"--workers must be at least 1, got {workers}")
    path = prepare_data_dir(data_dir)
    order = resolve(tables, names)
    t_start = time.perf_counter()
    reports: list[TableReport] = []
    with etl_lock(path, wait=wait):
        removed = storage.clean_staging(path, order)
        if removed:
            log(f"removed {removed} leftover staged file(s) of an interrupted run")
        records = load_records(path, order)
        executor: _Executor | None = None
        inline: _Executor | None = None  # for tables whose compute is parallel itself
        try:
            for name in order:
                spec = tables[name]
                version = effective_version(tables, name)
                st = check_table(path, spec, records[name], version=version)
                stamp_verified(path, name, st.keys(storage.OK, storage.STALE))
                report = TableReport(name, len(st.checks))
                reports.append(report)
                blocked = next((d for d in spec.depends_on
                                if not _report_of(reports, d).complete), "")
                if blocked:
                    report.blocked_by = blocked
                    log(f"skipping {name}: dependency {blocked} is not complete")
                    continue
                rebuild = {storage.MISSING}
                if refresh:
                    rebuild |= {storage.STALE, storage.DAMAGED}
                    _remove_extra(path, name, st.extra, report)
                    moved = storage.quarantine(path, name,
                                               [storage.table_dir(path, name) / f for f in st.stray])
                    report.quarantined = [str(m.relative_to(path)) for m in moved]
                    for m in report.quarantined:
                        log(f"{name}: moved stray file to {m}")
                else:
                    if st.extra:
                        log(f"{name}: {len(st.extra)} partition file(s) the table no longer has "
                            f"(remove with --refresh)")
                    if st.stray:
                        log(f"{name}: {len(st.stray)} stray file(s) ({', '.join(st.stray[:3])}"
                            f"{', ...' if len(st.stray) > 3 else ''}): not part of the table; "
                            f"--refresh moves them to {storage.QUARANTINE_DIR}/{name}/")
                todo = [c.key for c in st.checks if c.state in rebuild]
                t_table = time.perf_counter()
                if todo:
                    if spec.threaded and not scheduler:
                        inline = inline or _Executor(1, None)
                        _build(path, spec, version, todo, inline, report, progress)
                    else:
                        executor = executor or _Executor(workers, scheduler)
                        _build(path, spec, version, todo, executor, report, progress)
                report.wall_seconds = time.perf_counter() - t_table
                recs = _records_one(path, name)
                final = check_table(path, spec, recs, checksum=False, version=version)
                report.rows, report.bytes = final.rows, final.bytes
                report.compute_seconds = sum(r.seconds for r in recs.values())
                # the quick re-check skips hashing: keep what the full check found on the rest
                rebuilt = set(todo) - {k for k, _ in report.failures}
                report.stale = [k for k in final.keys(storage.STALE) if k not in rebuilt]
                report.damaged = sorted(set(final.keys(storage.DAMAGED))
                                        | (set(st.keys(storage.DAMAGED)) - rebuilt))
                report.complete = final.complete and not report.damaged and not report.failures
        finally:
            if executor is not None:
                executor.close()
        report_views, view_errors = ([], [])
        if views:
            report_views, view_errors = _refresh_views(path)
    kind = "+".join(e.kind for e in (executor, inline) if e is not None) or "none"
    return RunReport(reports, kind, workers,
                     time.perf_counter() - t_start, report_views, view_errors)


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
    from schema.catalog import catalog_path

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
        _refresh_views(path)
    return RebuiltCatalog(moved, len(written), unknown, unreadable)


def _report_of(reports: list[TableReport], name: str) -> TableReport:
    return next(r for r in reports if r.name == name)


def _records_one(path: Path, name: str) -> dict[str, Record]:
    return load_records(path, [name])[name]


def _remove_extra(path: Path, name: str, extra: list[str], report: TableReport) -> None:
    for key in extra:
        storage.partition_path(path, name, key).unlink(missing_ok=True)
    forget_partitions(path, name, extra)
    report.removed_extra = len(extra)


class _CatalogWriter:
    """Records published partitions from a background thread, as soon as they arrive.

    Whatever completes while a write is in progress goes into the next write (one short DuckDB
    transaction each), so recording keeps up with any rate of completions without holding up
    the computation. A run killed before a row is written loses only that row: the file is then
    "not recorded" and is rebuilt by the next run.
    """

    def __init__(self, path: Path):
        self._path = path
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="etl-catalog", daemon=True)
        self._thread.start()

    def put(self, written: storage.WrittenPartition, version: str) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put((written, version))

    def close(self) -> None:
        """Write what is queued, stop the thread; re-raise a failed write."""
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _loop(self) -> None:
        done = False
        while not done:
            batch = [self._queue.get()]
            while True:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            done = None in batch
            batch = [b for b in batch if b is not None]
            if batch and self._error is None:
                try:
                    record_partitions(self._path, batch)
                except BaseException as exc:  # reported by put() / close()
                    self._error = exc


def _build(path: Path, spec: TableSpec, version: str, todo: list[str], executor: _Executor,
           report: TableReport, progress: bool) -> None:
    """Compute ``todo`` partitions of ``spec``; publish and record each as it completes."""
    from schema.progress import progress_bar

    token = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    jobs = [(spec.name, key, spec.compute, spec.schema, str(path), token, version)
            for key in todo]
    writer = _CatalogWriter(path)
    bar = progress_bar(total=len(jobs), desc=spec.name, unit="part", file=sys.stderr,
                       log_each=True,
               disable=not progress, dynamic_ncols=True, leave=True)
    try:
        for job, written, error in executor.map_unordered(build_partition, jobs):
            if error is not None:
                report.failures.append((job[1], _one_line(error)))
            else:
                staged = Path(written.staged)
                if not staged.exists():
                    report.failures.append((job[1], f"staged file {staged} not found here: is "
                                                    f"the data directory shared with the "
                                                    f"workers?"))
                else:
                    storage.publish(path, written)
                    writer.put(written, version)
                    report.built += 1
            bar.update(1)
    finally:
        writer.close()
        bar.close()
        for sub in (storage.STAGING_DIR, storage.PENDING_DIR):
            try:  # empty unless a worker's file could not be published (or recorded)
                (storage.table_dir(path, spec.name) / sub).rmdir()
            except OSError:
                pass


def _refresh_views(path: Path) -> tuple[list[str], list[str]]:
    """The ETL table views (``etl.views``); the later stages' views are refreshed by their
    readers (``cli.py sql``, ``compare``)."""
    try:
        return create_etl_views(path)
    except Exception as exc:  # duckdb.Error (e.g. held by another process), OSError
        return [], [f"views not refreshed: {_one_line(exc)} (they are on the next run or "
                    f"`cli.py sql`)"]


def _one_line(exc: BaseException) -> str:
    """``Type: first line`` of an exception (a worker's error, where the type says much)."""
    first = first_line(exc)
    return first if first == type(exc).__name__ else f"{type(exc).__name__}: {first}"
