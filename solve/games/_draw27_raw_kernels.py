"""Numba kernels of the unabstracted 2-7 single draw evaluator (solve.games.draw27_raw).

Over all deals (own hand, own drawn card, opponent hand, opponent drawn card) -- the eight
cards distinct -- sum per-opponent-(hand, card) weights, with or without the showdown sign.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def pair_sums(hand_mask, hand_ok, final_val, order, Qf, Qs, out_f, out_s):
    """For every own (hand ``h``, drawn card ``c``), over all opponent (hand ``g``, drawn card
    ``d``) with the eight cards distinct:

    - ``out_f[h, c, :] = sum Qf[g, d, :]``;
    - ``out_s[h, c, :] = sum Qs[g, d, :] * sign(final_val[g, d] - final_val[h, c])`` (+1 when
      the own final hand is the lower, i.e. better, one; ties 0).

    ``hand_mask[h]``: bit set of the hand's cards; ``hand_ok[h, g]``: hands disjoint;
    ``order[h]``: the cards not in ``h`` sorted by ``final_val[h, .]`` (ascending).

    Per (own hand, opponent hand) the 2-7 values of both players' possible draws are merged in
    sorted order, so the cost is O(H^2 * n * channels), not O(H^2 * n^2 * channels).
    """
    H, n = final_val.shape
    Cf = Qf.shape[2]
    Cs = Qs.shape[2]
    m = order.shape[1]
    for h in prange(H):
        accf = np.zeros((n, Cf))
        accs = np.zeros((n, Cs))
        totf = np.empty(Cf)
        tots = np.empty(Cs)
        lt = np.empty(Cs)   # sum of Qs over opponent cards with value < current own value
        le = np.empty(Cs)   # ... with value <= current own value
        mh = hand_mask[h]
        for g in range(H):
            if not hand_ok[h, g]:
                continue
            used = mh | hand_mask[g]
            # totals over the opponent's possible draws (not in either hand)
            totf[:] = 0.0
            tots[:] = 0.0
            for d in range(n):
                if (used >> d) & 1:
                    continue
                for j in range(Cf):
                    totf[j] += Qf[g, d, j]
                for j in range(Cs):
                    tots[j] += Qs[g, d, j]
            # own draws c in ascending value; opponent draws d in ascending value (merge)
            lt[:] = 0.0
            le[:] = 0.0
            ilt = 0  # next opponent position not yet in lt
            ile = 0  # next opponent position not yet in le
            for a in range(m):
                c = order[h, a]
                if (used >> c) & 1:
                    continue
                v = final_val[h, c]
                while ilt < m:
                    d = order[g, ilt]
                    if (used >> d) & 1:
                        ilt += 1
                        continue
                    if final_val[g, d] >= v:
                        break
                    for j in range(Cs):
                        lt[j] += Qs[g, d, j]
                    ilt += 1
                while ile < m:
                    d = order[g, ile]
                    if (used >> d) & 1:
                        ile += 1
                        continue
                    if final_val[g, d] > v:
                        break
                    for j in range(Cs):
                        le[j] += Qs[g, d, j]
                    ile += 1
                # the opponent cannot draw c: remove its term (sign(final_val[g, c] - v))
                vc = final_val[g, c]
                sc = 1.0 if vc > v else (-1.0 if vc < v else 0.0)
                for j in range(Cf):
                    accf[c, j] += totf[j] - Qf[g, c, j]
                for j in range(Cs):
                    # sum_{w > v} - sum_{w < v} = (tot - le) - lt
                    accs[c, j] += tots[j] - le[j] - lt[j] - sc * Qs[g, c, j]
        for c in range(n):
            for j in range(Cf):
                out_f[h, c, j] = accf[c, j]
            for j in range(Cs):
                out_s[h, c, j] = accs[c, j]


@njit(cache=True)
def pair_sums_direct(hand_mask, hand_ok, final_val, Qf, Qs, out_f, out_s):
    """Reference for :func:`pair_sums` by a plain loop over every deal (tests only)."""
    H, n = final_val.shape
    for h in range(H):
        mh = hand_mask[h]
        for g in range(H):
            if not hand_ok[h, g]:
                continue
            used = mh | hand_mask[g]
            for c in range(n):
                if (used >> c) & 1:
                    continue
                v = final_val[h, c]
                for d in range(n):
                    if d == c or (used >> d) & 1:
                        continue
                    w = final_val[g, d]
                    s = 1.0 if w > v else (-1.0 if w < v else 0.0)
                    for j in range(Qf.shape[2]):
                        out_f[h, c, j] += Qf[g, d, j]
                    for j in range(Qs.shape[2]):
                        out_s[h, c, j] += s * Qs[g, d, j]
