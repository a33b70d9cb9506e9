"""Numba kernels of public-chance-sampling CFR (``solve/holdem/pcs.py``) and of the exact
per-board evaluations (``solve/holdem/board_eval.py``): vectors over every private hand.

Conventions (besides those of ``solve/holdem/_kernels.py``):

- A board's hands: the ``H`` two-card hands that miss the 5 board cards (1,081), as the
  arrays ``ha``/``hb`` (cards, ``ha < hb``), ``bkt`` (H, 4) each hand's bucket per round,
  ``order`` the hands sorted by 7-card strength ``val`` (ascending).
- The same hand list serves both players; a pair (h, h') is a deal when the hands share no
  card. Every board has the same number of deals per hand (C(45, 2) = 990), so summing over
  the compatible opponent hands is, up to one constant, the expectation under the real deal.
- ``fold_sums`` and ``showdown_sums`` give, for every hand h, the opponent reach summed over
  the hands compatible with h (inclusion-exclusion over the two cards of h), and the reach
  of the compatible hands h beats minus those it loses to, in O(H) after sorting (Johanson
  et al. 2012, "Efficient Nash equilibrium approximation through Monte Carlo counterfactual
  regret minimization", section 4).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from etl._eval_kernels import eval7
from solve.holdem._kernels import DECISION, FOLD_END, hand_buckets, policy_probs

MAX_DEPTH = 64  # longest action sequence of limit Hold'em with a cap of 4 is 4 * 6 + 1
CS_PLUS, CS_VANILLA = 0, 1  # regret update: regret-matching+ (floor at 0) or plain


@njit(cache=True)
def board_hands(board, n_rounds, bk, tabs, rkey, ha, hb, bkt, val, gend, cards, out):
    """Fill the hand arrays of ``board``, hands in ascending strength (see the module
    docstring); ``gend[i]`` is one past the last hand tied with hand i. Returns H."""
    used = np.zeros(52, np.bool_)
    for j in range(5):
        used[board[j]] = True
    a0 = np.zeros(1326, np.int64)
    b0 = np.zeros(1326, np.int64)
    v0 = np.zeros(1326, np.int64)
    H = 0
    for b in range(52):
        if used[b]:
            continue
        for a in range(b):
            if used[a]:
                continue
            a0[H] = a
            b0[H] = b
            v0[H] = eval7(a, b, board[0], board[1], board[2], board[3], board[4])
            H += 1
    order = np.argsort(v0[:H], kind="mergesort")
    for i in range(H):
        h = order[i]
        ha[i] = a0[h]
        hb[i] = b0[h]
        val[i] = v0[h]
        hand_buckets(np.uint8(a0[h]), np.uint8(b0[h]), board, n_rounds, bk, tabs, rkey, cards,
                     out)
        for r in range(n_rounds):
            bkt[i, r] = out[r]
    i = 0
    while i < H:
        j = i
        while j < H and val[j] == val[i]:
            j += 1
        for k in range(i, j):
            gend[k] = j
        i = j
    return H


@njit(cache=True)
def fold_sums(H, ha, hb, reach, card, out):
    """``out[h]`` = sum of ``reach[h']`` over the hands h' sharing no card with h."""
    card[:] = 0.0
    tot = 0.0
    for h in range(H):
        x = reach[h]
        tot += x
        card[ha[h]] += x
        card[hb[h]] += x
    for h in range(H):
        out[h] = tot - card[ha[h]] - card[hb[h]] + reach[h]


@njit(cache=True)
def showdown_sums(H, ha, hb, gend, reach, card, out):
    """``out[h]`` = reach of the compatible hands h beats minus of those that beat h (hands
    in ascending strength, ``gend`` the ends of the groups of ties)."""
    card[:] = 0.0
    cum = 0.0
    i = 0
    while i < H:  # weaker hands
        j = gend[i]
        for k in range(i, j):
            out[k] = cum - card[ha[k]] - card[hb[k]]
        for k in range(i, j):
            x = reach[k]
            cum += x
            card[ha[k]] += x
            card[hb[k]] += x
        i = j
    card[:] = 0.0
    cum = 0.0
    j = H
    while j > 0:  # stronger hands: groups from the top

        i = j - 1
        g = gend[i]
        while i > 0 and gend[i - 1] == g:
            i -= 1
        for k in range(i, j):
            out[k] -= cum - card[ha[k]] - card[hb[k]]
        for k in range(i, j):
            x = reach[k]
            cum += x
            card[ha[k]] += x
            card[hb[k]] += x
        j = i


@njit(cache=True)
def terminal_values(n, p, ntype, player, spent, H, ha, hb, gend, reach_o, card, out):
    """Counterfactual chips of player ``p`` at terminal ``n`` for every hand of p, given the
    opponent's reach ``reach_o`` (summed over the compatible opponent hands)."""
    if ntype[n] == FOLD_END:
        fold_sums(H, ha, hb, reach_o, card, out)
        pay = -spent[n, p] if player[n] == p else spent[n, 1 - p]
    else:
        showdown_sums(H, ha, hb, gend, reach_o, card, out)
        pay = spent[n, p]  # equal stakes at a showdown
    for h in range(H):
        out[h] *= pay


@njit(cache=True, inline="always")
def regret_match(R, base, k, out):
    """Regret matching of the ``k`` regrets at ``R[base:]`` into ``out[:k]``."""
    s = 0.0
    for a in range(k):
        x = R[base + a]
        if x > 0:
            s += x
    if s > 0:
        for a in range(k):
            x = R[base + a]
            out[a] = x / s if x > 0 else 0.0
    else:
        for a in range(k):
            out[a] = 1.0 / k


@njit(cache=True)
def _walk(p, ntype, player, rnd, nact, child, spent, off, R, S, weight, mode, update, H, ha, hb,
          bkt, gend, RP, RO, V, AV, SG, card, probs, NODE, DP, DO, ACT):
    """Counterfactual values of traverser ``p`` at the root into ``V[0, :H]``, both players
    playing regret matching of ``R``, the traverser's and opponent's root reach ``RP[0]`` and
    ``RO[0]``; with ``update``, p's regrets and average sums (times ``weight``) are updated.

    Depth-first with an explicit stack (numba cannot cache recursive functions): frame d holds
    ``NODE[d]``, the reach levels ``DP[d]`` / ``DO[d]`` of the two players (a child writes its
    player's reach one level up, so reach is never copied), the next action ``ACT[d]``, the
    strategies ``SG[d]`` and values ``V[d]`` (per action ``AV[d]`` at p's nodes)."""
    d = 0
    NODE[0] = 0
    DP[0] = 0
    DO[0] = 0
    descend = True
    while True:
        n = NODE[d]
        q = player[n]
        if descend:
            if ntype[n] != DECISION:
                terminal_values(n, p, ntype, player, spent, H, ha, hb, gend, RO[DO[d]], card,
                                V[d])
            else:
                k = nact[n]
                base0 = off[n, 0]
                st = off[n, 1]
                r = rnd[n]
                ro = RO[DO[d]]
                for h in range(H):
                    if q != p and ro[h] == 0.0:
                        for a in range(k):
                            SG[d, a, h] = 0.0
                        continue
                    regret_match(R, base0 + bkt[h, r] * st, k, probs)
                    for a in range(k):
                        SG[d, a, h] = probs[a]
                if q != p:
                    for h in range(H):
                        V[d, h] = 0.0
                ACT[d] = 0
        else:  # back from the child of action ACT[d]
            a = ACT[d]
            if q == p:
                for h in range(H):
                    AV[d, a, h] = V[d + 1, h]
            else:
                for h in range(H):
                    V[d, h] += V[d + 1, h]
            ACT[d] = a + 1
        if ntype[n] == DECISION:
            k = nact[n]
            went = False
            while ACT[d] < k:
                a = ACT[d]
                c = child[n, a]
                NODE[d + 1] = c
                if q == p:
                    src = RP[DP[d]]
                    dst = RP[DP[d] + 1]
                    for h in range(H):
                        dst[h] = src[h] * SG[d, a, h]
                    DP[d + 1] = DP[d] + 1
                    DO[d + 1] = DO[d]
                    went = True
                    break
                src = RO[DO[d]]
                dst = RO[DO[d] + 1]
                tot = 0.0
                for h in range(H):
                    x = src[h] * SG[d, a, h]
                    dst[h] = x
                    tot += x
                if tot == 0.0:  # the opponent never takes a: p's values there are all 0
                    ACT[d] = a + 1
                    continue
                DP[d + 1] = DP[d]
                DO[d + 1] = DO[d] + 1
                went = True
                break
            if went:
                d += 1
                descend = True
                continue
            if q == p:
                _finish_own_node(n, d, H, k, bkt[:, rnd[n]], off[n, 0], off[n, 1], RP[DP[d]], R,
                                 S, weight, mode, update, V, AV, SG)
        if d == 0:
            return
        d -= 1
        descend = False


@njit(cache=True)
def _finish_own_node(n, d, H, k, bk_r, base0, st, rp, R, S, weight, mode, update, V, AV, SG):
    """At the traverser's node: its value, then (``update``) the regret and average sums of
    each bucket over its hands; regret-matching+ floors once the bucket's sum is in."""
    for h in range(H):
        x = 0.0
        for a in range(k):
            x += SG[d, a, h] * AV[d, a, h]
        V[d, h] = x
    if not update:
        return
    for h in range(H):
        base = base0 + bk_r[h] * st
        v = V[d, h]
        w = rp[h] * weight
        for a in range(k):
            R[base + a] += AV[d, a, h] - v
            if w > 0.0:
                S[base + a] += w * SG[d, a, h]
    if mode == CS_PLUS:
        for h in range(H):
            base = base0 + bk_r[h] * st
            for a in range(k):
                if R[base + a] < 0.0:
                    R[base + a] = 0.0


@njit(cache=True)
def _sample_board(deck, board):
    for j in range(5):
        k = j + np.random.randint(0, 52 - j)
        t = deck[j]
        deck[j] = deck[k]
        deck[k] = t
        board[j] = deck[j]


@njit(cache=True)
def _buffers():
    return (np.zeros(1326, np.int64), np.zeros(1326, np.int64), np.zeros((1326, 4), np.int64),
            np.zeros(1326, np.int64), np.zeros(1326, np.int64), np.ones((MAX_DEPTH, 1326)),
            np.ones((MAX_DEPTH, 1326)), np.zeros((MAX_DEPTH, 1326)),
            np.zeros((MAX_DEPTH, 3, 1326)), np.zeros((MAX_DEPTH, 3, 1326)),
            np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64),
            np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64))


