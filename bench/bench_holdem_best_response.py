"""Exact best response in the real game (issue 51): the cost of one canonical flop of full
4-round limit Hold'em, and the projected wall time of a whole evaluation.

    python -m bench.bench_holdem_best_response                       # synthetic 20/800/4800/28800
    python -m bench.bench_holdem_best_response --data-dir /work/main/data --abstraction NAME
    python -m bench.bench_holdem_best_response --data-dir DIR --strategy NAME

A unit of work is one canonical flop (1,755 of them, weights summing to the 22,100 flops), both
seats; below it every ordered turn and river (49 x 48 = 2,352 river boards per flop), each
walked once per seat with every river betting sequence the preflop, flop and turn lead to. The
strategy: a stored one (``--strategy``), else ``--pcs-iterations`` of public chance sampling on
the abstraction (timing only: such a strategy's exploitability means nothing), else random
weights. Reports seconds per flop and per river board (per seat and both), the share of the
river boards' set-up (the strategy's river buckets of every hand, the hands sorted by strength)
measured on its own, the number of segment walks per round, and the projected wall time of all
1,755 flops on 2, 16 and 64 workers (flops are independent; the preflop is negligible).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np


from solve.holdem import _br_kernels as B
from solve.holdem import best_response as BR
from solve.holdem.buckets import indexer_tables, load_buckets, synthetic_buckets
from solve.holdem.evaluate import Policy
from solve.holdem.game import HoldemRules, build_tree
from solve.holdem.pcs import HoldemPCS
from solve.holdem.run import load_policy


def setup(args):
    if args.strategy:
        pol, tree = load_policy(args.strategy, Path(args.data_dir), {})
        return tree, pol, f"strategy {args.strategy}"
    tree = build_tree(HoldemRules())
    t = time.perf_counter()
    if args.abstraction:
        b = load_buckets(args.abstraction, Path(args.data_dir))
    else:
        b = synthetic_buckets((20, 800, 4800, 28800), name="synthetic")
    print(f"buckets {b.name} {b.n_buckets}: {time.perf_counter() - t:.0f} s", flush=True)
    if args.pcs_iterations:
        t = time.perf_counter()
        s = HoldemPCS(tree, b, seed=args.seed)
        s.iterate(args.pcs_iterations)
        w = s.average_
        del s.regrets_
        print(f"{args.pcs_iterations} PCS iterations: {time.perf_counter() - t:.0f} s",
              flush=True)
        what = f"{args.pcs_iterations} PCS iterations on {b.name}"
    else:
        off, size = tree.offsets(b.n_buckets)
        w = np.random.default_rng(args.seed).random(size, dtype=np.float32)
        what = f"random weights on {b.name}"
    return tree, Policy.table("bench", tree, b, w), what


def river_setup_seconds(tree, pol, flop, turns, rows) -> tuple[float, int]:
    """Seconds of the river boards' set-up on ``flop`` under the first ``turns`` turn cards
    (0: all): the buckets and action-probability tables of every round, the hands sorted on
    the river), and the number of river boards."""
    kind, S, off, _ = pol.args()
    PR = tuple(np.zeros((int(r), 1326)) for r in rows[4])
    dpa, dpb, dpi = BR.deck_pairs(BR.FULL_DECK)
    ob = np.zeros((4, 1326), np.int64)
    SL = tuple(np.zeros(len(dpi), np.int64) for _ in range(4)) + (np.zeros(1, np.int64),)
    board = np.zeros(5, np.int64)
    board[:3] = flop
    bk, tabs, P = pol.buckets.lookup, indexer_tables(), len(dpi)
    B.round_buckets(1, board, 3, dpa, dpb, dpi, P, bk, tabs, ob)
    B.sorted_hands(np.array([0, 1, 2, 3, 4]), dpa, dpb, dpi, P, *SL[:4])  # compile
    n = 0
    t = time.perf_counter()
    for c in [c for c in range(52) if c not in flop][:turns or 49]:
        board[3] = c
        B.round_buckets(2, board, 4, dpa, dpb, dpi, P, bk, tabs, ob)
        B.fill_probs(2, 4, board, kind, S, off, tree.nact, tree.code, rows[1], rows[3], ob, dpa,
                     dpb, dpi, P, PR)
        for d in range(52):
            if d in flop or d == c:
                continue
            board[4] = d
            B.round_buckets(3, board, 5, dpa, dpb, dpi, P, bk, tabs, ob)
            B.fill_probs(3, 5, board, kind, S, off, tree.nact, tree.code, rows[2], rows[3], ob,
                         dpa, dpb, dpi, P, PR)
            SL[4][0] = B.sorted_hands(board, dpa, dpb, dpi, P, *SL[:4])
            n += 1
    return time.perf_counter() - t, n


def segment_walks(tree) -> dict[int, int]:
    """Round-r segment walks per flop and seat (entries x cards dealt), no pruning."""
    roots = [sum(1 for n in range(1, tree.n_nodes) if tree.ntype[n] == 0 and tree.round[n] == r
                 and tree.round[tree.parent[n]] == r - 1) for r in range(4)]
    return {1: roots[1], 2: roots[2] * 49, 3: roots[3] * 49 * 48}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default="data", help="read only")
    ap.add_argument("--abstraction", default=None, help="built abstraction (default synthetic)")
    ap.add_argument("--strategy", default=None, help="a stored strategy in --data-dir")
    ap.add_argument("--pcs-iterations", type=int, default=0,
                    help="solve this many PCS iterations first (default: random weights)")
    ap.add_argument("--flops", default="0", help="canonical flop numbers to time, e.g. 0,900")
    ap.add_argument("--turns", type=int, default=0,
                    help="time only this many turn cards of each flop and scale by 49/TURNS "
                    "(0: the whole flop)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tree, pol, what = setup(args)
    flops = BR.canonical_flops()
    reach = BR.preflop_reach(tree, pol)
    entries = BR.flop_entries(tree)
    dpa, dpb, dpi = BR.deck_pairs(BR.FULL_DECK)
    T = (tree.ntype, tree.player, tree.round, tree.nact, tree.code, tree.child, tree.size,
         tree.spent)
    kind, S, off, bk = pol.args()
    out = np.zeros((2, 2, len(entries), 1326))
    t = time.perf_counter()  # compile (no entries: nothing walked)
    rows = BR.probability_rows(tree)
    sizes = BR.segment_sizes(tree)
    B.flop_values(np.array(flops[0].cards), entries[:0], reach[:, :0], BR.FULL_DECK, dpa, dpb,
                  dpi, T, kind, S, off, bk, indexer_tables(), *rows, *sizes, out[:, :, :0], 1)
    print(f"compile/load: {time.perf_counter() - t:.1f} s; strategy: {what}", flush=True)
    walks = segment_walks(tree)
    print(f"segment walks per flop and seat (before pruning): flop {walks[1]:,}, turn "
          f"{walks[2]:,}, river {walks[3]:,}", flush=True)
    per_flop = []
    for i in (int(x) for x in args.flops.split(",")):
        f = flops[i]
        t = time.perf_counter()
        B.flop_values(np.array(f.cards), entries, reach, BR.FULL_DECK, dpa, dpb, dpi, T, kind,
                      S, off, bk, indexer_tables(), *rows, *sizes, out, args.turns)
        both = (time.perf_counter() - t) * 49 / (args.turns or 49)
        prep, boards = river_setup_seconds(tree, pol, f.cards, args.turns, rows)
        prep *= 49 / (args.turns or 49)
        per_flop.append(both)
        part = f" (timed on {args.turns} turn cards, x 49/{args.turns})" if args.turns else ""
        print(f"flop #{i} {f.cards} (weight {f.weight}){part}: both seats {both:.1f} s; "
              f"2,352 river boards: "
              f"{1e3 * both / 2352:.2f} ms per river board (both seats); river set-up "
              f"{1e3 * prep / 2352:.3f} ms per board (shared by the seats; "
              f"{100 * prep / both:.1f}% of the flop)", flush=True)
    mean = float(np.mean(per_flop))
    total = mean * len(flops)
    print(f"\n{len(flops):,} canonical flops x {mean:.1f} s = {total / 3600:.1f} CPU hours "
          f"({len(flops) * 2352:,} river boards per seat)")
    for w in (2, 16, 64):
        print(f"  {w:>2} workers: {total / w / 3600:.1f} h wall "
              f"({int(np.ceil(len(flops) / w))} flops each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
