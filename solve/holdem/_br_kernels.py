"""Numba kernels of the exact best response in the real game (``solve/holdem/best_response.py``).

Conventions (besides those of ``_kernels.py`` and ``_vector_kernels.py``):

- Vectors of the flop and turn run over the 1,326 pair indices (``b*(b-1)/2 + a``, a < b);
  only the deck's pairs (``dpa``, ``dpb``, ``dpi``: cards and pair index of each of the ``P``
  pairs of the deck's cards) are ever read. An opponent hand that holds a board card has reach 0.
- One round of the public tree below a node (a *segment*) is walked with local ids in
  ``0 .. NL[r]-1`` (a parent before its children). Per round r and local id l: ``RO[r, l]``
  the opponent's reach per opponent hand, ``V[r, l]`` the responder's best-response value per
  responder hand, ``VP[r, l]`` its value playing the strategy itself (the on-policy value),
  ``LN`` the tree node, ``LC`` the local ids of its children, ``DEAD`` no opponent hand
  reaches it (its values are 0). A *transition* is a node of round r+1 under round r.
- The river's vectors run over the board's live hands in ascending strength instead (see
  below), several segments at a time (``_br_lanes``).
- Values are counterfactual sums: ``V[h]`` at a node with seen board b is the sum over the
  opponent hands h' that miss h and b of ``RO[h'] * E[chips | h, h', b]`` (E over the cards
  still to come). Given two hands and b, every next card is equally likely, one of
  ``D - 4 - len(b)``; so a chance node's value is the sum of its children's (each with the
  hands holding the new card left out) over that count.
"""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): b1d21fa2fa5ef4b5

from __future__ import annotations

import numpy as np
from numba import njit

from etl._eval_kernels import eval7
from etl._index_kernels import index_hand
from solve.holdem._kernels import DECISION, FOLD_END, KIND_TABLE, SHOWDOWN, policy_probs
from solve.holdem._br_lanes import (LANES, fill_group_probs, lanes_collect,
                                    river_groups, river_lanes, union_buckets)
from solve.holdem._simd import zeros64
from solve.holdem._vector_kernels import fold_sums, showdown_sums, tie_ends

BOARD_SEEN = (0, 3, 4, 5)


@njit(cache=True, inline="always")
def _blocked(board, nb, a, b) -> bool:
    """Is hole pair (a, b) blocked by one of the first ``nb`` board cards?"""
    for j in range(nb):
        if board[j] == a or board[j] == b:
            return True
    return False


@njit(cache=True)
def round_buckets(r, board, nb, dpa, dpb, dpi, P, bk, tabs, ob):
    """``ob[r, h]``: the round-r bucket of every deck pair h missing the first ``nb`` board
    cards (the river reads the turn bucket from ``ob[2]``)."""
    cards = np.empty(7, np.uint8)
    for k in range(P):
        a = dpa[k]
        b = dpb[k]
        if _blocked(board, nb, a, b):
            continue
        cards[0] = a
        cards[1] = b
        for j in range(nb):
            cards[2 + j] = board[j]
        h = dpi[k]
        if r == 0:
            ob[0, h] = bk[0][index_hand(tabs[0], cards[:2])]
        elif r == 1:
            ob[1, h] = bk[1][index_hand(tabs[1], cards[:5])]
        elif r == 2:
            ob[2, h] = bk[2][index_hand(tabs[2], cards[:6])]
        else:
            ob[3, h] = bk[3][ob[2, h] * bk[5][0] + bk[4][index_hand(tabs[3], cards[:7])]]


