"""Numba kernels over a compiled public tree (see solve.games.compile).

One forward sweep computes both players' reach vectors (over private hands) at every node;
one backward sweep computes the traverser's counterfactual values. Terminal values use
sorted showdown strength with running per-card sums, O(H k) per terminal instead of O(H^2)
(Johanson et al. 2011, "Accelerating best response calculation in large extensive games",
sec. 4.2), with inclusion-exclusion for card removal.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
MODE_CFR, MODE_BR, MODE_EV = 0, 1, 2
ALG_CFR, ALG_CFRPLUS, ALG_DCFR = 0, 1, 2
TIE_RTOL = 1e-12  # child values closer than this (relative) count as tied in CFR regrets


@njit(cache=True)
def _normalise_rows(info, weights, dnode, child_count, out, positive_part):
    """out[d, a, h] = weights[I, a] / sum_a weights[I, a] for I = info[d, h] (uniform if the sum
    is 0; 0 for invalid hands), with negative weights taken as 0 if ``positive_part``."""
    D, H = info.shape
    for d in range(D):
        na = child_count[dnode[d]]
        for h in range(H):
            I = info[d, h]
            if I < 0:
                for a in range(na):
                    out[d, a, h] = 0.0
                continue
            s = 0.0
            for a in range(na):
                w = weights[I, a]
                if w > 0.0 or not positive_part:
                    s += w
            for a in range(na):
                w = weights[I, a]
                if s > 0.0:
                    out[d, a, h] = w / s if (w > 0.0 or not positive_part) else 0.0
                else:
                    out[d, a, h] = 1.0 / na


@njit(cache=True)
def regret_matching(info, regrets, dnode, child_count, out):
    """out[d, a, h] = regret-matching strategy of infoset info[d, h] (0 for invalid hands)."""
    _normalise_rows(info, regrets, dnode, child_count, out, True)


@njit(cache=True)
def normalise_average(info, avg, dnode, child_count, out):
    """out[d, a, h] = average strategy of infoset info[d, h] (uniform where never reached)."""
    _normalise_rows(info, avg, dnode, child_count, out, False)


@njit(cache=True)
def forward(ntype, nplayer, nboard, child_start, child_count, children, dslot, board_valid,
            strat0, strat1, reach):
    """reach[n, p, h]: player p's own reach of node n holding hand h (0 if the board blocks h).

    strat0 / strat1 are (D, A, H) behaviour strategies of players 0 and 1."""
    N = ntype.shape[0]
    H = reach.shape[2]
    for h in range(H):
        v = 1.0 if board_valid[nboard[0], h] else 0.0
        reach[0, 0, h] = v
        reach[0, 1, h] = v
    for n in range(N):
        t = ntype[n]
        if t == DECISION:
            d = dslot[n]
            p = nplayer[n]
            o = 1 - p
            for j in range(child_count[n]):
                c = children[child_start[n] + j]
                if p == 0:
                    for h in range(H):
                        reach[c, 0, h] = reach[n, 0, h] * strat0[d, j, h]
                        reach[c, 1, h] = reach[n, 1, h]
                else:
                    for h in range(H):
                        reach[c, 1, h] = reach[n, 1, h] * strat1[d, j, h]
                        reach[c, 0, h] = reach[n, 0, h]
        elif t == CHANCE:
            for j in range(child_count[n]):
                c = children[child_start[n] + j]
                b = nboard[c]
                for h in range(H):
                    m = 1.0 if board_valid[b, h] else 0.0
                    reach[c, 0, h] = reach[n, 0, h] * m
                    reach[c, 1, h] = reach[n, 1, h] * m


@njit(cache=True)
def _fold_values(out, opp, hands, valid, scale, cardsum):
    H, k = hands.shape
    cardsum[:] = 0.0
    total = 0.0
    for h in range(H):
        p = opp[h]
        total += p
        for j in range(k):
            cardsum[hands[h, j]] += p
    for h in range(H):
        if not valid[h]:
            out[h] = 0.0
            continue
        w = total
        for j in range(k):
            w -= cardsum[hands[h, j]]
        if k == 2:
            w += opp[h]
        out[h] = scale * w


@njit(cache=True, inline="always")
def _showdown_pass(out, opp, hands, order, s0, L, strength, scale, cardsum, sign):
    """Adds ``sign * scale *`` the opponent's reach of the hands that share no card with h and
    are strictly weaker (sign +1: walking up the strength order) or strictly stronger (sign -1:
    walking down) to ``out[h]``, one tie group at a time; the card sums of the hands passed
    remove the blocked ones."""
    k = hands.shape[1]
    cardsum[:] = 0.0
    total = 0.0
    j = 0
    while j < L:
        sj = strength[order[s0 + j if sign > 0 else s0 + L - 1 - j]]
        e = j
        while e < L and strength[order[s0 + e if sign > 0 else s0 + L - 1 - e]] == sj:
            e += 1
        for q in range(j, e):
            h = order[s0 + q if sign > 0 else s0 + L - 1 - q]
            w = total
            for i in range(k):
                w -= cardsum[hands[h, i]]
            out[h] += sign * scale * w
        for q in range(j, e):
            h = order[s0 + q if sign > 0 else s0 + L - 1 - q]
            p = opp[h]
            total += p
            for i in range(k):
                cardsum[hands[h, i]] += p
        j = e


@njit(cache=True)
def _showdown_values(out, opp, hands, order, s0, L, strength, scale, cardsum):
    """Showdown values: ``scale`` times (the opponent's unblocked reach of weaker hands minus
    that of stronger ones), O(L) over the board's hands sorted by strength."""
    for h in range(hands.shape[0]):
        out[h] = 0.0
    _showdown_pass(out, opp, hands, order, s0, L, strength, scale, cardsum, 1.0)
    _showdown_pass(out, opp, hands, order, s0, L, strength, scale, cardsum, -1.0)


