"""Exact weighted k-means in one dimension (numba), for every k up to kmax at once.

Wang & Song, "Ckmeans.1d.dp: optimal k-means clustering in one dimension by dynamic
programming", The R Journal 3(2), 2011: on sorted points an optimal clustering is a set of
contiguous runs, so ``D[k][j] = min_i D[k-1][i-1] + cost(i, j)``; the optimal split is monotone
in j, so each layer is filled by divide and conquer in O(n log n).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _cost(pw, p1, p2, i, j):
    """Weighted sum of squared deviations of sorted points i..j (inclusive)."""
    w = pw[j + 1] - pw[i]
    if w <= 0.0:
        return 0.0
    s = p1[j + 1] - p1[i]
    c = (p2[j + 1] - p2[i]) - s * s / w
    return c if c > 0.0 else 0.0


@njit(cache=True)
def optimal_1d(x, w, kmax):
    """x sorted ascending, distinct; returns (D (kmax, n), T (kmax, n)): D[k-1, j] is the least
    error of points 0..j in k clusters, T[k-1, j] the first point of the last cluster."""
    n = x.shape[0]
    pw = np.zeros(n + 1)
    p1 = np.zeros(n + 1)
    p2 = np.zeros(n + 1)
    mean = 0.0
    tot = 0.0
    for i in range(n):
        mean += w[i] * x[i]
        tot += w[i]
    mean = mean / tot if tot > 0 else 0.0
    for i in range(n):  # centred to limit cancellation in p2 - p1^2/pw
        d = x[i] - mean
        pw[i + 1] = pw[i] + w[i]
        p1[i + 1] = p1[i] + w[i] * d
        p2[i + 1] = p2[i] + w[i] * d * d
    D = np.full((kmax, n), np.inf)
    T = np.zeros((kmax, n), np.int64)
    for j in range(n):
        D[0, j] = _cost(pw, p1, p2, 0, j)
    stack = np.empty((4 * (n + 2), 4), np.int64)
    for k in range(1, kmax):
        # fill D[k, j] for j in k..n-1; split i in k..j (the last cluster is i..j)
        top = 0
        stack[0, 0] = k
        stack[0, 1] = n - 1
        stack[0, 2] = k
        stack[0, 3] = n - 1
        top = 1
        while top > 0:
            top -= 1
            lo = stack[top, 0]
            hi = stack[top, 1]
            olo = stack[top, 2]
            ohi = stack[top, 3]
            if lo > hi:
                continue
            mid = (lo + hi) // 2
            best = np.inf
            arg = olo
            for i in range(olo, min(mid, ohi) + 1):
                v = D[k - 1, i - 1] + _cost(pw, p1, p2, i, mid)
                if v < best:
                    best = v
                    arg = i
            D[k, mid] = best
            T[k, mid] = arg
            stack[top, 0] = lo
            stack[top, 1] = mid - 1
            stack[top, 2] = olo
            stack[top, 3] = arg
            top += 1
            stack[top, 0] = mid + 1
            stack[top, 1] = hi
            stack[top, 2] = arg
            stack[top, 3] = ohi
            top += 1
    return D, T


@njit(cache=True)
def backtrack(T, k, n):
    """Cluster label (0..k-1, in x order) of each of the n sorted points for k clusters."""
    labels = np.empty(n, np.int64)
    j = n - 1
    for c in range(k - 1, -1, -1):
        i = T[c, j] if c > 0 else 0
        for t in range(i, j + 1):
            labels[t] = c
        j = i - 1
    return labels
