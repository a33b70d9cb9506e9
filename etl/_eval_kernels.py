"""Numba kernels of the hand evaluator (see ``etl/evaluator.py`` for the idea and the public API).

Layout of the evaluator state of a set of cards (all fields are sums over the cards, so a
partial hand's state plus a card's state is the bigger hand's state):

- ``key = sum CARD_KEY[c]`` with ``CARD_KEY[c] = RANK_KEYS[rank] << 16 | 1 << (4 * suit)``.
  The low 16 bits hold four 4-bit suit counters; ``(key & 0xFFFF) + 0x3333`` sets bit
  ``4 * suit + 3`` exactly for the suits that have five or more cards (a flush). The high bits
  hold a sum of rank keys chosen so that distinct rank multisets of the same size have distinct
  sums (a Sidon-like set found greedily by ``find_rank_keys``; the same greedy search appears in
  SKPokerEval by Kennan "kennyt" Rowe). A row-displacement perfect hash (Tarjan & Yao, "Storing
  a sparse table", CACM 1979) maps the rank sum to the value of the best non-flush hand.
- ``mask = OR CARD_MASK[c]`` with bit ``16 * suit + rank``: the 13-bit rank set of a flush suit
  indexes a table of 8,192 flush values (straight flush or flush).

A flush in 7 cards excludes four of a kind and a full house (that would need 8 cards), so the
flush value alone is the hand value whenever a suit has five or more cards.

Values are the dense rank of the best five-card class: 0 (7-5-4-3-2 offsuit) .. 7461 (royal
flush), higher wins, equal ties.
"""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from schema.storage import AtomicFile

N_CARDS = 52
N_RANKS = 13
N_CLASSES = 7462

#: Rank keys: sums of up to 7 of them (each used at most 4 times) identify the rank multiset
#: within each hand size. Output of ``find_rank_keys(13, 4, 7)`` (takes ~30 s, so frozen here).
RANK_KEYS = np.array([0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181],
                     dtype=np.int64)

SUIT_BIAS = 0x3333
FLUSH_BITS = 0x8888

#: category of a dense value; first value of each category (0 = high card .. 8 = straight flush)
CATEGORY_NAMES = ("high card", "one pair", "two pair", "three of a kind", "straight", "flush",
                  "full house", "four of a kind", "straight flush")


@njit(cache=True)
def find_rank_keys(n_ranks: int, max_mult: int, max_cards: int) -> np.ndarray:
    """Greedy smallest keys with distinct sums over multisets of each size <= ``max_cards``.

    Key i is the smallest integer above key i-1 such that, for every size s, all multisets of
    ranks 0..i with multiplicity <= ``max_mult`` and size s have distinct key sums.
    """
    keys = np.zeros(n_ranks, np.int64)
    cap = 60000
    lst = np.zeros((max_cards + 1, cap), np.int64)
    cnt = np.zeros(max_cards + 1, np.int64)
    for s in range(min(max_mult, max_cards) + 1):
        cnt[s] = 1
    stamp = np.zeros(1 << 20, np.int32)
    gen = 0
    for i in range(1, n_ranks):
        c = keys[i - 1] + 1
        while True:
            if max_cards * c + 1 > stamp.shape[0]:
                stamp = np.zeros(2 * (max_cards * c + 1), np.int32)
                gen = 0
            ok = True
            for s in range(max_cards, 1, -1):
                gen += 1
                for m in range(min(max_mult, s) + 1):
                    for j in range(cnt[s - m]):
                        v = lst[s - m, j] + m * c
                        if stamp[v] == gen:
                            ok = False
                            break
                        stamp[v] = gen
                    if not ok:
                        break
                if not ok:
                    break
            if ok:
                break
            c += 1
        keys[i] = c
        new_lst = np.zeros_like(lst)
        new_cnt = np.zeros_like(cnt)
        for s in range(max_cards + 1):
            for m in range(min(max_mult, s) + 1):
                for j in range(cnt[s - m]):
                    new_lst[s, new_cnt[s]] = lst[s - m, j] + m * c
                    new_cnt[s] += 1
        lst = new_lst
        cnt = new_cnt
    return keys


