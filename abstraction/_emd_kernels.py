"""Numba kernels of the earth mover's distance on a line (``abstraction/emd.py``)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def emd_line_pairwise(cx, cc, gaps):
    """``out[i, j] = sum_b |cx[i, b] - cc[j, b]| * gaps[b]``: the earth mover's distance
    between histogram ``i`` and centre ``j`` on a line, given both as cumulative sums
    (``cx`` (n, d), ``cc`` (k, d)) and the distances between consecutive support points
    (``gaps``, the last one 0)."""
    n, d = cx.shape
    k = cc.shape[0]
    out = np.empty((n, k))
    for i in range(n):
        for j in range(k):
            s = 0.0
            for b in range(d - 1):
                s += abs(cx[i, b] - cc[j, b]) * gaps[b]
            out[i, j] = s
    return out


@njit(cache=True)
def emd_line_assign(cx, cc, gaps):
    """Nearest centre (by ``emd_line_pairwise``'s distance) of every cumulative row."""
    n, d = cx.shape
    k = cc.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best, arg = np.inf, 0
        for j in range(k):
            s = 0.0
            for b in range(d - 1):
                s += abs(cx[i, b] - cc[j, b]) * gaps[b]
                if s >= best:
                    break
            if s < best:
                best, arg = s, j
        labels[i] = arg
    return labels


@njit(cache=True)
def emd_line_to(cx, cc, labels, gaps):
    """Distance of every cumulative row to its assigned centre."""
    n, d = cx.shape
    out = np.empty(n)
    for i in range(n):
        c = labels[i]
        s = 0.0
        for b in range(d - 1):
            s += abs(cx[i, b] - cc[c, b]) * gaps[b]
        out[i] = s
    return out
