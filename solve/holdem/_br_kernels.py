"""Numba kernels of the exact best response in the real game (``solve/holdem/best_response.py``).

Conventions (besides those of ``_kernels.py`` and ``_vector_kernels.py``):

- Vectors run over the 1,326 pair indices (``b*(b-1)/2 + a``, a < b); only the deck's pairs
  (``dpa``, ``dpb``, ``dpi``: cards and pair index of each of the ``P`` pairs of the deck's
  cards) are ever read. An opponent hand that holds a board card has reach 0.
- One round of the public tree below a node (a *segment*) is walked with local ids in
  ``0 .. NL[r]-1`` (a parent before its children). Per round r and local id l: ``RO[r, l]``
  the opponent's reach per opponent hand, ``V[r, l]`` the responder's best-response value per
  responder hand, ``VP[r, l]`` its value playing the strategy itself (the on-policy value),
  ``LN`` the tree node, ``LC`` the local ids of its children, ``DEAD`` no opponent hand
  reaches it (its values are 0). A *transition* is a node of round r+1 under round r.
- Values are counterfactual sums: ``V[h]`` at a node with seen board b is the sum over the
  opponent hands h' that miss h and b of ``RO[h'] * E[chips | h, h', b]`` (E over the cards
  still to come). Given two hands and b, every next card is equally likely, one of
  ``D - 4 - len(b)``; so a chance node's value is the sum of its children's (each with the
  hands holding the new card left out) over that count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from etl._eval_kernels import eval7
from etl._index_kernels import index_hand
from solve.holdem._kernels import DECISION, FOLD_END, SHOWDOWN, policy_probs
from solve.holdem._vector_kernels import fold_sums, showdown_sums, tie_ends

#: local nodes of one round's segment (a round of limit betting with a cap of 4 has 27)
MAXL = 64
BOARD_SEEN = (0, 3, 4, 5)


@njit(cache=True)
def round_buckets(r, board, nb, dpa, dpb, dpi, P, bk, tabs, ob):
    """``ob[r, h]``: the round-r bucket of every deck pair h missing the first ``nb`` board
    cards (the river reads the turn bucket from ``ob[2]``)."""
    cards = np.empty(7, np.uint8)
    for k in range(P):
        a = dpa[k]
        b = dpb[k]
        hit = False
        for j in range(nb):
            if board[j] == a or board[j] == b:
                hit = True
        if hit:
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
def _forward(r, root, p, T, pol, ob, ws, dpi, P, probs):
    """Opponent reach at every node of the round-r segment under ``root`` (``RO[r, 0]`` set
    by the caller); lists its nodes, children and transitions."""
    ntype, player, rnd, nact, code, child, size, spent = T
    kind, S, off = pol
    RO, V, VP, LN, LC, NL, TR, NT, DEAD = ws
    LN[r, 0] = root
    DEAD[r, 0] = False
    nl = 1
    nt = 0
    stack = np.empty(MAXL, np.int64)
    top = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        l = stack[top]
        n = LN[r, l]
        if ntype[n] != DECISION:
            continue
        if rnd[n] != r:
            TR[r, nt] = l
            nt += 1
            continue
        k = nact[n]
        for a in range(k):
            LN[r, nl] = child[n, a]
            LC[r, l, a] = nl
            nl += 1
        q = player[n]
        if q == p:
            for a in range(k):
                lc = LC[r, l, a]
                for i in range(P):
                    h = dpi[i]
                    RO[r, lc, h] = RO[r, l, h]
        else:
            for i in range(P):
                h = dpi[i]
                x = RO[r, l, h]
                if x == 0.0:
                    for a in range(k):
                        RO[r, LC[r, l, a], h] = 0.0
                    continue
                policy_probs(kind, S, off, n, nact, code, ob[r, h], probs)
                for a in range(k):
                    RO[r, LC[r, l, a], h] = x * probs[a]
        for a in range(k):
            lc = LC[r, l, a]
            tot = 0.0
            for i in range(P):
                tot += RO[r, lc, dpi[i]]
            DEAD[r, lc] = tot == 0.0
            if not DEAD[r, lc]:
                stack[top] = lc
                top += 1
    NL[r] = nl
    NT[r] = nt


@njit(cache=True)
def _backward(r, p, nb, board, deck, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g, s,
              probs):
    """Values of the round-r segment, children first (transitions filled by the caller)."""
    ntype, player, rnd, nact, code, child, size, spent = T
    kind, S, off = pol
    RO, V, VP, LN, LC, NL, TR, NT, DEAD = ws
    for l in range(NL[r] - 1, -1, -1):
        n = LN[r, l]
        if DEAD[r, l]:
            for i in range(P):
                V[r, l, dpi[i]] = 0.0
                VP[r, l, dpi[i]] = 0.0
            continue
        if ntype[n] == DECISION and rnd[n] != r:
            continue
        if ntype[n] == FOLD_END:
            pay = -spent[n, p] if player[n] == p else spent[n, 1 - p]
            fold_values(RO[r, l], pay, dpa, dpb, dpi, P, card, g, s, V[r, l])
            for i in range(P):
                VP[r, l, dpi[i]] = V[r, l, dpi[i]]
            continue
        if ntype[n] == SHOWDOWN:
            showdown_values(RO[r, l], spent[n, p], board, nb, deck, dpa, dpb, dpi, P, SL,
                            card, g, s, V[r, l])
            for i in range(P):
                VP[r, l, dpi[i]] = V[r, l, dpi[i]]
            continue
        k = nact[n]
        if player[n] == p:
            for i in range(P):
                h = dpi[i]
                best = V[r, LC[r, l, 0], h]
                for a in range(1, k):
                    x = V[r, LC[r, l, a], h]
                    if x > best:
                        best = x
                V[r, l, h] = best
                policy_probs(kind, S, off, n, nact, code, ob[r, h], probs)
                x = 0.0
                for a in range(k):
                    x += probs[a] * VP[r, LC[r, l, a], h]
                VP[r, l, h] = x
        else:
            for i in range(P):
                h = dpi[i]
                x = 0.0
                y = 0.0
                for a in range(k):
                    x += V[r, LC[r, l, a], h]
                    y += VP[r, LC[r, l, a], h]
                V[r, l, h] = x
                VP[r, l, h] = y


@njit(cache=True)
def _enter(r, t, c, ws, dpa, dpb, dpi, P):
    """Round r+1's root reach: transition ``t`` of round r without the hands holding ``c``."""
    RO = ws[0]
    for i in range(P):
        h = dpi[i]
        RO[r + 1, 0, h] = 0.0 if (dpa[i] == c or dpb[i] == c) else RO[r, t, h]


