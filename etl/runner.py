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

from etl import storage
from etl.cluster import connect
from etl.lock import etl_lock
from etl.records import (Record, check_table, effective_version, forget_partitions, load_records,
                         prepare_data_dir, record_partitions, refresh_views, resolve,
                         stamp_verified)
from etl.spec import TableSpec
from schema.errors import ParameterError, typed_line
from schema.progress import progress_bar

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
                self._client = connect(scheduler)
            except ImportError:  # pragma: no cover - pinned in requirements.txt
                raise ParameterError("`scheduler` needs the 'distributed' package") from None
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
        raise ParameterError(f"`workers` must be at least 1, got {workers}")
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
            report_views, view_errors = refresh_views(path)
    kind = "+".join(e.kind for e in (executor, inline) if e is not None) or "none"
    return RunReport(reports, kind, workers,
                     time.perf_counter() - t_start, report_views, view_errors)


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
                report.failures.append((job[1], typed_line(error)))
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

