#!/usr/bin/env python
"""Exact head-to-head of every pair of n strategies: one matrix (solve.algorithms.pairwise) vs pair by pair.

Side by side in one run, on the real Rhode Island Hold'em game (or Leduc): the seconds of all
n(n-1)/2 exact head-to-heads computed pair by pair (``solve.algorithms.evaluate.head_to_head``,
two expected-value passes each, what ``compare`` did before) and from the bilinear form
(``expected_value_matrix``: a terminal pass and a weight pass per strategy, one product), and
the largest difference between the two. The strategies are stored ones (``--data-dir`` and
names), or ``--random N`` random behaviour strategies of the game.

    NUMBA_NUM_THREADS=1 python -m bench.bench_pairwise --game rhode-island --random 12
    python -m bench.bench_pairwise --game rhode-island --data-dir DIR NAME NAME ...
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


import numpy as np

from bench._common import peak_mb
from queries.limit_support import LimitPokerSupport
from solve.games.compile import compile_game
from solve.games import registry
from solve.algorithms.evaluate import head_to_head
from solve.algorithms.pairwise import expected_value_matrix, head_to_head_matrix


def random_behaviours(game, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        beh = rng.random((len(game.dnode), 3, game.n_hands))
        counts = game.child_count[game.dnode]
        for a in range(3):
            beh[counts <= a, a] = 0.0
        out.append(beh / beh.sum(axis=1, keepdims=True))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="stored strategies (with --data-dir)")
    ap.add_argument("--game", default="rhode-island", choices=("rhode-island", "leduc"))
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--random", type=int, default=0, help="this many random strategies")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.names:
        support = LimitPokerSupport(args.game, Path(args.data_dir))
        game = support.real()
        behs = [support.behaviour(n) for n in args.names]
    else:
        game = compile_game(registry.get(args.game).make_rules())
        behs = random_behaviours(game, args.random or 8, args.seed)
    n = len(behs)
    # compile both paths' kernels before timing
    expected_value_matrix(game, lambda i: behs[i], 1)
    head_to_head(game, behs[0], behs[0])
    t0 = time.perf_counter()
    m = head_to_head_matrix(expected_value_matrix(game, lambda i: behs[i], n))
    matrix_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    diff = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            diff = max(diff, abs(head_to_head(game, behs[i], behs[j]) - m[i, j]))
    pairwise_s = time.perf_counter() - t0
    pairs = n * (n - 1) // 2
    print(f"{args.game}: {n} strategies, {pairs} pairs, {len(game.ntype):,} public-tree nodes")
    print(f"{'method':<34}{'seconds':>10}{'per pair':>12}")
    print(f"{'pair by pair (evaluate.head_to_head)':<34}{pairwise_s:>10.2f}{pairwise_s / pairs:>12.4f}")
    print(f"{'one matrix (pairwise)':<34}{matrix_s:>10.2f}{matrix_s / pairs:>12.4f}")
    print(f"speed-up {pairwise_s / matrix_s:.1f}x; largest difference {diff:.2e} chips; "
          f"peak RSS {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