@njit(cache=True)
def _collect(r, t, c, ws, dpa, dpb, dpi, P):
    """Add round r+1's root values (next card ``c``) to transition ``t`` of round r."""
    V = ws[1]
    VP = ws[2]
    for i in range(P):
        if dpa[i] == c or dpb[i] == c:
            continue
        h = dpi[i]
        V[r, t, h] += V[r + 1, 0, h]
        VP[r, t, h] += VP[r + 1, 0, h]


@njit(cache=True)
def _scale_transitions(r, nb, D, ws, dpi, P):
    V = ws[1]
    VP = ws[2]
    TR = ws[6]
    NT = ws[7]
    m = D - 4 - nb
    for j in range(NT[r]):
        t = TR[r, j]
        for i in range(P):
            V[r, t, dpi[i]] /= m
            VP[r, t, dpi[i]] /= m


@njit(cache=True)
def _zero_transitions(r, ws, dpi, P):
    V = ws[1]
    VP = ws[2]
    TR = ws[6]
    NT = ws[7]
    for j in range(NT[r]):
        t = TR[r, j]
        for i in range(P):
            V[r, t, dpi[i]] = 0.0
            VP[r, t, dpi[i]] = 0.0


@njit(cache=True)
def _next_board(nb, c, board, deck, bk, tabs, ob, dpa, dpb, dpi, P, SL):
    """Deal ``c`` as board card ``nb``: the next round's buckets (and the river's order)."""
    board[nb] = c
    round_buckets(nb - 1, board, nb + 1, dpa, dpb, dpi, P, bk, tabs, ob)
    if nb + 1 == 5:
        sidx, sa, sb, gend, hs = SL
        hs[0] = sorted_hands(board, dpa, dpb, dpi, P, sidx, sa, sb, gend)


@njit(cache=True)
def _seg3(root, p, board, deck, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g, s, probs):
    _forward(3, root, p, T, pol, ob, ws, dpi, P, probs)
    _backward(3, p, 5, board, deck, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g, s, probs)


