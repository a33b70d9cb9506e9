"""Numba kernels of the incremental Lloyd error curve (``abstraction/lloyd.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def centroid_sums(x, w, labels, k):
    """Weighted sums of the points of each cluster and the clusters' weights (float64)."""
    n, d = x.shape
    sums = np.zeros((k, d))
    ws = np.zeros(k)
    for i in range(n):
        c = labels[i]
        wi = w[i]
        ws[c] += wi
        for j in range(d):
            sums[c, j] += wi * x[i, j]
    return sums, ws


@njit(cache=True)
def sq_dist_to(x, c, labels):
    """Exact (float64) squared distance of every point to its assigned centroid."""
    n, d = x.shape
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        ci = labels[i]
        for j in range(d):
            t = np.float64(x[i, j]) - c[ci, j]
            s += t * t
        out[i] = s
    return out
