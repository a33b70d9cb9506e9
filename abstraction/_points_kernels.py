"""Numba kernels of ``abstraction.clustering.Points``: exact deduplication of feature rows."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def row_hashes(bits):
    """A 64-bit hash of every row of ``bits`` (unsigned words: uint64 for the bits of float64
    rows, uint32 for float32 rows); equal rows hash equal."""
    n, d = bits.shape
    out = np.empty(n, np.uint64)
    for i in range(n):
        h = np.uint64(0xCBF29CE484222325)
        for j in range(d):
            v = np.uint64(bits[i, j]) * np.uint64(0x9E3779B97F4A7C15)
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
    n = bits.shape[0]
    inverse = np.empty(n, np.int64)
    first = np.empty(n, np.int64)
    m = group_rows(bits, order, h, inverse, first)
    return inverse, first[:m]


@njit(cache=True)
def group_rows(bits, order, h, inverse, first) -> int:
    """Distinct rows of ``bits`` given ``order`` sorting the row hashes ``h``: rows of equal
    hash are compared word by word, so a collision never merges different rows. Writes each
    row's distinct id (``inverse``, numbered in hash order) and each id's first row
    (``first[:m]``); returns m."""
    n, d = bits.shape
    reps = np.empty(8, np.int64)  # the ids met in the current run of equal hashes
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
                s = first[reps[q]]
                same = True
                for c in range(d):
                    if bits[r, c] != bits[s, c]:
                        same = False
                        break
                if same:
                    found = reps[q]
                    break
            if found < 0:
                if nrep == reps.shape[0]:
                    grown = np.empty(2 * nrep, np.int64)
                    grown[:nrep] = reps
                    reps = grown
                reps[nrep] = m
                nrep += 1
                first[m] = r
                found = m
                m += 1
            inverse[r] = found
        i = j
    return m