# ---------------------------------------------------------------------------------------------
# Reference (slow, obviously correct) strength of a rank multiset / a flush suit, as a
# category-major key: category << 20 | five 4-bit tie-break ranks, most significant first.
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _straight_top(present: int) -> int:
    """Top rank of the highest straight in a 13-bit rank set, -1 if none (wheel top = 3)."""
    for top in range(12, 3, -1):
        run = 0x1F << (top - 4)
        if present & run == run:
            return top
    if present & 0x100F == 0x100F:  # A-2-3-4-5
        return 3
    return -1


@njit(cache=True)
def _pack(cat: int, d: np.ndarray) -> int:
    key = cat
    for i in range(5):
        key = (key << 4) | d[i]
    return key


@njit(cache=True)
def _flush_strength(mask: int) -> int:
    """Category-major strength of the best five cards of one suit with rank set ``mask``."""
    d = np.zeros(5, np.int64)
    top = _straight_top(mask)
    if top >= 0:
        d[0] = top
        return _pack(8, d)
    j = 0
    for r in range(12, -1, -1):
        if mask >> r & 1 and j < 5:
            d[j] = r
            j += 1
    return _pack(5, d)


@njit(cache=True)
def _counts_strength(counts: np.ndarray) -> int:
    """Category-major strength of the best non-flush five cards of a rank multiset (>= 5)."""
    d = np.zeros(5, np.int64)
    present = 0
    quad = -1
    trips = -1
    for r in range(12, -1, -1):
        if counts[r] > 0:
            present |= 1 << r
        if counts[r] == 4 and quad < 0:
            quad = r
        if counts[r] == 3 and trips < 0:
            trips = r
    if quad >= 0:
        d[0] = quad
        for r in range(12, -1, -1):
            if r != quad and counts[r] > 0:
                d[1] = r
                break
        return _pack(7, d)
    if trips >= 0:
        pair = -1
        for r in range(12, -1, -1):
            if r != trips and counts[r] >= 2:
                pair = r
                break
        if pair >= 0:
            d[0] = trips
            d[1] = pair
            return _pack(6, d)
    top = _straight_top(present)
    if top >= 0:
        d[0] = top
        return _pack(4, d)
    if trips >= 0:
        d[0] = trips
        j = 1
        for r in range(12, -1, -1):
            if r != trips and counts[r] > 0 and j < 3:
                d[j] = r
                j += 1
        return _pack(3, d)
    npairs = 0
    p1 = -1
    p2 = -1
    for r in range(12, -1, -1):
        if counts[r] == 2:
            if p1 < 0:
                p1 = r
            elif p2 < 0:
                p2 = r
            npairs += 1
    if npairs >= 2:
        d[0] = p1
        d[1] = p2
        for r in range(12, -1, -1):
            if r != p1 and r != p2 and counts[r] > 0:
                d[2] = r
                break
        return _pack(2, d)
    if npairs == 1:
        d[0] = p1
        j = 1
        for r in range(12, -1, -1):
            if r != p1 and counts[r] > 0 and j < 4:
                d[j] = r
                j += 1
        return _pack(1, d)
    j = 0
    for r in range(12, -1, -1):
        if counts[r] > 0 and j < 5:
            d[j] = r
            j += 1
    return _pack(0, d)


@njit(cache=True)
def _rank_multisets(size: int) -> np.ndarray:
    """All rank-count vectors (multiplicity <= 4) of ``size`` cards, shape (M, 13)."""
    # odometer over non-decreasing rank sequences r[0] <= .. <= r[size-1]
    out = np.zeros((60000, N_RANKS), np.int8)
    m = 0
    seq = np.zeros(size, np.int64)
    while True:
        counts = np.zeros(N_RANKS, np.int8)
        ok = True
        for i in range(size):
            counts[seq[i]] += 1
            if counts[seq[i]] > 4:
                ok = False
        if ok:
            out[m] = counts
            m += 1
        i = size - 1
        while i >= 0 and seq[i] == N_RANKS - 1:
            i -= 1
        if i < 0:
            break
        seq[i] += 1
        for j in range(i + 1, size):
            seq[j] = seq[i]
    return out[:m].copy()


