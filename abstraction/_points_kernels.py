"""Numba kernels of ``abstraction.clustering.Points``: exact deduplication of feature rows."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def row_hashes(bits):
    """A 64-bit hash of every row of ``bits`` (uint64 words, e.g. the bits of float64 rows)."""
    n, d = bits.shape
    out = np.empty(n, np.uint64)
    for i in range(n):
        h = np.uint64(0xCBF29CE484222325)
        for j in range(d):
            v = bits[i, j] * np.uint64(0x9E3779B97F4A7C15)
            v ^= v >> np.uint64(29)
            h = (h ^ v) * np.uint64(0x100000001B3)
        out[i] = h
    return out


@njit(cache=True)
def dedupe_sorted(bits, order, h):
    """Distinct rows of ``bits``, given ``order`` sorting the row hashes ``h``.

    Rows with equal hashes are compared word by word, so a hash collision never merges
    different rows. Returns (inverse: the distinct-row id of every row, first: the first row
    of every distinct id); ids are numbered in hash order.
    """
    n, d = bits.shape
    inverse = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    rep = np.empty(n, np.int64)
    m = 0
    i = 0
    while i < n:
        j = i
        while j < n and h[order[j]] == h[order[i]]:
            j += 1
        nrep = 0
        for t in range(i, j):
            r = order[t]
            found = -1
            for q in range(nrep):
                s = rep[q]
                same = True
                for c in range(d):
                    if bits[r, c] != bits[s, c]:
                        same = False
                        break
                if same:
                    found = inverse[s]
                    break
            if found < 0:
                rep[nrep] = r
                nrep += 1
                first[m] = r
                inverse[r] = m
                m += 1
            else:
                inverse[r] = found
        i = j
    return inverse, first[:m]
