"""Numba kernel for :mod:`solve.games.abstract_form`: exact deal enumeration per type pair."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def deal_counts(types, strength, conflict, W, S):
    """For every final board ``f`` and every ordered pair of hands (h1, h2) valid on it
    (``types[f, h] >= 0``) that share no card: ``W[t1, t2] += 1`` and ``S[t1, t2] += sign``
    (+1 if h1's showdown strength is higher, -1 if lower, 0 on a tie)."""
    F, H = types.shape
    for f in range(F):
        for h1 in range(H):
            t1 = types[f, h1]
            if t1 < 0:
                continue
            s1 = strength[f, h1]
            for h2 in range(H):
                t2 = types[f, h2]
                if t2 < 0 or conflict[h1, h2]:
                    continue
                W[t1, t2] += 1.0
                s2 = strength[f, h2]
                if s1 > s2:
                    S[t1, t2] += 1.0
                elif s1 < s2:
                    S[t1, t2] -= 1.0
