"""Numba kernels of the exact best response's river, several river betting lines at a time
(``_br_kernels.flop_values``; issue 51).

A *segment* is the river betting under one river root walked for one seat: forward, the
opponent's reach at every node (``RO``; a responder node's children share their parent's row,
``SLOT``); back, the responder's best-response value ``VV[l]`` and, when ``onp`` (seat 0's
walks: ``_br_kernels.flop_values``), the on-policy value ``VV[L + l]`` per node (a terminal's
are the same, kept once), every vector over the board's live hands in ascending strength
(``_br_kernels.sorted_hands``).

Every river segment has the same shape: the river starts a fresh round of betting, so the
subtrees under the 567 river roots (of the full game) differ only in their node ids and the
chips already in the pot. ``LANES`` segments of one seat under consecutive roots of the same
shape are walked together: every river vector holds, per hand (in the board's strength order),
one value per lane (``x[i * LANES + w]``), so the reach products, the responder's max, the
on-policy sums and above all the fold and showdown sums (a read-modify-write into 52 per-card
sums per hand: latency-bound one lane at a time) run ``LANES`` wide, a hand's lanes one SIMD
value (``_simd``: numba leaves such loops scalar). Each lane does exactly the arithmetic of the
one-segment walk, in the same order, so the values are bit-identical to a one-lane walk
(checked against the previous one-segment kernel on full-size flops). A lane
whose segment no opponent hand reaches (or that has no segment) carries reach 0 and contributes
nothing; a node is skipped only when it is dead in every lane.
"""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): b99a4a735bd70e74

from __future__ import annotations

import numpy as np
from numba import njit

from solve.holdem._kernels import DECISION, FOLD_END, KIND_TABLE, SHOWDOWN, policy_probs
from solve.holdem._simd import WIDTH, add, div, ld, mul, splat, st, sub, vmax, zero

#: River segments walked together (8 float64 lanes: one AVX-512 register; measured against 4),
#: one ``_simd`` value per hand.
LANES = WIDTH


@njit(cache=True)
def same_shape(a, b, T, prow) -> bool:
    """Are the river subtrees under roots ``a`` and ``b`` the same tree (node kinds, players,
    actions, children and probability rows at the same offsets)?"""
    ntype, player, rnd, nact, code, child, size, spent = T
    if size[a] != size[b]:
        return False
    d = b - a
    for n in range(a, a + size[a]):
        m = n + d
        if ntype[n] != ntype[m] or player[n] != player[m] or nact[n] != nact[m]:
            return False
        if ntype[n] == DECISION:
            if prow[n] - prow[a] != prow[m] - prow[b]:
                return False
            for k in range(nact[n]):
                if child[n, k] - n != child[m, k] - m:
                    return False
    return True


@njit(cache=True)
def river_groups(SR, ns, SE2, T, prow, RT, SEG, GS, GN) -> int:
    """Group the ``ns`` live river segments (``SR``: root, turn instance, local id; sorted by
    root; ``SE2`` the seat of each turn instance) into lanes: ``RT[u]`` the distinct roots,
    ``SEG[s, u]`` the index in ``SR`` of seat s's segment under root u (-1: none), group g
    the roots ``GS[g] .. GS[g] + GN[g] - 1`` (at most ``LANES``, one shape). Returns the
    number of groups."""
    nu = 0
    for j in range(ns):
        if nu == 0 or RT[nu - 1] != SR[0, j]:
            RT[nu] = SR[0, j]
            SEG[0, nu] = -1
            SEG[1, nu] = -1
            nu += 1
        SEG[SE2[SR[1, j]], nu - 1] = j
    ng = 0
    u = 0
    while u < nu:
        GS[ng] = u
        n = 1
        while n < LANES and u + n < nu and same_shape(RT[u], RT[u + n], T, prow):
            n += 1
        GN[ng] = n
        ng += 1
        u += n
    return ng


