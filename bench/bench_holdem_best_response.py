"""Exact best response in the real game (issue 51): the cost of one canonical flop of full
4-round limit Hold'em, and the projected wall time of a whole evaluation.

    python -m bench.bench_holdem_best_response                       # synthetic 20/800/4800/28800
    python -m bench.bench_holdem_best_response --data-dir /work/main/data --abstraction NAME
    python -m bench.bench_holdem_best_response --data-dir DIR --strategy NAME
    git show 297283e:solve/holdem/_br_kernels.py > /tmp/old/_br_kernels.py
    python -m bench.bench_holdem_best_response --turns 2 --old-kernels /tmp/old/_br_kernels.py

A unit of work is one canonical flop (1,755 of them, weights summing to the 22,100 flops), both
seats; below it one turn card per orbit of the flop's remaining suit symmetry and one river card
per orbit of the turn board's (``best_response.board_orbits``: 2,352 ordered turn-river boards
of a flop without symmetry, 744 of a monotone or trips flop; 2,554,656 over the canonical flops
instead of 4,127,760), each walked once per seat with every river betting sequence the preflop,
flop and turn lead to. The
strategy: a stored one (``--strategy``), else ``--pcs-iterations`` of public chance sampling on
the abstraction (timing only: such a strategy's exploitability means nothing), else random
weights. Reports CPU seconds (this process; the machine may be shared) and wall seconds per
flop and per river board walked (both seats), the share of the river boards' set-up (the
strategy's river buckets of every hand, the hands sorted by strength, the river's table of
action probabilities) measured on its own, the number of segment walks per round, and the
projected CPU hours of all 1,755 flops (CPU seconds per river board x the river boards walked)
and their wall time on 2, 16 and 64 workers (flops are independent; the preflop is
negligible).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
import time
from pathlib import Path

import numpy as np


from solve.holdem import _br_kernels as B
from solve.holdem import _br_lanes as L
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


def walk_inputs(tree, pol) -> tuple:
    """What ``_br_kernels.flop_values`` takes besides a flop, its orbits and its output: (the
    canonical flops, the preflop reach, the flop entries, the deck's pairs (cards a, b, pair
    index), the tree's arrays, the policy's (kind, weights, offsets, bucket look-ups), the
    probability rows, the segment sizes)."""
    T = (tree.ntype, tree.player, tree.round, tree.nact, tree.code, tree.child, tree.size,
         tree.spent)
    return (BR.canonical_flops(), BR.preflop_reach(tree, pol), BR.flop_entries(tree),
            BR.deck_pairs(BR.FULL_DECK), T, pol.args(), BR.probability_rows(tree),
            BR.segment_sizes(tree))


def river_setup_seconds(tree, pol, flop, orbits, turns, rows) -> tuple[float, int]:
    """CPU seconds of the river boards' set-up on ``flop`` under its first ``turns`` turn cards
    (0: all) of ``orbits`` (:func:`best_response.board_orbits`): the turn's buckets and table
    of action probabilities, per river board the buckets and the hands in strength order, and
    per turn card the probability tables of every river segment root for all its river boards'
    buckets (as the walk fills them, ``LANES`` roots at a time); and the number of river
    boards."""
    kind, S, off, _ = pol.args()
    PR = tuple(np.zeros((int(r), 1326)) for r in rows[4])
    dpa, dpb, dpi = BR.deck_pairs(BR.FULL_DECK)
    P = len(dpi)
    roots = np.array([n for n in rows[2] if tree.round[tree.parent[n]] == 2])
    nq = B.segment_rows(rows[2], rows[3], tree.nact, tree.size)
    ob = np.zeros((4, 1326), np.int64)
    SL = tuple(np.zeros(P, np.int64) for _ in range(4)) + (np.zeros(1, np.int64),)
    board = np.zeros(5, np.int64)
    board[:3] = flop
    bk, tabs = pol.buckets.lookup, indexer_tables()
    B.round_buckets(1, board, 3, dpa, dpb, dpi, P, bk, tabs, ob)
    B.sorted_hands(np.array([0, 1, 2, 3, 4]), dpa, dpb, dpi, P, *SL[:4])  # compile
    RB, UB, HR = np.zeros((48, P), np.int64), np.zeros((48, P), np.int64), np.zeros(48, np.int64)
    PB = np.zeros((3, P))
    ubk = L.union_buckets(RB, HR, 1, UB)
    L.fill_group_probs(kind, S, off, tree.nact, tree.code, rows[2], rows[3], tree.size, roots,
                       0, 1, ubk, len(ubk), PB, np.zeros((nq, L.LANES)))
    _, tcard, _, _, rturn, rcard, _, _ = orbits
    n = 0
    t = time.process_time()
    for j in range(len(tcard) if not turns else min(turns, len(tcard))):
        board[3] = tcard[j]
        B.round_buckets(2, board, 4, dpa, dpb, dpi, P, bk, tabs, ob)
        B.fill_probs(2, 4, board, kind, S, off, tree.nact, tree.code, rows[1], rows[3], ob, dpa,
                     dpb, dpi, P, PR)
        nr = rturn[j + 1] - rturn[j]
        for m in range(nr):
            board[4] = rcard[rturn[j] + m]
            B.round_buckets(3, board, 5, dpa, dpb, dpi, P, bk, tabs, ob)
            HR[m] = B.sorted_hands(board, dpa, dpb, dpi, P, *SL[:4])
            RB[m, :HR[m]] = ob[3, SL[0][:HR[m]]]
            n += 1
        ubk = L.union_buckets(RB, HR, nr, UB)
        Q3 = np.zeros((nq, len(ubk) * L.LANES))
        for g0 in range(0, len(roots), L.LANES):
            L.fill_group_probs(kind, S, off, tree.nact, tree.code, rows[2], rows[3], tree.size,
                               roots, g0, min(L.LANES, len(roots) - g0), ubk, len(ubk), PB, Q3)
    return time.process_time() - t, n


def old_kernels(path: str):
    """An earlier version of ``_br_kernels`` loaded from ``path`` (its numba cache beside it)."""
    spec = importlib.util.spec_from_file_location("old_br_kernels", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache finds the module again on a second run
    spec.loader.exec_module(module)
    return module


def _takes_orbits(module) -> bool:
    """Does this ``flop_values`` deal one turn and river card per suit orbit?"""
    return "tcard" in inspect.signature(module.flop_values.py_func).parameters


def river_boards_per_flop() -> np.ndarray:
    """River boards walked per seat under each of the 1,755 canonical flops
    (``best_response.river_boards_per_flop``)."""
    return BR.river_boards_per_flop(BR.canonical_flops())


def river_boards() -> int:
    """River boards walked per seat over the 1,755 canonical flops."""
    return int(river_boards_per_flop().sum())


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
                    help="time only this many turn cards (orbits) of each flop and scale by "
                    "the river boards walked (0: the whole flop)")
    ap.add_argument("--old-kernels", default=None, metavar="FILE",
                    help="an earlier _br_kernels.py (e.g. `git show "
                    "297283e:solve/holdem/_br_kernels.py`, one river segment at a time, or "
                    "cf456bb's, without suit isomorphism below the flop) to time on the same "
                    "flops and turn cards first, in this process (before/after), and whether the "
                    "two give the same values to the bit")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    tree, pol, what = setup(args)
    flops, reach, entries, (dpa, dpb, dpi), T, (kind, S, off, bk), rows, sizes = walk_inputs(
        tree, pol)
    out = np.zeros((2, 2, len(entries), 1326))
    t = time.perf_counter()  # compile (no entries: nothing walked)
    B.flop_values(np.array(flops[0].cards), entries[:0], reach[:, :0], BR.FULL_DECK, dpa, dpb,
                  dpi, T, kind, S, off, bk, indexer_tables(), *rows, *sizes,
                  *BR.board_orbits(flops[0].cards), out[:, :, :0], 1)
    print(f"compile/load: {time.perf_counter() - t:.1f} s; strategy: {what}", flush=True)
    walks = segment_walks(tree)
    print(f"segment walks per seat of a flop without symmetry (before pruning): flop "
          f"{walks[1]:,}, turn {walks[2]:,}, river {walks[3]:,}", flush=True)
    boards_all = river_boards()
    per_board = []
    old = old_kernels(args.old_kernels) if args.old_kernels else None
    for i in (int(x) for x in args.flops.split(",")):
        f = flops[i]
        out_old = None
        if old is not None:  # every turn card is dealt: its first TURNS are 48 river boards each
            args_old = (np.array(f.cards), entries, reach, BR.FULL_DECK, dpa, dpb, dpi, T, kind,
                        S, off, bk, indexer_tables(), *rows, *sizes)
            # a kernel with suit isomorphism below the flop (from 2026-11-28) takes the orbits
            orbs = tuple(BR.board_orbits(f.cards)) if _takes_orbits(old) else ()
            old.flop_values(*args_old[:1], entries[:0], reach[:, :0], *args_old[3:], *orbs,
                            out[:, :, :0], 1)  # compile
            c = time.process_time()
            n_old = old.flop_values(*args_old, *orbs, out, args.turns)
            n_old = n_old if orbs else 48 * (args.turns or 49)
            ms = 1e3 * (time.process_time() - c) / n_old
            print(f"flop #{i} {f.cards}, the old kernels: {ms:.1f} ms CPU per river board (both "
                  f"seats; {n_old} boards)", flush=True)
            out_old = out.copy() if orbs else None
        orb = BR.board_orbits(f.cards)
        t, c = time.perf_counter(), time.process_time()
        walked = B.flop_values(np.array(f.cards), entries, reach, BR.FULL_DECK, dpa, dpb, dpi, T,
                               kind, S, off, bk, indexer_tables(), *rows, *sizes, *orb, out,
                               args.turns)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        if old is not None and out_old is not None:  # the same walk: the same bits?
            print(f"flop #{i}: the same values as the old kernels' (every bit): "
                  f"{np.array_equal(out, out_old)}", flush=True)
        prep, boards = river_setup_seconds(tree, pol, f.cards, orb, args.turns, rows)
        assert boards == walked
        n_flop = len(orb[5])  # the flop's river boards (per seat)
        per_board.append(cpu / walked)
        part = (f" (timed on its first {args.turns} turn cards: {walked} river boards)"
                if args.turns else "")
        print(f"flop #{i} {f.cards} (weight {f.weight}, {n_flop:,} river boards){part}: "
              f"{1e3 * cpu / walked:.1f} ms CPU ({1e3 * wall / walked:.1f} ms wall) per river "
              f"board (both seats), {cpu / walked * n_flop:.0f} CPU s per flop; river set-up "
              f"{1e3 * prep / walked:.2f} ms CPU per board (shared by the seats; "
              f"{100 * prep / cpu:.1f}% of the flop)", flush=True)
    mean = float(np.mean(per_board))
    total = mean * boards_all
    print(f"\n{len(flops):,} canonical flops, {boards_all:,} river boards per seat x "
          f"{1e3 * mean:.1f} ms = {total / 3600:.1f} CPU hours "
          f"({total / len(flops):.0f} CPU s per flop on average)")
    for w in (2, 16, 64):
        print(f"  {w:>2} workers: {total / w / 3600:.1f} h wall "
              f"({int(np.ceil(len(flops) / w))} flops each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
