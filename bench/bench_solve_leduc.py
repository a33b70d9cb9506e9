#!/usr/bin/env python
"""Leduc Hold'em: time to exploitability 1e-3, ours (CFR+) vs OpenSpiel's C++ CFRPlusSolver.

All rows run in one invocation, each in its own fresh process (so peak RSS is per solver):
ours on the suit-isomorphic game (468 information sets, the default), ours on the full game
(936 information sets, the same tree OpenSpiel solves), and ``pyspiel.CFRPlusSolver`` (C++;
alternating updates, regret matching+, linear averaging), whose exploitability is measured
by OpenSpiel's C++ ``pyspiel.exploitability``; ours by ``solve.algorithms.evaluate.exploitability`` (the
two agree to 1e-6, tests/test_solve_openspiel.py). Exploitability is checked after
iterations 1, 2, 3, ... and then every ``--growth`` more (the same schedule for every row);
checking time is reported separately and excluded from the solve time. "import" is the
solver's module import (numba for ours); "setup" is building the game and solver (ours: also
loading the cached numba kernels, a one-off warm-up).

    python -m bench.bench_solve_leduc [--target 1e-3] [--growth 1.02]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import queue
import sys
import time


from bench._common import peak_mb, solve_with_checks


def _schedule(growth: float):
    it = 1
    while True:
        yield it
        it = max(it + 1, int(it * growth))


def ours(target: float, growth: float, iso: bool, q) -> None:
    t0 = time.perf_counter()
    from solve.algorithms.cfr import CFRSolver
    from solve.algorithms.evaluate import exploitability
    from solve.games.compile import compile_game
    from solve.games.rules import leduc

    t1 = time.perf_counter()
    game = compile_game(leduc(), suit_isomorphism=iso)
    CFRSolver(game, "cfr+").iterate(2)  # numba warm-up (kernels cached on disk after a first run)
    exploitability(game, CFRSolver(game, "cfr+").average_strategy())
    solver = CFRSolver(game, "cfr+")
    t2 = time.perf_counter()
    solve_t, check_t, e = solve_with_checks(solver, game, _schedule(growth), target)
    name = f"ours CFR+ (numba), {'suit-iso' if iso else 'full'} game"
    q.put(dict(solver=name, infosets=game.n_infosets, imp=t1 - t0, setup=t2 - t1,
               iterations=solver.iteration_, solve=solve_t, check=check_t, exploitability=e,
               peak_mb=peak_mb()))


def openspiel(target: float, growth: float, q) -> None:
    t0 = time.perf_counter()
    import pyspiel

    t1 = time.perf_counter()
    game = pyspiel.load_game("leduc_poker")
    solver = pyspiel.CFRPlusSolver(game)
    t2 = time.perf_counter()
    n = 0
    solve_t = check_t = 0.0
    for it in _schedule(growth):
        t = time.perf_counter()
        while n < it:
            solver.evaluate_and_update_policy()
            n += 1
        solve_t += time.perf_counter() - t
        t = time.perf_counter()
        pol = solver.average_policy()
        e = pyspiel.exploitability(game, pol)
        check_t += time.perf_counter() - t
        if e < target:
            break
    q.put(dict(solver="OpenSpiel C++ CFRPlusSolver", infosets=len(solver.tabular_average_policy().policy_table()),
               imp=t1 - t0, setup=t2 - t1, iterations=n, solve=solve_t, check=check_t,
               exploitability=e, peak_mb=peak_mb()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=float, default=1e-3, help="exploitability to reach (chips)")
    ap.add_argument("--growth", type=float, default=1.02,
                    help="check exploitability every this factor more iterations (default 1.02)")
    args = ap.parse_args()
    if not (args.target > 0 and args.growth > 1):
        ap.error("--target must be > 0 and --growth > 1")
    ctx = mp.get_context("spawn")
    rows = []
    jobs = [(ours, (True,)), (ours, (False,)), (openspiel, ())]
    for fn, extra in jobs:
        q = ctx.Queue()
        p = ctx.Process(target=fn, args=(args.target, args.growth, *extra, q))
        p.start()
        while True:  # a child that dies must not leave us waiting forever
            try:
                rows.append(q.get(timeout=1))
                break
            except queue.Empty:
                if not p.is_alive():
                    sys.exit(f"error: the {fn.__name__} process failed (exit code {p.exitcode})")
        p.join()
    print(f"Leduc, CFR+ to exploitability < {args.target:g} chips (checks every x{args.growth:g})")
    print(f"{'solver':38s} {'infosets':>8s} {'iters':>6s} {'solve s':>9s} {'it/s':>9s} {'check s':>8s} "
          f"{'import s':>8s} {'setup s':>8s} {'expl':>10s} {'peak MB':>8s}")
    for r in rows:
        print(f"{r['solver']:38s} {r['infosets']:8d} {r['iterations']:6d} {r['solve']:9.3f} "
              f"{r['iterations'] / r['solve']:9.0f} {r['check']:8.3f} {r['imp']:8.2f} {r['setup']:8.2f} "
              f"{r['exploitability']:10.4g} {r['peak_mb']:8.0f}")
    theirs = rows[-1]
    for r in rows[:-1]:
        print(f"{r['solver']}: solve time {theirs['solve'] / r['solve']:.0f}x faster, "
              f"per iteration {r['iterations'] / r['solve'] / (theirs['iterations'] / theirs['solve']):.0f}x, "
              f"import+setup+solve {(theirs['imp'] + theirs['setup'] + theirs['solve']) / (r['imp'] + r['setup'] + r['solve']):.1f}x")


if __name__ == "__main__":
    main()