@njit(cache=True)
def union_buckets(RB, HR, nr, UB):
    """The distinct river buckets of ``nr`` river boards (``RB[j, :HR[j]]``: board j's hands'),
    ascending (about 110 per board on the `pa` 20/800/4800/28800 abstraction, 290 on `eb`'s;
    the river boards under one turn card share most); ``UB[j, i]``: the index of
    ``RB[j, i]`` among them."""
    n = 0
    for j in range(nr):
        n += HR[j]
    allb = np.empty(n, np.int64)
    n = 0
    for j in range(nr):
        allb[n:n + HR[j]] = RB[j, :HR[j]]
        n += HR[j]
    ubk = np.unique(allb)
    for j in range(nr):
        UB[j, :HR[j]] = np.searchsorted(ubk, RB[j, :HR[j]])
    return ubk


@njit(cache=True)
def fill_group_probs(kind, S, off, nact, code, rnodes3, prow, size, RT, g0, gn, ubk, nu, PB,
                     Q):
    """``Q[prow[n] - prow[root] + a, u * LANES + w]``: the strategy's probability of action a
    at every river decision node n under lane w's root ``root = RT[g0 + w]`` for the board's
    u-th river bucket ``ubk[u]`` (:func:`union_buckets`: those of a turn card's river boards;
    hand i of a board reads ``u = ub[i]``); filled per group just before its segments are
    walked on each of those boards, so the table (a few hundred KB to a few MB) stays in cache.
    ``PB`` is scratch (the probabilities of one node and bucket).

    A probability depends on the node and the bucket only, and a board's hands fall in few
    buckets, so each (node, bucket) is normalised once (one division), not once per hand: 4-10x
    fewer weight reads and divisions (the per-hand fill was 40 of 120 ms per river board), and
    a hand's ``LANES`` probabilities are one contiguous read in the walk. Lanes innermost: the
    lanes' nodes share their offsets in the template (:func:`same_shape`), and a bucket's
    ``LANES`` values of a row are one cache line, written whole (lane-outer, each write was a
    line of its own: a quarter of the river's time)."""
    root = RT[g0]
    m0 = np.searchsorted(rnodes3, root)
    m1 = np.searchsorted(rnodes3, root + size[root])
    q0 = prow[root]
    probs = PB[0]
    nw = np.empty(LANES, np.int64)  # lane w's node (the last lane's past gn: finite filler)
    base = np.empty(LANES, np.int64)  # its bucket's first weight
    for u in range(nu):
        b = ubk[u]
        o = u * LANES
        for m in range(m0, m1):
            n = rnodes3[m]
            k = nact[n]
            row = prow[n] - q0
            for w in range(LANES):
                nw[w] = n + RT[g0 + min(w, gn - 1)] - root
                base[w] = off[nw[w], 0] + b * off[nw[w], 1]
            if kind == KIND_TABLE:  # policy_probs, written out, the lanes as one vector
                s0 = _lanes_at(S, base, 0)
                s1 = _lanes_at(S, base, 1)
                s2 = _lanes_at(S, base, 2 if k > 2 else 1)
                t = add(add(zero(), s0), s1)
                if k > 2:
                    t = add(t, s2)
                if min(t) > 0:
                    r = div(splat(1.0), t)
                    st(Q[row], o, mul(s0, r))
                    st(Q[row + 1], o, mul(s1, r))
                    if k > 2:
                        st(Q[row + 2], o, mul(s2, r))
                    continue
            for w in range(gn):  # a lane without weights (or another kind), one by one
                if kind == KIND_TABLE:
                    t = 0.0
                    for a in range(k):
                        t += S[base[w] + a]
                    r = 1.0 / t if t > 0 else 0.0
                    for a in range(k):
                        Q[row + a, o + w] = S[base[w] + a] * r if t > 0 else 1.0 / k
                else:
                    policy_probs(kind, S, off, nw[w], nact, code, b, probs)
                    for a in range(k):
                        Q[row + a, o + w] = probs[a]


@njit(cache=True, inline="always")
def _lanes_at(arr, base, k):
    """``arr[base[w] + k]`` of each lane w as float64 lanes, 0.0 where ``base[w] < 0``
    (written out for the 8 of ``_simd.WIDTH``): a bucket's action weights at the lanes'
    nodes, a hand's reach in the lanes' turn vectors."""
    return (np.float64(arr[base[0] + k]) if base[0] >= 0 else 0.0,
            np.float64(arr[base[1] + k]) if base[1] >= 0 else 0.0,
            np.float64(arr[base[2] + k]) if base[2] >= 0 else 0.0,
            np.float64(arr[base[3] + k]) if base[3] >= 0 else 0.0,
            np.float64(arr[base[4] + k]) if base[4] >= 0 else 0.0,
            np.float64(arr[base[5] + k]) if base[5] >= 0 else 0.0,
            np.float64(arr[base[6] + k]) if base[6] >= 0 else 0.0,
            np.float64(arr[base[7] + k]) if base[7] >= 0 else 0.0)


