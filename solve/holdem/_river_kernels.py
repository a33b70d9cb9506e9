"""Numba kernel of the river look-up of a perfect-recall OCHS abstraction
(``solve.holdem.buckets.ochs_river``)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def nearest_child_lut(codebook, centroids, first, last, out):
    """``out[t, m]``: of river buckets ``first[t] .. last[t] - 1`` (the children of turn
    bucket t), the one whose centroid is nearest (squared L2; the lowest on a tie) to the
    row ``codebook[m]``."""
    n_turn, m = out.shape
    d = codebook.shape[1]
    for t in prange(n_turn):
        for q in range(m):
            best, arg = np.inf, first[t]
            for c in range(first[t], last[t]):
                s = 0.0
                for j in range(d):
                    x = codebook[q, j] - centroids[c, j]
                    s += x * x
                if s < best:
                    best, arg = s, c
            out[t, q] = arg