@njit(cache=True)
def _class_keys() -> np.ndarray:
    """Sorted distinct category-major keys of all five-card classes (7,462 of them)."""
    ms = _rank_multisets(5)
    keys = np.empty(ms.shape[0] + 8192, np.int64)
    n = 0
    for i in range(ms.shape[0]):
        keys[n] = _counts_strength(ms[i])
        n += 1
    for mask in range(8192):
        b = 0
        for r in range(N_RANKS):
            b += mask >> r & 1
        if b == 5:
            keys[n] = _flush_strength(mask)
            n += 1
    return np.unique(keys[:n])


@njit(cache=True)
def _flush_table(class_keys: np.ndarray) -> np.ndarray:
    """Dense value of the best flush/straight flush for every 13-bit suit rank set (>= 5 bits)."""
    table = np.zeros(8192, np.uint16)
    for mask in range(8192):
        b = 0
        for r in range(N_RANKS):
            b += mask >> r & 1
        if b >= 5:
            table[mask] = np.searchsorted(class_keys, _flush_strength(mask))
    return table


@njit(cache=True)
def _perfect_hash(keys: np.ndarray, values: np.ndarray, shift: int):
    """Row-displacement perfect hash: ``values[i] == table[offsets[k >> shift] + (k & mask)]``.

    Rows (``k >> shift``) are placed most-populated first at the lowest offset where all their
    columns are free (first fit; Tarjan & Yao 1979).
    """
    mask = (1 << shift) - 1
    n_rows = (keys.max() >> shift) + 1
    row_count = np.zeros(n_rows, np.int64)
    for k in keys:
        row_count[k >> shift] += 1
    order = np.argsort(-row_count, kind="mergesort")
    by_row = np.argsort(keys >> shift, kind="mergesort")
    row_start = np.zeros(n_rows + 1, np.int64)
    for r in range(n_rows):
        row_start[r + 1] = row_start[r] + row_count[r]
    cap = keys.shape[0] * 4 + (1 << shift) + 1
    used = np.zeros(cap, np.bool_)
    nxt = np.arange(cap + 1)  # nxt chains lead to the first free slot at or after a position
    table = np.zeros(cap, np.uint16)
    offsets = np.zeros(n_rows, np.int32)
    size = 0
    for r in order:
        if row_count[r] == 0:
            break
        min_col = mask
        for j in range(row_start[r], row_start[r + 1]):
            min_col = min(min_col, keys[by_row[j]] & mask)
        off = 0
        while True:
            # jump to the next offset where the row's first column is free
            q = off + min_col
            root = q
            while nxt[root] != root:
                root = nxt[root]
            while nxt[q] != root:  # path compression
                q, nxt[q] = nxt[q], root
            off = root - min_col
            ok = True
            for j in range(row_start[r], row_start[r + 1]):
                if used[off + (keys[by_row[j]] & mask)]:
                    ok = False
                    break
            if ok:
                break
            off += 1
        offsets[r] = off
        for j in range(row_start[r], row_start[r + 1]):
            p = off + (keys[by_row[j]] & mask)
            used[p] = True
            nxt[p] = p + 1
            table[p] = values[by_row[j]]
            if p + 1 > size:
                size = p + 1
    return offsets, table[:size].copy()


@njit(cache=True)
def _nonflush_hash(size: int, class_keys: np.ndarray, shift: int):
    """Perfect hash from the rank-key sum of ``size`` cards to the best non-flush value."""
    ms = _rank_multisets(size)
    keys = np.empty(ms.shape[0], np.int64)
    values = np.empty(ms.shape[0], np.uint16)
    for i in range(ms.shape[0]):
        k = 0
        for r in range(N_RANKS):
            k += ms[i, r] * RANK_KEYS[r]
        keys[i] = k
        values[i] = np.searchsorted(class_keys, _counts_strength(ms[i]))
    if np.unique(keys).shape[0] != keys.shape[0]:
        raise ValueError("rank keys are not distinct on this hand size")
    return _perfect_hash(keys, values, shift)


