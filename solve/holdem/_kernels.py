"""Numba kernels of the limit Hold'em solver and evaluators (``solve/holdem/game.py``,
``solve/holdem/evaluate.py``).

Shared conventions:

- A deal is 9 cards: seat 0's hole cards, seat 1's, then the 5 board cards.
- ``tree``: the arrays of ``solve.holdem.game.BettingTree`` (pre-order).
- ``bk``: a bucket lookup (``HoldemBuckets.lookup``): preflop per [2] index, flop per [2,3],
  turn per [2,3,1] (int32 arrays), then the river ``lut[turn_bucket * stride + key]`` as the
  int32 ``lut``, the uint16 ``key`` per [2,5] index (the equity key ``2*wins + ties`` of a
  threshold river, a river code or bucket of an OCHS one) and ``stride`` (an int64 array of
  one); ``tabs`` the 4-tuple of ``HandIndexer`` tables of [2], [2,3], [2,3,1], [2,5].
- A policy is (kind, S, off, bk): kind 0 = the normalised weights ``S[off[n, 0] + b*off[n, 1] + a]``
  (uniform where all are 0), 1 = always check/call, 2 = always bet/raise (call at the cap).
"""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): 69a9af51a8f71f26

from __future__ import annotations

import numpy as np
from numba import njit, prange

from etl._eval_kernels import eval5, eval6, eval7
from etl._index_kernels import index_hand, index_hand_inline, unindex_hand

DECISION, FOLD_END, SHOWDOWN = 0, 1, 2
FOLD, CALL, RAISE = 0, 1, 2
KIND_TABLE, KIND_CALL, KIND_RAISE = 0, 1, 2
BOARD_SEEN = np.array([0, 3, 4, 5], dtype=np.int64)


@njit(cache=True)
def hand_buckets(c0, c1, board, n_rounds, bk, tabs, cards, out):
    """Buckets of hole cards (c0, c1) on ``board`` for rounds 0..n_rounds-1 into ``out``.

    One loop over the rounds around one inlined index (``index_hand_inline``, inlined for
    speed: a call passes its tables' ~50 array fields), not one inlined copy per round: numba
    types and lowers every copy again (24 CPU s of compiling with four, the most of any kernel
    a Hold'em solve compiles)."""
    cards[0] = c0
    cards[1] = c1
    for j in range(5):
        cards[2 + j] = board[j]
    for r in range(min(n_rounds, 4)):
        x = index_hand_inline(tabs[r], cards[:2 if r == 0 else r + 4])
        if r == 0:
            out[0] = bk[0][x]
        elif r == 1:
            out[1] = bk[1][x]
        elif r == 2:
            out[2] = bk[2][x]
        else:
            out[3] = bk[3][out[2] * bk[5][0] + bk[4][x]]


@njit(cache=True, inline="always")
def policy_probs(kind, S, off, n, nact, code, b, out):
    """Action probabilities of a policy at node ``n`` for bucket ``b`` into ``out[:nact]``."""
    k = nact[n]
    if kind == KIND_TABLE:
        base = off[n, 0] + b * off[n, 1]
        s = 0.0
        for a in range(k):
            s += S[base + a]
        if s > 0:
            for a in range(k):
                out[a] = S[base + a] / s
        else:
            for a in range(k):
                out[a] = 1.0 / k
        return
    want = CALL
    if kind == KIND_RAISE and code[n, k - 1] == RAISE:
        want = RAISE
    for a in range(k):
        out[a] = 1.0 if code[n, a] == want else 0.0


@njit(cache=True, inline="always")
def _sample9(deck):
    for j in range(9):
        k = j + np.random.randint(0, 52 - j)
        t = deck[j]
        deck[j] = deck[k]
        deck[k] = t


@njit(cache=True, inline="always")
def _showdown(deal):
    v0 = eval7(deal[0], deal[1], deal[4], deal[5], deal[6], deal[7], deal[8])
    v1 = eval7(deal[2], deal[3], deal[4], deal[5], deal[6], deal[7], deal[8])
    return 1 if v0 > v1 else (-1 if v0 < v1 else 0)


@njit(cache=True, inline="always")
def _terminal_value(ntype, player, spent, n, p, res0):
    """Chips won by player ``p`` at terminal ``n`` (``res0``: showdown sign for seat 0)."""
    if ntype[n] == FOLD_END:
        if player[n] == p:
            return -spent[n, p]
        return spent[n, 1 - p]
    r = res0 if p == 0 else -res0
    if r > 0:
        return spent[n, 1 - p]
    if r < 0:
        return -spent[n, p]
    return 0.0


