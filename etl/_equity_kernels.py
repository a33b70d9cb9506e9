"""Numba kernels of the equity tables (``etl/equity.py``).

The core is ``river_board``: on one five-card board it evaluates the 1,081 hands of the 47 cards
left, sorts them by strength and counts, for every hand, the opponent hands it beats and ties
with. Opponents may not share a card with the hand; card removal is an inclusion-exclusion over
running per-card counts: among the hands weaker than ``v``, those holding card ``a`` or ``b``
are removed and the hand ``{a, b}`` itself (never weaker than itself) is not added back. So a
board costs one evaluation per hand plus a sort of 1,081 keys, not 1,081 x 990 comparisons.

Turn and flop hands sum the river counts over their board completions (and bin the river
equities into histograms); each kernel works on one canonical board and writes every hand of
it, so boards are independent units of parallel work (``prange``).
"""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): 69a9af51a8f71f26

from __future__ import annotations

import itertools

import numpy as np
from numba import njit, prange

from etl._eval_kernels import CARD_KEY, CARD_MASK, value_of_state7
from etl._index_kernels import index_hand, unindex_hand

N_OPP = 990  # opponent hands on the river: C(45, 2)
N_RIVER_HANDS = 1081  # C(47, 2)


@njit(cache=True)
def pair_slots(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``C(n, 2)`` slot pairs ``(i, j)``, ``i < j``, in the order ``(0,1), (0,2), (1,2),
    (0,3), ...`` (colex: pair ``(i, j)`` is number ``j*(j-1)/2 + i``)."""
    m = n * (n - 1) // 2
    a = np.empty(m, np.int64)
    b = np.empty(m, np.int64)
    k = 0
    for j in range(1, n):
        for i in range(j):
            a[k] = i
            b[k] = j
            k += 1
    return a, b


@njit(cache=True, inline="always")
def pair_number(i: int, j: int) -> int:
    """Colex number of the slot pair ``{i, j}`` (``i != j``)."""
    if i > j:
        i, j = j, i
    return j * (j - 1) // 2 + i


@njit(cache=True, inline="always")
def _sort_by_value(keys: np.ndarray, tmp: np.ndarray, n: int, ca: np.ndarray,
                   cb: np.ndarray) -> None:
    """Order ``keys[:n]`` (``value << 11 | hand``, value below 2**13) by value, in place: two
    LSD radix passes (7 + 6 bits, both histograms from one read); hands of equal value end up
    adjacent."""
    for d in range(129):
        ca[d] = 0
    for d in range(65):
        cb[d] = 0
    for i in range(n):
        x = keys[i]
        ca[((x >> 11) & 127) + 1] += 1
        cb[(x >> 18) + 1] += 1
    for d in range(128):
        ca[d + 1] += ca[d]
    for d in range(64):
        cb[d + 1] += cb[d]
    for i in range(n):
        x = keys[i]
        d = (x >> 11) & 127
        tmp[ca[d]] = x
        ca[d] += 1
    for i in range(n):
        x = tmp[i]
        d = x >> 18
        keys[cb[d]] = x
        cb[d] += 1


@njit(cache=True)
def river_board(bkey: int, bmask: int, rem: np.ndarray, pa: np.ndarray, pb: np.ndarray,
                scratch: np.ndarray) -> None:
    """Wins and ties against the 990 opponent hands of every hand on one river board.

    Args:
        bkey, bmask: summed ``CARD_KEY`` / OR-ed ``CARD_MASK`` of the five board cards.
        rem: the 47 cards not on the board.
        pa, pb: slot pairs of ``pair_slots(47)``; hand ``k`` is ``rem[pa[k]], rem[pb[k]]``.
        scratch: (7, 1081) int64 (``new_scratch()``); rows 5 and 6 are the output: wins and
            ties of hand ``k``.
    """
    keys = scratch[0]
    tmp = scratch[1]
    count = scratch[2]
    less = scratch[3]
    grp = scratch[4]
    wins = scratch[5]
    ties = scratch[6]
    n = pa.shape[0]
    for k in range(n):
        c1 = rem[pa[k]]
        c2 = rem[pb[k]]
        v = value_of_state7(bkey + CARD_KEY[c1] + CARD_KEY[c2], bmask | CARD_MASK[c1] | CARD_MASK[c2])
        keys[k] = (v << 11) | k
    _sort_by_value(keys, tmp, n, count[:129], count[129:194])
    less[:47] = 0
    grp[:47] = 0
    below = 0
    i = 0
    while i < n:
        v = keys[i] >> 11
        j = i
        while j < n and (keys[j] >> 11) == v:
            k = keys[j] & 0x7FF
            grp[pa[k]] += 1
            grp[pb[k]] += 1
            j += 1
        size = j - i
        for t in range(i, j):
            k = keys[t] & 0x7FF
            a = pa[k]
            b = pb[k]
            wins[k] = below - less[a] - less[b]
            ties[k] = size - grp[a] - grp[b] + 1
        for t in range(i, j):
            k = keys[t] & 0x7FF
            a = pa[k]
            b = pb[k]
            less[a] += 1
            less[b] += 1
            grp[a] = 0
            grp[b] = 0
        below += size
        i = j


@njit(cache=True, inline="always")
def equity_bin(w: int, t: int, total: int, n_bins: int) -> int:
    """Equal-width bin of equity ``(w + t/2) / total`` over [0, 1] (1.0 in the last bin)."""
    b = (2 * w + t) * n_bins // (2 * total)
    return b if b < n_bins else n_bins - 1


@njit(cache=True)
def _rest(board: np.ndarray, nb: int, out: np.ndarray) -> int:
    """The cards not in ``board[:nb]``, ascending, into ``out``; returns their number."""
    used = np.zeros(52, np.bool_)
    for i in range(nb):
        used[board[i]] = True
    m = 0
    for c in range(52):
        if not used[c]:
            out[m] = c
            m += 1
    return m


def suit_permutations() -> np.ndarray:
    """The 24 permutations of the four suits, (24, 4), the identity first."""
    return np.array(list(itertools.permutations(range(4))), dtype=np.int64)


@njit(cache=True)
def _stabilizer(board: np.ndarray, nb: int, perms: np.ndarray, out: np.ndarray) -> int:
    """The non-identity suit permutations (rows of ``perms``) that map ``board[:nb]`` onto
    itself, into ``out``; returns their number."""
    on = np.zeros(52, np.bool_)
    for i in range(nb):
        on[board[i]] = True
    m = 0
    for p in range(1, perms.shape[0]):
        ok = True
        for i in range(nb):
            c = board[i]
            if not on[(c & ~3) | perms[p, c & 3]]:
                ok = False
                break
        if ok:
            out[m] = p
            m += 1
    return m


@njit(cache=True, inline="always")
def _class_weight(c1: int, c2: int, perms: np.ndarray, stab: np.ndarray, ns: int) -> int:
    """For hole ``{c1, c2}`` on a board with stabilizer ``stab[:ns]``: 0 if another hole of the
    board is the same isomorphism class and comes first (smaller ``lo * 52 + hi``), else the
    class size (raw hands in the class: 24 over the permutations fixing hole and board)."""
    lo = min(c1, c2)
    hi = max(c1, c2)
    key = lo * 52 + hi
    fixed = 1
    for q in range(ns):
        p = stab[q]
        m1 = (c1 & ~3) | perms[p, c1 & 3]
        m2 = (c2 & ~3) | perms[p, c2 & 3]
        k2 = min(m1, m2) * 52 + max(m1, m2)
        if k2 < key:
            return 0
        if k2 == key:
            fixed += 1
    return 24 // fixed


@njit(cache=True, inline="always")
def _write_hands(tidx, board, n_board: int, rest, ra, rb, perms, stab, ns: int, base: int,
                 idx, hole, weight) -> None:
    """Rows ``base .. base + len(ra) - 1``: the hands ``rest[ra[h]], rest[rb[h]]`` on ``board``:
    canonical index, hole cards and class size (0 when an earlier hole is the same class)."""
    cards = np.empty(2 + n_board, np.int64)
    cards[2:] = board[:n_board]
    for h in range(ra.shape[0]):
        cards[0] = rest[ra[h]]
        cards[1] = rest[rb[h]]
        idx[base + h] = index_hand(tidx, cards)
        hole[base + h, 0] = cards[0]
        hole[base + h, 1] = cards[1]
        weight[base + h] = _class_weight(cards[0], cards[1], perms, stab, ns)


@njit(cache=True, parallel=True)
def board_hands(tb, tidx, perms, n_board: int, lo: int, hi: int, idx, hole, weight):
    """Index, hole cards and class size of every hand on canonical boards ``lo .. hi-1``, rows
    in the order of ``completion_rows`` (nothing evaluated)."""
    n_rest = 52 - n_board
    ra, rb = pair_slots(n_rest)
    for bi in prange(hi - lo):
        rest = np.empty(n_rest, np.int64)
        stab = np.empty(24, np.int64)
        board, ns, _, _ = _board(tb, lo + bi, n_board, perms, rest, stab)
        _write_hands(tidx, board, n_board, rest, ra, rb, perms, stab, ns,
                     bi * ra.shape[0], idx, hole, weight)


@njit(cache=True, inline="always")
def new_scratch() -> np.ndarray:
    """Work space of ``river_board``."""
    return np.empty((7, N_RIVER_HANDS), np.int64)


@njit(cache=True)
def _board(tb, b: int, n_board: int, perms, rest, stab):
    """Canonical board ``b`` of ``n_board`` cards: (cards, its stabilizer size, summed
    ``CARD_KEY``, OR-ed ``CARD_MASK``); ``rest`` gets the other cards, ``stab`` the
    non-identity suit permutations that fix the board."""
    board = np.empty(5, np.int64)
    unindex_hand(tb, b, board)
    _rest(board, n_board, rest)
    ns = _stabilizer(board, n_board, perms, stab)
    bkey = 0
    bmask = 0
    for i in range(n_board):
        bkey += CARD_KEY[board[i]]
        bmask |= CARD_MASK[board[i]]
    return board, ns, bkey, bmask


@njit(cache=True, parallel=True)
def river_rows(t5, t25, perms, lo: int, hi: int, idx, wins, ties, hole, weight):
    """Rows of the canonical river boards ``lo .. hi-1`` (``[5]`` index): board ``b``, hand ``k``
    (of ``pair_slots(47)``) is row ``(b - lo) * 1081 + k``: its ``[2,5]`` index, wins and ties
    against the 990 opponent hands, hole cards, and class size (0: the class is another row's)."""
    pa, pb = pair_slots(47)
    for bi in prange(hi - lo):
        rem = np.empty(47, np.int64)
        stab = np.empty(24, np.int64)
        board, ns, bkey, bmask = _board(t5, lo + bi, 5, perms, rem, stab)
        scratch = new_scratch()
        river_board(bkey, bmask, rem, pa, pb, scratch)
        base = bi * N_RIVER_HANDS
        _write_hands(t25, board, 5, rem, pa, pb, perms, stab, ns, base, idx, hole, weight)
        wins[base:base + N_RIVER_HANDS] = scratch[5]
        ties[base:base + N_RIVER_HANDS] = scratch[6]


@njit(cache=True, parallel=True)
def completion_rows(tb, tidx, perms, n_board: int, lo: int, hi: int, n_bins: int,
                    idx, wins, ties, hole, weight, hist):
    """Rows of the canonical flop (``n_board`` 3) or turn (4) boards ``lo .. hi-1``: every hand
    of the board with its river counts summed over the board's completions (the unordered pairs
    of cards on the flop, the single cards on the turn) and, when ``n_bins > 0``, its histogram
    of river equity over ``n_bins`` equal bins.

    Board ``b``, hand ``k`` (of ``pair_slots(52 - n_board)``) is row ``(b - lo) * H + k`` with
    ``H = C(52 - n_board, 2)``; ``idx`` gets the ``tidx`` index of hand + board, ``weight`` the
    class size (0: the class is another row's).
    """
    n_rest = 52 - n_board
    n_hands = n_rest * (n_rest - 1) // 2
    pa, pb = pair_slots(47)
    ra, rb = pair_slots(n_rest)
    for bi in prange(hi - lo):
        rest = np.empty(n_rest, np.int64)
        stab = np.empty(24, np.int64)
        board, ns, bkey0, bmask0 = _board(tb, lo + bi, n_board, perms, rest, stab)
        scratch = new_scratch()
        w = scratch[5]
        t = scratch[6]
        rem = np.empty(47, np.int64)
        slot = np.empty(47, np.int64)  # slot in ``rest`` of each ``rem`` card
        acc_w = np.zeros(n_hands, np.int64)
        acc_t = np.zeros(n_hands, np.int64)
        acc_h = np.zeros((n_hands, max(n_bins, 1)), np.int32)
        n_comp = n_rest if n_board == 4 else n_rest * (n_rest - 1) // 2
        for ci in range(n_comp):
            if n_board == 4:
                x = ci
                y = -1
            else:
                x = ra[ci]
                y = rb[ci]
            bkey = bkey0 + CARD_KEY[rest[x]]
            bmask = bmask0 | CARD_MASK[rest[x]]
            if y >= 0:
                bkey += CARD_KEY[rest[y]]
                bmask |= CARD_MASK[rest[y]]
            m = 0
            for s in range(n_rest):
                if s != x and s != y:
                    rem[m] = rest[s]
                    slot[m] = s
                    m += 1
            river_board(bkey, bmask, rem, pa, pb, scratch)
            for k in range(N_RIVER_HANDS):
                h = pair_number(slot[pa[k]], slot[pb[k]])
                acc_w[h] += w[k]
                acc_t[h] += t[k]
                if n_bins > 0:
                    acc_h[h, equity_bin(w[k], t[k], N_OPP, n_bins)] += 1
        base = bi * n_hands
        _write_hands(tidx, board, n_board, rest, ra, rb, perms, stab, ns, base, idx, hole,
                     weight)
        for h in range(n_hands):
            wins[base + h] = acc_w[h]
            ties[base + h] = acc_t[h]
            for j in range(n_bins):
                hist[base + h, j] = acc_h[h, j]


@njit(cache=True, parallel=True)
def flop_from_turn(t3, t24, lo: int, hi: int, turn, out):
    """Flop rows of canonical flop boards ``lo .. hi-1`` (in ``completion_rows`` order, 1,176
    per board) summed from turn rows over the 47 turn cards: ``turn`` is (13,960,050, m), by
    ``[2,4]`` index (e.g. wins and ties, or histogram bins); ``out`` is (rows, m).

    Each unordered completion {turn, river} is reached twice (either card first) with the same
    river outcome, so the sums are halved exactly: the flop rows count the 1,081 two-card
    completions, as a direct enumeration would.
    """
    ra, rb = pair_slots(49)
    m = turn.shape[1]
    for bi in prange(hi - lo):
        board = np.empty(5, np.int64)
        unindex_hand(t3, lo + bi, board)
        rest = np.empty(49, np.int64)
        _rest(board, 3, rest)
        cards = np.empty(6, np.int64)
        cards[2] = board[0]
        cards[3] = board[1]
        cards[4] = board[2]
        acc = np.empty(m, np.int64)
        base = bi * 1176
        for h in range(1176):
            cards[0] = rest[ra[h]]
            cards[1] = rest[rb[h]]
            acc[:] = 0
            for s in range(49):
                if s == ra[h] or s == rb[h]:
                    continue
                cards[5] = rest[s]
                x = index_hand(t24, cards)
                for j in range(m):
                    acc[j] += turn[x, j]
            for j in range(m):
                out[base + h, j] = acc[j] // 2


@njit(cache=True, parallel=True)
def preflop_sums(t2, t23, flop_w, flop_t, out):
    """Per canonical preflop hand ``p`` (169): wins and ties summed from the flop rows (dense by
    ``[2,3]`` index) over the 19,600 flops, divided by 10 (each five-card board is reached from
    C(5,3) flops): counts over the C(50,5) boards x 990 opponent hands. ``out[p] = (w, t)``."""
    for p in prange(169):
        cards = np.empty(5, np.int64)
        unindex_hand(t2, p, cards)
        rest = np.empty(50, np.int64)
        _rest(cards, 2, rest)
        sw = 0
        st = 0
        for i in range(50):
            for j in range(i + 1, 50):
                for k in range(j + 1, 50):
                    cards[2] = rest[i]
                    cards[3] = rest[j]
                    cards[4] = rest[k]
                    x = index_hand(t23, cards)
                    sw += flop_w[x]
                    st += flop_t[x]
        out[p, 0] = sw // 10
        out[p, 1] = st // 10


@njit(cache=True, parallel=True)
def scatter_rows(idx, cols, out):
    """``out[idx[i], j] = cols[j, i]``: columns read from a table into rows by index."""
    m = cols.shape[0]
    for i in prange(idx.shape[0]):
        x = idx[i]
        for j in range(m):
            out[x, j] = cols[j, i]