@njit(cache=True, inline="always")
def _terminal_values(n, trav, ntype, nplayer, nboard, contrib, cw, reach, value, hands,
                     board_valid, order, order_start, order_len, strength, cardsum):
    """The traverser's values at a fold or showdown node, given the opponent's reach."""
    opp = 1 - trav
    if ntype[n] == FOLD:
        u = -contrib[n, trav] if nplayer[n] == trav else contrib[n, opp]
        _fold_values(value[n], reach[n, opp], hands, board_valid[nboard[n]], cw[n] * u, cardsum)
    else:
        b = nboard[n]
        _showdown_values(value[n], reach[n, opp], hands, order, order_start[b], order_len[b],
                         strength[b], cw[n] * contrib[n, opp], cardsum)


@njit(cache=True, inline="always")
def _passive_value(n, trav, ntype, nplayer, nboard, child_start, child_count, children, edge_scale,
                   edge_perm_start, edge_perm_count, perm_inv, cw, contrib, board_valid, hands,
                   strength, order_start, order_len, order, reach, value, cardsum):
    """Values at a node where the traverser does not choose: a fold or showdown, an opponent's
    decision (the plain sum of its children: the reach already carries the opponent's
    strategy) or a chance node."""
    t = ntype[n]
    if t == FOLD or t == SHOWDOWN:
        _terminal_values(n, trav, ntype, nplayer, nboard, contrib, cw, reach, value, hands,
                         board_valid, order, order_start, order_len, strength, cardsum)
    elif t == DECISION:
        cs = child_start[n]
        for h in range(hands.shape[0]):
            v = 0.0
            for a in range(child_count[n]):
                v += value[children[cs + a], h]
            value[n, h] = v
    else:
        _chance_average(n, value, child_start, child_count, children, edge_scale, edge_perm_start,
                        edge_perm_count, perm_inv)


