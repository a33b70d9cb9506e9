"""Numba kernels over a game tree (solve.games.tree) and over treeplexes (sequence-form
strategy spaces): bottom-up best response, smoothed (dilated entropy) best response,
realization plans from behaviour strategies, regret-matching+ updates, hand play-out.

A treeplex of one player is given by per-infoset arrays ``parent`` (parent sequence),
``offset`` (first own sequence) and ``nact``, infosets in topological order (parents first).
"""

from __future__ import annotations

import numpy as np
from numba import njit

DECISION, CHANCE, TERMINAL = 0, 1, 2


@njit(cache=True)
def last_sequences(kind, infoset, player, child_start, child_count, children, offset_g, last, info_parent):
    """last[n, p] = player p's last sequence on the path to node n; info_parent[I] = the
    (unique) last own sequence at infoset I. Returns False on imperfect recall."""
    N = kind.shape[0]
    last[0, 0] = 0
    last[0, 1] = 0
    for n in range(N):
        s = child_start[n]
        for e in range(s, s + child_count[n]):
            c = children[e]
            last[c, 0] = last[n, 0]
            last[c, 1] = last[n, 1]
            if kind[n] == DECISION:
                last[c, player[n]] = offset_g[infoset[n]] + (e - s)
        if kind[n] == DECISION:
            I = infoset[n]
            p = player[n]
            if info_parent[I] < 0:
                info_parent[I] = last[n, p]
            elif info_parent[I] != last[n, p]:
                return False
    return True


@njit(cache=True)
def chance_reach(kind, child_start, child_count, children, edge_prob, reach):
    reach[0] = 1.0
    for n in range(kind.shape[0]):
        s = child_start[n]
        for e in range(s, s + child_count[n]):
            reach[children[e]] = reach[n] * edge_prob[e] if kind[n] == CHANCE else reach[n]


@njit(cache=True)
def best_response(g, parent, offset, nact, choice):
    """Max over the treeplex of ``g' x``; ``choice[I]`` = best action. ``g`` is not modified."""
    V = g.copy()
    for I in range(parent.shape[0] - 1, -1, -1):
        o = offset[I]
        best = V[o]
        ba = 0
        for a in range(1, nact[I]):
            if V[o + a] > best:
                best = V[o + a]
                ba = a
        choice[I] = ba
        V[parent[I]] += best
    return V[0]


@njit(cache=True)
def pure_plan(choice, parent, offset, nact, x):
    """Realization plan of the pure strategy ``choice`` (one action per infoset)."""
    x[:] = 0.0
    x[0] = 1.0
    for I in range(parent.shape[0]):
        xp = x[parent[I]]
        x[offset[I] + choice[I]] = xp


@njit(cache=True)
def plan_from_behaviour(q, parent, offset, nact, x):
    """x[seq] = x[parent] * q[seq] (q indexed by sequence; q[0] ignored)."""
    x[0] = 1.0
    for I in range(parent.shape[0]):
        xp = x[parent[I]]
        o = offset[I]
        for a in range(nact[I]):
            x[o + a] = xp * q[o + a]


@njit(cache=True)
def smoothed_br(g, mu, beta, parent, offset, nact, q, x):
    """argmax_x g'x - mu * d(x) for the dilated entropy d(x) = sum_I beta_I x_p(I) sum_a
    q_Ia log q_Ia (Hoda et al. 2010, sec. 3). Fills behaviour ``q`` and plan ``x``; returns
    the maximum."""
    V = g.copy()
    for I in range(parent.shape[0] - 1, -1, -1):
        o = offset[I]
        t = mu * beta[I]
        m = V[o]
        for a in range(1, nact[I]):
            if V[o + a] > m:
                m = V[o + a]
        s = 0.0
        for a in range(nact[I]):
            e = np.exp((V[o + a] - m) / t)
            q[o + a] = e
            s += e
        for a in range(nact[I]):
            q[o + a] /= s
        V[parent[I]] += m + t * np.log(s)
    plan_from_behaviour(q, parent, offset, nact, x)
    return V[0]


@njit(cache=True)
def entropy_value(x, beta, parent, offset, nact):
    """d(x) (dilated entropy, see smoothed_br)."""
    d = 0.0
    for I in range(parent.shape[0]):
        xp = x[parent[I]]
        if xp <= 0.0:
            continue
        o = offset[I]
        for a in range(nact[I]):
            if x[o + a] > 0.0:
                d += beta[I] * x[o + a] * np.log(x[o + a] / xp)
    return d


@njit(cache=True)
def regret_update(g, q, regret, parent, offset, nact, plus, discount_pos, discount_neg):
    """One regret update at every infoset of one player against utility ``g`` (sequence
    values, opponent and chance folded in): counterfactual values bottom-up (Zinkevich et
    al. 2007 in sequence form). ``plus``: clip at 0 (CFR+). Discounts scale the old regrets
    first (DCFR). Returns the value of ``q`` against ``g``."""
    V = g.copy()
    for I in range(parent.shape[0] - 1, -1, -1):
        o = offset[I]
        v = 0.0
        for a in range(nact[I]):
            v += q[o + a] * V[o + a]
        for a in range(nact[I]):
            r = regret[o + a]
            r = r * discount_pos if r > 0.0 else r * discount_neg
            r += V[o + a] - v
            if plus and r < 0.0:
                r = 0.0
            regret[o + a] = r
        V[parent[I]] += v
    return V[0]


@njit(cache=True)
def regret_matching(regret, parent, offset, nact, q):
    for I in range(parent.shape[0]):
        o = offset[I]
        s = 0.0
        for a in range(nact[I]):
            if regret[o + a] > 0.0:
                s += regret[o + a]
        for a in range(nact[I]):
            if s > 0.0:
                q[o + a] = regret[o + a] / s if regret[o + a] > 0.0 else 0.0
            else:
                q[o + a] = 1.0 / nact[I]


@njit(cache=True)
def play_hands(kind, infoset, child_start, child_count, children, edge_cum, payoff, local_of,
               choices0, choices1, i_idx, j_idx, u):
    """Play hands: hand h between pure strategy ``i_idx[h]`` of player 1 (rows of
    ``choices0``, one action per local infoset) and ``j_idx[h]`` of player 2, chance sampled
    with the uniforms ``u[h, :]`` (one per chance node on the path). Returns payoffs."""
    out = np.empty(i_idx.shape[0])
    for h in range(i_idx.shape[0]):
        n = 0
        k = 0
        while kind[n] != TERMINAL:
            s = child_start[n]
            if kind[n] == CHANCE:
                r = u[h, k]
                k += 1
                lo, hi = s, s + child_count[n] - 1  # first edge with r < cumulative (binary search)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if r < edge_cum[mid]:
                        hi = mid
                    else:
                        lo = mid + 1
                n = children[lo]
            else:
                I = infoset[n]
                loc = local_of[I]
                if loc >= 0:
                    a = choices0[i_idx[h], loc]
                else:
                    a = choices1[j_idx[h], -loc - 1]
                n = children[s + a]
        out[h] = payoff[n]
    return out