@njit(cache=True)
def _cfr_pass(p, ntype, player, rnd, nact, child, size, spent, off, R, S, weight, buckets,
              res0, reach, strat, val, stamp, pass_id):
    """One chance-sampled CFR+ pass for traverser ``p``: forward reach (and the linear
    average-strategy updates of ``p``), then backward values and regret-matching+ updates,
    skipping subtrees the opponent does not reach (their regret updates are all zero)."""
    N = ntype.shape[0]
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    n = 0
    while n < N:
        if reach[n, 0] == 0.0 and reach[n, 1] == 0.0:
            n += size[n]  # nobody reaches the subtree: nothing to update below
            continue
        stamp[n] = pass_id
        if ntype[n] == DECISION:
            q = player[n]
            k = nact[n]
            base = off[n, 0] + buckets[q, rnd[n]] * off[n, 1]
            s = 0.0
            for a in range(k):
                x = R[base + a]
                if x > 0:
                    s += x
            rq = reach[n, q]
            for a in range(k):
                x = R[base + a]
                strat[n, a] = (x / s if x > 0 else 0.0) if s > 0 else 1.0 / k
                c = child[n, a]
                reach[c, q] = rq * strat[n, a]
                reach[c, 1 - q] = reach[n, 1 - q]
                if q == p and rq > 0:
                    S[base + a] += weight * rq * strat[n, a]
        n += 1
    for n in range(N - 1, -1, -1):
        if stamp[n] != pass_id:
            continue
        if reach[n, 1 - p] == 0.0:  # no regret below depends on it (averages are done)
            val[n] = 0.0
            continue
        if ntype[n] != DECISION:
            val[n] = _terminal_value(ntype, player, spent, n, p, res0)
            continue
        k = nact[n]
        v = 0.0
        for a in range(k):
            c = child[n, a]
            if stamp[c] == pass_id:
                v += strat[n, a] * val[c]
        val[n] = v
        if player[n] == p:
            base = off[n, 0] + buckets[p, rnd[n]] * off[n, 1]
            ro = reach[n, 1 - p]
            for a in range(k):
                x = R[base + a] + ro * (val[child[n, a]] - v)
                R[base + a] = x if x > 0 else 0.0


@njit(cache=True)
def iteration_seed(seed, t):
    """The random seed of global iteration ``t`` (from 1) of a run seeded ``seed``: the
    samplers reseed every iteration, so the deals drawn depend on the iteration alone, not on
    how the run was cut into chunks (a run is reproducible from its iteration count)."""
    return (seed * 1_000_003 + t) % 2147483647


@njit(cache=True, parallel=True)
def cfr_chunk(ntype, player, rnd, nact, child, size, spent, off, bk, t0, t1, t2, t3,
              n_rounds, R, S, t_start, n_iter, seed, threads):
    """``n_iter`` chance-sampled CFR+ iterations (one deal each, alternating traversers) on
    ``threads`` threads sharing R and S (lock-free; bit-reproducible with one thread).
    Iteration i (global ``t_start + i + 1``) weighs its average-strategy update by that
    number (CFR+ linear averaging); it draws from a stream seeded by ``iteration_seed(seed,
    t)``, so a run deals the same cards however it is cut into chunks."""
    N = ntype.shape[0]
    for th in prange(threads):
        tabs = (t0, t1, t2, t3)  # built here: nested tuples cannot cross the parfor boundary
        reach = np.zeros((N, 2))
        strat = np.zeros((N, 3))
        val = np.zeros(N)
        stamp = np.zeros(N, np.int64)
        deck = np.arange(52).astype(np.uint8)
        cards = np.empty(7, np.uint8)
        buckets = np.zeros((2, 4), np.int64)
        out = np.zeros(4, np.int64)
        pass_id = 0
        for i in range(th, n_iter, threads):
            np.random.seed(iteration_seed(seed, t_start + i + 1))
            for c in range(52):  # the draw shuffles the deck in place: start each from order
                deck[c] = c
            _sample9(deck)
            for q in range(2):
                hand_buckets(deck[2 * q], deck[2 * q + 1], deck[4:9], n_rounds, bk, tabs,
                             cards, out)
                for r in range(n_rounds):
                    buckets[q, r] = out[r]
            res0 = _showdown(deck)
            w = np.float64(t_start + i + 1)
            for p in range(2):
                pass_id += 1
                _cfr_pass(p, ntype, player, rnd, nact, child, size, spent, off, R, S, w,
                          buckets, res0, reach, strat, val, stamp, pass_id)


