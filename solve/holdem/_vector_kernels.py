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
# numba cache stamp (python -m tests.test_kernel_cache_stamps): 228a49f7c342335a

from __future__ import annotations

import numpy as np
from numba import njit, prange

from etl._eval_kernels import eval7
from solve.holdem._kernels import (BOARD_SEEN, DECISION, FOLD, FOLD_END, RAISE, hand_buckets,
                                   iteration_seed, policy_probs)

MAX_DEPTH = 64  # longest action sequence of limit Hold'em with a cap of 4 is 4 * 6 + 1
#: regret update: regret-matching+ (floor at 0), plain, linear (LCFR: iteration t's regrets
#: weighted by t) or discounted (DCFR: positive / negative sums discounted after iteration t by
#: t^a / (t^a + 1) and t^b / (t^b + 1), applied lazily, see ``_discount``)
CS_PLUS, CS_VANILLA, CS_LINEAR, CS_DCFR = 0, 1, 2, 3
BOARD_SEEN_V = BOARD_SEEN  # board cards seen in each round (0, 3, 4, 5)


@njit(cache=True)
def board_hands(board, n_rounds, bk, tabs, ha, hb, bkt, val, gend, cards, out):
    """Fill the hand arrays of ``board``, hands in ascending strength (see the module
    docstring); ``gend[i]`` is one past the last hand tied with hand i. Returns H."""
    # m as int64, not the literal 0: one compiled specialisation shared with the PCS solver's
    return sampled_board_hands(board, n_rounds, bk, tabs, ha, hb, bkt, val, gend, cards, out,
                               np.int64(0))


@njit(cache=True)
def sampled_board_hands(board, n_rounds, bk, tabs, ha, hb, bkt, val, gend, cards, out, m):
    """:func:`board_hands`, keeping only ``m`` of the board's hands (``0 < m < 1081``), drawn
    uniformly without replacement from numba's random stream, still in ascending strength:
    every pair of compatible hands is then kept with the same probability m(m-1) / (H(H-1)),
    so sums over the kept pairs are unbiased up to that constant. Returns the hands kept."""
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
    if 0 < m < H:  # m positions of the strength order, partial Fisher-Yates, kept in order
        pos = np.arange(H)
        for j in range(m):
            k = j + np.random.randint(0, H - j)
            x = pos[j]
            pos[j] = pos[k]
            pos[k] = x
        order = order[np.sort(pos[:m])]
        H = m
    for i in range(H):
        h = order[i]
        ha[i] = a0[h]
        hb[i] = b0[h]
        val[i] = v0[h]
        hand_buckets(np.uint8(a0[h]), np.uint8(b0[h]), board, n_rounds, bk, tabs, cards,
                     out)
        for r in range(n_rounds):
            bkt[i, r] = out[r]
    tie_ends(val, H, gend)
    return H


@njit(cache=True)
def tie_ends(val, H, gend):
    """``gend[i]``: one past the last of the hands tied with hand i (``val`` ascending)."""
    i = 0
    while i < H:
        j = i
        while j < H and val[j] == val[i]:
            j += 1
        for k in range(i, j):
            gend[k] = j
        i = j


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
        cum += _add_group(i, j, ha, hb, reach, card)
        i = j
    card[:] = 0.0
    cum = 0.0
    j = H
    while j > 0:  # stronger hands: groups from the top
        i = j - 1
        while i > 0 and gend[i - 1] == gend[j - 1]:
            i -= 1
        for k in range(i, j):
            out[k] -= cum - card[ha[k]] - card[hb[k]]
        cum += _add_group(i, j, ha, hb, reach, card)
        j = i


@njit(cache=True, inline="always")
def _add_group(i, j, ha, hb, reach, card):
    """Add hands i..j-1's reach to their cards' sums; returns the group's total."""
    s = 0.0
    for k in range(i, j):
        x = reach[k]
        s += x
        card[ha[k]] += x
        card[hb[k]] += x
    return s


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
          bkt, gend, RP, RO, V, AV, SG, card, probs, NODE, DP, DO, ACT, disc):
    """Counterfactual values of traverser ``p`` at the root into ``V[0, :H]``, both players
    playing regret matching of ``R``, the traverser's and opponent's root reach ``RP[0]`` and
    ``RO[0]``; with ``update``, p's regrets and average sums (times ``weight``) are updated.

    Depth-first with an explicit stack (numba cannot cache recursive functions): frame d holds
    ``NODE[d]``, the reach levels ``DP[d]`` / ``DO[d]`` of the two players (a child writes its
    player's reach one level up, so reach is never copied), the next action ``ACT[d]``, the
    strategies ``SG[d]`` and values ``V[d]`` (per action ``AV[d]`` at p's nodes). ``disc``:
    the regret update's iteration, weight and lazy discount (see ``_finish_own_node``)."""
    d = np.int64(0)  # not the literal 0: ``_finish_own_node`` would compile for it too
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
                                 S, weight, mode, update, V, AV, SG, disc)
        if d == 0:
            return
        d -= 1
        descend = False