@njit(cache=True, parallel=True)
def pcs_chunk(ntype, player, rnd, nact, child, spent, off, bk, t0, t1, t2, t3, rkey, n_rounds,
              R, S, t_start, n_iter, seed, threads, mode, avg_power):
    """``n_iter`` public-chance-sampling iterations: each samples a board and walks the
    betting tree once per traverser (alternating) with vectors over the board's hands.
    Iteration i (global t = ``t_start + i + 1``) weighs its average-strategy update by
    ``t ** avg_power``. Threads take interleaved iterations, sharing R and S lock-free
    (bit-reproducible with one thread)."""
    for th in prange(threads):
        tabs = (t0, t1, t2, t3)
        np.random.seed(seed + 7919 * th)
        ha, hb, bkt, val, gend, RP, RO, V, AV, SG, NODE, DP, DO, ACT = _buffers()
        cards = np.empty(7, np.uint8)
        out = np.zeros(4, np.int64)
        deck = np.arange(52).astype(np.uint8)
        board = np.zeros(5, np.uint8)
        card = np.zeros(52)
        probs = np.zeros(3)
        for i in range(th, n_iter, threads):
            _sample_board(deck, board)
            H = board_hands(board, n_rounds, bk, tabs, rkey, ha, hb, bkt, val, gend, cards, out)
            w = np.float64(t_start + i + 1) ** avg_power
            for p in range(2):
                _walk(p, ntype, player, rnd, nact, child, spent, off, R, S, w, mode, True, H, ha,
                      hb, bkt, gend, RP, RO, V, AV, SG, card, probs, NODE, DP, DO, ACT)