@njit(cache=True)
def _seg2(root, p, board, deck, bk, tabs, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g, s,
          probs):
    _forward(2, root, p, T, pol, ob, ws, dpi, P, probs)
    _zero_transitions(2, ws, dpi, P)
    TR = ws[6]
    NT = ws[7]
    DEAD = ws[8]
    if NT[2] > 0:
        for c in deck:
            if c == board[0] or c == board[1] or c == board[2] or c == board[3]:
                continue
            _next_board(4, c, board, deck, bk, tabs, ob, dpa, dpb, dpi, P, SL)
            for j in range(NT[2]):
                t = TR[2, j]
                if DEAD[2, t]:
                    continue
                _enter(2, t, c, ws, dpa, dpb, dpi, P)
                _seg3(ws[3][2, t], p, board, deck, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card,
                      g, s, probs)
                _collect(2, t, c, ws, dpa, dpb, dpi, P)
        _scale_transitions(2, 4, len(deck), ws, dpi, P)
    _backward(2, p, 4, board, deck, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g, s, probs)


@njit(cache=True)
def _seg1(root, p, board, deck, bk, tabs, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g, s,
          probs):
    _forward(1, root, p, T, pol, ob, ws, dpi, P, probs)
    _zero_transitions(1, ws, dpi, P)
    TR = ws[6]
    NT = ws[7]
    DEAD = ws[8]
    if NT[1] > 0:
        for c in deck:
            if c == board[0] or c == board[1] or c == board[2]:
                continue
            _next_board(3, c, board, deck, bk, tabs, ob, dpa, dpb, dpi, P, SL)
            for j in range(NT[1]):
                t = TR[1, j]
                if DEAD[1, t]:
                    continue
                _enter(1, t, c, ws, dpa, dpb, dpi, P)
                _seg2(ws[3][1, t], p, board, deck, bk, tabs, T, pol, ob, ws, dpa, dpb, dpi, P,
                      SL, card, g, s, probs)
                _collect(1, t, c, ws, dpa, dpb, dpi, P)
        _scale_transitions(1, 3, len(deck), ws, dpi, P)
    _backward(1, p, 3, board, deck, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g, s, probs)


@njit(cache=True)
def flop_values(flop, p, entries, reach, deck, dpa, dpb, dpi, T, kind, S, off, bk, tabs,
                out_v, out_vp):
    """Responder ``p``'s values at every flop entry (a round-1 node under the preflop, or a
    preflop showdown) on ``flop``: ``out_v[e, h]`` the best response's, ``out_vp[e, h]`` the
    strategy's own, given the opponent's preflop reach ``reach[e]`` (sums as in the module
    docstring, with the opponent hands holding a flop card left out)."""
    P = len(dpi)
    pol = (kind, S, off)
    ntype = T[0]
    RO = np.zeros((4, MAXL, 1326))
    V = np.zeros((4, MAXL, 1326))
    VP = np.zeros((4, MAXL, 1326))
    LN = np.zeros((4, MAXL), np.int64)
    LC = np.zeros((4, MAXL, 3), np.int64)
    NL = np.zeros(4, np.int64)
    TR = np.zeros((4, MAXL), np.int64)
    NT = np.zeros(4, np.int64)
    DEAD = np.zeros((4, MAXL), np.bool_)
    ws = (RO, V, VP, LN, LC, NL, TR, NT, DEAD)
    ob = np.zeros((4, 1326), np.int64)
    SL = (np.zeros(P, np.int64), np.zeros(P, np.int64), np.zeros(P, np.int64),
          np.zeros(P, np.int64), np.zeros(1, np.int64))
    card = np.zeros(52)
    g = np.zeros(P)
    s = np.zeros(P)
    probs = np.zeros(3)
    board = np.zeros(5, np.int64)
    for j in range(3):
        board[j] = flop[j]
    round_buckets(1, board, 3, dpa, dpb, dpi, P, bk, tabs, ob)
    for e in range(len(entries)):
        n = entries[e]
        for i in range(P):
            h = dpi[i]
            hit = False
            for j in range(3):
                if dpa[i] == board[j] or dpb[i] == board[j]:
                    hit = True
            RO[1, 0, h] = 0.0 if hit else reach[e, h]
        if ntype[n] == DECISION:
            _seg1(n, p, board, deck, bk, tabs, T, pol, ob, ws, dpa, dpb, dpi, P, SL, card, g,
                  s, probs)
            for i in range(P):
                out_v[e, dpi[i]] = V[1, 0, dpi[i]]
                out_vp[e, dpi[i]] = VP[1, 0, dpi[i]]
        else:  # a preflop showdown (one betting round): the mean over the turn and river
            showdown_values(RO[1, 0], T[7][n, p], board, 3, deck, dpa, dpb, dpi, P, SL, card,
                            g, s, out_v[e])
            for i in range(P):
                out_vp[e, dpi[i]] = out_v[e, dpi[i]]


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
