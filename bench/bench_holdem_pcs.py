"""Public chance sampling and whole-board evaluation for limit Hold'em (issue 17), side by side
with the per-deal versions they replace, at full size (20/800/4800/28800 synthetic buckets by
default, or a built abstraction):

- solver speed: chance-sampled CFR+ iterations/s vs public-chance-sampling seconds/iteration;
- evaluator efficiency: the 95% half-width x sqrt(CPU seconds) of the LBR bound per deal vs per
  board, and of the duplicate head-to-head per deal vs per board (smaller = more precision per
  second), on the same strategy.

    NUMBA_NUM_THREADS=2 python -m bench.bench_holdem_pcs [--abstraction holdem-pa --data-dir D]
    python -m bench.bench_holdem_pcs --small   # the samplers' settings on a small game

``--small``: preflop + flop with a cap of 3 bets and 8 / 64 strength buckets (``--small-buckets``;
e.g. 8,2000, more flop buckets than a board has hands, for the sparse updates of the full
game's later rounds); each solver's exact best response in the abstract game whose chance node
is 30,000 sampled deals, against CPU seconds (the chance-sampled CFR+ and every
public-sampling setting: each regret update of ``solve.holdem.pcs.REGRETS`` with each
averaging).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np


from solve.holdem.buckets import load_buckets, synthetic_buckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.evaluate import (Policy, best_response, board_lbr,
                                   board_match, duplicate_match, local_best_response,
                                   sample_deals)
from solve.holdem.game import HoldemRules, build_tree
from solve.holdem.pcs import AVERAGING, REGRETS, HoldemPCS


def timed(f, *a, **k):
    c0, t0 = time.process_time(), time.perf_counter()
    out = f(*a, **k)
    return out, time.perf_counter() - t0, time.process_time() - c0


def small(buckets: tuple[int, int] = (8, 64), hands: tuple[int, ...] = (),
          settings: bool = True) -> int:
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=3))
    b = synthetic_buckets(buckets, n_rounds=2)
    deals = sample_deals(30_000, seed=6)

    def expl(s):
        pol = Policy.table("s", tree, b, s.average_)
        return 0.5 * sum(best_response(tree, pol, p, deals)[0] for p in (0, 1)) * 500

    makers = [("chance-sampled CFR+", lambda: HoldemCFR(tree, b, seed=2),
               (2000, 8000, 30000, 60000))]
    if settings:
        makers += [(f"public, {r} / {a}", (lambda r=r, a=a: HoldemPCS(tree, b, seed=2, regret=r,
                                                                     averaging=a, hands=0)),
                    (10, 40, 150, 300))
                   for r in REGRETS for a in AVERAGING]
    # the default update with m hands per board: about 1,081 / m times the iterations
    makers += [(f"public, linear / linear, {m} hands per board",
                (lambda m=m: HoldemPCS(tree, b, seed=2, hands=m)),
                tuple(max(1, round(n * 1081 / m)) for n in (10, 40, 150, 300)))
               for m in hands]
    print("abstract exploitability (mbb/g) after [iterations, CPU s]\n")
    print("| solver | 1 | 2 | 3 | 4 |\n|---|---|---|---|---|")
    for label, make, steps in makers:
        s = make()
        s.iterate(1)  # compile
        cells, cpu, it = [], 0.0, 0
        for n in steps:
            _, _, c = timed(s.iterate, n)
            cpu, it = cpu + c, it + n
            cells.append(f"{expl(s):.1f} [{it:,}, {cpu:.2f} s]")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--abstraction", default=None, help="built abstraction (default synthetic)")
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--cs-iterations", type=int, default=300_000,
                    help="chance-sampled iterations making the strategy evaluated")
    ap.add_argument("--pcs-iterations", type=int, default=10)
    ap.add_argument("--lbr-deals", type=int, default=1000)
    ap.add_argument("--lbr-boards", type=int, default=30)
    ap.add_argument("--h2h-deals", type=int, default=20_000)
    ap.add_argument("--h2h-boards", type=int, default=40)
    ap.add_argument("--small", action="store_true", help="the settings on a small game only")
    ap.add_argument("--small-buckets", default="8,64",
                    help="--small: preflop,flop buckets (default 8,64)")
    ap.add_argument("--small-hands", default="",
                    help="--small: also the default update keeping M hands per board, for each "
                         "M of this comma list (e.g. 16,64,256)")
    ap.add_argument("--small-only-hands", action="store_true",
                    help="--small: skip the regret/averaging settings' rows")
    args = ap.parse_args()
    if args.small:
        return small(tuple(int(x) for x in args.small_buckets.split(",")),
                     tuple(int(x) for x in args.small_hands.split(",") if x),
                     not args.small_only_hands)
    b = (load_buckets(args.abstraction, args.data_dir) if args.abstraction
         else synthetic_buckets((20, 800, 4800, 28800), name="synthetic"))
    tree = build_tree(HoldemRules())
    print(f"abstraction {b.name} {'/'.join(map(str, b.n_buckets))}, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'all')}")
    cs, pcs = HoldemCFR(tree, b, seed=1), HoldemPCS(tree, b, seed=1, hands=0)
    cs.iterate(1000)
    pcs.iterate(1)  # compile
    _, w_cs, _ = timed(cs.iterate, args.cs_iterations)
    _, w_pcs, _ = timed(pcs.iterate, args.pcs_iterations)
    print("\n| solver (1 thread) | rate | deals per iteration |\n|---|---|---|")
    print(f"| chance-sampled CFR+ | {args.cs_iterations / w_cs:,.0f} it/s | 1 |")
    print(f"| public chance sampling | {w_pcs / args.pcs_iterations:.3f} s/it | 1,081 x 990 |")
    a = Policy.table("cs", tree, b, cs.average_)
    z = Policy.table("pcs", tree, b, pcs.average_)
    board_lbr(tree, a, 2, seed=9)
    board_match(tree, a, z, 2, seed=9)
    rows = []
    for label, f, kw in (
            (f"LBR, {args.lbr_deals} deals x 2 seats", local_best_response,
             dict(policy=a, n_deals=args.lbr_deals)),
            (f"LBR, {args.lbr_boards} whole boards x 2 seats", board_lbr,
             dict(policy=a, n_boards=args.lbr_boards)),
            (f"head-to-head, {args.h2h_deals} duplicate deals", duplicate_match,
             dict(a=a, b=z, n_deals=args.h2h_deals)),
            (f"head-to-head, {args.h2h_boards} whole boards", board_match,
             dict(a=a, b=z, n_boards=args.h2h_boards))):
        out, wall, cpu = timed(f, tree, seed=1, **kw)
        e = out[0] if isinstance(out, tuple) else out
        rows.append((label, e, wall, cpu))
    print("\n| evaluation | estimate (mbb/g) | wall s | CPU s | half-width x sqrt(CPU s) |")
    print("|---|---|---|---|---|")
    for label, e, wall, cpu in rows:
        print(f"| {label} | {e.mean:+.1f} +- {e.half_width:.1f} | {wall:.1f} | {cpu:.1f} | "
              f"{e.half_width * np.sqrt(cpu):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