@njit(cache=True)
def _finish_own_node(n, d, H, k, bk_r, base0, st, rp, R, S, weight, mode, update, V, AV, SG,
                     disc):
    """At the traverser's node: its value, then (``update``) the regret and average sums of
    each bucket over its hands; regret-matching+ floors once the bucket's sum is in.

    ``disc = (t, rw, stamp, ioff, lpos, lneg)``: the regret increments are weighted by ``rw``
    (t for LCFR, else 1); under DCFR a bucket's sums first get the discounts of the iterations
    since it was last updated (``_discount``), then ``stamp`` (per information set, at
    ``ioff[n, 0] + bucket * ioff[n, 1]``) records iteration t."""
    for h in range(H):
        x = 0.0
        for a in range(k):
            x += SG[d, a, h] * AV[d, a, h]
        V[d, h] = x
    if not update:
        return
    t, rw, stamp, ioff, lpos, lneg = disc
    for h in range(H):
        base = base0 + bk_r[h] * st
        if mode == CS_DCFR:
            i = ioff[n, 0] + bk_r[h] * ioff[n, 1]
            if stamp[i] != t:
                _discount(R, base, k, stamp[i], t, lpos, lneg)
                stamp[i] = t
        v = V[d, h]
        w = rp[h] * weight
        for a in range(k):
            R[base + a] += rw * (AV[d, a, h] - v)
            if w > 0.0:
                S[base + a] += w * SG[d, a, h]
    if mode == CS_PLUS:
        for h in range(H):
            base = base0 + bk_r[h] * st
            for a in range(k):
                if R[base + a] < 0.0:
                    R[base + a] = 0.0


@njit(cache=True, inline="always")
def _discount(R, base, k, s, t, lpos, lneg):
    """DCFR's discounts of iterations s .. t-1 on the ``k`` regret sums at ``R[base:]``: a
    positive sum times prod d+(u), a negative one times prod d-(u), from the prefix sums of
    log d (``lpos[m]`` = sum of log d+(u) for u = 1..m). Regret matching reads the sums
    between updates as they are: the pending factor is the same for every positive sum of a
    bucket, so the strategy is the discounted one's."""
    fp = np.exp(lpos[t - 1] - lpos[s - 1])
    fn = np.exp(lneg[t - 1] - lneg[s - 1])
    for a in range(k):
        x = R[base + a]
        R[base + a] = x * fp if x > 0.0 else x * fn