def _category_starts(class_keys: np.ndarray) -> np.ndarray:
    starts = np.searchsorted(class_keys >> 20, np.arange(9))
    return starts.astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Tables: shipped with the package (``eval_tables.npz``, what ``build_tables`` returns), read at
# import, then frozen into every kernel that uses them as compile-time constants.
# ---------------------------------------------------------------------------------------------

HASH_SHIFT = 8
_TABLE_NAMES = ("CLASS_KEYS", "FLUSH_VALUE", "H5_OFF", "H5_VAL", "H6_OFF", "H6_VAL", "H7_OFF",
                "H7_VAL")
#: The tables as :func:`build_tables` makes them. Building them is fast once the builders are
#: compiled, but compiling them is about 25 CPU s, which every fresh install paid on its first
#: command (``cli.py --help`` included: the game registry imports the evaluator), and each
#: test worker of a fresh clone again. ``tests/test_etl_evaluator.py`` checks the file against
#: a rebuild; :func:`write_tables` writes it again.
TABLES_FILE = Path(__file__).with_name("eval_tables.npz")


def build_tables() -> dict[str, np.ndarray]:
    """Build the evaluator tables from the reference strength functions (about 1 s once the
    builders are compiled)."""
    class_keys = _class_keys()
    tables = {"CLASS_KEYS": class_keys, "FLUSH_VALUE": _flush_table(class_keys)}
    for n in (5, 6, 7):
        tables[f"H{n}_OFF"], tables[f"H{n}_VAL"] = _nonflush_hash(n, class_keys, HASH_SHIFT)
    return tables


def write_tables(path: Path = TABLES_FILE) -> None:
    """Write :func:`build_tables`' tables to ``path`` (compressed, atomically)."""
    tables = build_tables()
    with AtomicFile(path, checksum=False) as f:
        with open(f.tmp, "wb") as fh:
            np.savez_compressed(fh, **tables)


def _load_tables() -> dict[str, np.ndarray]:
    """The shipped tables; built here if the file is missing or unreadable (an install without
    its package data: slower, the same values)."""
    try:
        with np.load(TABLES_FILE) as z:
            return {name: z[name] for name in _TABLE_NAMES}
    except (OSError, KeyError, ValueError):
        return build_tables()


_T = _load_tables()
CLASS_KEYS = _T["CLASS_KEYS"]
FLUSH_VALUE = _T["FLUSH_VALUE"]
H5_OFF, H5_VAL = _T["H5_OFF"], _T["H5_VAL"]
H6_OFF, H6_VAL = _T["H6_OFF"], _T["H6_VAL"]
H7_OFF, H7_VAL = _T["H7_OFF"], _T["H7_VAL"]
del _T
CATEGORY_START = _category_starts(CLASS_KEYS)
CATEGORY_OF_VALUE = (np.searchsorted(CATEGORY_START, np.arange(N_CLASSES), side="right") - 1
                     ).astype(np.int8)
CARD_KEY = np.array([(RANK_KEYS[c >> 2] << 16) | (1 << (4 * (c & 3))) for c in range(N_CARDS)],
                    dtype=np.int64)
CARD_MASK = np.array([1 << (16 * (c & 3) + (c >> 2)) for c in range(N_CARDS)], dtype=np.int64)
_HMASK = (1 << HASH_SHIFT) - 1


# ---------------------------------------------------------------------------------------------
# Scalar evaluators (call these from other kernels). inline="always" makes numba paste them
# into the caller: measured ~1.5x faster than a call from a hot loop.
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _flush_suit(f: int) -> int:
    if f & 0x8:
        return 0
    if f & 0x80:
        return 1
    if f & 0x800:
        return 2
    return 3


@njit(cache=True, inline="always")
def value_of_state7(key: int, mask: int) -> int:
    """Value of 7 cards from their summed ``CARD_KEY`` and OR-ed ``CARD_MASK``."""
    f = ((key & 0xFFFF) + SUIT_BIAS) & FLUSH_BITS
    if f:
        return np.int64(FLUSH_VALUE[(mask >> (16 * _flush_suit(f))) & 0x1FFF])
    r = key >> 16
    return np.int64(H7_VAL[H7_OFF[r >> HASH_SHIFT] + (r & _HMASK)])


