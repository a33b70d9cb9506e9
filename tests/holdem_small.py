"""Small Texas Hold'em inputs shared by the exact best response's tests and the LBR bench
(``bench/bench_lbr_interval.py``): a reduced deck, a cheap suit-symmetric bucketing, every
board of a deck."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from solve.holdem.buckets import HoldemBuckets
from solve.holdem.game import RIVER_KEYS

#: ten cards: ten to ace in two suits (straights, no flushes); 151,200 deals
DECK10 = np.array([r * 4 + s for r in range(8, 13) for s in range(2)])


def small_buckets() -> HoldemBuckets:
    """Buckets from the canonical index (suit-symmetric, cheap), 3 / 4 / 2 / 3 per round."""
    rounds = [(np.arange(169, dtype=np.int32) * 7) % 3,
              (np.arange(1_286_792, dtype=np.int32) * 5) % 4,
              cycle(np.arange(2, dtype=np.int32), 55_190_538)]  # index % 2
    lut = np.arange(2)[:, None] * 3 + (np.arange(RIVER_KEYS)[None, :] * 7) % 3
    key = cycle(np.arange(RIVER_KEYS, dtype=np.uint16), 123_156_254)  # index % RIVER_KEYS
    return HoldemBuckets.from_arrays("t4", rounds, [np.full(3, -1), np.zeros(4), np.zeros(2),
                                                    np.zeros(6)], lut, key)


def small_buckets_imperfect() -> HoldemBuckets:
    """:func:`small_buckets`' rounds 0-2 with no parents (imperfect recall) and a river
    bucketing of its own, 3 buckets per river hand that ignore the turn bucket (the river key
    is the bucket, the river table the identity, stride 0: how ``--recall imperfect``
    abstractions are stored)."""
    b = small_buckets()
    key = cycle(np.array([0, 2, 1, 1, 0], dtype=np.uint16), 123_156_254)
    return HoldemBuckets.from_arrays("t4-ir", list(b.arrays[:3]),
                                     [np.full(3, -1), np.full(4, -1), np.full(2, -1),
                                      np.full(3, -1)], np.arange(3)[None, :], key, 0)


def cycle(period: np.ndarray, n: int) -> np.ndarray:
    """``period[i % len(period)]`` for i < n, without an index array of n int64s."""
    return np.tile(period, -(-n // len(period)))[:n]


def every_board(deck, n_rounds: int) -> np.ndarray:
    """Every board of a deal from ``deck``, each once and all equally likely: the flop as a
    set, then the turn and river in order (as a set when no round sees them apart)."""
    out = []
    for f in combinations(deck, 3):
        rest = [c for c in deck if c not in f]
        pairs = (combinations(rest, 2) if n_rounds <= 2 else
                 ((t, r) for t in rest for r in rest if r != t))
        out += [(*f, t, r) for t, r in pairs]
    return np.array(out, np.uint8)
