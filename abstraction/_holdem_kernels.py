"""Numba kernels of the Texas Hold'em adapter (``abstraction/holdem.py``).

Hands are canonical indexes of ``etl.isomorphism.HandIndexer``; ``index_hand`` /
``unindex_hand`` are its numba-callable scalars.
"""
# numba cache stamp (python -m tests.test_kernel_cache_stamps): 68cf5f09884690bc

from __future__ import annotations

import itertools

import numpy as np
from numba import get_num_threads, njit, prange

from etl._index_kernels import index_hand, index_hand_inline, unindex_hand

SUIT_PERMS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)
#: River equity against the 990 opponent hands as an exact integer: 2 * wins + ties.
RIVER_KEYS = 2 * 990 + 1


@njit(cache=True)
def orbit_size(cards, bounds, perms) -> int:
    """Number of raw hands in the suit-isomorphism class of ``cards`` (24 / stabiliser)."""
    fixed = 0
    for p in range(perms.shape[0]):
        ok = True
        for g in range(bounds.shape[0] - 1):
            m0 = np.int64(0)
            m1 = np.int64(0)
            for j in range(bounds[g], bounds[g + 1]):
                c = np.int64(cards[j])
                m0 |= np.int64(1) << c
                m1 |= np.int64(1) << ((c >> 2) * 4 + perms[p, c & 3])
            if m0 != m1:
                ok = False
                break
        if ok:
            fixed += 1
    return perms.shape[0] // fixed


@njit(cache=True, parallel=True)
def round_arrays(tables, n_cards, bounds, parent_tables, n_parent_cards, eq_tables, start,
                 parent_out, eq_out, orbit_out):
    """For canonical hands ``start .. start+len(orbit_out)-1`` of ``tables``: the index of the
    hand's first ``n_parent_cards`` cards under ``parent_tables`` (the parent hand), its index
    under ``eq_tables`` (where its equity is stored) and its orbit size."""
    perms = SUIT_PERMS
    for i in prange(orbit_out.shape[0]):
        cards = np.empty(n_cards, np.uint8)
        unindex_hand(tables, start + i, cards)
        orbit_out[i] = orbit_size(cards, bounds, perms)
        if n_parent_cards > 0:
            parent_out[i] = index_hand_inline(parent_tables, cards[:n_parent_cards])
        eq_out[i] = index_hand_inline(eq_tables, cards)


def river_histograms(turn_tables, river_tables, turn_bucket, turn_weight, river_key, n_buckets):
    """Per turn bucket, the probability of each river equity key (2*wins + ties).

    Every turn hand ([2,3,1] index i, probability ``turn_weight[i]``) continues with each of
    the 46 river cards left with probability 1/46; its river hand is looked up in the [2,5]
    table ``river_key``. Returns (n_buckets, RIVER_KEYS) absolute probabilities.
    """
    # the thread count is read here, not inside the kernel: numba cannot cache a function
    # that calls get_num_threads() (a ctypes pointer), and would recompile it every run
    return _river_histograms(turn_tables, river_tables, turn_bucket, turn_weight, river_key,
                             n_buckets, max(1, get_num_threads()))


@njit(cache=True, parallel=True)
def _river_histograms(turn_tables, river_tables, turn_bucket, turn_weight, river_key, n_buckets,
                      threads):
    n = turn_bucket.shape[0]
    hist = np.zeros((threads, n_buckets, RIVER_KEYS))
    per = (n + threads - 1) // threads
    for t in prange(threads):
        cards = np.empty(7, np.uint8)
        used = np.zeros(52, np.bool_)
        for i in range(t * per, min(n, (t + 1) * per)):
            unindex_hand(turn_tables, i, cards)
            used[:] = False
            for j in range(6):
                used[cards[j]] = True
            w = turn_weight[i] / 46.0
            b = turn_bucket[i]
            for c in range(52):
                if used[c]:
                    continue
                cards[6] = c
                hist[t, b, river_key[index_hand_inline(river_tables, cards)]] += w
    return hist.sum(axis=0)
