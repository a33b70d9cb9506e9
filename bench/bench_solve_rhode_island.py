#!/usr/bin/env python
"""Rhode Island Hold'em, full game (suit isomorphism only): CFR+ to exploitability < 1 chip.

Compiles the game, runs CFR+ (alternating updates, regret matching+, linear averaging) and
checks the exact exploitability (mean of both best-response gains, chips, ante 500) after
iterations 1, 2, 4, ... (doubling, capped at ``--max-step``) until it is below ``--target`` or the
solve time exceeds ``--time-limit``. Solve time excludes the checks, which are reported
separately. Prints the exploitability curve (also written as CSV with ``--csv``), the game
value for player 1 and the peak RSS; load averages at start and end, since the machine is
shared. Run it under ``/usr/bin/time -v`` for the whole-process peak memory.

    NUMBA_NUM_THREADS=2 /usr/bin/time -v python -m bench.bench_solve_rhode_island --csv curve.csv
"""

from __future__ import annotations

import argparse
import csv
import os
import time


from bench._common import peak_mb, solve_with_checks


def _schedule(max_step: int):
    it = 1
    while True:
        yield it
        it += min(it, max_step)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=float, default=1.0, help="exploitability target, chips (default 1)")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="solve seconds (default 1800)")
    ap.add_argument("--max-step", type=int, default=64, help="most iterations between checks")
    ap.add_argument("--algorithm", default="cfr+", help="cfr, cfr+ or dcfr (default cfr+)")
    ap.add_argument("--csv", default=None, help="write the curve here")
    args = ap.parse_args()

    print(f"start {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {os.getloadavg()}, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', '(default)')}", flush=True)
    t0 = time.perf_counter()
    from solve.algorithms.cfr import CFRSolver
    from solve.algorithms.evaluate import expected_value
    from solve.games.compile import compile_game
    from solve.games.rules import rhode_island

    game = compile_game(rhode_island())
    compile_s = time.perf_counter() - t0
    print(f"compiled: {len(game.ntype):,} nodes, {len(game.dnode):,} decision nodes, {game.n_hands} hands, "
          f"{game.n_infosets:,} infosets, {len(game.board_cards)} canonical boards; {compile_s:.1f} s", flush=True)
    solver = CFRSolver(game, args.algorithm)
    rows = []

    def on_check(iteration, solve_t, check_t, e):
        rows.append((iteration, round(solve_t, 3), e))
        print(f"iter {iteration:6d}  solve {solve_t:8.1f} s  check {check_t:7.1f} s  "
              f"exploitability {e:.6g}  load {os.getloadavg()[0]:.1f}", flush=True)

    solve_t, check_t, e = solve_with_checks(solver, game, _schedule(args.max_step), args.target,
                                            args.time_limit, on_check)
    value = expected_value(game, solver.average_strategy())
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["iteration", "solve_seconds", "exploitability"])
            w.writerows(rows)
    peak = peak_mb()
    status = "reached" if e < args.target else "NOT reached"
    print(f"{args.algorithm}: target {args.target:g} {status}: {solver.iteration_} iterations, "
          f"solve {solve_t:.1f} s ({solver.iteration_ / solve_t:.2f} it/s), checks {check_t:.1f} s, "
          f"compile {compile_s:.1f} s; exploitability {e:.6g} chips; value for player 1 {value:.6f} chips; "
          f"peak RSS {peak:.0f} MiB; end load {os.getloadavg()}")


if __name__ == "__main__":
    main()
