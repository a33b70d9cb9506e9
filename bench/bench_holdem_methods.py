"""Texas Hold'em abstractions compared through their solved strategies (issue 20): per
strategy, its abstraction's method, recall, buckets and information sets (the abstract game's
size, which perfect and imperfect recall share as a measure), the solve's iterations and
seconds, the LBR bound over whole boards, the results against always-call / always-raise and
head-to-head against a reference strategy, each with its 95% interval; ``--round-robin``
also plays every pair (the same duplicate deals for each) and prints the matrix.

    NUMBA_NUM_THREADS=2 python bench/bench_holdem_methods.py --data-dir D pa-pcs-1t \
        eb-pcs-1t ochs-pcs-1t --reference pa-pcs-1t --h2h-deals 300000 --lbr-boards 400

A strategy may be taken at one of its checkpoints as ``NAME@ITERATIONS`` (the weights
``checkpoint/average-ITERATIONS.npy`` that ``solve --keep-averages`` keeps; also while the run
is still going). Prints a Markdown table; ``--json`` also writes the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from schema.catalog import session_scope  # noqa: E402
from schema.catalog_abstraction import Abstraction  # noqa: E402
from solve.holdem.evaluate import Policy, board_lbr, duplicate_match  # noqa: E402
from solve.holdem.run import load_policy, run_record, stored_iterations  # noqa: E402


def strategy(spec: str, ddir: Path, cache: dict):
    """(policy, tree, abstraction name, iterations, solve seconds, clock) of ``NAME`` or
    ``NAME@ITERATIONS`` (``load_policy``; a run still going is read from its checkpoint)."""
    pol, tree = load_policy(spec, ddir, cache)
    name, _, at = spec.partition("@")
    meta = run_record(ddir, name)
    iters = int(at) if at else stored_iterations(ddir, name)
    entry = next((e for e in meta.get("log", []) if e["iterations"] == iters), {})
    return (pol, tree, meta["abstraction"], iters, entry.get("solve_seconds", float("nan")),
            entry.get("clock", meta.get("clock", "wall")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("strategies", nargs="+", help="NAME or NAME@ITERATIONS")
    ap.add_argument("--reference", default=None, help="head-to-head opponent (default: the "
                                                      "first strategy)")
    ap.add_argument("--h2h-deals", type=int, default=300_000)
    ap.add_argument("--baseline-deals", type=int, default=100_000)
    ap.add_argument("--lbr-boards", type=int, default=400)
    ap.add_argument("--round-robin", action="store_true",
                    help="also head-to-head of every pair (--h2h-deals each)")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    cache: dict = {}
    ref_spec = args.reference or args.strategies[0]
    ref, ref_tree, *_ = strategy(ref_spec, args.data_dir, cache)
    with session_scope(args.data_dir) as s:
        cat = {a.name: (a.method, a.built, a.perfect_recall)
               for a in s.query(Abstraction).all()}
    rows, loaded = [], []
    for spec in args.strategies:
        t0 = time.perf_counter()
        pol, tree, abstraction, iters, seconds, clock = strategy(spec, args.data_dir, cache)
        loaded.append((pol, tree))
        method, built, perfect = cat.get(abstraction, ("?", "?", True))
        row = {"strategy": spec, "abstraction": abstraction, "method": method,
               "recall": "perfect" if perfect else "imperfect", "buckets": built,
               "information_sets": tree.information_sets(pol.buckets.n_buckets),
               "iterations": iters, "solve_seconds": seconds,
               "clock": clock}
        lbr = board_lbr(tree, pol, args.lbr_boards, seed=2024)[0] if args.lbr_boards else None
        if lbr is not None:
            row.update(lbr=lbr.mean, lbr_hw=lbr.half_width)
        for base, make in (("call", Policy.always_call), ("raise", Policy.always_raise)):
            e = duplicate_match(tree, pol, make(tree, pol.buckets), args.baseline_deals, seed=22)
            row[f"vs_{base}"], row[f"vs_{base}_hw"] = e.mean, e.half_width
        if spec != ref_spec:
            e = duplicate_match(tree, pol, ref, args.h2h_deals, seed=21)
            row["h2h"], row["h2h_hw"] = e.mean, e.half_width
        row["eval_seconds"] = round(time.perf_counter() - t0, 1)
        rows.append(row)
        print(f"{spec}: evaluated in {row['eval_seconds']:.0f}s", file=sys.stderr, flush=True)
    print(f"\nhead-to-head against {ref_spec} ({args.h2h_deals:,} duplicate deals), LBR over "
          f"{args.lbr_boards} boards, baselines {args.baseline_deals:,} deals; mbb/g, 95%\n")
    print("| strategy | method | recall | buckets | information sets | iterations | solve s | "
          "LBR | vs always-call | vs always-raise | h2h |")
    print("|---|---|---|---|---:|---:|---:|---|---|---|---|")
    for r in rows:
        def cell(k):
            return f"{r[k]:+.1f} +- {r[k + '_hw']:.1f}" if k in r else ""
        print(f"| {r['strategy']} | {r['method']} | {r['recall']} | {r['buckets']} | "
              f"{r['information_sets']:,} | {r['iterations']:,} | {r['solve_seconds']:.0f} "
              f"({r['clock']}) | {cell('lbr')} | {cell('vs_call')} | {cell('vs_raise')} | "
              f"{cell('h2h')} |")
    matrix = round_robin(args.strategies, loaded, args.h2h_deals) if args.round_robin else []
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "round_robin": matrix}, indent=1,
                                              default=float))
    return 0


def round_robin(specs: list[str], pols: list[tuple], deals: int) -> list[dict]:
    """Head-to-head of every pair of ``specs`` (their loaded (policy, tree)s; row against
    column, ``deals`` duplicate deals, the same for every pair), printed as a Markdown matrix;
    returns the pairs."""
    out, cells, vals = [], {}, {}
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            t0 = time.perf_counter()
            e = duplicate_match(pols[i][1], pols[i][0], pols[j][0], deals, seed=23)
            cells[i, j] = f"{e.mean:+.1f} +- {e.half_width:.1f}"
            cells[j, i] = f"{-e.mean:+.1f} +- {e.half_width:.1f}"
            vals[i, j], vals[j, i] = e.mean, -e.mean
            out.append({"a": specs[i], "b": specs[j], "h2h": e.mean, "h2h_hw": e.half_width})
            print(f"{specs[i]} vs {specs[j]}: {e.mean:+.1f} +- {e.half_width:.1f} "
                  f"[{time.perf_counter() - t0:.0f}s]", file=sys.stderr, flush=True)
    print(f"\nround robin, row against column ({deals:,} duplicate deals each); "
          "mbb/g, 95%\n")
    print("| | " + " | ".join(specs) + " | mean |")
    print("|---|" + "---|" * (len(specs) + 1))
    for i, spec in enumerate(specs):
        mean = np.mean([vals[i, j] for j in range(len(specs)) if j != i]) if len(specs) > 1 \
            else 0.0
        print(f"| {spec} | " + " | ".join(cells.get((i, j), "") for j in range(len(specs)))
              + f" | {mean:+.1f} |")
    return out


if __name__ == "__main__":
    sys.exit(main())
