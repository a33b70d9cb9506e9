"""Numba kernels for Rhode Island Hold'em: 3-card hand ranking and exact win/tie/loss counts.

See ``etl/rhode_island.py`` for the definitions; these are the hot loops it calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# rank value = category << 12 | k1 << 8 | k2 << 4 | k3  (higher is better, equal is a tie)
STRAIGHT_FLUSH, TRIPS, STRAIGHT, FLUSH, PAIR, HIGH_CARD = 5, 4, 3, 2, 1, 0


@njit(cache=True)
def rank3(a: int, b: int, c: int) -> int:
    """Strength of the 3-card hand {a, b, c} (cards 0..51); higher is better."""
    r0, r1, r2 = a >> 2, b >> 2, c >> 2
    # sort ranks descending
    if r0 < r1:
        r0, r1 = r1, r0
    if r1 < r2:
        r1, r2 = r2, r1
    if r0 < r1:
        r0, r1 = r1, r0
    if r0 == r2:
        return (TRIPS << 12) | (r0 << 8)
    if r0 == r1:
        return (PAIR << 12) | (r0 << 8) | (r2 << 4)
    if r1 == r2:
        return (PAIR << 12) | (r1 << 8) | (r0 << 4)
    flush = (a & 3) == (b & 3) and (b & 3) == (c & 3)
    top = -1
    if r0 - r1 == 1 and r1 - r2 == 1:
        top = r0
    elif r0 == 12 and r1 == 1 and r2 == 0:  # A-2-3: the ace plays low, the three is the top
        top = 1
    if top >= 0:
        return ((STRAIGHT_FLUSH if flush else STRAIGHT) << 12) | (top << 8)
    cat = FLUSH if flush else HIGH_CARD
    return (cat << 12) | (r0 << 8) | (r1 << 4) | r2


@njit(cache=True)
def rank3_many(cards: np.ndarray) -> np.ndarray:
    n = cards.shape[0]
    out = np.empty(n, dtype=np.int32)
    for i in range(n):
        out[i] = rank3(cards[i, 0], cards[i, 1], cards[i, 2])
    return out


@njit(cache=True)
def _outcome(p: int, o: int, b1: int, b2: int) -> int:
    """0, 1 or 2: private card ``p`` wins, ties or loses against ``o`` on board {b1, b2}."""
    me = rank3(p, b1, b2)
    op = rank3(o, b1, b2)
    return 0 if me > op else (1 if me == op else 2)


@njit(cache=True, parallel=True)
def wtl_counts(cards: np.ndarray) -> np.ndarray:
    """Exact (wins, ties, losses) of each hand against a uniformly random opponent card.

    ``cards[i, 0]`` is the private card, ``cards[i, 1:]`` the public cards seen so far (0, 1 or
    2 of them). The missing public cards are enumerated as unordered sets from the cards left
    after the opponent's card, so the totals are 51*C(50,2), 50*49 and 49 for 1, 2, 3 cards.
    """
    n, k = cards.shape
    out = np.zeros((n, 3), dtype=np.int64)
    for i in prange(n):
        used = np.zeros(52, dtype=np.bool_)
        for j in range(k):
            used[cards[i, j]] = True
        p = cards[i, 0]
        for o in range(52):
            if used[o]:
                continue
            if k == 3:
                out[i, _outcome(p, o, cards[i, 1], cards[i, 2])] += 1
            elif k == 2:
                b1 = cards[i, 1]
                for b2 in range(52):
                    if not (used[b2] or b2 == o):
                        out[i, _outcome(p, o, b1, b2)] += 1
            else:
                for b1 in range(52):
                    if used[b1] or b1 == o:
                        continue
                    for b2 in range(b1 + 1, 52):
                        if not (used[b2] or b2 == o):
                            out[i, _outcome(p, o, b1, b2)] += 1
    return out