@njit(cache=True)
def _node_value(mode, trav, n, ntype, nplayer, nboard, child_start, child_count, children, edge_scale,
                edge_perm_start, edge_perm_count, perm_inv, cw, contrib, dslot, board_valid, hands,
                strength, order_start, order_len, order, info, strat_trav, reach, value, inst_r, inst_s,
                cardsum):
    if ntype[n] != DECISION or nplayer[n] != trav:
        _passive_value(n, trav, ntype, nplayer, nboard, child_start, child_count, children,
                       edge_scale, edge_perm_start, edge_perm_count, perm_inv, cw, contrib,
                       board_valid, hands, strength, order_start, order_len, order, reach, value,
                       cardsum)
        return
    H = hands.shape[0]
    d = dslot[n]
    cs = child_start[n]
    na = child_count[n]
    if mode == MODE_BR:
        for h in range(H):
            best = value[children[cs], h]
            for a in range(1, na):
                x = value[children[cs + a], h]
                if x > best:
                    best = x
            value[n, h] = best
        return
    for h in range(H):
        v = 0.0
        for a in range(na):
            v += strat_trav[d, a, h] * value[children[cs + a], h]
        value[n, h] = v
    if mode == MODE_CFR:
        for h in range(H):
            I = info[d, h]
            if I < 0:
                continue
            r = reach[n, trav, h]
            for a in range(na):
                # regret as sum_b s_b (x_a - x_b) with ties up to roundoff taken
                # as exact: x_a - v would leave ~1e-17 noise on tied actions, which
                # regret matching turns into a pure strategy (so e.g. the suit-
                # isomorphic and the full game would follow different trajectories)
                xa = value[children[cs + a], h]
                g = 0.0
                for b2 in range(na):
                    xb = value[children[cs + b2], h]
                    diff = xa - xb
                    if abs(diff) > TIE_RTOL * (abs(xa) + abs(xb)):
                        g += strat_trav[d, b2, h] * diff
                inst_r[I, a] += g
                inst_s[I, a] += cw[n] * r * strat_trav[d, a, h]


@njit(cache=True, inline="always")
def _chance_average(n, value, child_start, child_count, children, edge_scale, edge_perm_start,
                    edge_perm_count, perm_inv):
    """A chance node's values: each child averaged over its orbit's suit permutations."""
    H = value.shape[1]
    for h in range(H):
        value[n, h] = 0.0
    for j in range(child_count[n]):
        e = child_start[n] + j
        c = children[e]
        sc = edge_scale[e]
        for q in range(edge_perm_start[e], edge_perm_start[e] + edge_perm_count[e]):
            for h in range(H):
                value[n, h] += sc * value[c, perm_inv[q, h]]


@njit(cache=True)
def backward(mode, trav, ntype, nplayer, nboard, child_start, child_count, children, edge_scale,
             edge_perm_start, edge_perm_count, perm_inv, cw, contrib, dslot, board_valid, hands,
             strength, order_start, order_len, order, info, strat_trav, reach, value, inst_r, inst_s,
             n_cards):
    """Counterfactual values of player ``trav`` at every node, bottom-up.

    mode MODE_CFR: the traverser plays strat_trav; instantaneous regrets go to inst_r[I, a]
    and the strategy weighted by the traverser's own reach and the node's chance weight
    ``cw[n]`` to inst_s[I, a] (under perfect recall every history of an infoset has the same
    own reach, so the weight cancels in the average strategy; under imperfect recall it makes
    the average the chance-weighted one over the infoset's histories, orbits of suit-
    isomorphic boards included). MODE_BR: the traverser best-responds per
    (node, hand), i.e. per real information set. MODE_EV: plays strat_trav, no accumulation.
    Returns the traverser's value, sum over hands of value[root].
    """
    cardsum = np.zeros(n_cards)
    for n in range(ntype.shape[0] - 1, -1, -1):
        _node_value(mode, trav, n, ntype, nplayer, nboard, child_start, child_count, children,
                    edge_scale, edge_perm_start, edge_perm_count, perm_inv, cw, contrib, dslot,
                    board_valid, hands, strength, order_start, order_len, order, info, strat_trav,
                    reach, value, inst_r, inst_s, cardsum)
    return value[0].sum()


