"""Numba kernels for the classic games (solve.games.classic): flop poker showdown scores."""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): 50fcfb864c278103

from __future__ import annotations

import numpy as np
from numba import get_num_threads, njit, prange

from etl.evaluator import eval5


@njit(cache=True, parallel=True)
def _scores(hands, cls, flops, weight, n_chunks):
    H = hands.shape[0]
    F = flops.shape[0]
    acc = np.zeros((n_chunks, 169, 169), np.int64)
    for ch in prange(n_chunks):
        strength = np.empty(H, np.int64)
        ok = np.empty(H, np.bool_)
        for f in range(ch, F, n_chunks):
            b0, b1, b2 = flops[f, 0], flops[f, 1], flops[f, 2]
            w = weight[f]
            for h in range(H):
                h0, h1 = hands[h, 0], hands[h, 1]
                ok[h] = not (h0 == b0 or h0 == b1 or h0 == b2 or h1 == b0 or h1 == b1 or h1 == b2)
                if ok[h]:
                    strength[h] = eval5(h0, h1, b0, b1, b2)
            for i in range(H):
                if not ok[i]:
                    continue
                ci = cls[i]
                i0, i1 = hands[i, 0], hands[i, 1]
                si = strength[i]
                for j in range(i + 1, H):
                    if not ok[j]:
                        continue
                    j0, j1 = hands[j, 0], hands[j, 1]
                    if i0 == j0 or i0 == j1 or i1 == j0 or i1 == j1:
                        continue
                    sj = strength[j]
                    if si > sj:
                        acc[ch, ci, cls[j]] += w
                        acc[ch, cls[j], ci] -= w
                    elif si < sj:
                        acc[ch, ci, cls[j]] -= w
                        acc[ch, cls[j], ci] += w
    return acc


def flop_scores(hands: np.ndarray, cls: np.ndarray, flops: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """(169, 169) sum of win(+1)/loss(-1) over disjoint hand pairs and weighted flops."""
    n = max(1, get_num_threads())
    return _scores(hands, cls, flops, weight, n).sum(axis=0)


@njit(cache=True)
def draw_enumerate(hands, hand_ok, final_val, type_of, n_cards, n_types1, n_types2):
    """2-7 single draw: over all deals (hand 1, hand 2, drawn card 1, drawn card 2), counts
    ``W[t1, t2]`` and score sums ``S[t1, t2]`` (+1 player 1's final hand lower, -1 higher).

    ``final_val[h, c]``: 2-7 value (lower is better) of hand ``h`` after discarding its
    forced card and drawing ``c``; ``type_of[h, c]``: the type (information after the draw).
    """
    H = hands.shape[0]
    W = np.zeros((n_types1, n_types2), np.int64)
    S = np.zeros((n_types1, n_types2), np.int64)
    used = np.zeros(n_cards, np.bool_)
    for i in range(H):
        for k in range(3):
            used[hands[i, k]] = True
        for j in range(H):
            if not hand_ok[i, j]:
                continue
            for k in range(3):
                used[hands[j, k]] = True
            for c1 in range(n_cards):
                if used[c1]:
                    continue
                t1 = type_of[i, c1]
                v1 = final_val[i, c1]
                for c2 in range(n_cards):
                    if used[c2] or c2 == c1:
                        continue
                    t2 = type_of[j, c2]
                    v2 = final_val[j, c2]
                    W[t1, t2] += 1
                    if v1 < v2:
                        S[t1, t2] += 1
                    elif v1 > v2:
                        S[t1, t2] -= 1
            for k in range(3):
                used[hands[j, k]] = False
            for k in range(3):
                used[hands[i, k]] = True
        for k in range(3):
            used[hands[i, k]] = False
    return W, S