@njit(cache=True, inline="always")
def _next_reached(n, reach, size):
    """The first node at or after ``n`` (pre-order) with non-zero ``reach``, skipping the
    subtree (``size`` nodes) of every zero-reach node on the way: the values below such a node
    are stale and never read."""
    N = reach.shape[0]
    while n < N and reach[n] == 0.0:
        n += size[n]
    return n


@njit(cache=True, inline="always")
def _seat_buckets(deal, n_rounds, bk0, bk1, tabs, cards, out, buckets):
    """``buckets[q, r]``: seat q's bucket in round r on ``deal`` (seat 0's hand looked up in
    ``bk0``'s bucket tables, seat 1's in ``bk1``'s)."""
    hand_buckets(deal[0], deal[1], deal[4:9], n_rounds, bk0, tabs, cards, out)
    for r in range(n_rounds):
        buckets[0, r] = out[r]
    hand_buckets(deal[2], deal[3], deal[4:9], n_rounds, bk1, tabs, cards, out)
    for r in range(n_rounds):
        buckets[1, r] = out[r]


@njit(cache=True, inline="always")
def _play_scratch(N):
    """Work arrays of :func:`_play_value` (one set per parallel deal)."""
    return (np.zeros(N), np.zeros((2, 4), np.int64), np.empty(7, np.uint8),
            np.zeros(4, np.int64), np.zeros(3))


@njit(cache=True)
def _play_value(ntype, player, rnd, nact, child, code, size, spent, n_rounds, tabs,
                kind0, S0, off0, bk0, kind1, S1, off1, bk1, deal, prob, buckets, cards, out,
                probs):
    """Seat 0's expected chips on ``deal`` when policy 0 sits in seat 0 and policy 1 in seat
    1 (exact expectation over both policies' action probabilities)."""
    _seat_buckets(deal, n_rounds, bk0, bk1, tabs, cards, out, buckets)
    res0 = _showdown(deal)
    N = ntype.shape[0]
    prob[0] = 1.0
    total = 0.0
    n = _next_reached(0, prob, size)
    while n < N:
        if ntype[n] != DECISION:
            total += prob[n] * _terminal_value(ntype, player, spent, n, 0, res0)
        else:
            q = player[n]
            b = buckets[q, rnd[n]]
            if q == 0:
                policy_probs(kind0, S0, off0, n, nact, code, b, probs)
            else:
                policy_probs(kind1, S1, off1, n, nact, code, b, probs)
            for a in range(nact[n]):
                prob[child[n, a]] = prob[n] * probs[a]
        n = _next_reached(n + 1, prob, size)
    return total


@njit(cache=True, parallel=True)
def duplicate_values(ntype, player, rnd, nact, child, code, size, spent, n_rounds, t0, t1, t2,
                     t3, kindA, SA, offA, bkA, kindB, SB, offB, bkB, deals, out):
    """Per deal, A's duplicate result: (A in seat 0 vs B) - (B in seat 0 vs A), halved."""
    N = ntype.shape[0]
    D = deals.shape[0]
    for d in prange(D):
        tabs = (t0, t1, t2, t3)
        prob, buckets, cards, o, probs = _play_scratch(N)
        deal = deals[d]
        ab = _play_value(ntype, player, rnd, nact, child, code, size, spent, n_rounds, tabs,
                         kindA, SA, offA, bkA, kindB, SB, offB, bkB, deal, prob, buckets,
                         cards, o, probs)
        ba = _play_value(ntype, player, rnd, nact, child, code, size, spent, n_rounds, tabs,
                         kindB, SB, offB, bkB, kindA, SA, offA, bkA, deal, prob, buckets,
                         cards, o, probs)
        out[d] = 0.5 * (ab - ba)