@njit(cache=True, inline="always")
def value_of_state6(key: int, mask: int) -> int:
    """Value of 6 cards from their summed ``CARD_KEY`` and OR-ed ``CARD_MASK``."""
    f = ((key & 0xFFFF) + SUIT_BIAS) & FLUSH_BITS
    if f:
        return np.int64(FLUSH_VALUE[(mask >> (16 * _flush_suit(f))) & 0x1FFF])
    r = key >> 16
    return np.int64(H6_VAL[H6_OFF[r >> HASH_SHIFT] + (r & _HMASK)])


@njit(cache=True, inline="always")
def value_of_state5(key: int, mask: int) -> int:
    """Value of 5 cards from their summed ``CARD_KEY`` and OR-ed ``CARD_MASK``."""
    f = ((key & 0xFFFF) + SUIT_BIAS) & FLUSH_BITS
    if f:
        return np.int64(FLUSH_VALUE[(mask >> (16 * _flush_suit(f))) & 0x1FFF])
    r = key >> 16
    return np.int64(H5_VAL[H5_OFF[r >> HASH_SHIFT] + (r & _HMASK)])


@njit(cache=True, inline="always")
def eval7(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int) -> int:
    """Value (0..7461, higher wins) of seven distinct cards 0..51, in any order."""
    # Summing the masks up front (not only for flushes) measured ~1.5x faster than a lazy loop.
    key = (CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3] + CARD_KEY[c4]
           + CARD_KEY[c5] + CARD_KEY[c6])
    mask = (CARD_MASK[c0] | CARD_MASK[c1] | CARD_MASK[c2] | CARD_MASK[c3] | CARD_MASK[c4]
            | CARD_MASK[c5] | CARD_MASK[c6])
    return value_of_state7(key, mask)


@njit(cache=True, inline="always")
def eval6(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int) -> int:
    """Value (0..7461) of the best five of six distinct cards."""
    key = (CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3] + CARD_KEY[c4]
           + CARD_KEY[c5])
    mask = (CARD_MASK[c0] | CARD_MASK[c1] | CARD_MASK[c2] | CARD_MASK[c3] | CARD_MASK[c4]
            | CARD_MASK[c5])
    return value_of_state6(key, mask)


@njit(cache=True, inline="always")
def eval5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """Value (0..7461) of five distinct cards."""
    key = CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3] + CARD_KEY[c4]
    mask = CARD_MASK[c0] | CARD_MASK[c1] | CARD_MASK[c2] | CARD_MASK[c3] | CARD_MASK[c4]
    return value_of_state5(key, mask)


@njit(cache=True, inline="always")
def eval_hand(cards: np.ndarray) -> int:
    """Value of a 1-d array of 5, 6 or 7 distinct cards (any order)."""
    key = 0
    mask = 0
    n = cards.shape[0]
    for j in range(n):
        key += CARD_KEY[cards[j]]
        mask |= CARD_MASK[cards[j]]
    if n == 7:
        return value_of_state7(key, mask)
    if n == 6:
        return value_of_state6(key, mask)
    return value_of_state5(key, mask)


@njit(cache=True)
def category_of(value: int) -> int:
    """Hand category of a value: 0 = high card .. 8 = straight flush."""
    return np.int64(CATEGORY_OF_VALUE[value])


# ---------------------------------------------------------------------------------------------
# Vectorised kernels.
# ---------------------------------------------------------------------------------------------

@njit(cache=True, parallel=True)
def first_bad_row(cards: np.ndarray) -> int:
    """Index of the first row with a card outside 0..51 or a repeated card, -1 if none."""
    n = cards.shape[0]
    bad = n
    for i in prange(n):
        seen = 0
        for j in range(cards.shape[1]):
            c = np.int64(cards[i, j])
            if c < 0 or c >= N_CARDS or (seen >> c) & 1:
                bad = min(bad, i)
                break
            seen |= 1 << c
    return bad if bad < n else -1


