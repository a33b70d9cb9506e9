#!/usr/bin/env python
"""Leduc Hold'em: time to exploitability 1e-3, ours (CFR+) vs OpenSpiel's C++ CFRPlusSolver.

Both run in one invocation, each in its own fresh process (so peak RSS is per solver).
Exploitability is checked after iterations 1, 2, 4, ... and then every 10% more; the
checking time is reported separately and excluded from the solve time. Ours includes the
one-off compile and numba warm-up in "setup" (numba cache warm after the first run).

    python bench/bench_solve_leduc.py [--target 1e-3]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _schedule():
    it = 1
    while True:
        yield it
        it = max(it + 1, int(it * 1.1))


def ours(target: float, q) -> None:
    t0 = time.perf_counter()
    from solve.cfr import CFRSolver
    from solve.evaluate import exploitability
    from solve.games.compile import compile_game
    from solve.games.rules import leduc

    game = compile_game(leduc())
    CFRSolver(game, "cfr+").iterate(2)  # numba warm-up
    exploitability(game, CFRSolver(game, "cfr+").average_strategy())
    setup = time.perf_counter() - t0
    solver = CFRSolver(game, "cfr+")
    solve_t = check_t = 0.0
    for it in _schedule():
        t = time.perf_counter()
        solver.iterate(it - solver.iteration_)
        solve_t += time.perf_counter() - t
        t = time.perf_counter()
        e = exploitability(game, solver.average_strategy())
        check_t += time.perf_counter() - t
        if e < target:
            break
    q.put(dict(solver="ours CFR+ (numba)", setup=setup, iterations=solver.iteration_, solve=solve_t,
               check=check_t, exploitability=e,
               peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def openspiel(target: float, q) -> None:
    import pyspiel

    t0 = time.perf_counter()
    game = pyspiel.load_game("leduc_poker")
    solver = pyspiel.CFRPlusSolver(game)
    setup = time.perf_counter() - t0
    n = 0
    solve_t = check_t = 0.0
    for it in _schedule():
        t = time.perf_counter()
        while n < it:
            solver.evaluate_and_update_policy()
            n += 1
        solve_t += time.perf_counter() - t
        t = time.perf_counter()
        e = pyspiel.exploitability(game, solver.average_policy())
        check_t += time.perf_counter() - t
        if e < target:
            break
    q.put(dict(solver="OpenSpiel C++ CFRPlusSolver", setup=setup, iterations=n, solve=solve_t,
               check=check_t, exploitability=e,
               peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=float, default=1e-3)
    args = ap.parse_args()
    ctx = mp.get_context("spawn")
    rows = []
    for fn in (ours, openspiel):
        q = ctx.Queue()
        p = ctx.Process(target=fn, args=(args.target, q))
        p.start()
        rows.append(q.get())
        p.join()
    print(f"Leduc, CFR+ to exploitability < {args.target:g} chips")
    print(f"{'solver':30s} {'iters':>6s} {'solve s':>9s} {'it/s':>9s} {'check s':>8s} {'setup s':>8s} "
          f"{'expl':>10s} {'peak MB':>8s}")
    for r in rows:
        print(f"{r['solver']:30s} {r['iterations']:6d} {r['solve']:9.3f} {r['iterations'] / r['solve']:9.0f} "
              f"{r['check']:8.3f} {r['setup']:8.2f} {r['exploitability']:10.3g} {r['peak_mb']:8.0f}")
    print(f"speed-up (solve time): {rows[1]['solve'] / rows[0]['solve']:.0f}x")


if __name__ == "__main__":
    main()