@njit(cache=True, parallel=True)
def seat_values(ntype, player, rnd, nact, child, code, size, spent, n_rounds, t0, t1, t2, t3,
                kind0, S0, off0, bk0, kind1, S1, off1, bk1, deals, out):
    """Seat 0's expected chips per deal (policy 0 in seat 0, policy 1 in seat 1)."""
    N = ntype.shape[0]
    for d in prange(deals.shape[0]):
        tabs = (t0, t1, t2, t3)
        prob, buckets, cards, o, probs = _play_scratch(N)
        out[d] = _play_value(ntype, player, rnd, nact, child, code, size, spent, n_rounds, tabs,
                             kind0, S0, off0, bk0, kind1, S1, off1, bk1, deals[d], prob,
                             buckets, cards, o, probs)


# ---------------------------------------------------------------------------------------------
# Best response in the abstract game whose chance node is a given set of weighted deals
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def br_terminal_sums(ntype, player, rnd, nact, child, code, size, spent, n_rounds, tabs,
                     p, kind, S, off, bk, bk_self, node_off, deals, weights, U):
    """``U[node_off[z] + b]`` += weight * opponent reach * chips of ``p`` at terminal z, for
    ``b`` the bucket of ``p`` in z's round (the responder's information at z)."""
    N = ntype.shape[0]
    o = 1 - p
    reach = np.zeros(N)
    buckets = np.zeros((2, 4), np.int64)
    cards = np.empty(7, np.uint8)
    out = np.zeros(4, np.int64)
    probs = np.zeros(3)
    for d in range(deals.shape[0]):
        deal = deals[d]
        if p == 0:
            _seat_buckets(deal, n_rounds, bk_self, bk, tabs, cards, out, buckets)
        else:
            _seat_buckets(deal, n_rounds, bk, bk_self, tabs, cards, out, buckets)
        res0 = _showdown(deal)
        reach[0] = weights[d]
        n = _next_reached(0, reach, size)
        while n < N:
            if ntype[n] != DECISION:
                U[node_off[n] + buckets[p, rnd[n]]] += (
                    reach[n] * _terminal_value(ntype, player, spent, n, p, res0))
            elif player[n] == o:
                policy_probs(kind, S, off, n, nact, code, buckets[o, rnd[n]], probs)
                for a in range(nact[n]):
                    reach[child[n, a]] = reach[n] * probs[a]
            else:
                for a in range(nact[n]):
                    reach[child[n, a]] = reach[n]
            n = _next_reached(n + 1, reach, size)


@njit(cache=True)
def br_backup(ntype, player, rnd, nact, child, p, node_off, kb, cstart, U, V, choice):
    """Bottom-up best-response values ``V[node_off[n] + b]`` (responder ``p`` in bucket b of
    n's round); ``choice[node_off[n] + b]`` the best action at p's decision nodes. Children
    in the next round sum over the child buckets ``cstart[r][b] .. cstart[r][b+1]-1``
    (buckets of a parent are contiguous)."""
    N = ntype.shape[0]
    for n in range(N - 1, -1, -1):
        r = rnd[n]
        base = node_off[n]
        if ntype[n] != DECISION:
            for b in range(kb[r]):
                V[base + b] = U[base + b]
            continue
        for b in range(kb[r]):
            best = -1e300
            tot = 0.0
            arg = 0
            for a in range(nact[n]):
                c = child[n, a]
                if rnd[c] == r:
                    x = V[node_off[c] + b]
                else:
                    x = 0.0
                    for bb in range(cstart[r, b], cstart[r, b + 1]):
                        x += V[node_off[c] + bb]
                tot += x
                if x > best:
                    best = x
                    arg = a
            if player[n] == p:
                V[base + b] = best
                choice[base + b] = arg
            else:
                V[base + b] = tot


# ---------------------------------------------------------------------------------------------
# Local best response (Lisy & Bowling 2017), adapted to limit betting
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _pair_index(a, b):
    if a > b:
        t = a
        a = b
        b = t
    return b * (b - 1) // 2 + a


