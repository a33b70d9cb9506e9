"""Benchmark: run time of the hot numba kernels on realistic inputs, one thread, CPU seconds.

Companion of ``bench/bench_compile.py``: a change that cuts compile time must not slow these.
Each figure is the minimum over ``--repeat`` runs (after a warm-up call, compile excluded) of the
process CPU time, so other jobs on a shared machine disturb it little. Run with one numba
thread: ``NUMBA_NUM_THREADS=1 python -m bench.bench_kernel_runtime [--only name,...]``.

The Hold'em CFR figure uses the synthetic 20,800,4800,28800 lookups of ``bench/bench_holdem.py``
(its ``--cache`` file, built there when missing).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def best(f, repeat: int) -> float:
    f()
    times = []
    for _ in range(repeat):
        t = time.process_time()
        f()
        times.append(time.process_time() - t)
    return min(times)


def hands(n: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


def b_eval(repeat):
    from etl import evaluator, handval
    from etl._eval_kernels import evaluate_rows_serial

    h = hands(10_000_000, 7)
    out = np.empty(len(h), np.uint16)
    yield "evaluate_rows_serial 10M 7-card", best(lambda: evaluate_rows_serial(h, out), repeat)
    yield "evaluate (evaluate_rows) 10M 7-card", best(lambda: evaluator.evaluate(h), repeat)
    yield "handval_fill tasks 0..8000", best(lambda: handval.handval_values(0, 8000), repeat)


def b_index(repeat):
    from etl.isomorphism import HandIndexer

    for g in ((2, 5), (2, 3, 1)):
        ix = HandIndexer(g)
        h = hands(2_000_000, ix.n_cards, 1)
        idx = ix.index(h)
        yield f"index_rows {list(g)} 2M", best(lambda: ix.index(h), repeat)
        yield f"unindex_rows {list(g)} 2M", best(lambda: ix.unindex(idx), repeat)
    from etl.isomorphism import verify_counts

    yield "verify_counts [2,3] (roundtrip_range, verify_tasks)", best(
        lambda: verify_counts((2, 3), progress=False), repeat)


def b_equity(repeat):
    from etl import equity
    from etl._equity_kernels import flop_from_turn, preflop_sums
    from etl.isomorphism import KNOWN_SIZES

    yield "river_rows 2000 boards", best(lambda: equity._rows(5, 1000, 3000), repeat)
    yield "completion_rows turn+hist 40 boards", best(lambda: equity._rows(4, 500, 540, 50),
                                                     repeat)
    rng = np.random.default_rng(0)
    turn = rng.integers(0, 1000, (KNOWN_SIZES[(2, 4)], 2))
    out = np.empty((20 * 1176, 2), np.int64)
    yield "flop_from_turn 20 boards", best(
        lambda: flop_from_turn(equity._tables((3,)), equity._tables((2, 4)), 100, 120, turn,
                               out), repeat)
    turn = None  # free the 223 MB before the next array
    flop = rng.integers(0, 1000, KNOWN_SIZES[(2, 3)])
    o = np.empty((169, 2), np.int64)
    yield "preflop_sums", best(lambda: preflop_sums(equity._tables((2,)), equity._tables((2, 3)),
                                                    flop, flop, o), repeat)


def b_holdem(repeat):
    from bench.bench_holdem import synthetic

    from solve.holdem.cfr import HoldemCFR
    from solve.holdem.evaluate import Policy, duplicate_match, local_best_response
    from solve.holdem.game import HoldemRules, build_tree

    b = synthetic((20, 800, 4800, 28800), Path("/tmp/holdem-bench-20-800-4800-28800.npz"))
    tree = build_tree(HoldemRules(n_rounds=4))
    s = HoldemCFR(tree, b, seed=0)
    yield "cfr_chunk 5,000 iterations (20/800/4800/28800)", best(lambda: s.iterate(5_000),
                                                                  repeat)
    pol = Policy.table("x", tree, b, s.average_)
    call = Policy.always_call(tree, b)
    yield "duplicate_values 20,000 deals", best(
        lambda: duplicate_match(tree, pol, call, 20_000, seed=1), repeat)
    yield "lbr_values 40 deals", best(lambda: local_best_response(tree, pol, 40, seed=2), repeat)


def b_abstraction(repeat):
    from abstraction._holdem_kernels import river_histograms
    from abstraction.holdem import round_index_arrays
    from etl.isomorphism import HandIndexer

    yield "round_arrays [2,3,1] 2M hands", best(
        lambda: round_index_arrays((2, 3, 1), (2, 3), (2, 4), 0, 2_000_000), repeat)
    n = 200_000
    rng = np.random.default_rng(0)
    key = rng.integers(0, 1981, HandIndexer((2, 5)).size).astype(np.uint16)
    t231, t25 = HandIndexer((2, 3, 1)).tables, HandIndexer((2, 5)).tables
    yield "_river_histograms 200k turn hands", best(
        lambda: river_histograms(t231, t25, rng.integers(0, 50, n), np.ones(n), key, 50), repeat)


GROUPS = {"eval": b_eval, "index": b_index, "equity": b_equity, "holdem": b_holdem,
          "abstraction": b_abstraction}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(GROUPS), help="comma-separated groups")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import numba

    print(f"numba threads: {numba.get_num_threads()}; min of {args.repeat} CPU seconds")
    for g in args.only.split(","):
        if g not in GROUPS:
            ap.error(f"unknown group {g!r}: expected some of {','.join(GROUPS)}")
        for name, sec in GROUPS[g](args.repeat):
            print(f"  {sec:8.3f} s  {name}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