@njit(cache=True, parallel=True)
def dcfr_flush(R, stamp, ntype, rnd, nact, off, ioff, n_buckets, t, lpos, lneg):
    """Apply every pending DCFR discount up to and including iteration ``t`` (the sums become
    those after iteration t) and set every stamp to t + 1."""
    for n in prange(len(ntype)):
        if ntype[n] != DECISION:
            continue
        for b in range(n_buckets[rnd[n]]):
            i = ioff[n, 0] + b * ioff[n, 1]
            if stamp[i] != t + 1:
                _discount(R, off[n, 0] + b * off[n, 1], nact[n], stamp[i], t + 1, lpos, lneg)
                stamp[i] = t + 1


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
def pcs_chunk(ntype, player, rnd, nact, child, spent, off, bk, t0, t1, t2, t3, n_rounds,
              R, S, t_start, n_iter, seed, threads, mode, avg_power, stamp, ioff, lpos, lneg,
              m_hands):
    """``n_iter`` public-chance-sampling iterations: each samples a board and walks the
    betting tree once per traverser (alternating) with vectors over the board's hands.
    Iteration i (global t = ``t_start + i + 1``) weighs its average-strategy update by
    ``t ** avg_power``; its regret increments by t under LCFR; under DCFR ``stamp`` (per
    information set at ``ioff``, the iteration of its last update) and ``lpos``/``lneg``
    (log-discount prefix sums to at least ``t_start + n_iter``) discount lazily. ``m_hands``
    > 0: each iteration keeps only that many of its board's hands (``sampled_board_hands``).
    Threads take interleaved iterations, sharing R and S lock-free (bit-reproducible with one
    thread). Iteration t draws from a stream seeded by ``iteration_seed(seed, t)``, so a run
    samples the same boards however it is cut into chunks (chunks follow the wall clock)."""
    for th in prange(threads):
        tabs = (t0, t1, t2, t3)
        ha, hb, bkt, val, gend, RP, RO, V, AV, SG, NODE, DP, DO, ACT = _buffers()
        cards = np.empty(7, np.uint8)
        out = np.zeros(4, np.int64)
        deck = np.arange(52).astype(np.uint8)
        board = np.zeros(5, np.uint8)
        card = np.zeros(52)
        probs = np.zeros(3)
        for i in range(th, n_iter, threads):
            np.random.seed(iteration_seed(seed, t_start + i + 1))
            for c in range(52):  # the draw shuffles the deck in place: start each from order
                deck[c] = c
            _sample_board(deck, board)
            H = sampled_board_hands(board, n_rounds, bk, tabs, ha, hb, bkt, val, gend, cards,
                                    out, m_hands)
            t = t_start + i + 1
            w = np.float64(t) ** avg_power
            rw = np.float64(t) if mode == CS_LINEAR else 1.0
            disc = (np.uint32(t), rw, stamp, ioff, lpos, lneg)
            for p in range(2):
                _walk(p, ntype, player, rnd, nact, child, spent, off, R, S, w, mode, True, H, ha,
                      hb, bkt, gend, RP, RO, V, AV, SG, card, probs, NODE, DP, DO, ACT, disc)


@njit(cache=True)
def pcs_root_values(ntype, player, rnd, nact, child, spent, off, bk, t0, t1, t2, t3,
                    n_rounds, R, p, board, ha, hb, values, m_hands=0, seed=0):
    """Player ``p``'s counterfactual values at the root on ``board`` (both players playing
    regret matching of ``R``), per hand ``(ha[h], hb[h])``; nothing is updated. ``m_hands``
    > 0: only that many of the board's hands, drawn with ``seed``. Returns H."""
    tabs = (t0, t1, t2, t3)
    _, _, bkt, val, gend, RP, RO, V, AV, SG, NODE, DP, DO, ACT = _buffers()
    cards = np.empty(7, np.uint8)
    out = np.zeros(4, np.int64)
    if m_hands > 0:  # only a sample draws: the thread's random stream is left alone otherwise
        np.random.seed(seed)
    H = sampled_board_hands(board, n_rounds, bk, tabs, ha, hb, bkt, val, gend, cards, out,
                            m_hands)
    card = np.zeros(52)
    probs = np.zeros(3)
    S = np.zeros(1, np.float32)
    disc = (np.uint32(1), 1.0, np.zeros(1, np.uint32), off, np.zeros(1), np.zeros(1))
    _walk(p, ntype, player, rnd, nact, child, spent, off, R, S, 1.0, CS_PLUS, False, H, ha, hb,
          bkt, gend, RP, RO, V, AV, SG, card, probs, NODE, DP, DO, ACT, disc)
    for h in range(H):
        values[h] = V[0, h]
    return H


# ---------------------------------------------------------------------------------------------
# Exact per-board play: two policies, every pair of hands of a board at once
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def fill_buckets(board, n_rounds, bk, tabs, H, ha, hb, bkt, cards, out):
    """``bkt[h, r]``: the bucket of hand (ha[h], hb[h]) on ``board`` in round r under ``bk``."""
    for h in range(H):
        hand_buckets(np.uint8(ha[h]), np.uint8(hb[h]), board, n_rounds, bk, tabs, cards,
                     out)
        for r in range(n_rounds):
            bkt[h, r] = out[r]


@njit(cache=True, inline="always")
def _child_reach(n, parent, player, pact, lev, x, X, Y, SG, W):
    """Node n's reach for whoever acted at its parent (``X`` holds player x's reach levels,
    ``Y`` the other's): the parent's reach times the action's probability ``SG``, written one
    level up. Returns its sum (0: nobody gets here, the subtree can be skipped)."""
    par = parent[n]
    q = player[par]
    src = X[lev[par, x]] if q == x else Y[lev[par, 1 - x]]
    dst = X[lev[n, x]] if q == x else Y[lev[n, 1 - x]]
    a = pact[n]
    d = lev[par, 0] + lev[par, 1]
    s = 0.0
    for h in range(W):
        v = src[h] * SG[d, a, h]
        dst[h] = v
        s += v
    return s


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
        if n > 0 and _child_reach(n, parent, player, pact, lev, 0, R0, R1, SG, H) == 0.0:
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
                 n_rounds, t0, t1, t2, t3, kind0, S0, off0, bk0, kind1, S1, off1, bk1,
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
        H = board_hands(boards[i], n_rounds, bk0, tabs, ha, hb, bkt0, val, gend, cards, o4)
        fill_buckets(boards[i], n_rounds, bk1, tabs, H, ha, hb, bkt1, cards, o4)
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


