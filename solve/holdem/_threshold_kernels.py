"""Numba kernel of ``solve/holdem/threshold.py``: every information set of a strategy's
weight array thresholded, into a new array."""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): 228a49f7c342335a

from __future__ import annotations

from numba import njit, prange

from solve.holdem._kernels import DECISION


@njit(cache=True, parallel=True)
def threshold_weights(S, ntype, rnd, nact, off, n_buckets, tau, out):
    """``out``: per (decision node, bucket) the normalised weights of ``S`` with every
    probability below ``tau`` set to 0 and the rest renormalised; ``tau >= 1`` keeps only the
    most probable action (purification; the first of equals). An information set whose
    weights are all 0 (never reached while solving) stays all 0 (uniform, as in the table)."""
    for n in prange(len(ntype)):
        if ntype[n] != DECISION:
            continue
        k = nact[n]
        for b in range(n_buckets[rnd[n]]):
            base = off[n, 0] + b * off[n, 1]
            s = 0.0
            best = 0
            for a in range(k):
                s += S[base + a]
                if S[base + a] > S[base + best]:
                    best = a
            if s <= 0.0:
                for a in range(k):
                    out[base + a] = 0.0
                continue
            kept = 0.0
            for a in range(k):
                p = S[base + a] / s
                keep = a == best if tau >= 1.0 else (p >= tau or a == best)
                out[base + a] = p if keep else 0.0
                kept += out[base + a]
            for a in range(k):
                out[base + a] /= kept
