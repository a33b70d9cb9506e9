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