@njit(cache=True, parallel=True)
def backward_parallel(mode, trav, seg_lo, seg_hi, top, ntype, nplayer, nboard, child_start,
                      child_count, children, edge_scale, edge_perm_start, edge_perm_count, perm_inv,
                      cw, contrib, dslot, board_valid, hands, strength, order_start, order_len,
                      order, info, strat_trav, reach, value, inst_r, inst_s, n_cards):
    """:func:`backward` with disjoint subtrees (node ranges [seg_lo, seg_hi)) in parallel, then
    the ``top`` nodes (ascending ids) serially. Only valid when no infoset spans two subtrees
    (real-game infosets), since subtrees accumulate regrets without locks."""
    for s in prange(seg_lo.shape[0]):
        cardsum = np.zeros(n_cards)
        for n in range(seg_hi[s] - 1, seg_lo[s] - 1, -1):
            _node_value(mode, trav, n, ntype, nplayer, nboard, child_start, child_count, children,
                        edge_scale, edge_perm_start, edge_perm_count, perm_inv, cw, contrib, dslot,
                        board_valid, hands, strength, order_start, order_len, order, info,
                        strat_trav, reach, value, inst_r, inst_s, cardsum)
    cardsum = np.zeros(n_cards)
    for i in range(top.shape[0] - 1, -1, -1):
        _node_value(mode, trav, top[i], ntype, nplayer, nboard, child_start, child_count, children,
                    edge_scale, edge_perm_start, edge_perm_count, perm_inv, cw, contrib, dslot,
                    board_valid, hands, strength, order_start, order_len, order, info, strat_trav,
                    reach, value, inst_r, inst_s, cardsum)
    return value[0].sum()


@njit(cache=True)
def apply_update(alg, trav, t, alpha, beta, gamma, info_player, info_nact, regrets, avg, inst_r, inst_s):
    """Fold this iteration's instantaneous regrets and strategy into the accumulators.

    CFR: plain sums. CFR+ (Tammelin 2014): regrets floored at 0, average weighted by t.
    DCFR (Brown & Sandholm 2019): positive regrets scaled by t^a/(t^a+1), negative by
    t^b/(t^b+1), average by (t/(t+1))^g after each iteration."""
    n_inf = info_player.shape[0]
    pos = t ** alpha / (t ** alpha + 1.0)
    neg = t ** beta / (t ** beta + 1.0)
    sdisc = (t / (t + 1.0)) ** gamma
    for I in range(n_inf):
        if info_player[I] != trav:
            continue
        for a in range(info_nact[I]):
            r = regrets[I, a] + inst_r[I, a]
            s = inst_s[I, a]
            if alg == ALG_CFR:
                regrets[I, a] = r
                avg[I, a] += s
            elif alg == ALG_CFRPLUS:
                regrets[I, a] = r if r > 0.0 else 0.0
                avg[I, a] += t * s
            else:
                regrets[I, a] = r * (pos if r > 0.0 else neg)
                avg[I, a] = (avg[I, a] + s) * sdisc
            inst_r[I, a] = 0.0
            inst_s[I, a] = 0.0


