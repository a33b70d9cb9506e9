"""Numba kernels of :mod:`solve.algorithms.pairwise`: the two halves of the bilinear form that
the public tree's expected-value pass computes (``_kernels.backward`` in ``MODE_EV``)."""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): 6c457ee5f7827c56

from __future__ import annotations

import numpy as np
from numba import njit

from solve.algorithms._kernels import (CHANCE, DECISION, FOLD, SHOWDOWN, _fold_values,
                                       _showdown_values)


@njit(cache=True)
def player0_weights(ntype, nplayer, child_start, child_count, children, edge_scale,
                    edge_perm_start, edge_perm_count, perm_inv, dslot, strat0, weight):
    """``weight[n, h]``: the coefficient of node ``n``'s value for hand ``h`` in the root's
    value summed over hands, when player 1 (index 0) plays ``strat0`` (D, A, H) and the
    traverser is player 1: the adjoint of ``backward``'s ``MODE_EV`` pass (its action
    probabilities down the path, each chance edge's scale, the hand indexes carried through
    each suit permutation of a chance child's orbit). The opponent's strategy does not enter:
    it is in the terminal values."""
    N, H = weight.shape
    for n in range(N):
        for h in range(H):
            weight[n, h] = 0.0
    for h in range(H):
        weight[0, h] = 1.0
    for n in range(N):  # parents come before children
        t = ntype[n]
        cs = child_start[n]
        if t == DECISION:
            mine = nplayer[n] == 0
            d = dslot[n]
            for a in range(child_count[n]):
                c = children[cs + a]
                for h in range(H):
                    w = weight[n, h]
                    weight[c, h] += w * strat0[d, a, h] if mine else w
        elif t == CHANCE:
            for j in range(child_count[n]):
                e = cs + j
                c = children[e]
                sc = edge_scale[e]
                for q in range(edge_perm_start[e], edge_perm_start[e] + edge_perm_count[e]):
                    for h in range(H):
                        weight[c, perm_inv[q, h]] += sc * weight[n, h]


@njit(cache=True)
def terminal_values(term, ntype, nplayer, nboard, contrib, cw, reach, hands, board_valid, order,
                    order_start, order_len, strength, n_cards, out):
    """``out[i, h]``: player 1's (index 0) value at terminal node ``term[i]`` holding hand
    ``h``, given player 2's own reach ``reach[n, 1, :]``, as ``backward`` computes it."""
    cardsum = np.zeros(n_cards)
    for i in range(term.shape[0]):
        n = term[i]
        b = nboard[n]
        if ntype[n] == FOLD:
            u = -contrib[n, 0] if nplayer[n] == 0 else contrib[n, 1]
            _fold_values(out[i], reach[n, 1], hands, board_valid[b], cw[n] * u, cardsum)
        elif ntype[n] == SHOWDOWN:
            _showdown_values(out[i], reach[n, 1], hands, order, order_start[b], order_len[b],
                             strength[b], cw[n] * contrib[n, 1], cardsum)