@njit(cache=True)
def pcs_root_values(ntype, player, rnd, nact, child, spent, off, bk, t0, t1, t2, t3, rkey,
                    n_rounds, R, p, board, ha, hb, values):
    """Player ``p``'s counterfactual values at the root on ``board`` (both players playing
    regret matching of ``R``), per hand ``(ha[h], hb[h])``; nothing is updated. Returns H."""
    tabs = (t0, t1, t2, t3)
    _, _, bkt, val, gend, RP, RO, V, AV, SG, NODE, DP, DO, ACT = _buffers()
    cards = np.empty(7, np.uint8)
    out = np.zeros(4, np.int64)
    H = board_hands(board, n_rounds, bk, tabs, rkey, ha, hb, bkt, val, gend, cards, out)
    card = np.zeros(52)
    probs = np.zeros(3)
    S = np.zeros(1, np.float32)
    _walk(p, ntype, player, rnd, nact, child, spent, off, R, S, 1.0, CS_PLUS, False, H, ha, hb,
          bkt, gend, RP, RO, V, AV, SG, card, probs, NODE, DP, DO, ACT)
    for h in range(H):
        values[h] = V[0, h]
    return H


# ---------------------------------------------------------------------------------------------
# Exact per-board play: two policies, every pair of hands of a board at once
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def fill_buckets(board, n_rounds, bk, tabs, rkey, H, ha, hb, bkt, cards, out):
    """``bkt[h, r]``: the bucket of hand (ha[h], hb[h]) on ``board`` in round r under ``bk``."""
    for h in range(H):
        hand_buckets(np.uint8(ha[h]), np.uint8(hb[h]), board, n_rounds, bk, tabs, rkey, cards,
                     out)
        for r in range(n_rounds):
            bkt[h, r] = out[r]