@njit(cache=True)
def _wp(hole, board, nb, w, wc, hand_a, hand_b, n_runouts, used, runout):
    """LBR's probability of winning (ties half) at showdown against the range ``w`` and the
    range ``wc`` (the hands that call a raise), the board completed uniformly: exactly on
    the turn and river, by ``n_runouts`` sampled completions before."""
    win = 0.0
    tot = 0.0
    winc = 0.0
    totc = 0.0
    need = 5 - nb
    for j in range(nb):
        runout[j] = board[j]
    avail = np.empty(52, np.int64)
    na = 0
    for c in range(52):
        if not used[c]:
            avail[na] = c
            na += 1
    if need == 0:
        reps = 1
    elif need == 1:
        reps = na
    else:
        reps = n_runouts
    for rep in range(reps):
        if need == 1:
            runout[4] = avail[rep]
        elif need > 1:
            for j in range(need):
                k = j + np.random.randint(0, na - j)
                t = avail[j]
                avail[j] = avail[k]
                avail[k] = t
                runout[nb + j] = avail[j]
        mine = eval7(hole[0], hole[1], runout[0], runout[1], runout[2], runout[3], runout[4])
        for h in range(1326):
            x = w[h]
            if x == 0.0:
                continue
            a = hand_a[h]
            b = hand_b[h]
            clash = False
            for j in range(nb, 5):
                if runout[j] == a or runout[j] == b:
                    clash = True
            if clash:
                continue
            v = eval7(a, b, runout[0], runout[1], runout[2], runout[3], runout[4])
            s = 1.0 if mine > v else (0.5 if mine == v else 0.0)
            win += x * s
            tot += x
            winc += wc[h] * s
            totc += wc[h]
    wp = win / tot if tot > 0 else 0.5
    wpc = winc / totc if totc > 0 else wp
    return wp, wpc


@njit(cache=True)
def lbr_game(ntype, player, rnd, nact, child, code, spent, bets, n_rounds, tabs, kind, S,
             off, bk, deal, seat, n_runouts, w, wc, obk, hand_a, hand_b, cards, out, probs, used,
             runout):
    """Chips won by LBR in ``seat`` on one deal against the policy in the other seat.

    LBR keeps the opponent's range (all hole cards consistent with what it sees, weighted by
    the opponent's probabilities of its actions so far, given each hand's buckets) and at each
    decision picks the best of fold / check-call / bet-raise, valuing check-call as checking
    and calling to the showdown and bet-raise by the range's fold probability and the equity
    against the hands that continue (Lisy & Bowling 2017, algorithm 1, with the limit bet).

    One function on purpose (issue 48): it follows one deal down one path of the betting tree,
    and every step updates the same per-deal state in place (the opponent's range ``w`` and
    the part of it that calls ``wc``, its buckets ``obk``, the dead cards ``used``: scratch
    arrays :func:`lbr_values` allocates for each deal). The parts that stand alone are helpers
    already (``_wp``, ``policy_probs``, ``hand_buckets``, ``_terminal_value``); splitting the
    rest (the range update when a round starts, the opponent's sampled action, LBR's choice)
    would pass ten to fifteen of those arrays to every call.
    """
    o = 1 - seat
    h0 = deal[2 * seat]
    h1 = deal[2 * seat + 1]
    hole = np.empty(2, np.int64)
    hole[0] = h0
    hole[1] = h1
    board = deal[4:9]
    ob = np.zeros(4, np.int64)
    hand_buckets(deal[2 * o], deal[2 * o + 1], board, n_rounds, bk, tabs, cards, out)
    for r in range(n_rounds):
        ob[r] = out[r]
    used[:] = False
    used[h0] = True
    used[h1] = True
    for h in range(1326):
        a = hand_a[h]
        b = hand_b[h]
        w[h] = 0.0 if (used[a] or used[b]) else 1.0
    cur = -1
    n = 0
    res0 = _showdown(deal)
    while ntype[n] == DECISION:
        r = rnd[n]
        if r != cur:
            cur = r
            nb = BOARD_SEEN[r]
            for j in range(nb):
                used[board[j]] = True
            for h in range(1326):
                if w[h] == 0.0:
                    continue
                a = hand_a[h]
                b = hand_b[h]
                if used[a] or used[b]:
                    w[h] = 0.0
                    continue
                # uint8 cards like every other caller: one compiled signature
                hand_buckets(np.uint8(a), np.uint8(b), board, r + 1, bk, tabs, cards, out)
                obk[h] = out[r]
        k = nact[n]
        if player[n] == o:
            policy_probs(kind, S, off, n, nact, code, ob[r], probs)
            u = np.random.random()
            act = k - 1
            acc = 0.0
            for a in range(k):
                acc += probs[a]
                if u < acc:
                    act = a
                    break
            for h in range(1326):
                if w[h] > 0.0:
                    policy_probs(kind, S, off, n, nact, code, obk[h], probs)
                    w[h] *= probs[act]
            n = child[n, act]
            continue
        # LBR decision
        can_raise = code[n, k - 1] == RAISE
        m = spent[n, seat]
        opp = spent[n, o]
        fp = 0.0
        if can_raise:
            rc = child[n, k - 1]
            tot = 0.0
            totc = 0.0
            for h in range(1326):
                if w[h] > 0.0:
                    policy_probs(kind, S, off, rc, nact, code, obk[h], probs)
                    f = probs[0] if code[rc, 0] == FOLD else 0.0
                    wc[h] = w[h] * (1.0 - f)
                    tot += w[h]
                    totc += wc[h]
                else:
                    wc[h] = 0.0
            fp = 1.0 - totc / tot if tot > 0 else 0.0
        else:
            for h in range(1326):
                wc[h] = w[h]
        wp, wpc = _wp(hole, board, BOARD_SEEN[r], w, wc, hand_a, hand_b, n_runouts, used,
                      runout)
        v_call = (2.0 * wp - 1.0) * opp
        best = v_call
        act = 1 if code[n, 0] == FOLD else 0  # the check/call action
        if code[n, 0] == FOLD and -m > best:
            best = -m
            act = 0
        if can_raise:
            v_raise = fp * opp + (1.0 - fp) * (2.0 * wpc - 1.0) * (opp + bets[r])
            if v_raise > best:
                best = v_raise
                act = k - 1
        n = child[n, act]
    return _terminal_value(ntype, player, spent, n, seat, res0)


