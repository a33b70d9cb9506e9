"""Exploitability against wall time for CFR+, DCFR, EGT, LP and GA on Leduc and flop poker.

All solvers run on the same sequence form (solve.games.tree): the sequence-form CFR+/DCFR
(solve.algorithms.treeplex), EGT (solve.algorithms.egt), GA (solve.algorithms.ga) and the HiGHS sequence-form LP. Wall time
counts solver work only (exploitability checks are excluded). Writes a PNG plot and prints
a Markdown table.

    python -m bench.bench_solvers_compare --budget 20 --plot docs/solvers-leduc-flop.png
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


from solve.algorithms.egt import EGTSolver
from solve.algorithms.ga import GAParams, GeneticSolver
from solve.games import classic
from solve.games.tree import sequence_form
from solve.algorithms.treeplex import SequenceCFR, exploitability, solve_lp


def trace_iterative(sf, make, budget: float, first: int = 10, growth: float = 1.5):
    solver = make()
    pts, spent, it, chunk = [], 0.0, 0, first
    while spent < budget:
        t = time.perf_counter()
        solver.iterate(chunk)
        spent += time.perf_counter() - t
        it += chunk
        pts.append((spent, exploitability(sf, *solver.average()), it))
        chunk = max(1, int(chunk * growth))
    return pts


def trace_ga(sf, budget: float, seed: int):
    g = GeneticSolver(sf, GAParams(population=40, generations=10 ** 9, hands=200, survivors=10,
                                   mutation=0.02, seed=seed))
    pts, spent = [], 0.0
    while spent < budget:
        t = time.perf_counter()
        g.step()  # includes its own exploitability record (cheap next to play-outs)
        spent += time.perf_counter() - t
        pts.append((spent, g.history[-1], g.generation))
    return pts


def trace_lp(sf):
    t = time.perf_counter()
    x, y, _ = solve_lp(sf)
    return [(time.perf_counter() - t, exploitability(sf, x, y), 1)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per solver and game")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot", default="docs/solvers-leduc-flop.png")
    ap.add_argument("--json", default=None, help="also write the traces as JSON")
    args = ap.parse_args(argv)

    warm = sequence_form(classic.kuhn())  # compile/load the numba kernels outside the timings
    for make in (lambda: SequenceCFR(warm, "cfr+"), lambda: SequenceCFR(warm, "dcfr"), lambda: EGTSolver(warm)):
        make().iterate(2)
    GeneticSolver(warm, GAParams(population=4, survivors=2, hands=2, generations=1)).step()
    t = time.perf_counter()
    eq = classic.flop_equity()
    t_eq = time.perf_counter() - t
    games = {"Leduc": sequence_form(classic.leduc()), "flop poker (a=1, B=2)": sequence_form(classic.flop_poker(1, 2, eq))}
    print(f"flop poker 169x169 exact showdown table: {t_eq:.1f} s")
    results: dict = {}
    for gname, sf in games.items():
        print(f"{gname}: sequences {sf.n_seq}, A nonzeros {sf.A.nnz}", flush=True)
        res = {
            "CFR+": trace_iterative(sf, lambda: SequenceCFR(sf, "cfr+"), args.budget),
            "DCFR": trace_iterative(sf, lambda: SequenceCFR(sf, "dcfr"), args.budget),
            "EGT": trace_iterative(sf, lambda: EGTSolver(sf), args.budget),
            "LP (HiGHS)": trace_lp(sf),
            "GA": trace_ga(sf, args.budget, args.seed),
        }
        results[gname] = res
    # table
    print("\n| game | solver | wall s | iterations | exploitability (chips) | first time below 1e-3 (s) |")
    print("|---|---|---:|---:|---:|---:|")
    for gname, res in results.items():
        for sname, pts in res.items():
            below = next((f"{p[0]:.3f}" for p in pts if p[1] < 1e-3), "-")
            w, e, it = pts[-1]
            print(f"| {gname} | {sname} | {w:.2f} | {it} | {e:.3g} | {below} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
        for ax, (gname, res) in zip(axes, results.items()):
            for sname, pts in res.items():
                arr = np.array(pts)
                y = np.maximum(arr[:, 1], 1e-12)
                if len(arr) == 1:
                    ax.scatter(arr[:, 0], y, label=sname, marker="*", s=120, zorder=3)
                else:
                    ax.plot(arr[:, 0], y, label=sname)
            ax.set_xscale("log"); ax.set_yscale("log")
            ax.set_xlabel("wall time (s, solver only)"); ax.set_ylabel("exploitability (chips)")
            ax.set_title(gname); ax.grid(True, which="both", alpha=0.3); ax.legend()
        fig.tight_layout()
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.plot, dpi=110)
        print(f"\nplot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
