"""Numba kernels of Texas Hold'em opponent cluster hand strength (``abstraction/ochs.py``).

Johanson, Burch, Valenzano & Bowling, "Evaluating state-space abstractions in extensive-form
games" (AAMAS 2013), section 4: a river hand's feature is its equity against the opponent's
hole cards of each of a few clusters of starting hands.

``board_counts`` is ``etl._equity_kernels.river_board`` with a cluster per opponent hand: on
one five-card board it evaluates the 1,081 hole-card pairs of the 47 cards left, sorts them by
strength and sweeps the groups of equal strength, keeping per cluster ``c`` the number of
hands already passed (``below[c]``) and of those holding each card (``less[card, c]``). For a
hand ``{a, b}`` of cluster ``o``, the opponent hands of cluster ``c`` it beats, ties and can
face are, by inclusion-exclusion over the two cards it blocks,

    wins[c] = below[c] - less[a, c] - less[b, c]
    ties[c] = group[c] - group[a, c] - group[b, c] + [o == c]
    live[c] = total[c] - total[a, c] - total[b, c] + [o == c]

(the hand ``{a, b}`` itself holds both cards and is never weaker than itself; it is in its own
group and in the totals, so it is added back once). A board costs one evaluation and O(clusters)
work per hand, not 1,081 x 990 comparisons.

``code_histograms`` gathers, per turn bucket, the probability of every river code (a hand's
OCHS vector quantised, ``abstraction.ochs_river``) over the turn hands' 46 river cards; like
``abstraction._holdem_kernels._river_histograms`` (whose benchmark chose the inlined index) it
looks up every turn hand's continuations, 2.5 billion in all.
"""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): afe31114104eda0b

from __future__ import annotations

import numpy as np
from numba import njit, prange

from etl._equity_kernels import _class_weight, _rest, _sort_by_value, _stabilizer, pair_slots
from etl._eval_kernels import CARD_KEY, CARD_MASK, value_of_state7
from etl._index_kernels import index_hand, index_hand_inline, unindex_hand

N_RIVER_HANDS = 1081  # C(47, 2)


@njit(cache=True)
def _one_board(board, rem, pa, pb, cop, k, keys, tmp, cnt, wins, ties, live):
    """Per-cluster wins, ties and live opponent hands of the 1,081 hands ``rem[pa[h]],
    rem[pb[h]]`` on ``board`` (module docstring); ``cop[x, y]`` is the cluster of hole cards
    ``{x, y}``. Writes rows ``0..1080`` of ``wins``, ``ties``, ``live`` ((1081, k))."""
    bkey = 0
    bmask = 0
    for i in range(5):
        bkey += CARD_KEY[board[i]]
        bmask |= CARD_MASK[board[i]]
    n = pa.shape[0]
    cl = np.empty(n, np.int64)
    total = np.zeros(k, np.int64)
    total_card = np.zeros((47, k), np.int64)
    for h in range(n):
        c1 = rem[pa[h]]
        c2 = rem[pb[h]]
        v = value_of_state7(bkey + CARD_KEY[c1] + CARD_KEY[c2],
                            bmask | CARD_MASK[c1] | CARD_MASK[c2])
        keys[h] = (v << 11) | h
        o = cop[c1, c2]
        cl[h] = o
        total[o] += 1
        total_card[pa[h], o] += 1
        total_card[pb[h], o] += 1
    _sort_by_value(keys, tmp, n, cnt[:129], cnt[129:194])
    below = np.zeros(k, np.int64)
    less = np.zeros((47, k), np.int64)
    group = np.zeros(k, np.int64)
    group_card = np.zeros((47, k), np.int64)
    i = 0
    while i < n:
        v = keys[i] >> 11
        j = i
        while j < n and (keys[j] >> 11) == v:
            h = keys[j] & 0x7FF
            o = cl[h]
            group[o] += 1
            group_card[pa[h], o] += 1
            group_card[pb[h], o] += 1
            j += 1
        for t in range(i, j):
            h = keys[t] & 0x7FF
            a = pa[h]
            b = pb[h]
            for c in range(k):
                wins[h, c] = below[c] - less[a, c] - less[b, c]
                ties[h, c] = group[c] - group_card[a, c] - group_card[b, c]
                live[h, c] = total[c] - total_card[a, c] - total_card[b, c]
            o = cl[h]
            ties[h, o] += 1
            live[h, o] += 1
        for t in range(i, j):
            h = keys[t] & 0x7FF
            a = pa[h]
            b = pb[h]
            o = cl[h]
            below[o] += 1
            less[a, o] += 1
            less[b, o] += 1
            group[o] = 0
            for c in range(k):
                group_card[a, c] = 0
                group_card[b, c] = 0
        i = j