@njit(cache=True)
def fill_probs(r, nb, board, kind, S, off, nact, code, rnodes, prow, ob, dpa, dpb, dpi, P,
               PR):
    """``PR[r][prow[n] + a, h]``: the strategy's probability of action a at every round-r
    decision node n (``rnodes``) for every deck pair h missing the board (its bucket
    ``ob[r, h]``), on the flop and turn (the river's: ``_br_lanes.fill_group_probs``).
    Hand-major reads (a bucket's weights of a round are contiguous), so the walk then reads
    rows: a lookup per node and hand would be a cache (and TLB) miss in weights of
    gigabytes."""
    T = PR[r]
    probs = np.zeros(3)
    for i in range(P):
        if _blocked(board, nb, dpa[i], dpb[i]):
            continue
        h = dpi[i]
        b = ob[r, h]
        for m in range(len(rnodes)):
            n = rnodes[m]
            k = nact[n]
            row = prow[n]
            if kind == KIND_TABLE:  # policy_probs, written out (measured 4x faster here)
                base = off[n, 0] + b * off[n, 1]
                t = 0.0
                for a in range(k):
                    t += S[base + a]
                for a in range(k):
                    T[row + a, h] = S[base + a] / t if t > 0 else 1.0 / k
            else:
                policy_probs(kind, S, off, n, nact, code, b, probs)
                for a in range(k):
                    T[row + a, h] = probs[a]


@njit(cache=True)
def sorted_hands(board, dpa, dpb, dpi, P, sidx, sa, sb, gend):
    """The deck pairs missing the 5-card ``board`` in ascending 7-card strength: pair index
    ``sidx``, cards ``sa``/``sb``, tie-group ends ``gend``. Returns their number."""
    idx = np.empty(P, np.int64)
    v = np.empty(P, np.int64)
    H = 0
    for k in range(P):
        a = dpa[k]
        b = dpb[k]
        hit = False
        for j in range(5):
            if board[j] == a or board[j] == b:
                hit = True
        if hit:
            continue
        idx[H] = k
        v[H] = eval7(a, b, board[0], board[1], board[2], board[3], board[4])
        H += 1
    o = np.argsort(v[:H], kind="mergesort")
    vs = np.empty(H, np.int64)
    for i in range(H):
        k = idx[o[i]]
        sidx[i] = dpi[k]
        sa[i] = dpa[k]
        sb[i] = dpb[k]
        vs[i] = v[o[i]]
    tie_ends(vs, H, gend)
    return H


@njit(cache=True)
def fold_values(reach, pay, dpa, dpb, dpi, P, card, g, s, out):
    """``out[h] = pay * (opponent reach over the hands missing h)`` for every deck pair."""
    for k in range(P):
        g[k] = reach[dpi[k]]
    fold_sums(P, dpa, dpb, g, card, s)
    for k in range(P):
        out[dpi[k]] = pay * s[k]


@njit(cache=True)
def showdown_add(reach, pay, H, sidx, sa, sb, gend, card, g, s, out):
    """``out[h] += pay * (reach beaten by h - reach beating h)`` on one 5-card board."""
    for i in range(H):
        g[i] = reach[sidx[i]]
    showdown_sums(H, sa, sb, gend, g, card, s)
    for i in range(H):
        out[sidx[i]] += pay * s[i]


@njit(cache=True)
def showdown_values(reach, pay, board, nb, deck, dpa, dpb, dpi, P, SL, card, g, s, out):
    """Showdown chips per deck pair with ``nb`` board cards seen: on the river from the sorted
    hands ``SL``; before, the mean over every completion of the board (small games)."""
    sidx, sa, sb, gend, hs = SL
    for k in range(P):
        out[dpi[k]] = 0.0
    if nb == 5:
        showdown_add(reach, pay, hs[0], sidx, sa, sb, gend, card, g, s, out)
        return
    rb = np.empty(5, np.int64)
    for j in range(nb):
        rb[j] = board[j]
    free = np.empty(len(deck), np.int64)
    m = 0
    for c in deck:
        seen = False
        for j in range(nb):
            if board[j] == c:
                seen = True
        if not seen:
            free[m] = c
            m += 1
    xi = np.empty(P, np.int64)
    xa = np.empty(P, np.int64)
    xb = np.empty(P, np.int64)
    xg = np.empty(P, np.int64)
    cnt = 0
    if nb == 4:
        for i in range(m):
            rb[4] = free[i]
            H = sorted_hands(rb, dpa, dpb, dpi, P, xi, xa, xb, xg)
            showdown_add(reach, pay, H, xi, xa, xb, xg, card, g, s, out)
            cnt += 1
    else:  # nb == 3
        for i in range(m):
            for j in range(i + 1, m):
                rb[3] = free[i]
                rb[4] = free[j]
                H = sorted_hands(rb, dpa, dpb, dpi, P, xi, xa, xb, xg)
                showdown_add(reach, pay, H, xi, xa, xb, xg, card, g, s, out)
                cnt += 1
    # a completion that hits h (or h') has that hand's terms 0: the count is per hand pair
    rem = len(deck) - 4 - nb
    per = 1.0 if nb == 4 else 0.5 * (rem - 1)
    for k in range(P):
        out[dpi[k]] /= rem * per


