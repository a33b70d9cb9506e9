"""Poker hand evaluator for 5, 6 and 7 cards: a hand's value is its strength, higher wins.

A value is the dense rank of the best five-card class, ``0`` (7-5-4-3-2 offsuit) to ``7461``
(royal flush): the 7,462 distinct classes of five-card poker hands, category-major:

    ============  =========  =====  ============  =========  =====
    category      values     count  category      values     count
    ============  =========  =====  ============  =========  =====
    0 high card   0-1276     1277   5 flush       5863-7139  1277
    1 one pair    1277-4136  2860   6 full house  7140-7295   156
    2 two pair    4137-4994   858   7 four kind   7296-7451   156
    3 three kind  4995-5852   858   8 str. flush  7452-7461    10
    4 straight    5853-5862    10
    ============  =========  =====  ============  =========  =====

so values fit ``uint16`` and ``hand_category(v)`` is a lookup. Card ``c`` in 0..51:
``rank = c // 4`` (0 = deuce .. 12 = ace), ``suit = c % 4``.

How it works (details in ``etl/_eval_kernels.py``): each card has an additive 64-bit key, a rank
key shifted left 16 bits plus a 4-bit per-suit counter. The sum over a hand says whether a suit
holds five or more cards (then the 13-bit rank set of that suit indexes an 8,192-entry flush
table); otherwise the rank part of the sum, unique per rank multiset (the construction used by
SKPokerEval), goes through a perfect hash (Tarjan & Yao 1979) to the value. A 7-card evaluation
is 7 loads and adds plus two or three lookups in about 280 KB of tables (7-card hash and flush
table), with no branch on ranks. The tables ship with the package (``etl/eval_tables.npz``,
read at import); ``_eval_kernels.build_tables`` makes them from the reference strength
functions, and the tests check the file against it.

Calling the evaluator from other numba kernels (all ``@njit``; arguments are plain ints)::

    from etl.evaluator import eval7, eval6, eval5, eval_hand, CARD_KEY, CARD_MASK, \\
        value_of_state7, category_of

    v = eval7(c0, c1, c2, c3, c4, c5, c6)     # 7 distinct cards, any order -> int64 0..7461
    v = eval_hand(cards_1d)                   # 1-d int array of 5, 6 or 7 cards
    # incremental: precompute the board once, add the two hole cards per hand
    bk = CARD_KEY[b0] + ... + CARD_KEY[b4];  bm = CARD_MASK[b0] | ... | CARD_MASK[b4]
    v = value_of_state7(bk + CARD_KEY[h0] + CARD_KEY[h1], bm | CARD_MASK[h0] | CARD_MASK[h1])

``value_of_state5/6`` do the same for 5 and 6 cards (the state must hold exactly that many
cards). Inputs are not checked inside kernels: cards must be distinct and in 0..51.
"""

from __future__ import annotations

import numpy as np

from etl._eval_kernels import (CARD_KEY, CARD_MASK, CATEGORY_NAMES, CATEGORY_START, N_CLASSES,
                               categories_of, category_of, eval5, eval6, eval7, eval_hand,
                               evaluate_rows, first_bad_row, value_of_state5, value_of_state6,
                               value_of_state7)
from etl.cards import card_rows

__all__ = [
    "CARD_KEY", "CARD_MASK", "CATEGORY_NAMES", "CATEGORY_START", "N_CLASSES", "category_of",
    "eval5", "eval6", "eval7", "eval_hand", "evaluate", "hand_category",
    "value_of_state5", "value_of_state6", "value_of_state7",
]

def evaluate(cards: np.ndarray) -> np.ndarray:
    """Values of N hands of k cards each, k in 5..7 (numba, parallel over hands).

    Args:
        cards: integer array of shape (N, k) or (k,); cards 0..51, distinct within a row.
            ``uint8`` is fastest.

    Returns:
        uint16 array of shape (N,) (or a 0-d array for one hand): values 0..7461.

    Raises:
        ValueError: wrong shape, a card outside 0..51, or a repeated card in a row.
    """
    arr, single = card_rows(cards, f"cards must have shape (N, k) with k in 5..7, got {np.shape(cards)}",
                            widths=(5, 6, 7))
    bad = first_bad_row(arr)
    if bad >= 0:
        raise ValueError(f"row {bad} has a card outside 0..51 or a repeated card: "
                         f"{arr[bad].tolist()}")
    out = np.empty(arr.shape[0], np.uint16)
    evaluate_rows(arr, out)
    return out[0] if single else out


def hand_category(values: np.ndarray) -> np.ndarray:
    """Category of each value: 0 = high card, 1 pair, 2 two pair, 3 trips, 4 straight,
    5 flush, 6 full house, 7 quads, 8 straight flush (names in ``CATEGORY_NAMES``).

    Raises:
        ValueError: a value outside 0..7461.
    """
    v = np.asarray(values)
    if not np.issubdtype(v.dtype, np.integer):
        raise ValueError(f"values must be integers, got dtype {v.dtype}")
    flat = np.ascontiguousarray(v).reshape(-1)
    out = np.empty(flat.shape[0], np.int8)
    bad = categories_of(flat, out)
    if bad >= 0:
        raise ValueError(f"values must be in 0..{N_CLASSES - 1}, got {flat[bad]}")
    return out.reshape(v.shape)
