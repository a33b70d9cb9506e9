"""Thresholding and purification of a Texas Hold'em strategy (``solve.holdem.threshold``;
Ganzfried, Sandholm & Waugh, AAMAS 2012), measured: for each threshold, the LBR bound of the
thresholded strategy and its difference from the strategy's own, paired board by board over
the same boards and runouts (``bench_holdem_methods.py``'s boards, seed 2024), and the
thresholded strategy head-to-head against the strategy itself (duplicate deals).

    NUMBA_NUM_THREADS=2 python -m bench.bench_holdem_threshold --data-dir D pa-h64-2t@N \\
        --thresholds 0.05,0.15,pure --boards 100 --deals 200000

Prints a Markdown table (mbb/g, 95% intervals).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


from schema.errors import UserError
from solve.holdem.evaluate import (Policy, board_lbr_values, duplicate_match,
                                   lbr_estimates, lbr_runouts, sample_boards, to_mbb)
from solve.holdem.run import load_policy, parse_threshold
from solve.holdem.threshold import threshold

#: the LBR boards of bench_holdem_methods.py
BOARD_SEED = 2024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("strategy", help="NAME or NAME@ITERATIONS")
    ap.add_argument("--thresholds", default="0.05,0.15,pure",
                    help="comma-separated thresholds in (0, 1] or 'pure'")
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--deals", type=int, default=200_000,
                    help="duplicate deals of each thresholded strategy against the strategy")
    args = ap.parse_args(argv)
    try:
        taus = {t: parse_threshold(t) for t in args.thresholds.split(",")}
        if args.boards < 2 or args.deals < 2:
            raise ValueError("--boards and --deals must be at least 2")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    boards = sample_boards(args.boards, seed=BOARD_SEED)
    perms = lbr_runouts(args.boards, BOARD_SEED)
    try:
        raw, tree = load_policy(args.strategy, Path(args.data_dir), {})
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    bb = tree.rules.big_blind

    def row(label, pol):
        t0 = time.perf_counter()
        v = board_lbr_values(tree, pol, boards, perms)
        lbr, s0, s1 = lbr_estimates(v, bb)
        r = {"tau": label, "v": v, "lbr": lbr, "sb": s0.mean, "bb": s1.mean}
        if label != "none":  # paired with the unthresholded strategy, board by board
            r["diff"] = to_mbb(v.mean(axis=1) - rows[0]["v"].mean(axis=1), bb)
            r["h2h"] = duplicate_match(tree, pol, raw, args.deals, seed=21)
        print(f"  {label}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        return r

    rows: list[dict] = []
    rows.append(row("none", raw))
    for text, tau in taus.items():  # thresholded from the weights already loaded
        w = threshold(tree, raw.buckets.n_buckets, raw.weights, tau)
        rows.append(row(text, Policy.table(f"{args.strategy}~{text}", tree, raw.buckets, w)))
    print(f"{args.strategy}: LBR over {args.boards} boards x 2 seats (paired), head-to-head over "
          f"{args.deals:,} duplicate deals; mbb/g, 95%")
    print("| threshold | LBR (as SB / as BB) | LBR minus unthresholded | vs unthresholded |")
    print("|---|---|---|---|")
    for r in rows:
        diff = f"{r['diff'].mean:+.1f} +- {r['diff'].half_width:.1f}" if "diff" in r else ""
        h2h = f"{r['h2h'].mean:+.1f} +- {r['h2h'].half_width:.1f}" if "h2h" in r else ""
        print(f"| {r['tau']} | {r['lbr'].mean:.1f} +- {r['lbr'].half_width:.1f} "
              f"({r['sb']:.0f} / {r['bb']:.0f}) | {diff} | {h2h} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