@njit(cache=True)
def best_response_levels(trav, level_nodes, level_start, ntype, nplayer, nboard, child_start,
                         child_count, children, edge_scale, edge_perm_start, edge_perm_count,
                         perm_inv, cw, contrib, dslot, board_valid, hands, strength, order_start,
                         order_len, order, info, n_info, reach, value, n_cards):
    """Best-response value of ``trav`` where its choices are made per infoset ``info[d, h]``.

    Nodes are processed by depth, deepest first (``level_nodes`` between
    ``level_start[L]`` and ``level_start[L+1]``). All members of an infoset share a betting
    history and so a depth; their action values are summed before the arg-max, so the same
    kernel gives the best response in the real game (one infoset per node and hand) and in
    an abstracted game (buckets spanning hands and boards). ``reach`` must hold the
    opponent's reach under its fixed strategy. Returns the best-response value."""
    H = hands.shape[0]
    cardsum = np.zeros(n_cards)
    q = np.zeros((n_info, 3))
    for L in range(level_start.shape[0] - 2, -1, -1):
        for i in range(level_start[L], level_start[L + 1]):
            n = level_nodes[i]
            if ntype[n] == DECISION and nplayer[n] == trav:
                d = dslot[n]
                cs = child_start[n]
                for h in range(H):
                    I = info[d, h]
                    if I >= 0:
                        for a in range(child_count[n]):
                            q[I, a] += value[children[cs + a], h]
            else:
                _passive_value(n, trav, ntype, nplayer, nboard, child_start, child_count, children,
                               edge_scale, edge_perm_start, edge_perm_count, perm_inv, cw, contrib,
                               board_valid, hands, strength, order_start, order_len, order, reach,
                               value, cardsum)
        # each member node takes the value of its infoset's arg-max action (the values summed
        # over all the infoset's members above)
        for i in range(level_start[L], level_start[L + 1]):
            n = level_nodes[i]
            if ntype[n] != DECISION or nplayer[n] != trav:
                continue
            d = dslot[n]
            cs = child_start[n]
            for h in range(H):
                I = info[d, h]
                if I < 0:  # a hand the node's board blocks
                    value[n, h] = 0.0
                    continue
                ba = 0
                for a in range(1, child_count[n]):
                    if q[I, a] > q[I, ba]:
                        ba = a
                value[n, h] = value[children[cs + ba], h]
    total = 0.0
    for h in range(H):
        total += value[0, h]
    return total


@njit(cache=True)
def last_sequences(ntype, nplayer, child_start, child_count, children, dslot, info, seq_offset,
                   last, parent_seq):
    """Sequence form: last[n, p, h] = player p's last sequence before node n with hand h.

    Sequence id of (infoset I, action a) is seq_offset[I] + a (0 is the empty sequence).
    parent_seq[I] is filled with the sequence leading to I; returns False if two members of
    an infoset disagree (the abstraction would then not have perfect recall)."""
    N = ntype.shape[0]
    H = last.shape[2]
    ok = True
    for h in range(H):
        last[0, 0, h] = 0
        last[0, 1, h] = 0
    for n in range(N):
        t = ntype[n]
        if t == DECISION:
            p = nplayer[n]
            d = dslot[n]
            for j in range(child_count[n]):
                c = children[child_start[n] + j]
                for h in range(H):
                    last[c, 1 - p, h] = last[n, 1 - p, h]
                    I = info[d, h]
                    if I >= 0:
                        last[c, p, h] = seq_offset[I] + j
                        if parent_seq[I] == -1:
                            parent_seq[I] = last[n, p, h]
                        elif parent_seq[I] != last[n, p, h]:
                            ok = False
                    else:
                        last[c, p, h] = -1
        elif t == CHANCE:
            for j in range(child_count[n]):
                c = children[child_start[n] + j]
                for h in range(H):
                    last[c, 0, h] = last[n, 0, h]
                    last[c, 1, h] = last[n, 1, h]
    return ok