@njit(cache=True)
def _forward(r, root, p, T, PT, RO, LN, LC, TR, DEAD, dpi, P):
    """Opponent reach at every node of the round-r segment under ``root`` (``RO[0]`` set by
    the caller); lists its nodes (``LN``), children (``LC``) and transitions (``TR``).
    Returns (nodes, transitions)."""
    ntype, player, rnd, nact, code, child, size, spent = T
    PR, prow = PT
    Q = PR[r]
    L = LN.shape[0]
    LN[0] = root
    DEAD[0] = False
    nl = 1
    nt = 0
    stack = np.empty(L, np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        l = stack[top]
        n = LN[l]
        if ntype[n] != DECISION:
            continue
        if rnd[n] != r:
            TR[nt] = l
            nt += 1
            continue
        k = nact[n]
        for a in range(k):
            LN[nl] = child[n, a]
            LC[l, a] = nl
            nl += 1
        if player[n] == p:
            for a in range(k):
                lc = LC[l, a]
                for i in range(P):
                    h = dpi[i]
                    RO[lc, h] = RO[l, h]
        else:
            base = prow[n]
            for i in range(P):
                h = dpi[i]
                x = RO[l, h]
                for a in range(k):
                    RO[LC[l, a], h] = x * Q[base + a, h]
        for a in range(k):
            lc = LC[l, a]
            tot = 0.0
            for i in range(P):
                tot += RO[lc, dpi[i]]
            DEAD[lc] = tot == 0.0
            if not DEAD[lc]:
                stack[top] = lc
                top += 1
    return nl, nt


@njit(cache=True)
def _backward(r, p, nb, board, deck, T, PT, RO, V, VP, LN, LC, DEAD, nl, dpa, dpb, dpi, P, SL,
              card, g, s, onp):
    """Values of a round-r segment, children first (transitions filled by the caller); the
    on-policy values ``VP`` only when ``onp``."""
    ntype, player, rnd, nact, code, child, size, spent = T
    PR, prow = PT
    Q = PR[r]
    for l in range(nl - 1, -1, -1):
        n = LN[l]
        if DEAD[l]:
            for i in range(P):
                V[l, dpi[i]] = 0.0
                if onp:
                    VP[l, dpi[i]] = 0.0
            continue
        if ntype[n] == DECISION and rnd[n] != r:
            continue
        if ntype[n] == FOLD_END:
            pay = -spent[n, p] if player[n] == p else spent[n, 1 - p]
            fold_values(RO[l], pay, dpa, dpb, dpi, P, card, g, s, V[l])
            if onp:
                for i in range(P):
                    VP[l, dpi[i]] = V[l, dpi[i]]
            continue
        if ntype[n] == SHOWDOWN:
            showdown_values(RO[l], spent[n, p], board, nb, deck, dpa, dpb, dpi, P, SL, card, g,
                            s, V[l])
            if onp:
                for i in range(P):
                    VP[l, dpi[i]] = V[l, dpi[i]]
            continue
        k = nact[n]
        if player[n] == p:
            base = prow[n]
            for i in range(P):
                h = dpi[i]
                best = V[LC[l, 0], h]
                for a in range(1, k):
                    y = V[LC[l, a], h]
                    if y > best:
                        best = y
                V[l, h] = best
                if onp:
                    x = Q[base, h] * VP[LC[l, 0], h]
                    for a in range(1, k):
                        x += Q[base + a, h] * VP[LC[l, a], h]
                    VP[l, h] = x
        else:
            for i in range(P):
                h = dpi[i]
                x = 0.0
                y = 0.0
                for a in range(k):
                    x += V[LC[l, a], h]
                    if onp:
                        y += VP[LC[l, a], h]
                V[l, h] = x
                if onp:
                    VP[l, h] = y


@njit(cache=True)
def _enter(src, c, dst, dpa, dpb, dpi, P):
    """A next round's root reach: ``src`` without the hands holding the new card ``c``."""
    for i in range(P):
        h = dpi[i]
        dst[h] = 0.0 if (dpa[i] == c or dpb[i] == c) else src[h]


@njit(cache=True)
def _collect(v, vp, c, dv, dvp, gm, dpa, dpb, dpi, P, onp):
    """Add a next round's root values (new card ``c``) to a transition's, renamed by the suit
    symmetry ``gm`` (a pair index's image; the identity for ``c`` itself); the on-policy ones
    only when ``onp``."""
    for i in range(P):
        if dpa[i] == c or dpb[i] == c:
            continue
        h = dpi[i]
        dv[gm[h]] += v[h]
        if onp:
            dvp[gm[h]] += vp[h]


@njit(cache=True)
def _next_board(nb, c, board, bk, tabs, ob, pol, T, PT, RN, dpa, dpb, dpi, P, SL):
    """Deal ``c`` as board card ``nb``: the next round's buckets and action probabilities
    (and on the river the hands' order)."""
    board[nb] = c
    r = nb - 1
    round_buckets(r, board, nb + 1, dpa, dpb, dpi, P, bk, tabs, ob)
    fill_probs(r, nb + 1, board, pol[0], pol[1], pol[2], T[3], T[4], RN[r], PT[1], ob, dpa, dpb,
               dpi, P, PT[0])
    if nb + 1 == 5:
        sidx, sa, sb, gend, hs = SL
        hs[0] = sorted_hands(board, dpa, dpb, dpi, P, sidx, sa, sb, gend)


# --- the river: every vector in the board's strength order -----------------------------------
#
# On a river board the H live hands are kept in ascending strength (``sorted_hands``: pair
# index ``sidx[i]``, cards ``sa[i]``/``sb[i]``, tie-group ends ``gend``), and every river vector
# (reach, values, the action probabilities) runs over ``0 .. H-1`` in that order: showdown and
# fold sums are contiguous passes with no gather, and the element-wise loops vectorise. The
# turn's vectors (pair indices) are read once per segment root and written once per segment
# value. The segments themselves are walked ``LANES`` at a time (``_br_lanes``).


@njit(cache=True)
def segment_rows(rnodes3, prow, nact, size):
    """The most rows of one river segment's probability table (``_br_lanes.fill_group_probs``)."""
    most = 1
    for m in range(len(rnodes3)):
        n = rnodes3[m]
        last = rnodes3[np.searchsorted(rnodes3, n + size[n]) - 1]
        most = max(most, prow[last] + nact[last] - prow[n])
    return most


@njit(cache=True)
def _river_board(d, board, bk, tabs, ob, dpa, dpb, dpi, P, SL, rb3):
    """Deal ``d`` as the river: the hands in strength order (``SL``) and their river buckets
    in that order (``rb3``). Returns the number of hands."""
    board[4] = d
    round_buckets(np.int64(3), board, np.int64(5), dpa, dpb, dpi, P, bk, tabs, ob)
    sidx, sa, sb, gend, hs = SL
    H = sorted_hands(board, dpa, dpb, dpi, P, sidx, sa, sb, gend)
    hs[0] = H
    for i in range(H):
        rb3[i] = ob[3, sidx[i]]
    return H


@njit(cache=True)
def _river_segments(I2, NT2, TR2, DE2, LN2, SR):
    """The live river segments under the turn's ``I2`` instances, by root node: ``SR[0]`` the
    root, ``SR[1]`` the turn instance, ``SR[2]`` its transition's local id (a root's
    segments, one per seat, are then walked after one fill of its table). Returns their
    number."""
    ns = 0
    for i2 in range(I2):
        for k in range(NT2[i2]):
            l2 = TR2[i2, k]
            if DE2[i2, l2]:
                continue
            SR[0, ns] = LN2[i2, l2]
            SR[1, ns] = i2
            SR[2, ns] = l2
            ns += 1
    o = np.argsort(SR[0, :ns], kind="mergesort")
    tmp = SR[:, :ns].copy()
    for j in range(ns):
        SR[:, j] = tmp[:, o[j]]
    return ns


@njit(cache=True)
def _segments(L, n):
    return (np.zeros((n, L, 1326)), np.zeros((n, L, 1326)), np.zeros((n, L, 1326)),
            np.zeros((n, L), np.int64), np.zeros((n, L, 3), np.int64),
            np.zeros((n, L), np.int64), np.zeros((n, L), np.bool_), np.zeros(n, np.int64),
            np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.int64))


