"""Rhode Island's abstract sequence form, its deal matrices: every board's buckets in one call
(``bucket_boards``) beside one ``bucket`` call per board.

    python -m bench.bench_deal_matrices [--abstraction NAME --data-dir DIR] [--repeat 5]

``solve.games.abstract_form._deal_matrices`` (the types of every round, the showdown and fold
matrices) is what every Rhode Island abstract solve and evaluation builds first. A stored
abstraction (``RhodeIslandTableAbstraction``) answers all (board, hand) pairs of a round in one
call; wrapped so that it shows only ``bucket``, the same abstraction is asked one board at a
time (1 + 52 + 2,652 calls), the path every abstraction without ``bucket_boards`` takes. Prints
the best CPU seconds of ``--repeat`` runs after a warm-up for both, and whether the types and
matrices agree to the last bit. Default abstraction: buckets by canonical hand index (13, 25,
125 buckets), built in memory; not nested, so its final round has many types and the matrices,
not the look-ups, take most of the time. The README tour's ``ri-pa`` (``--abstraction ri-pa``
after its first command) is the usual case.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from etl.rhode_island import hand_tree
from solve.abstractions import RhodeIslandTableAbstraction, load_abstraction
from solve.games.abstract_form import MAX_TYPES, MAX_WORK, _deal_matrices
from solve.games.rules import rhode_island


class OneBoardAtATime:
    """``abstraction`` seen through ``bucket`` only."""

    def __init__(self, abstraction):
        self.name = abstraction.name
        self.suit_invariant = True
        self._a = abstraction

    def bucket(self, round, hands, board):
        return self._a.bucket(round, hands, board)


def best_cpu(fn, repeat: int):
    out = fn()  # warm-up: kernels loaded, hand tree cached
    times = []
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return min(times), out


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def same(a, b) -> bool:
    types = all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) and x[2] == y[2]
                for x, y in zip(a[0], b[0]))
    mats = all(np.array_equal(dense(x), dense(y)) for x, y in zip((a[1], *a[2]), (b[1], *b[2])))
    return types and mats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--abstraction", default=None, help="a stored Rhode Island abstraction")
    ap.add_argument("--data-dir", default="data", help="its data directory (default ./data)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each (default 5)")
    args = ap.parse_args()
    if args.abstraction:
        ab = load_abstraction(args.abstraction, "rhode-island", args.data_dir)
    else:
        ab = RhodeIslandTableAbstraction("by-index", [np.arange(len(t.cards)) % k for t, k in
                                                      zip(hand_tree(), (13, 25, 125))])
    rules = rhode_island()
    print(f"date {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  cpus {os.cpu_count()}  "
          f"load {os.getloadavg()[0]:.2f}  abstraction {ab.name}")
    many_s, many = best_cpu(lambda: _deal_matrices(rules, ab, MAX_TYPES, MAX_WORK), args.repeat)
    one_s, one = best_cpu(lambda: _deal_matrices(rules, OneBoardAtATime(ab), MAX_TYPES,
                                                 MAX_WORK), args.repeat)
    print(f"{'path':<28} {'CPU s (best)':>13}")
    print(f"{'bucket_boards, one call':<28} {many_s:13.3f}")
    print(f"{'bucket, one board a call':<28} {one_s:13.3f}")
    print(f"speed-up {one_s / many_s:.1f}x, identical: {'yes' if same(many, one) else 'NO'}")


if __name__ == "__main__":
    main()
