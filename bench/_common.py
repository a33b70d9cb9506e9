"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import argparse
import resource
import time
from typing import Callable, Iterable

import numpy as np


def excess_kurtosis(x) -> float:
    """Excess kurtosis of a sample (0 for a normal distribution)."""
    d = np.asarray(x, dtype=np.float64)
    d = d - d.mean()
    return float((d ** 4).mean() / (d ** 2).mean() ** 2 - 3.0)


def wrapped_command(ap: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The command a wrapper script runs: its ``command`` positional (``REMAINDER``) without
    the leading ``--``; an argparse error (exit 2) if there is none."""
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error(f"give the command after --: {ap.prog} [options] -- COMMAND ...")
    return cmd


def peak_mb() -> float:
    """Peak resident set size of this process, MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def solve_with_checks(solver, game, schedule: Iterable[int], target: float,
                      time_limit: float | None = None,
                      on_check: Callable[[int, float, float, float], None] | None = None):
    """Iterate ``solver`` (``solve.algorithms.cfr.CFRSolver``) up to each iteration count of ``schedule``
    and check the exact exploitability after each, until it is below ``target`` chips or the
    solve time reaches ``time_limit`` seconds. Checking time is kept apart from solve time.

    ``on_check(iteration, solve_s, check_s, exploitability)`` is called after every check.
    Returns ``(solve_s, check_s, exploitability)`` at the last check.
    """
    from solve.algorithms.evaluate import exploitability

    solve_t = check_t = 0.0
    e = float("inf")
    for it in schedule:
        t = time.perf_counter()
        solver.iterate(it - solver.iteration_)
        solve_t += time.perf_counter() - t
        t = time.perf_counter()
        e = exploitability(game, solver.average_strategy())
        check_t += time.perf_counter() - t
        if on_check is not None:
            on_check(solver.iteration_, solve_t, check_t, e)
        if e < target or (time_limit is not None and solve_t >= time_limit):
            break
    return solve_t, check_t, e