@njit(cache=True, parallel=True)
def lbr_values(ntype, player, rnd, nact, child, code, spent, bets, n_rounds, t0, t1, t2, t3,
               kind, S, off, bk, deals, n_runouts, seed, out):
    """``out[d, s]``: LBR's chips in seat s on deal d (opponent actions sampled)."""
    D = deals.shape[0]
    hand_a = np.empty(1326, np.int64)
    hand_b = np.empty(1326, np.int64)
    for b in range(52):
        for a in range(b):
            hand_a[_pair_index(a, b)] = a
            hand_b[_pair_index(a, b)] = b
    for d in prange(D):
        tabs = (t0, t1, t2, t3)
        np.random.seed(seed + d)
        w = np.zeros(1326)
        wc = np.zeros(1326)
        obk = np.zeros(1326, np.int64)
        cards = np.empty(7, np.uint8)
        o = np.zeros(4, np.int64)
        probs = np.zeros(3)
        used = np.zeros(52, np.bool_)
        runout = np.zeros(5, np.int64)
        for s in range(2):
            out[d, s] = lbr_game(ntype, player, rnd, nact, child, code, spent, bets, n_rounds,
                                 tabs, kind, S, off, bk, deals[d], s, n_runouts, w, wc,
                                 obk, hand_a, hand_b, cards, o, probs, used, runout)


# ---------------------------------------------------------------------------------------------
# Synthetic bucketings (tests and benchmarks without the equity tables)
# ---------------------------------------------------------------------------------------------

@njit(cache=True, parallel=True)
def strength_keys(tables, n_cards, out):
    """A hand-strength score of every canonical hand of ``tables`` (2, 5, 6 or 7 cards):
    the evaluator's value of the best five cards (two cards: pair/high-card order)."""
    for i in prange(out.shape[0]):
        c = np.empty(7, np.int64)
        unindex_hand(tables, np.int64(i), c)  # a prange index lowers as uint64: a 2nd compile
        if n_cards == 2:
            r0 = c[0] >> 2
            r1 = c[1] >> 2
            hi = max(r0, r1)
            lo = min(r0, r1)
            suited = 5 if (c[0] & 3) == (c[1] & 3) else 0
            out[i] = (1000 if r0 == r1 else 0) + 20 * hi + lo + suited
        elif n_cards == 5:
            out[i] = eval5(c[0], c[1], c[2], c[3], c[4])
        elif n_cards == 6:
            out[i] = eval6(c[0], c[1], c[2], c[3], c[4], c[5])
        else:
            out[i] = eval7(c[0], c[1], c[2], c[3], c[4], c[5], c[6])


@njit(cache=True, parallel=True)
def parent_index(tables, n_cards, parent_tables, n_parent, out):
    """Index under ``parent_tables`` of the first ``n_parent`` cards of every hand."""
    for i in prange(out.shape[0]):
        c = np.empty(n_cards, np.int64)
        unindex_hand(tables, np.int64(i), c)
        out[i] = index_hand(parent_tables, c[:n_parent])
