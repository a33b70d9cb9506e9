"""Numba kernels of k-means under the L1 distance (``abstraction/metric_kmeans.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def l1_where(x, c, need, out):
    """``out[i, j] = sum_b |x[i, b] - c[j, b]|`` wherever ``need[i, j]``; other entries are left
    as they are."""
    n, d = x.shape
    k = c.shape[0]
    for i in range(n):
        for j in range(k):
            if need[i, j]:
                s = 0.0
                for b in range(d):
                    s += abs(x[i, b] - c[j, b])
                out[i, j] = s


@njit(cache=True)
def l1_paired(x, y):
    """``out[i] = sum_b |x[i, b] - y[i, b]|``."""
    n, d = x.shape
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        for b in range(d):
            s += abs(x[i, b] - y[i, b])
        out[i] = s
    return out
