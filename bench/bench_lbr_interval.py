"""Issue 51: does LBR's stated 95% interval cover the LBR it estimates, and how far is LBR below
the exact best response? On a reduced deck, where both are exact.

Limit Hold'em on the ten-card deck (tens to aces in two suits; every board of it, 5,040 for
four rounds), a cheap suit-symmetric bucketing (canonical index modulo 3 / 4 / 2 / 3), and
four strategies (random weights, sparse random weights, always-call, and a 20,000-iteration
CFR strategy of the two-round game). For each: LBR on every board with one set of runouts
(``solve.holdem.evaluate.board_lbr_values``), so its mean over all boards is LBR's exact
value; the exact best response (``solve.holdem.best_response.exact_best_response``); then
``--samples`` independent samples of ``--boards`` boards (uniform, with replacement, as
``evaluate``'s sampled boards are), each with the interval ``evaluate`` states
(``solve.holdem.evaluate.to_mbb``: mean +- 1.96 standard errors), and how often it covers
the exact LBR value, per seat and for the mean over seats (the exploitability column).

    python -m bench.bench_lbr_interval                     # ~1-2 minutes
    python -m bench.bench_lbr_interval --boards 100 --samples 5000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench._common import excess_kurtosis
from solve.holdem import best_response as BR
from solve.holdem.buckets import HoldemBuckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.evaluate import Policy, board_lbr_values, to_mbb
from solve.holdem.game import HoldemRules, build_tree
from tests.holdem_small import DECK10, every_board, small_buckets


def strategies(tree, b, n_rounds: int):
    off, size = tree.offsets(b.n_buckets)
    rng = np.random.default_rng(11)
    w = rng.random(size)
    sparse = np.random.default_rng(12).random(size)
    sparse[sparse < 0.4] = 0.0
    out = [("random", Policy.table("random", tree, b, w.astype(np.float32))),
           ("sparse", Policy.table("sparse", tree, b, sparse.astype(np.float32))),
           ("always-call", Policy.always_call(tree, b))]
    if n_rounds == 2:
        b2 = HoldemBuckets.from_arrays("t2", list(b.arrays[:2]), b.parents[:2])
        s = HoldemCFR(tree, b2, seed=3)
        s.iterate(20_000)
        out.append(("cfr-20000", Policy.table("cfr", tree, b, s.average_)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=400, help="boards per sample (evaluate's default)")
    ap.add_argument("--samples", type=int, default=2000, help="independent samples")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    b = small_buckets()
    rng = np.random.default_rng(args.seed)
    runouts = np.argsort(np.random.default_rng(4).random((4, 52)), axis=1)
    print(f"ten-card deck; {args.samples} samples of {args.boards} boards each; mbb/g "
          "(big blind 2 chips)")
    print(f"{'game':<14} {'strategy':<12} {'boards':>6} {'exact BR':>9} {'LBR':>9} "
          f"{'gap':>8} {'half-width':>10} {'cover s0':>8} {'cover s1':>8} {'cover mean':>10} "
          f"{'kurtosis':>8}")
    for n_rounds, max_bets in ((2, 2), (4, 1)):
        tree = build_tree(HoldemRules(n_rounds=n_rounds, max_bets=max_bets))
        boards = every_board(DECK10, n_rounds)
        perms = np.ascontiguousarray(np.broadcast_to(runouts, (len(boards), 4, 52)), np.int64)
        bb = tree.rules.big_blind
        for name, pol in strategies(tree, b, n_rounds):
            t = time.perf_counter()
            v = board_lbr_values(tree, pol, boards, perms, deck=DECK10)  # (boards, 2) chips
            exact = BR.exact_best_response(tree, pol, deck=DECK10)
            cols = [v[:, 0], v[:, 1], v.mean(axis=1)]
            truth = [to_mbb(c, bb).mean for c in cols]
            covered = np.zeros(3)
            hw = 0.0
            for _ in range(args.samples):
                pick = rng.integers(0, len(boards), args.boards)
                for j, c in enumerate(cols):
                    e = to_mbb(c[pick], bb)
                    covered[j] += abs(e.mean - truth[j]) <= e.half_width
                    hw += e.half_width if j == 2 else 0.0
            kurt = excess_kurtosis(cols[2])
            print(f"{n_rounds} rounds {max_bets} bet  {name:<12} {len(boards):>6} "
                  f"{exact.exploitability_mbb:>9.1f} {truth[2]:>9.1f} "
                  f"{exact.exploitability_mbb - truth[2]:>8.1f} {hw / args.samples:>10.1f} "
                  f"{100 * covered[0] / args.samples:>7.1f}% "
                  f"{100 * covered[1] / args.samples:>7.1f}% "
                  f"{100 * covered[2] / args.samples:>9.1f}% {kurt:>8.2f}"
                  f"   ({time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
