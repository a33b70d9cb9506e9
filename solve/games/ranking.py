"""Showdown rankings: ``strength(hands (H, k), board (m,)) -> int64 (H,)``, higher is better.

Card ids are ``rank * n_suits + suit`` with rank 0 the lowest. Equal strength splits the pot.
"""

from __future__ import annotations

import numpy as np


def high_card(hands: np.ndarray, board: np.ndarray, n_suits: int) -> np.ndarray:
    """Kuhn: the higher private card wins."""
    return (hands[:, 0] // n_suits).astype(np.int64)


def leduc(hands: np.ndarray, board: np.ndarray, n_suits: int) -> np.ndarray:
    """Leduc: a pair with the public card beats any unpaired hand, else the higher card."""
    r = hands[:, 0] // n_suits
    pub = int(board[0]) // n_suits
    return np.where(r == pub, 100 + r, r).astype(np.int64)


def hand_rank3(cards: np.ndarray, n_suits: int = 4) -> np.ndarray:
    """Rank 3-card hands (N, 3) for Rhode Island Hold'em (DESIGN.md section 5).

    Straight flush > three of a kind > straight > flush > pair > high card; the ace plays
    high (Q-K-A) or low (A-2-3, the lowest straight). Encoded as
    ``category * 13**3 + tiebreak`` so comparison is integer comparison.
    """
    cards = np.asarray(cards, dtype=np.int64)
    ranks = np.sort(cards // n_suits, axis=1)  # ascending
    suits = cards % n_suits
    r0, r1, r2 = ranks[:, 0], ranks[:, 1], ranks[:, 2]
    flush = (suits[:, 0] == suits[:, 1]) & (suits[:, 1] == suits[:, 2])
    trips = (r0 == r2)
    wheel = (r0 == 0) & (r1 == 1) & (r2 == 12)
    straight = ((r1 == r0 + 1) & (r2 == r1 + 1)) | wheel
    top = np.where(wheel, 1, r2)
    pair = ~trips & ((r0 == r1) | (r1 == r2))
    pair_rank = r1  # the middle card is always in the pair
    kicker = np.where(r0 == r1, r2, r0)
    high = (r2 * 13 + r1) * 13 + r0
    b = 13 ** 3
    return np.select(
        [straight & flush, trips, straight, flush, pair],
        [5 * b + top, 4 * b + r0, 3 * b + top, 2 * b + high, 1 * b + pair_rank * 13 + kicker],
        default=high,
    ).astype(np.int64)


def rhode_island(hands: np.ndarray, board: np.ndarray, n_suits: int) -> np.ndarray:
    """Best 3-card hand of one private card and two public cards."""
    cards = np.column_stack([hands[:, 0], np.full(len(hands), board[0]), np.full(len(hands), board[1])])
    return hand_rank3(cards, n_suits)


RANKINGS = {"high_card": high_card, "leduc": leduc, "rhode_island": rhode_island}
