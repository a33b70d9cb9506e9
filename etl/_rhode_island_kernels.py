"""Numba kernels for Rhode Island Hold'em: 3-card hand ranking and exact win/tie/loss counts.

See ``etl/rhode_island.py`` for the definitions; these are the hot loops it calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# rank value = category << 12 | k1 << 8 | k2 << 4 | k3  (higher is better, equal is a tie)
STRAIGHT_FLUSH, TRIPS, STRAIGHT, FLUSH, PAIR, HIGH_CARD = 5, 4, 3, 2, 1, 0


# Ranking variants (issue 14: rule details the published descriptions leave open)
WHEEL_LOW, WHEEL_NONE, WHEEL_SECOND = 0, 1, 2   # A-2-3: lowest straight / not a straight / just below Q-K-A
TIES_ALL, TIES_TOP = 0, 1                       # inside a category: all cards / the leading rank only


@njit(cache=True)
def rank3v(a: int, b: int, c: int, wheel: int, ties: int) -> int:
    """Strength of the 3-card hand {a, b, c} (cards 0..51) under a ranking variant: ``wheel``
    says how A-2-3 plays (``WHEEL_*``), ``ties`` how hands of one category compare
    (``TIES_*``). ``rank3v(a, b, c, WHEEL_LOW, TIES_ALL) == rank3(a, b, c)``."""
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
    if r0 == r1 or r1 == r2:
        pair, kicker = (r0, r2) if r0 == r1 else (r1, r0)
        if ties == TIES_TOP:
            return (PAIR << 12) | (pair << 8)
        return (PAIR << 12) | (pair << 8) | (kicker << 4)
    flush = (a & 3) == (b & 3) and (b & 3) == (c & 3)
    straight = -1
    if r0 - r1 == 1 and r1 - r2 == 1:
        straight = r0 << 8
    elif r0 == 12 and r1 == 1 and r2 == 0:  # A-2-3
        if wheel == WHEEL_LOW:
            straight = 1 << 8  # the ace plays low, the three is the top
        elif wheel == WHEEL_SECOND:
            straight = (11 << 8) | (1 << 4)  # above K-Q-J (11 << 8), below Q-K-A (12 << 8)
    if straight >= 0:
        return ((STRAIGHT_FLUSH if flush else STRAIGHT) << 12) | straight
    cat = FLUSH if flush else HIGH_CARD
    if ties == TIES_TOP:
        return (cat << 12) | (r0 << 8)
    return (cat << 12) | (r0 << 8) | (r1 << 4) | r2


@njit(cache=True)
def rank3(a: int, b: int, c: int) -> int:
    """Strength of the 3-card hand {a, b, c} (cards 0..51); higher is better (docs/design.md s. 5)."""
    return rank3v(a, b, c, WHEEL_LOW, TIES_ALL)


@njit(cache=True)
def rank3_many(cards: np.ndarray, wheel: int = WHEEL_LOW, ties: int = TIES_ALL) -> np.ndarray:
    n = cards.shape[0]
    out = np.empty(n, dtype=np.int32)
    for i in range(n):
        out[i] = rank3v(cards[i, 0], cards[i, 1], cards[i, 2], wheel, ties)
    return out


@njit(cache=True)
def _outcome(p: int, o: int, b1: int, b2: int, wheel: int, ties: int) -> int:
    """0, 1 or 2: private card ``p`` wins, ties or loses against ``o`` on board {b1, b2}."""
    me = rank3v(p, b1, b2, wheel, ties)
    op = rank3v(o, b1, b2, wheel, ties)
    return 0 if me > op else (1 if me == op else 2)


@njit(cache=True, parallel=True)
def wtl_counts(cards: np.ndarray, wheel: int = WHEEL_LOW, ties: int = TIES_ALL,
               n_cards: int = 52) -> np.ndarray:
    """Exact (wins, ties, losses) of each hand against a uniformly random opponent card.

    ``cards[i, 0]`` is the private card, ``cards[i, 1:]`` the public cards seen so far (0, 1 or
    2 of them). The missing public cards are enumerated as unordered sets from the cards left
    after the opponent's card, so the totals are 51*C(50,2), 50*49 and 49 for 1, 2, 3 cards.
    ``n_cards``: the deck is cards ``0 .. n_cards-1`` (the lowest ``n_cards // 4`` ranks of
    a reduced deck; the totals shrink accordingly).
    """
    n, k = cards.shape
    out = np.zeros((n, 3), dtype=np.int64)
    for i in prange(n):
        used = np.zeros(n_cards, dtype=np.bool_)
        for j in range(k):
            used[cards[i, j]] = True
        p = cards[i, 0]
        for o in range(n_cards):
            if used[o]:
                continue
            if k == 3:
                out[i, _outcome(p, o, cards[i, 1], cards[i, 2], wheel, ties)] += 1
            elif k == 2:
                b1 = cards[i, 1]
                for b2 in range(n_cards):
                    if not (used[b2] or b2 == o):
                        out[i, _outcome(p, o, b1, b2, wheel, ties)] += 1
            else:
                for b1 in range(n_cards):
                    if used[b1] or b1 == o:
                        continue
                    for b2 in range(b1 + 1, n_cards):
                        if not (used[b2] or b2 == o):
                            out[i, _outcome(p, o, b1, b2, wheel, ties)] += 1
    return out