@njit(cache=True, parallel=True)
def evaluate_rows(cards: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = value of cards[i]`` for an (N, k) array, k in 5..7 (validated by caller)."""
    n, k = cards.shape
    if k == 7:
        for i in prange(n):
            out[i] = eval7(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4],
                           cards[i, 5], cards[i, 6])
    elif k == 6:
        for i in prange(n):
            out[i] = eval6(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4],
                           cards[i, 5])
    else:
        for i in prange(n):
            out[i] = eval5(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4])


@njit(cache=True, parallel=True)
def categories_of(values: np.ndarray, out: np.ndarray) -> int:
    """``out[i] = category of values[i]``; returns the index of the first value outside
    0..7461 (then ``out`` is garbage), -1 if none."""
    bad = values.shape[0]
    for i in prange(values.shape[0]):
        v = values[i]
        if v < 0 or v >= N_CLASSES:
            bad = min(bad, i)
        else:
            out[i] = CATEGORY_OF_VALUE[v]
    return bad if bad < values.shape[0] else -1


@njit(cache=True)
def evaluate_rows_serial(cards: np.ndarray, out: np.ndarray) -> None:
    """Single-threaded ``evaluate_rows`` for 7-card rows (benchmark baseline)."""
    for i in range(cards.shape[0]):
        out[i] = eval7(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4],
                       cards[i, 5], cards[i, 6])


# ---------------------------------------------------------------------------------------------
# handval: every 7-card set in colex order.
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _binom(n: int, k: int) -> int:
    if k < 0 or n < k:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


@njit(cache=True)
def handval_tasks():
    """Units of work of the handval build: the 17,296 triples c5 < c6 < c7 (top three cards).

    Returns ``(c5, c6, c7, start)``: a triple's 7-card sets are the contiguous colex rows
    ``start .. start + C(c5, 4) - 1``, with ``start = C(c5,5) + C(c6,6) + C(c7,7)``; tasks are
    in colex order, so ``start`` increases.
    """
    n = _binom(48, 3)
    t5 = np.empty(n, np.int64)
    t6 = np.empty(n, np.int64)
    t7 = np.empty(n, np.int64)
    st = np.empty(n + 1, np.int64)
    t = 0
    for c7 in range(6, N_CARDS):
        for c6 in range(5, c7):
            for c5 in range(4, c6):
                t5[t] = c5
                t6[t] = c6
                t7[t] = c7
                st[t] = _binom(c5, 5) + _binom(c6, 6) + _binom(c7, 7)
                t += 1
    st[n] = _binom(N_CARDS, 7)
    return t5, t6, t7, st


@njit(cache=True, parallel=True)
def handval_fill(t5: np.ndarray, t6: np.ndarray, t7: np.ndarray, st: np.ndarray,
                 t_lo: int, t_hi: int, out: np.ndarray) -> None:
    """Fill ``out[st[t] - st[t_lo] + j]`` for tasks ``t_lo <= t < t_hi`` (colex order).

    Task sizes differ by orders of magnitude, so call it with a small parallel chunk size
    (``numba.set_parallel_chunksize``) to hand tasks out dynamically.
    """
    base = st[t_lo]
    for t in prange(t_lo, t_hi):
        c5 = t5[t]
        c6 = t6[t]
        c7 = t7[t]
        k3 = CARD_KEY[c5] + CARD_KEY[c6] + CARD_KEY[c7]
        m3 = CARD_MASK[c5] | CARD_MASK[c6] | CARD_MASK[c7]
        p = st[t] - base
        for c4 in range(3, c5):
            k4 = k3 + CARD_KEY[c4]
            m4 = m3 | CARD_MASK[c4]
            for c3 in range(2, c4):
                k5 = k4 + CARD_KEY[c3]
                m5 = m4 | CARD_MASK[c3]
                for c2 in range(1, c3):
                    k6 = k5 + CARD_KEY[c2]
                    m6 = m5 | CARD_MASK[c2]
                    for c1 in range(0, c2):
                        out[p] = value_of_state7(k6 + CARD_KEY[c1], m6 | CARD_MASK[c1])
                        p += 1