@njit(cache=True, parallel=True)
def board_counts(boards, cop, k, t25, perms, idx, weight, hole, wins, ties, live):
    """Every hand of every board in ``boards`` ((n, 5), distinct cards): row ``b * 1081 + h``
    is hand ``h`` (of ``pair_slots(47)`` over the 47 cards left, ascending) on board ``b``.

    Writes its ``[2,5]`` canonical index (``t25``), class size (raw hands in its
    suit-isomorphism class; 0 when an earlier row of the same board is the same class), hole
    cards, and per opponent cluster its wins, ties and live opponent hands ((rows, k))."""
    pa, pb = pair_slots(47)
    for bi in prange(boards.shape[0]):
        board = np.empty(5, np.int64)
        for i in range(5):
            board[i] = boards[bi, i]
        rem = np.empty(47, np.int64)
        _rest(board, 5, rem)
        stab = np.empty(24, np.int64)
        ns = _stabilizer(board, 5, perms, stab)
        keys = np.empty(N_RIVER_HANDS, np.int64)
        tmp = np.empty(N_RIVER_HANDS, np.int64)
        cnt = np.empty(194, np.int64)
        base = bi * N_RIVER_HANDS
        _one_board(board, rem, pa, pb, cop, k, keys, tmp, cnt,
                   wins[base:base + N_RIVER_HANDS], ties[base:base + N_RIVER_HANDS],
                   live[base:base + N_RIVER_HANDS])
        cards = np.empty(7, np.int64)
        cards[2:] = board
        for h in range(N_RIVER_HANDS):
            cards[0] = rem[pa[h]]
            cards[1] = rem[pb[h]]
            idx[base + h] = index_hand(t25, cards)
            weight[base + h] = _class_weight(cards[0], cards[1], perms, stab, ns)
            hole[base + h, 0] = cards[0]
            hole[base + h, 1] = cards[1]


@njit(cache=True, parallel=True)
def scatter_equity(idx, weight, wins, ties, live, table, key, size):
    """Rows with ``weight > 0`` into the dense ``[2,5]`` arrays: ``table[idx]`` the equity
    (wins + ties/2) / live per cluster (1/2 where the cluster has no live hand), ``key[idx]``
    ``2 * wins + ties`` over all 990 opponent hands, ``size[idx]`` the class size."""
    k = wins.shape[1]
    for r in prange(idx.shape[0]):
        if weight[r] == 0:
            continue
        x = idx[r]
        sw = 0
        st = 0
        for c in range(k):
            sw += wins[r, c]
            st += ties[r, c]
            n = live[r, c]
            table[x, c] = (wins[r, c] + 0.5 * ties[r, c]) / n if n > 0 else 0.5
        key[x] = 2 * sw + st
        size[x] = weight[r]


@njit(cache=True, parallel=True)
def code_histograms(turn_tables, river_tables, order, starts, lo, hi, turn_weight, code, key,
                    n_codes, w_out, eq_out):
    """For turn buckets ``lo .. hi-1`` (bucket ``b``'s turn hands are
    ``order[starts[b]:starts[b+1]]``, ``[2,3,1]`` indexes): ``w_out[b - lo, q]`` the
    probability of reaching a river hand of code ``q`` (every river card 1/46 of the turn
    hand's ``turn_weight``), ``eq_out[b - lo, q]`` the same weighted by the river hand's
    equity ``key / 1980``."""
    for bi in prange(hi - lo):
        b = lo + bi
        cards = np.empty(7, np.uint8)
        used = np.zeros(52, np.bool_)
        for q in range(n_codes):
            w_out[bi, q] = 0.0
            eq_out[bi, q] = 0.0
        for t in range(starts[b], starts[b + 1]):
            i = order[t]
            unindex_hand(turn_tables, i, cards)
            used[:] = False
            for j in range(6):
                used[cards[j]] = True
            w = turn_weight[i] / 46.0
            for c in range(52):
                if used[c]:
                    continue
                cards[6] = c
                x = index_hand_inline(river_tables, cards)
                q = code[x]
                w_out[bi, q] += w
                eq_out[bi, q] += w * key[x] / 1980.0