@njit(cache=True)
def payoff_entries(term, group_start, ntype, nboard, board_valid, hands, strength, cw, contrib,
                   nplayer, last, n_seq0, n_seq1):
    """COO entries (row = P1 sequence, col = P2 sequence, value = P1 payoff x chance) of the
    sequence-form payoff matrix. Terminals are grouped by betting history
    (``term[group_start[g]:group_start[g+1]]``); each group's pairs of compatible valid hands
    are summed into a dense block over the sequences that occur, so entries are emitted once
    per (row, col) of the group rather than once per deal."""
    H, k = hands.shape
    map0 = np.full(n_seq0, -1, dtype=np.int64)
    map1 = np.full(n_seq1, -1, dtype=np.int64)
    out_r = np.empty(1024, dtype=np.int64)
    out_c = np.empty(1024, dtype=np.int64)
    out_v = np.empty(1024)
    m = 0
    for g in range(group_start.shape[0] - 1):
        rows = np.empty(0, dtype=np.int64)
        seq0 = []
        seq1 = []
        for i in range(group_start[g], group_start[g + 1]):
            n = term[i]
            b = nboard[n]
            for h in range(H):
                if board_valid[b, h]:
                    s0 = last[n, 0, h]
                    if map0[s0] < 0:
                        map0[s0] = len(seq0)
                        seq0.append(s0)
                    s1 = last[n, 1, h]
                    if map1[s1] < 0:
                        map1[s1] = len(seq1)
                        seq1.append(s1)
        block = np.zeros((len(seq0), len(seq1)))
        for i in range(group_start[g], group_start[g + 1]):
            n = term[i]
            b = nboard[n]
            fold = ntype[n] == FOLD
            for h0 in range(H):
                if not board_valid[b, h0]:
                    continue
                r0 = map0[last[n, 0, h0]]
                for h1 in range(H):
                    if not board_valid[b, h1]:
                        continue
                    clash = False
                    for x in range(k):
                        for y in range(k):
                            if hands[h0, x] == hands[h1, y]:
                                clash = True
                    if clash:
                        continue
                    if fold:
                        u = -contrib[n, 0] if nplayer[n] == 0 else contrib[n, 1]
                    else:
                        a0 = strength[b, h0]
                        a1 = strength[b, h1]
                        u = contrib[n, 1] if a0 > a1 else (-contrib[n, 0] if a0 < a1 else 0.0)
                    block[r0, map1[last[n, 1, h1]]] += cw[n] * u
        for i in range(len(seq0)):
            for j in range(len(seq1)):
                if block[i, j] != 0.0:
                    if m == out_r.shape[0]:
                        out_r = np.concatenate((out_r, np.empty(m, dtype=np.int64)))
                        out_c = np.concatenate((out_c, np.empty(m, dtype=np.int64)))
                        out_v = np.concatenate((out_v, np.empty(m)))
                    out_r[m] = seq0[i]
                    out_c[m] = seq1[j]
                    out_v[m] = block[i, j]
                    m += 1
        for s in seq0:
            map0[s] = -1
        for s in seq1:
            map1[s] = -1
    return out_r[:m], out_c[:m], out_v[:m]


@njit(cache=True)
def cfr_iterations(n_iter, t_start, alg, alpha, beta, gamma, ntype, nplayer, nboard, child_start,
                   child_count, children, edge_scale, edge_perm_start, edge_perm_count, perm_inv, cw,
                   contrib, dslot, dnode, board_valid, hands, strength, order_start, order_len, order,
                   info, info_player, info_nact, regrets, avg, inst_r, inst_s, strat, reach, value,
                   n_cards):
    """``n_iter`` alternating-update iterations t_start+1 .. t_start+n_iter in one call (serial),
    which saves the per-call dispatch cost on small games."""
    for i in range(n_iter):
        t = float(t_start + i + 1)
        for trav in range(2):
            regret_matching(info, regrets, dnode, child_count, strat)
            forward(ntype, nplayer, nboard, child_start, child_count, children, dslot, board_valid,
                    strat, strat, reach)
            backward(MODE_CFR, trav, ntype, nplayer, nboard, child_start, child_count, children,
                     edge_scale, edge_perm_start, edge_perm_count, perm_inv, cw, contrib, dslot,
                     board_valid, hands, strength, order_start, order_len, order, info, strat, reach,
                     value, inst_r, inst_s, n_cards)
            apply_update(alg, trav, t, alpha, beta, gamma, info_player, info_nact, regrets, avg,
                         inst_r, inst_s)
