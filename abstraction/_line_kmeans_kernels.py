"""Numba kernel of k-means under EMD on a line with many centres (``abstraction/line_kmeans.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: Slack on the mean bound: stop scanning once the gap in means exceeds the best distance by
#: more than float rounding could explain (the bound itself is exact arithmetic).
SLACK = 1e-9


@njit(parallel=True, cache=True)
def assign_by_means(cx, mu, cc, cmu_sorted, corder, gaps, labels, dist, px, pc):
    """Nearest centre of every cumulative row under ``sum_b |cx[i,b] - cc[j,b]| gaps[b]``,
    scanning the centres outward from the row's mean ``mu[i]`` in the order of their means
    (``cmu_sorted``, the centres ``corder``) and stopping once the gap in means exceeds the
    best distance: the gap never exceeds the distance, so nothing nearer is skipped. A row
    with ``labels[i] >= 0`` on entry (its previous centre) starts from its exact distance to
    that centre, which cuts the scan and the partial sums from the start. ``px`` (n, m) and
    ``pc`` (k, m): ``abs_moments`` of the rows and centres (E|X - t| at m points t); like the
    mean, two rows' values differ by at most their distance, so a difference beyond the best
    distance rules the centre out before its distance is summed. Ties go to the lower centre
    index, as a full scan's argmin. Writes ``labels`` and ``dist``."""
    n, d = cx.shape
    k = cc.shape[0]
    for i in prange(n):
        a = labels[i]
        best = np.inf
        if a >= 0:
            best = 0.0
            for b in range(d - 1):
                best += abs(np.float64(cx[i, b]) - cc[a, b]) * gaps[b]
        arg = a
        m = mu[i]
        hi = np.searchsorted(cmu_sorted, m)
        lo = hi - 1
        while lo >= 0 or hi < k:
            if hi >= k or (lo >= 0 and m - cmu_sorted[lo] <= cmu_sorted[hi] - m):
                gap = m - cmu_sorted[lo]
                j = corder[lo]
                lo -= 1
            else:
                gap = cmu_sorted[hi] - m
                j = corder[hi]
                hi += 1
            if gap > best + SLACK:  # the gaps only grow from here
                break
            if j == a:
                continue
            far = False
            for t in range(px.shape[1]):
                if abs(px[i, t] - pc[j, t]) > best + SLACK:
                    far = True
                    break
            if far:
                continue
            s = 0.0
            for b in range(d - 1):
                s += abs(np.float64(cx[i, b]) - cc[j, b]) * gaps[b]
                if s > best:
                    break
            if s < best or (s == best and j < arg):
                best = s
                arg = j
        labels[i] = arg
        dist[i] = best


@njit(parallel=True, cache=True)
def abs_moments(cx, gaps, ts):
    """``out[i, t]`` = the integral of the cumulative row ``cx[i]`` (a step function on the
    support at positions ``0, g_0, g_0 + g_1, ...``) left of ``ts[t]`` minus its integral
    right of it: E|X - t| up to a constant, for any total mass. Two rows' values differ by at
    most the integral of |P - Q|, which is exactly the EMD ``assign_by_means`` sums (float64)."""
    n, d = cx.shape
    m = len(ts)
    out = np.zeros((n, m))
    for i in prange(n):
        pos = 0.0
        for b in range(d - 1):
            g = gaps[b]
            p = np.float64(cx[i, b])
            for t in range(m):
                left = min(max(ts[t] - pos, 0.0), g)
                out[i, t] += p * (left - (g - left))
            pos += g
    return out


@njit(parallel=True, cache=True)
def cumulative_means(cx, gaps):
    """``-sum_b gaps[b] cx[i, b]`` per row, accumulated in float64 (float32 rows stay float32:
    no float64 copy of 14 million rows): the row's mean position up to a constant."""
    n, d = cx.shape
    out = np.empty(n)
    for i in prange(n):
        s = 0.0
        for b in range(d - 1):
            s += np.float64(cx[i, b]) * gaps[b]
        out[i] = -s
    return out