# ---------------------------------------------------------------------------------------------
# Local best response on a whole board: every LBR hand and every opponent hand at once
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def pair_cards():
    """The two cards (a < b) of each of the 1,326 pair indices (``_kernels._pair_index``)."""
    pa = np.empty(1326, np.int64)
    pb = np.empty(1326, np.int64)
    for b in range(52):
        for a in range(b):
            i = b * (b - 1) // 2 + a
            pa[i] = a
            pb[i] = b
    return pa, pb


@njit(cache=True)
def runout_hands(rb, dead, pa, pb, pidx, ha, hb, gend):
    """The pair indices of the hands off the 5-card board ``rb`` and holding no ``dead`` card
    (a reduced deck; all False for the real game) in ascending strength into ``pidx`` (cards
    in ``ha``/``hb``, tie-group ends in ``gend``); returns their number."""
    used = dead.copy()
    for j in range(5):
        used[rb[j]] = True
    idx = np.empty(1326, np.int64)
    v = np.empty(1326, np.int64)
    H = 0
    for i in range(1326):
        if used[pa[i]] or used[pb[i]]:
            continue
        idx[H] = i
        v[H] = eval7(pa[i], pb[i], rb[0], rb[1], rb[2], rb[3], rb[4])
        H += 1
    o = np.argsort(v[:H], kind="mergesort")
    vs = np.empty(H, np.int64)
    for k in range(H):
        pidx[k] = idx[o[k]]
        ha[k] = pa[pidx[k]]
        hb[k] = pb[pidx[k]]
        vs[k] = v[o[k]]
    tie_ends(vs, H, gend)
    return H


@njit(cache=True)
def _lbr_equity(H, ha, hb, gend, pidx, w, mask, gw, card, s1, s2, win, tot):
    """Add one runout's showdown against the range ``w`` for every hand of the runout's list:
    ``win`` += reach beaten + half the ties, ``tot`` += the compatible reach (per pair index).
    ``mask``: the pairs the range may hold."""
    for k in range(H):
        p = pidx[k]
        gw[k] = w[p] if mask[p] else 0.0
    fold_sums(H, ha, hb, gw, card, s1)
    showdown_sums(H, ha, hb, gend, gw, card, s2)
    for k in range(H):
        p = pidx[k]
        win[p] += 0.5 * (s1[k] + s2[k])
        tot[p] += s1[k]