@njit(cache=True)
def lanes_forward(root, p, T, Q, prow, RO, LN, LC, SLOT, DEAD, H, ub):
    """Opponent reach at every node of the segments under the template root ``root`` (``RO[0]``
    set by the caller; ``Q[prow[n] - prow[root] + a]`` the probabilities): lists the nodes
    (``LN``), children (``LC``) and reach rows (``SLOT``); ``DEAD[l]``: no lane's opponent
    reaches node l (found while its reach is written). Returns the number of nodes."""
    ntype, player, rnd, nact, code, child, size, spent = T
    LN[0] = root
    SLOT[0] = 0
    DEAD[0] = False
    nl = 1
    ns = 1
    stack = np.empty(LN.shape[0], np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        l = stack[top]
        n = LN[l]
        if ntype[n] != DECISION:
            continue
        k = nact[n]
        for a in range(k):
            LN[nl] = child[n, a]
            LC[l, a] = nl
            DEAD[nl] = False
            nl += 1
        if player[n] == p:
            for a in range(k):
                SLOT[LC[l, a]] = SLOT[l]
        else:
            x = RO[SLOT[l]]
            base = prow[n] - prow[root]
            for a in range(k):
                SLOT[LC[l, a]] = ns
                y = RO[ns]
                q = Q[base + a]
                tw = zero()
                for i in range(H):
                    o = i * LANES
                    yo = mul(ld(x, o), ld(q, ub[i] * LANES))
                    st(y, o, yo)
                    tw = add(tw, yo)
                dead = True
                for w in range(LANES):
                    if tw[w] != 0.0:
                        dead = False
                DEAD[LC[l, a]] = dead
                ns += 1
        for a in range(k):
            if not DEAD[LC[l, a]]:
                stack[top] = LC[l, a]
                top += 1
    return nl


@njit(cache=True, inline="always")
def _add_hands(i, j, reach, sa, sb, card, cum):
    """Add hands ``i .. j-1``'s reach to their cards' sums; returns the lanes' totals ``cum``
    plus their reach."""
    for k in range(i, j):
        a = sa[k] * LANES
        b = sb[k] * LANES
        x = ld(reach, k * LANES)
        cum = add(cum, x)
        st(card, a, add(ld(card, a), x))
        st(card, b, add(ld(card, b), x))
    return cum


@njit(cache=True, inline="always")
def _others(cum, card, a, b):
    """``cum`` less the sums of cards ``a`` and ``b`` (offsets of their lanes)."""
    return sub(sub(cum, ld(card, a)), ld(card, b))


@njit(cache=True)
def lanes_fold(reach, pay, H, sa, sb, card, out):
    """``out = pay * (reach of the hands sharing no card with the hand)`` per lane (the sums of
    ``_vector_kernels.fold_sums``)."""
    card[:] = 0.0
    cum = _add_hands(0, H, reach, sa, sb, card, zero())
    p = ld(pay, 0)
    for k in range(H):
        o = k * LANES
        st(out, o, mul(add(_others(cum, card, sa[k] * LANES, sb[k] * LANES), ld(reach, o)), p))


@njit(cache=True, inline="always")
def _up_the_ties(reach, H, sa, sb, gend, card, out):
    """:func:`lanes_showdown`'s pass up the tie groups: ``out`` = W + WT per hand, ``card``
    the per-card totals; returns the lanes' total reach."""
    card[:] = 0.0
    cum = zero()
    i = 0
    while i < H:
        j = gend[i]
        for k in range(i, j):
            st(out, k * LANES, _others(cum, card, sa[k] * LANES, sb[k] * LANES))
        cum = _add_hands(i, j, reach, sa, sb, card, cum)
        for k in range(i, j):
            o = k * LANES
            st(out, o, add(ld(out, o), add(_others(cum, card, sa[k] * LANES, sb[k] * LANES),
                                           ld(reach, o))))
        i = j
    return cum


@njit(cache=True)
def lanes_showdown(reach, pay, H, sa, sb, gend, card, out):
    """``out = pay * (reach beaten - reach beating)`` per lane, the reach summed over the hands
    sharing no card with the hand. One pass up the tie groups gives per hand W (compatible
    reach strictly weaker: the sums before its group less the hands holding one of its cards)
    and WT (weaker or tied, itself excluded); the last pass the compatible total F; beaten
    minus beating is W - (F - WT). The per-card sums are a read-modify-write per hand, bound
    by latency one lane at a time, so ``LANES`` wide is nearly free. (A call beside the
    responder's fold is valued with it and their node: :func:`lanes_fold_call_max`.)"""
    cum = _up_the_ties(reach, H, sa, sb, gend, card, out)
    p = ld(pay, 0)
    for k in range(H):
        o = k * LANES
        f = add(_others(cum, card, sa[k] * LANES, sb[k] * LANES), ld(reach, o))
        st(out, o, mul(p, sub(ld(out, o), f)))


@njit(cache=True)
def lanes_fold_call_max(reach, pay, H, sa, sb, gend, card, out, fpay, k, q0, q1, q2, v2, p2,
                        ub, v, vp, onp):
    """A responder's node facing a bet valued with its fold and call at once: the call's
    showdown and the fold beside it (:func:`lanes_showdown`'s pass, ``out`` its scratch),
    whose last loop forms both values per hand and takes from them, and from the raise's rows
    ``v2`` / ``p2`` when the node has ``k`` = 3 actions, the node's max ``v`` and the
    strategy's mix ``vp`` (probability rows ``q0``, ``q1``, ``q2``), in the order and with the
    operations of :func:`lanes_backward`'s decision pass: the same bits, without writing the
    two terminals' rows and reading them back (3-4% of a river board). The mix only when
    ``onp``."""
    cum = _up_the_ties(reach, H, sa, sb, gend, card, out)
    p = ld(pay, 0)
    fp = ld(fpay, 0)
    for h in range(H):
        o = h * LANES
        u = ub[h] * LANES
        f = add(_others(cum, card, sa[h] * LANES, sb[h] * LANES), ld(reach, o))
        call = mul(p, sub(ld(out, o), f))
        fold = mul(f, fp)
        if k == 2:
            st(v, o, vmax(fold, call))
            if onp:
                st(vp, o, add(mul(ld(q0, u), fold), mul(ld(q1, u), call)))
        else:
            st(v, o, vmax(vmax(fold, call), ld(v2, o)))
            if onp:
                st(vp, o, add(add(mul(ld(q0, u), fold), mul(ld(q1, u), call)),
                              mul(ld(q2, u), ld(p2, o))))


@njit(cache=True)
def _pays(n, p, T, RD, pay):
    """Each lane's chips at terminal ``n`` of the template (lane w's node ``n + RD[w]``)."""
    ntype, player, rnd, nact, code, child, size, spent = T
    for w in range(LANES):
        m = n + RD[w]
        if ntype[n] == FOLD_END:
            pay[w] = -spent[m, p] if player[n] == p else spent[m, 1 - p]
        else:
            pay[w] = spent[m, p]


@njit(cache=True, inline="always")
def _fold_call(l, nl, ntype, LN, SLOT) -> bool:
    """Are nodes l and l + 1 the responder's fold and call to a showdown (siblings: a fold is
    only ever action 0) on the same reach row, valued by one showdown pass?"""
    return (ntype[LN[l]] == FOLD_END and l + 1 < nl and ntype[LN[l + 1]] == SHOWDOWN
            and SLOT[l + 1] == SLOT[l])


@njit(cache=True)
def lanes_backward(p, T, Q, prow, RO, VV, LN, LC, SLOT, DEAD, nl, H, ub, sa, sb, gend, card,
                   RD, pay, fpay, onp):
    """Values of the segments (:func:`lanes_forward`), children first: ``VV[l]`` the best
    response's, ``VV[L + l]`` the strategy's own when ``onp`` (left as they are otherwise:
    the mixes and sums are about a third of the decision nodes' and accumulators' work;
    ``RD[w]``: lane w's root minus the template's, for its chips at the terminals)."""
    ntype, player, rnd, nact, code, child, size, spent = T
    L = LN.shape[0]
    q0 = prow[LN[0]]
    HW = H * LANES
    done = np.zeros(nl, np.bool_)  # decision nodes valued with their fold and call
    for l in range(nl - 1, -1, -1):
        n = LN[l]
        v = VV[l]
        if DEAD[l]:
            v[:HW] = 0.0
            if onp:
                VV[L + l, :HW] = 0.0
            continue
        if ntype[n] == FOLD_END:
            if not _fold_call(l, nl, ntype, LN, SLOT):
                _pays(n, p, T, RD, pay)
                lanes_fold(RO[SLOT[l]], pay, H, sa, sb, card, v)
            continue  # else valued with its sibling call and their node (lanes_fold_call_max)
        if ntype[n] == SHOWDOWN:
            pair = l > 0 and _fold_call(l - 1, nl, ntype, LN, SLOT)
            _pays(n, p, T, RD, pay)
            if pair:  # the responder's node too (its fold is child 0, its call child 1)
                _pays(LN[l - 1], p, T, RD, fpay)
                par = l - 2
                while not (ntype[LN[par]] == DECISION and LC[par, 0] == l - 1):
                    par -= 1
                k = nact[LN[par]]
                v2, p2 = _child_rows(par, 2 if k > 2 else 0, LC, LN, ntype, VV, L)
                r = prow[LN[par]] - q0
                lanes_fold_call_max(RO[SLOT[l]], pay, H, sa, sb, gend, card, v, fpay, k, Q[r],
                                    Q[r + 1], Q[r + 2 if k > 2 else r], v2, p2, ub, VV[par],
                                    VV[L + par], onp)
                done[par] = True
                continue
            lanes_showdown(RO[SLOT[l]], pay, H, sa, sb, gend, card, v)
            continue
        if done[l]:
            continue
        vp = VV[L + l]
        k = nact[n]
        v0, p0 = _child_rows(l, 0, LC, LN, ntype, VV, L)
        v1, p1 = _child_rows(l, 1 if k > 1 else 0, LC, LN, ntype, VV, L)
        v2, p2 = _child_rows(l, 2 if k > 2 else 0, LC, LN, ntype, VV, L)
        r = prow[n] - q0
        # seat 1 (no on-policy values): two loops, not one choosing max or sum per hand (that
        # measured 5% slower per river board, the same bits)
        if not onp and player[n] == p:  # the best response's max alone
            for i in range(H):
                o = i * LANES
                if k == 1:
                    st(v, o, ld(v0, o))
                elif k == 2:
                    st(v, o, vmax(ld(v0, o), ld(v1, o)))
                else:
                    st(v, o, vmax(vmax(ld(v0, o), ld(v1, o)), ld(v2, o)))
        elif not onp:  # the opponent's sums alone
            for i in range(H):
                o = i * LANES
                if k == 1:
                    st(v, o, ld(v0, o))
                elif k == 2:
                    st(v, o, add(ld(v0, o), ld(v1, o)))
                else:
                    st(v, o, add(add(ld(v0, o), ld(v1, o)), ld(v2, o)))
        elif player[n] == p:  # max and the strategy's mix, all children in one pass
            q0a = Q[r]
            q1a = Q[r + 1 if k > 1 else r]
            q2a = Q[r + 2 if k > 2 else r]
            for i in range(H):
                o = i * LANES
                u = ub[i] * LANES
                if k == 1:
                    st(v, o, ld(v0, o))
                    st(vp, o, mul(ld(q0a, u), ld(p0, o)))
                elif k == 2:
                    st(v, o, vmax(ld(v0, o), ld(v1, o)))
                    st(vp, o, add(mul(ld(q0a, u), ld(p0, o)), mul(ld(q1a, u), ld(p1, o))))
                else:
                    st(v, o, vmax(vmax(ld(v0, o), ld(v1, o)), ld(v2, o)))
                    st(vp, o, add(add(mul(ld(q0a, u), ld(p0, o)), mul(ld(q1a, u), ld(p1, o))),
                                  mul(ld(q2a, u), ld(p2, o))))
        else:  # the opponent's: sums (its probabilities are in the reach)
            for i in range(H):
                o = i * LANES
                if k == 1:
                    st(v, o, ld(v0, o))
                    st(vp, o, ld(p0, o))
                elif k == 2:
                    st(v, o, add(ld(v0, o), ld(v1, o)))
                    st(vp, o, add(ld(p0, o), ld(p1, o)))
                else:
                    st(v, o, add(add(ld(v0, o), ld(v1, o)), ld(v2, o)))
                    st(vp, o, add(add(ld(p0, o), ld(p1, o)), ld(p2, o)))


@njit(cache=True, inline="always")
def _child_rows(l, a, LC, LN, ntype, VV, L):
    """Child a of node l: its best-response value row and its on-policy one (a terminal's
    are the same row)."""
    c = LC[l, a]
    return VV[c], VV[c if ntype[LN[c]] != DECISION else L + c]


@njit(cache=True)
def river_lanes(s, g0, gn, RT, SEG, SR, RO2, AV, AVP, T, Q, prow, RO, VV, LN, LC, SLOT, DEAD,
                H, ub, sidx, sa, sb, gend, MS, nm, card, RD, pay, onp) -> bool:
    """Seat ``s``'s segments under the roots ``RT[g0 .. g0 + gn - 1]`` (one group of
    :func:`river_groups`), one per lane: each lane's root reach read from its turn vector
    (``RO2[i2, l2]``, pair indices), walked forward and back, and its root's values added to
    the group's accumulators ``AV`` / ``AVP`` (pair index h's lanes at ``h * LANES``) once
    per river card of the orbit (``MS[t, i]``: the pair index of hand i on the t-th card of
    ``nm``); :func:`lanes_collect` hands them to the turn's vectors when the turn card's river
    cards are done. The on-policy values (``AVP``) only when ``onp``. Returns whether any
    lane had a segment."""
    x = RO[0]
    live = False
    flat = RO2.reshape(-1)
    so = np.zeros(LANES, np.int64)  # lane w's turn vector in ``flat`` (-1: no segment)
    for w in range(LANES):
        j = SEG[s, g0 + w] if w < gn else -1
        RD[w] = RT[g0 + w] - RT[g0] if w < gn else 0
        so[w] = (SR[1, j] * RO2.shape[1] + SR[2, j]) * RO2.shape[2] if j >= 0 else -1
        live = live or j >= 0
    if not live:
        return False
    for i in range(H):  # a hand's eight lanes read, then stored as one vector
        st(x, i * LANES, _lanes_at(flat, so, sidx[i]))
    nl = lanes_forward(RT[g0], s, T, Q, prow, RO, LN, LC, SLOT, DEAD, H, ub)
    lanes_backward(s, T, Q, prow, RO, VV, LN, LC, SLOT, DEAD, nl, H, ub, sa, sb, gend, card,
                   RD, pay[:LANES], pay[LANES:], onp)
    L = LN.shape[0]
    v = VV[0]
    vp = VV[L]
    for t in range(nm):  # one vector add per hand: the lanes stay together until the turn
        ms = MS[t]
        for i in range(H):
            o = i * LANES
            h = ms[i] * LANES
            st(AV, h, add(ld(AV, h), ld(v, o)))
            if onp:
                st(AVP, h, add(ld(AVP, h), ld(vp, o)))
    return True


@njit(cache=True)
def lanes_collect(A, ng, GS, GN, SEG, SR, V2, VP2):
    """Hand each group's accumulators (``A[s, g, 0]`` values, ``A[s, g, 1]`` on-policy values,
    :func:`river_lanes`) to the turn's vectors: lane w of seat s's group g is the river
    segment ``j = SEG[s, GS[g] + w]``, whose turn vectors ``V2[SR[1, j], SR[2, j]]`` receive no
    other sum, so they are assigned (the same bits as adding each river card's values to
    them in turn, as the sums run in the same order); the on-policy ones of seat 0 only
    (:func:`river_lanes` with ``onp``)."""
    for g in range(ng):
        for s in range(2):
            a = A[s, g, 0]
            ap = A[s, g, 1]
            for w in range(GN[g]):
                j = SEG[s, GS[g] + w]
                if j < 0:
                    continue
                dv = V2[SR[1, j], SR[2, j]]
                dvp = VP2[SR[1, j], SR[2, j]]
                for h in range(dv.shape[0]):
                    dv[h] = a[h * LANES + w]
                    if s == 0:
                        dvp[h] = ap[h * LANES + w]