@njit(cache=True)
def flop_values(flop, entries, reach, deck, dpa, dpb, dpi, T, kind, S, off, bk, tabs,
                rnodes1, rnodes2, rnodes3, prow, rows, L, n_turn_roots, gmap, tcard, tstart,
                tmem, rturn, rcard, rstart, rmem, out, turn_limit=0):
    """Both seats' values at every flop entry (a round-1 node under the preflop, or a
    preflop showdown) on ``flop``: ``out[p, 0, e, h]`` responder p's best response's,
    ``out[0, 1, e, h]`` the strategy's own (seat 0's only: the game is zero-sum, so seat 1's
    own value is its negative; ``out[1, 1]`` is left 0, which spares seat 1's walks the mixes
    and sums of the on-policy values, 6-8% of a flop), given the opponent's preflop reach
    ``reach[p, e]`` (sums as in the module docstring, with the opponent hands holding a flop
    card left out).

    Board-outer: every segment of a round for both seats (*instances*) is walked forward once a
    card is dealt, the next card's set-up (buckets, the probability tables, the river's
    order) is done once for all of them, and values go back up when its cards are done.
    ``rnodes<r>``: the decision nodes of round r; ``prow[n]``: node n's first row in its
    round's probability table, ``rows[r]`` the table's rows; ``L`` the most nodes of a round's
    segment; ``n_turn_roots`` the round-2 roots.

    Suit isomorphism below the flop (``best_response.board_orbits``): only one turn card per
    orbit of the flop's symmetries is dealt (``tcard``), and one river card per orbit of the
    turn board's (``rcard[rturn[j]:rturn[j + 1]]`` under turn card j); a card's values stand
    for each card of its orbit, renamed by the suit permutation that maps it there
    (``gmap[g]``: the pair index of each hand's image under symmetry g; the orbit of turn card
    j is ``tmem[tstart[j]:tstart[j + 1]]``, of river card m ``rmem[rstart[m]:rstart[m + 1]]``,
    as symmetries, the identity first). The opponent's reach at a transition is invariant under
    these symmetries (a card abstraction buckets by canonical index), so the values at an
    image board are the renamed values. ``turn_limit`` > 0 deals only that many turn cards
    (benchmarks timing a part of a flop; the values are then not the flop's). Returns the
    number of river boards walked.

    Under a turn card, every river board is set up first (``_river_board``), then each group of
    ``LANES`` river betting lines is walked on every river board in turn: its probability table
    is filled once for all the turn's river buckets (a board's hands fall in 60-370 buckets on
    the 20/800/4800/28800 abstractions, and the turn's 36-48 boards share most of them:
    100-1,900 in all), and its accumulators, reach and tables stay in cache across the boards
    (12-19% less time per board than one board at a time, the same bits: each accumulator
    still sums the river cards in order).

    One function on purpose (issue 48): it is the flop's board-outer loop nest (turn card, its
    river boards, then every group of live river segments on each), whose state is the three rounds' instance
    arrays (reach, values, nodes, children, transitions, parents: a dozen per round) made once
    per flop and threaded through every level; the per-round work is already in helpers
    (``_forward``, ``_backward``, ``_next_board``, ``_enter``, ``_collect``,
    ``_br_lanes``, ``_river_board``, ``_river_segments``), and splitting the loop nest
    would pass those thirty-odd arrays to each part."""
    P = len(dpi)
    pol = (kind, S, off)
    ntype = T[0]
    spent = T[7]
    E = len(entries)
    PR = (np.zeros((1, 1326)), np.zeros((rows[1], 1326)), np.zeros((rows[2], 1326)),
          np.zeros((1, 1326)))  # the river's: ``Q3``, per segment root
    PT = (PR, prow)
    RN = (rnodes1[:0], rnodes1, rnodes2, rnodes3)
    SL = (np.zeros(P, np.int64), np.zeros(P, np.int64), np.zeros(P, np.int64),
          np.zeros(P, np.int64), np.zeros(1, np.int64))
    card = np.zeros(52)
    g = np.zeros(P)
    s = np.zeros(P)
    ob = np.zeros((4, 1326), np.int64)
    board = np.zeros(5, np.int64)
    for j in range(3):
        board[j] = flop[j]
    D = len(deck)
    # instances: (RO, V, VP, LN, LC, TR, DEAD, NL, NT, seat, parent instance, parent local)
    RO1, V1, VP1, LN1, LC1, TR1, DE1, NL1, NT1, SE1, PI1, PL1 = _segments(L, 2 * E)
    RO2, V2, VP2, LN2, LC2, TR2, DE2, NL2, NT2, SE2, PI2, PL2 = _segments(L, 2 * n_turn_roots)
    # the river: LANES segments at a time, vectors in strength order (``_br_lanes``)
    W = LANES
    nq = segment_rows(rnodes3, prow, T[3], T[6])
    cap = 1  # Q3's river buckets (columns of LANES), grown to the most a turn card needs
    Q3 = zeros64(nq * cap * W).reshape((nq, cap * W))  # lanes on cache lines (``_simd``)
    NR = D - 4  # river cards under one turn card, at most
    HR = np.zeros(NR, np.int64)  # per river card of the turn: its hands, in strength order,
    SLR = np.zeros((NR, 4, P), np.int64)  # (pair index, cards, tie-group ends),
    RBR = np.zeros((NR, P), np.int64)  # their river buckets,
    UBR = np.zeros((NR, P), np.int64)  # those as indices into the turn's bucket list,
    MSR = np.zeros((NR, len(gmap), P), np.int64)  # the pair indices of each image of the card
    NMR = np.zeros(NR, np.int64)  # and how many images
    PB3 = np.zeros((3, P))
    SR = np.zeros((3, 2 * L * n_turn_roots), np.int64)  # river segments: root, instance, local
    RT = np.zeros(2 * L * n_turn_roots, np.int64)  # their roots, grouped into lanes
    SEG = np.zeros((2, 2 * L * n_turn_roots), np.int64)
    GS = np.zeros(2 * L * n_turn_roots, np.int64)
    GN = np.zeros(2 * L * n_turn_roots, np.int64)
    RO3 = zeros64(L * P * W).reshape((L, P * W))
    VV3 = zeros64(2 * L * P * W).reshape((2 * L, P * W))
    card3 = zeros64(52 * W)
    RD3 = np.zeros(W, np.int64)
    pay3 = np.zeros(2 * W)  # a terminal's chips per lane, then its fold sibling's
    LN3 = np.zeros(L, np.int64)
    LC3 = np.zeros((L, 3), np.int64)
    SL3 = np.zeros(L, np.int64)
    DE3 = np.zeros(L, np.bool_)
    # rounds and board sizes as run-time integers: numba compiles a callee once per integer
    # literal it is called with (``_backward`` with 1 and 2, ``showdown_values`` with 3 and 4...)
    R1, R2, NB1, NB2 = np.int64(1), np.int64(2), np.int64(3), np.int64(4)
    round_buckets(R1, board, NB1, dpa, dpb, dpi, P, bk, tabs, ob)
    fill_probs(R1, NB1, board, kind, S, off, T[3], T[4], rnodes1, prow, ob, dpa, dpb, dpi, P, PR)
    any2 = False
    for i1 in range(2 * E):
        p = i1 // E
        e = i1 % E
        n = entries[e]
        SE1[i1] = p
        for i in range(P):
            h = dpi[i]
            hit = False
            for j in range(3):
                if dpa[i] == board[j] or dpb[i] == board[j]:
                    hit = True
            RO1[i1, 0, h] = 0.0 if hit else reach[p, e, h]
        if ntype[n] != DECISION:  # a preflop showdown (one round): mean over turn and river
            showdown_values(RO1[i1, 0], spent[n, p], board, NB1, deck, dpa, dpb, dpi, P, SL,
                            card, g, s, out[p, 0, e])
            if p == 0:
                for i in range(P):
                    out[p, 1, e, dpi[i]] = out[p, 0, e, dpi[i]]
            NL1[i1] = 0
            continue
        NL1[i1], NT1[i1] = _forward(R1, n, p, T, PT, RO1[i1], LN1[i1], LC1[i1], TR1[i1],
                                    DE1[i1], dpi, P)
        for j in range(NT1[i1]):
            V1[i1, TR1[i1, j]] = 0.0
            VP1[i1, TR1[i1, j]] = 0.0
            if not DE1[i1, TR1[i1, j]]:
                any2 = True
    walked = 0
    for jt in range(len(tcard)):
        if not any2:
            break
        if turn_limit > 0 and jt == turn_limit:
            break
        c = tcard[jt]
        _next_board(NB1, c, board, bk, tabs, ob, pol, T, PT, RN, dpa, dpb, dpi, P, SL)
        I2 = np.int64(0)  # not the literal 0: ``_river_segments`` would compile for it too
        any3 = False
        for i1 in range(2 * E):
            for j in range(NT1[i1]):
                l1 = TR1[i1, j]
                if DE1[i1, l1]:
                    continue
                i2 = I2
                I2 += 1
                p = SE1[i1]
                SE2[i2] = p
                PI2[i2] = i1
                PL2[i2] = l1
                _enter(RO1[i1, l1], c, RO2[i2, 0], dpa, dpb, dpi, P)
                NL2[i2], NT2[i2] = _forward(R2, LN1[i1, l1], p, T, PT, RO2[i2], LN2[i2],
                                            LC2[i2], TR2[i2], DE2[i2], dpi, P)
                for k in range(NT2[i2]):
                    V2[i2, TR2[i2, k]] = 0.0
                    VP2[i2, TR2[i2, k]] = 0.0
                    if not DE2[i2, TR2[i2, k]]:
                        any3 = True
        ns = _river_segments(I2, NT2, TR2, DE2, LN2, SR)
        ng = river_groups(SR, ns, SE2, T, prow, RT, SEG, GS, GN)
        A3 = zeros64(2 * ng * 2 * 1326 * W).reshape((2, ng, 2, 1326 * W))  # per seat, group:
        # the river roots' sums
        nr = rturn[jt + 1] - rturn[jt] if any3 else 0
        for j in range(nr):  # every river board of the turn card set up first
            m = rturn[jt] + j
            sl = (SLR[j, 0], SLR[j, 1], SLR[j, 2], SLR[j, 3], SL[4])
            H = _river_board(rcard[m], board, bk, tabs, ob, dpa, dpb, dpi, P, sl, RBR[j])
            HR[j] = H
            NMR[j] = rstart[m + 1] - rstart[m]
            for t in range(NMR[j]):
                gm = gmap[rmem[rstart[m] + t]]
                for i in range(H):
                    MSR[j, t, i] = gm[SLR[j, 0, i]]
            walked += 1
        if nr > 0:
            ubk = union_buckets(RBR, HR, nr, UBR)
            nu = len(ubk)
            if nu > cap:
                cap = nu
                Q3 = zeros64(nq * cap * W).reshape((nq, cap * W))
            for gg in range(ng):  # LANES roots' tables (every bucket of the turn's river
                # boards), then their segments on each river board, seat by seat
                g0 = GS[gg]
                fill_group_probs(kind, S, off, T[3], T[4], rnodes3, prow, T[6], RT, g0, GN[gg],
                                 ubk, nu, PB3, Q3)
                for j in range(nr):
                    for s3 in range(2):
                        river_lanes(s3, g0, GN[gg], RT, SEG, SR, RO2, A3[s3, gg, 0],
                                    A3[s3, gg, 1], T, Q3, prow, RO3, VV3, LN3, LC3, SL3, DE3,
                                    HR[j], UBR[j], SLR[j, 0], SLR[j, 1], SLR[j, 2], SLR[j, 3],
                                    MSR[j], NMR[j], card3, RD3, pay3, s3 == 0)
        lanes_collect(A3, ng, GS, GN, SEG, SR, V2, VP2)
        for i2 in range(I2):
            p = SE2[i2]
            for k in range(NT2[i2]):
                l2 = TR2[i2, k]
                for i in range(P):
                    V2[i2, l2, dpi[i]] /= D - 8
                    if p == 0:  # seat 1's own values are not walked (see above)
                        VP2[i2, l2, dpi[i]] /= D - 8
            _backward(R2, p, NB2, board, deck, T, PT, RO2[i2], V2[i2], VP2[i2], LN2[i2], LC2[i2],
                      DE2[i2], NL2[i2], dpa, dpb, dpi, P, SL, card, g, s, p == 0)
            for t in range(tstart[jt], tstart[jt + 1]):
                _collect(V2[i2, 0], VP2[i2, 0], c, V1[PI2[i2], PL2[i2]],
                         VP1[PI2[i2], PL2[i2]], gmap[tmem[t]], dpa, dpb, dpi, P, p == 0)
    for i1 in range(2 * E):
        if NL1[i1] == 0:
            continue
        p = SE1[i1]
        e = i1 % E
        for j in range(NT1[i1]):
            l1 = TR1[i1, j]
            for i in range(P):
                V1[i1, l1, dpi[i]] /= D - 7
                if p == 0:
                    VP1[i1, l1, dpi[i]] /= D - 7
        _backward(R1, p, NB1, board, deck, T, PT, RO1[i1], V1[i1], VP1[i1], LN1[i1], LC1[i1],
                  DE1[i1], NL1[i1], dpa, dpb, dpi, P, SL, card, g, s, p == 0)
        for i in range(P):
            out[p, 0, e, dpi[i]] = V1[i1, 0, dpi[i]]
            out[p, 1, e, dpi[i]] = VP1[i1, 0, dpi[i]] if p == 0 else 0.0
    return walked


@njit(cache=True)
def policy_matrix(kind, S, off, n, nact, code, buckets, dpi, out):
    """``out[a, h]``: the policy's probability of action a at node n for every deck pair h
    (its bucket ``buckets[h]``)."""
    probs = np.zeros(3)
    for i in range(len(dpi)):
        h = dpi[i]
        policy_probs(kind, S, off, n, nact, code, buckets[h], probs)
        for a in range(nact[n]):
            out[a, h] = probs[a]