@njit(cache=True)
def _play_board(ntype, player, rnd, nact, child, code, size, spent, parent, pact, lev, H, ha,
                hb, gend, kind0, S0, off0, bkt0, kind1, S1, off1, bkt1, R0, R1, SG, card, probs,
                tv):
    """Seat 0's chips summed over every deal (h0, h1) of the board (hands sharing no card),
    policy 0 in seat 0 and policy 1 in seat 1, exact over both policies' probabilities.

    One pre-order pass: node n's reach for the player who acted at its parent is that
    player's reach at the parent times the action's probability, written one level up
    (``lev[n, q]``; levels grow along a path, so an ancestor's reach is never overwritten);
    subtrees that a player never reaches are skipped."""
    N = ntype.shape[0]
    for h in range(H):
        R0[0, h] = 1.0
        R1[0, h] = 1.0
    total = 0.0
    n = 0
    while n < N:
        if n > 0:
            par = parent[n]
            q = player[par]
            src = R0[lev[par, 0]] if q == 0 else R1[lev[par, 1]]
            dst = R0[lev[n, 0]] if q == 0 else R1[lev[n, 1]]
            a = pact[n]
            d = lev[par, 0] + lev[par, 1]
            tot = 0.0
            for h in range(H):
                x = src[h] * SG[d, a, h]
                dst[h] = x
                tot += x
            if tot == 0.0:
                n += size[n]
                continue
        r0 = R0[lev[n, 0]]
        r1 = R1[lev[n, 1]]
        if ntype[n] != DECISION:
            terminal_values(n, 0, ntype, player, spent, H, ha, hb, gend, r1, card, tv)
            for h in range(H):
                total += r0[h] * tv[h]
            n += 1
            continue
        q = player[n]
        r = rnd[n]
        d = lev[n, 0] + lev[n, 1]
        reach = r0 if q == 0 else r1
        for h in range(H):
            if reach[h] == 0.0:
                continue
            if q == 0:
                policy_probs(kind0, S0, off0, n, nact, code, bkt0[h, r], probs)
            else:
                policy_probs(kind1, S1, off1, n, nact, code, bkt1[h, r], probs)
            for a in range(nact[n]):
                SG[d, a, h] = probs[a]
        n += 1
    return total


@njit(cache=True, parallel=True)
def board_values(ntype, player, rnd, nact, child, code, size, spent, parent, pact, lev,
                 n_rounds, t0, t1, t2, t3, rkey, kind0, S0, off0, bk0, kind1, S1, off1, bk1,
                 boards, out):
    """``out[i]``: seat 0's expected chips on board i (policy 0 in seat 0, policy 1 in seat
    1), the exact mean over every deal of hole cards given the board."""
    L = MAX_DEPTH
    for i in prange(boards.shape[0]):
        tabs = (t0, t1, t2, t3)
        ha = np.zeros(1326, np.int64)
        hb = np.zeros(1326, np.int64)
        bkt0 = np.zeros((1326, 4), np.int64)
        bkt1 = np.zeros((1326, 4), np.int64)
        val = np.zeros(1326, np.int64)
        gend = np.zeros(1326, np.int64)
        cards = np.empty(7, np.uint8)
        o4 = np.zeros(4, np.int64)
        H = board_hands(boards[i], n_rounds, bk0, tabs, rkey, ha, hb, bkt0, val, gend, cards, o4)
        fill_buckets(boards[i], n_rounds, bk1, tabs, rkey, H, ha, hb, bkt1, cards, o4)
        R0 = np.zeros((L, 1326))
        R1 = np.zeros((L, 1326))
        SG = np.zeros((2 * L, 3, 1326))
        card = np.zeros(52)
        probs = np.zeros(3)
        tv = np.zeros(1326)
        s = _play_board(ntype, player, rnd, nact, child, code, size, spent, parent, pact, lev, H,
                        ha, hb, gend, kind0, S0, off0, bkt0, kind1, S1, off1, bkt1, R0, R1, SG,
                        card, probs, tv)
        out[i] = s / (H * 990.0)
