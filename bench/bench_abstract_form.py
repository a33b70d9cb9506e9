#!/usr/bin/env python
"""Abstracted Rhode Island Hold'em: CFR on bucket types (solve.algorithms.abstract_cfr) vs the public tree.

Side by side in one run, on the same abstract game: seconds per CFR+ iteration of the
public-tree solver (``solve.algorithms.cfr.CFRSolver``, the engine used for the real game) and of the
type-level sequence form (``solve.algorithms.abstract_cfr.AbstractFormSolver``); then the form's CFR+
curve (abstract exploitability and value for player 1, exact) at doubling iteration counts,
and, with ``--lp-value V`` (or ``--lp``, which solves the sequence-form LP first: ~11 min),
the gap between the CFR+ value and the LP value. Default abstraction: the hand-made
``ri-13-25-125`` (``solve.abstractions.ri_rank_category``), the one the LP benchmark used.

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python -m bench.bench_abstract_form \\
        --iterations 65536 --lp-value -63.468604631188
    python -m bench.bench_abstract_form --abstraction rhode-island-pa-13-205-1774 --data-dir DIR

An imperfect-recall abstraction (``--recall imperfect``) runs on the form with its infosets
tied; its exploitability column is then the public tree's level-by-level best response (a
lower bound), the measure both engines stop by.
"""

from __future__ import annotations

import argparse
import os
import time


from bench._common import peak_mb


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--abstraction", default=None,
                    help="built Rhode Island abstraction (default: the hand-made ri-13-25-125)")
    ap.add_argument("--data-dir", default=None, help="data directory of --abstraction")
    ap.add_argument("--algorithm", default="cfr+", help="cfr, cfr+ or dcfr (default cfr+)")
    ap.add_argument("--tree-iterations", type=int, default=5,
                    help="public-tree iterations to time (default 5; 0 skips)")
    ap.add_argument("--iterations", type=int, default=4096, help="form iterations (default 4096)")
    ap.add_argument("--lp-value", type=float, default=None, help="the abstract game's LP value")
    ap.add_argument("--lp", action="store_true", help="solve the LP here for the value (slow)")
    args = ap.parse_args()

    from solve.algorithms.abstract_cfr import AbstractFormSolver
    from solve.abstractions import FunctionAbstraction, load_abstraction, ri_rank_category
    from solve.algorithms.cfr import CFRSolver
    from solve.games.abstract_form import abstract_form
    from solve.games.compile import compile_game
    from solve.games.rules import rhode_island

    print(f"date {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  cpus {os.cpu_count()}  "
          f"load {os.getloadavg()[0]:.2f}  NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', '-')}")
    if args.abstraction:
        ab = load_abstraction(args.abstraction, "rhode-island", args.data_dir or "data")
    else:
        ab = FunctionAbstraction("ri-13-25-125", ri_rank_category)
    rules = rhode_island()
    t = time.perf_counter()
    game = compile_game(rules, ab)
    t_compile = time.perf_counter() - t
    t = time.perf_counter()
    form = abstract_form(game, ab)
    t_form = time.perf_counter() - t
    print(f"abstraction {ab.name}: types per round {form.n_types}, sequences per player "
          f"{form.sf.n_seq[0]:,}, infosets {game.n_infosets:,}")
    print(f"build: public tree {t_compile:.1f} s, then type form {t_form:.1f} s (exact deal enumeration)")

    v_lp = args.lp_value
    if args.lp:
        from solve.algorithms.lp import solve_lp

        t = time.perf_counter()
        _, v_lp = solve_lp(game)
        print(f"LP: value {v_lp:.12f} in {time.perf_counter() - t:.0f} s")

    print(f"\n{'engine':<12} {'s/iteration':>12} {'iterations':>10}")
    if args.tree_iterations:
        tree = CFRSolver(game, args.algorithm).iterate(1)  # compile the kernels
        t = time.perf_counter()
        tree.iterate(args.tree_iterations)
        s_tree = (time.perf_counter() - t) / args.tree_iterations
        print(f"{'public tree':<12} {s_tree:>12.4f} {args.tree_iterations:>10}")
    solver = AbstractFormSolver(form, game, args.algorithm).iterate(1)
    t = time.perf_counter()
    n = min(200, args.iterations)
    solver.iterate(n)
    s_form = (time.perf_counter() - t) / n
    print(f"{'type form':<12} {s_form:>12.5f} {n:>10}")
    if args.tree_iterations:
        print(f"speed-up {s_tree / s_form:.0f}x")

    kind = "exact" if form.perfect_recall else "imperfect recall: lower-bound"
    print(f"\n{args.algorithm} on the type form ({kind} abstract exploitability, value, chips)")
    print(f"{'iterations':>10} {'solve s':>9} {'exploitability':>15} {'value':>16}"
          + (f" {'|value - LP|':>13}" if v_lp is not None else ""))
    solver = AbstractFormSolver(form, game, args.algorithm)
    solve_s = 0.0
    it = 1
    while True:
        t = time.perf_counter()
        solver.iterate(it - solver.iteration_)
        solve_s += time.perf_counter() - t
        e, v = solver.abstract_exploitability(), solver.abstract_value()
        print(f"{solver.iteration_:>10} {solve_s:>9.1f} {e:>15.6g} {v:>16.9f}"
              + (f" {abs(v - v_lp):>13.3g}" if v_lp is not None else ""), flush=True)
        if it >= args.iterations:
            break
        it = min(2 * it, args.iterations)
    print(f"peak RSS {peak_mb():.0f} MiB")


if __name__ == "__main__":
    main()