@njit(cache=True)
def lbr_board(ntype, player, rnd, nact, child, code, size, spent, parent, pact, lev, bets,
              n_rounds, tabs, kind, S, off, bk, board, seat, perms, dead, out_hands):
    """LBR in ``seat`` on ``board`` against the policy in the other seat: its chips summed
    over every deal of hole cards on the board, exact over the policy's action probabilities
    (the opponent's actions are not sampled). Returns the sum; ``out_hands[p]`` LBR's chips
    with hand p (pair index) summed over the opponent's hands.

    LBR's rule is ``_kernels.lbr_game``'s: the range is Bayes-updated with the policy's
    probabilities (a hand that shares a card with what LBR sees is out of it); at each
    decision LBR takes the best of fold / check-call / bet-raise, valuing check-call by its
    equity against the range and bet-raise by the fold probability and the equity against the
    hands that call. Equity is exact on the river and on the turn (every river card); before,
    over the completions of the seen board given by ``perms`` (each row a permutation of the
    deck: the first cards not on the seen board), a completion that hits LBR's hand skipped.
    ``dead[c]``: card c is not in the deck (a reduced deck: no hand holds it, no runout deals
    it; all False for the real game).

    One function on purpose (issue 48): it is one preorder walk over the betting tree (a
    subtree neither side reaches is skipped by its size), called once per board under
    ``prange`` by :func:`lbr_boards`, whose state lives in its local arrays: the runout tables,
    the range's masks and the opponent's buckets built first, then per depth each side's reach
    and the strategy (``RL``, ``RO``, ``SG``). The parts that stand alone are helpers already
    (``runout_hands``, ``_lbr_equity``, ``_child_reach``, ``terminal_values``, ``fold_sums``);
    splitting the rest would pass some thirty of those arrays to every call (LBR's decision
    alone reads about thirty).
    """
    o = 1 - seat
    N = ntype.shape[0]
    pa, pb = pair_cards()
    # the real board's hands (the outcome) and each round's runouts (LBR's equity)
    oidx = np.empty(1326, np.int64)
    oha = np.empty(1326, np.int64)
    ohb = np.empty(1326, np.int64)
    ogend = np.empty(1326, np.int64)
    HO = runout_hands(board, dead, pa, pb, oidx, oha, ohb, ogend)
    K = perms.shape[0]
    M = 48 + 2 * K + 1
    ridx = np.empty((M, 1326), np.int64)
    rha = np.empty((M, 1326), np.int64)
    rhb = np.empty((M, 1326), np.int64)
    rgend = np.empty((M, 1326), np.int64)
    rH = np.zeros(M, np.int64)
    first = np.zeros(5, np.int64)  # round r's runouts: first[r] .. first[r + 1] - 1
    rb = np.empty(5, np.int64)
    m = 0
    for r in range(n_rounds):
        first[r] = m
        nb = BOARD_SEEN_V[r]
        for j in range(nb):
            rb[j] = board[j]
        if nb == 5:
            rH[m] = runout_hands(rb, dead, pa, pb, ridx[m], rha[m], rhb[m], rgend[m])
            m += 1
        elif nb == 4:
            for c in range(52):
                if (c == board[0] or c == board[1] or c == board[2] or c == board[3]
                        or dead[c]):
                    continue
                rb[4] = c
                rH[m] = runout_hands(rb, dead, pa, pb, ridx[m], rha[m], rhb[m], rgend[m])
                m += 1
        else:
            for k in range(K):
                j = nb
                for t in range(52):
                    c = perms[k, t]
                    seen = dead[c]
                    for i in range(nb):
                        if board[i] == c:
                            seen = True
                    if not seen:
                        rb[j] = c
                        j += 1
                        if j == 5:
                            break
                rH[m] = runout_hands(rb, dead, pa, pb, ridx[m], rha[m], rhb[m], rgend[m])
                m += 1
    first[n_rounds] = m
    # per round: which pairs the range may hold (off the seen board), the opponent's buckets
    mask = np.zeros((4, 1326), np.bool_)
    obk = np.zeros((1326, 4), np.int64)
    cards = np.empty(7, np.uint8)
    o4 = np.zeros(4, np.int64)
    ub = board.astype(np.uint8)
    for p in range(1326):
        for r in range(n_rounds):
            ok = not (dead[pa[p]] or dead[pb[p]])
            for j in range(BOARD_SEEN_V[r]):
                if board[j] == pa[p] or board[j] == pb[p]:
                    ok = False
            mask[r, p] = ok
        if mask[n_rounds - 1, p]:
            hand_buckets(np.uint8(pa[p]), np.uint8(pb[p]), ub, n_rounds, bk, tabs, cards,
                         o4)
            for r in range(n_rounds):
                obk[p, r] = o4[r]
        else:  # holds a card seen at some round: buckets up to the round before it
            for r in range(n_rounds):
                if mask[r, p]:
                    hand_buckets(np.uint8(pa[p]), np.uint8(pb[p]), ub, r + 1, bk, tabs,
                                 cards, o4)
                    obk[p, r] = o4[r]
    L = MAX_DEPTH
    RL = np.zeros((L, 1326))  # LBR's reach (0 or 1) per LBR hand
    RO = np.zeros((L, 1326))  # the opponent's reach per opponent hand
    SG = np.zeros((2 * L, 3, 1326))  # the opponent's probabilities, or LBR's choice (0/1)
    for k in range(HO):  # LBR's hands: those a deal on this board can give it
        RL[0, oidx[k]] = 1.0
    for p in range(1326):
        RO[0, p] = 0.0 if dead[pa[p]] or dead[pb[p]] else 1.0
    probs = np.zeros(3)
    card = np.zeros(52)
    scratch = np.zeros((10, 1326))  # per-hand work rows for the showdown/fold sums below
    gw, s1, s2, win, tot = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    winc, totc, wc, ro_list, tv = scratch[5], scratch[6], scratch[7], scratch[8], scratch[9]
    out_hands[:] = 0.0
    total = 0.0
    n = 0
    while n < N:
        if n > 0 and _child_reach(n, parent, player, pact, lev, seat, RL, RO, SG, 1326) == 0.0:
            n += size[n]
            continue
        rl = RL[lev[n, seat]]
        ro = RO[lev[n, o]]
        if ntype[n] != DECISION:
            for k in range(HO):
                ro_list[k] = ro[oidx[k]]
            terminal_values(n, seat, ntype, player, spent, HO, oha, ohb, ogend, ro_list, card,
                            tv)
            for k in range(HO):
                x = rl[oidx[k]] * tv[k]
                out_hands[oidx[k]] += x
                total += x
            n += 1
            continue
        r = rnd[n]
        k_act = nact[n]
        d = lev[n, 0] + lev[n, 1]
        if player[n] == o:
            for p in range(1326):
                if ro[p] == 0.0 or not mask[r, p]:
                    for a in range(k_act):
                        SG[d, a, p] = 0.0
                    continue
                policy_probs(kind, S, off, n, nact, code, obk[p, r], probs)
                for a in range(k_act):
                    SG[d, a, p] = probs[a]
            n += 1
            continue
        # LBR's decision, for every LBR hand at once
        can_raise = code[n, k_act - 1] == RAISE
        if can_raise:
            rc = child[n, k_act - 1]
            for p in range(1326):
                if ro[p] > 0.0 and mask[r, p]:
                    policy_probs(kind, S, off, rc, nact, code, obk[p, r], probs)
                    f = probs[0] if code[rc, 0] == FOLD else 0.0
                    wc[p] = ro[p] * (1.0 - f)
                else:
                    wc[p] = 0.0
        else:
            for p in range(1326):
                wc[p] = ro[p]
        win[:] = 0.0
        tot[:] = 0.0
        winc[:] = 0.0
        totc[:] = 0.0
        for j in range(first[r], first[r + 1]):
            for w, wn, wt in ((ro, win, tot), (wc, winc, totc)):  # the range, the callers
                _lbr_equity(rH[j], rha[j], rhb[j], rgend[j], ridx[j], w, mask[r], gw, card, s1,
                            s2, wn, wt)
        # fold probability of the range against each LBR hand (hands sharing its cards out)
        for p in range(1326):
            gw[p] = ro[p] if mask[r, p] else 0.0
        fold_sums(1326, pa, pb, gw, card, s1)
        for p in range(1326):
            gw[p] = wc[p] if mask[r, p] else 0.0
        fold_sums(1326, pa, pb, gw, card, s2)
        m_me = spent[n, seat]
        opp = spent[n, o]
        for p in range(1326):
            for a in range(k_act):
                SG[d, a, p] = 0.0
            if rl[p] == 0.0:
                continue
            wp = win[p] / tot[p] if tot[p] > 0 else 0.5
            wpc = winc[p] / totc[p] if totc[p] > 0 else wp
            best = (2.0 * wp - 1.0) * opp
            act = 1 if code[n, 0] == FOLD else 0
            if code[n, 0] == FOLD and -m_me > best:
                best = -m_me
                act = 0
            if can_raise:
                fp = 1.0 - s2[p] / s1[p] if s1[p] > 0 else 0.0
                v_raise = fp * opp + (1.0 - fp) * (2.0 * wpc - 1.0) * (opp + bets[r])
                if v_raise > best:
                    act = k_act - 1
            SG[d, act, p] = 1.0
        n += 1
    return total


@njit(cache=True, parallel=True)
def lbr_boards(ntype, player, rnd, nact, child, code, size, spent, parent, pact, lev, bets,
               n_rounds, t0, t1, t2, t3, kind, S, off, bk, boards, perms, dead, out):
    """``out[i, s]``: LBR's expected chips in seat s on board i (mean over every deal of hole
    cards; ``perms[i]`` the completions of its early equities; ``dead``: the cards not in the
    deck, see :func:`lbr_board`), boards in parallel."""
    live = 52
    for c in range(52):
        if dead[c]:
            live -= 1
    deals = ((live - 5) * (live - 6) // 2) * ((live - 7) * (live - 8) // 2)  # 1081 x 990
    for i in prange(boards.shape[0]):
        tabs = (t0, t1, t2, t3)
        hands = np.zeros(1326)
        for s in range(2):
            t = lbr_board(ntype, player, rnd, nact, child, code, size, spent, parent, pact, lev,
                          bets, n_rounds, tabs, kind, S, off, bk, boards[i], s, perms[i],
                          dead, hands)
            out[i, s] = t / deals
