"""Solve the missing strategies of a comparison, and build its missing abstractions, in several
processes (``--jobs N``).

A comparison's abstract games are independent: each is solved by one process that opens the
data directory itself, resumes the strategy's own checkpoint and stores the result the way a
sequential solve does (catalog writes wait for each other, ``schema.catalog.session_scope``).
The sequential pass that follows then finds every strategy stored and only evaluates. Each
worker runs its numba kernels on ``cpu_count // jobs`` threads, so ``--jobs 2`` on two cores
runs two single-threaded solves side by side (the type-form DCFR scales poorly past one thread
on small games, so two solves at once finish about twice as fast as one after the other).
Builds (``build_parallel``) are single-threaded and independent in the same way: each worker
builds and stores one abstraction as ``cli.py build-abstraction`` does.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import numba

from queries.builds import build_abstraction
from etl.tables import tables_override, use_tables
from schema.catalog import catalog_wait, set_catalog_wait
from schema.progress import force_mode, forced_mode, progress_bar
from solve.games.registry import plugins, use_plugins


def _init_worker(threads: int, game_plugins: tuple[str, ...], progress_mode: str | None,
                 tables: str | None, wait: float) -> None:
    """A worker's start: its numba threads, and the settings of the process that started it
    (game plug-ins, progress mode, ETL tables, catalog wait)."""
    numba.set_num_threads(threads)
    use_plugins(game_plugins)
    force_mode(progress_mode)
    use_tables(tables)
    set_catalog_wait(wait)


def _solve_one(factory: Callable, game: str, data_dir: str, name: str, options: Any
               ) -> tuple[str, str, float]:
    support = factory(game, Path(data_dir))
    (entry,) = support.resolve([name])
    t0 = time.time()
    strategy = support.ensure_strategy(entry, replace(options, progress=False))
    return name, strategy, time.time() - t0


def _build_one(data_dir: str, name: str, kwargs: dict) -> tuple[str, str, float]:
    t0 = time.time()
    build_abstraction(Path(data_dir), name=name, **kwargs)
    return name, name, time.time() - t0


def solve_parallel(factory: Callable, game: str, data_dir: Path, tasks: list[tuple[str, Any]],
                   jobs: int, progress: bool = True) -> dict[str, str]:
    """Make sure every ``(name, options)`` in ``tasks`` has a stored strategy, ``jobs`` at a
    time; ``{name: strategy}``. ``factory(game, data_dir)`` (a module-level function, as it
    is sent to the workers) gives the game's comparison support (``queries.compare``), whose
    ``ensure_strategy(entry, options)`` solves or reuses; ``options`` is its ``Options``.
    A name listed twice is solved once, with its first options. A worker's error is raised
    here after the running solves are stopped (their checkpoints stay, so a re-run resumes
    them)."""
    unique: dict[str, Any] = {}
    for name, options in tasks:
        unique.setdefault(name, options)
    return _run(_solve_one, [(factory, game, str(data_dir), name, options)
                             for name, options in unique.items()],
                jobs, progress, "solve", "solved")


def build_parallel(data_dir: Path, tasks: list[tuple[str, dict]], jobs: int,
                   progress: bool = True) -> None:
    """Build and store every ``(name, kwargs)`` of ``tasks`` (``build_abstraction(data_dir,
    name=name, **kwargs)``), ``jobs`` at a time. A worker's error is raised here after the
    running builds are stopped (their finished rounds stay, so a re-run resumes them)."""
    _run(_build_one, [(str(data_dir), name, kwargs) for name, kwargs in tasks], jobs,
         progress, "build", "built")


def _run(fn: Callable, calls: list[tuple], jobs: int, progress: bool, what: str,
         done_word: str) -> dict[str, str]:
    """``fn(*call)`` for every call in ``jobs`` spawned processes (``cpu_count // jobs`` numba
    threads each); each returns (name, result, seconds); ``{name: result}``."""
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    threads = max(1, (os.cpu_count() or 1) // jobs)
    done: dict[str, str] = {}
    # each worker sets its own thread count as it starts, and this process's settings (a
    # spawned process starts afresh): arguments, not this process's environment
    pool = ProcessPoolExecutor(max_workers=jobs, max_tasks_per_child=1,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=_init_worker,
                               initargs=(threads, plugins(), forced_mode(), tables_override(),
                                         catalog_wait()))
    bar = progress_bar(total=len(calls), desc=f"{what} ({jobs} jobs)", unit=what,
                       disable=not progress)
    try:
        pending = {pool.submit(fn, *call) for call in calls}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                name, result, seconds = fut.result()  # a worker's error stops here
                done[name] = result
                bar.update(1)
                bar.write(f"{done_word} {name}" + (f" -> {result}" if result != name
                                                   else "") + f" ({seconds:.0f}s)")
    except BaseException:
        # the running ones are stopped, not waited for (a re-run resumes their checkpoints)
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
        # joined, not left running: with wait=False the pool's manager thread can still try
        # to replace a finished worker after shutdown has dropped its process table (3.11)
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        bar.close()
    return done
