"""Colex index of k-subsets: ``colex(c_1 < .. < c_k) = sum_i C(c_i, i)`` (i from 1).

The combinatorial number system (D. H. Lehmer; Knuth, TAOCP 7.2.1.3, Theorem L): the map is a
bijection from the k-subsets of ``0..n-1`` onto ``0 .. C(n, k) - 1``, and it does not depend on
n, so the handval table (docs/design.md section 2) is simply ``values[colex(7 cards)]``. Unindexing is
greedy: ``c_k`` is the largest c with ``C(c, k) <= idx``, then recurse on the rest.

Vectorised functions (this module) work on ``(N, k)`` arrays in parallel. Numba-callable scalar
versions for use inside other ``@njit`` kernels live in ``etl/_index_kernels.py``:

    from etl._index_kernels import BINOM, binom, colex_index_sorted, colex_index_set, \\
        colex_unindex_into

    @njit
    def kernel(hands):                      # hands: (N, 7) uint8, rows ascending
        for r in range(hands.shape[0]):
            row = colex_index_sorted(hands[r])   # or colex_index_set for any order
            ...

``BINOM[n, k]`` (int64, n, k <= 64) is a frozen global; kernels may read it directly.
"""

from __future__ import annotations

import numpy as np

from etl._index_kernels import BINOM, MAX_BINOM_N, colex_index_rows, colex_unindex_rows
from etl.cards import card_rows

__all__ = ["BINOM", "binomial_table", "n_subsets", "colex_index", "colex_unindex"]


def binomial_table(nmax: int = MAX_BINOM_N) -> np.ndarray:
    """Read-only ``int64`` table ``T[n, k] = C(n, k)`` for ``0 <= n, k <= nmax`` (nmax <= 64)."""
    if not 0 <= nmax <= MAX_BINOM_N:
        raise ValueError(f"nmax must be in 0..{MAX_BINOM_N}, got {nmax}")
    return BINOM[: nmax + 1, : nmax + 1]


def n_subsets(n: int, k: int) -> int:
    """C(n, k): the number of colex indices of k-subsets of ``0..n-1``."""
    if not 0 <= n <= MAX_BINOM_N:
        raise ValueError(f"n must be in 0..{MAX_BINOM_N}, got {n}")
    return int(BINOM[n, k]) if 0 <= k <= n else 0


def colex_index(cards: np.ndarray, n: int = 52) -> np.ndarray | int:
    """Colex index of each set of distinct elements of ``0..n-1``.

    Args:
        cards: ``(N, k)`` array (one set per row, any order within a row) or a 1-D set.
        n: size of the universe (elements must be below it), at most 64.

    Returns:
        ``int64`` array of N indices in ``0 .. C(n, k) - 1`` (an int for a 1-D input).

    Raises:
        ValueError: bad shape, an element out of range, or a repeated element in a row.
    """
    if not 1 <= n <= MAX_BINOM_N:
        raise ValueError(f"n must be in 1..{MAX_BINOM_N}, got {n}")
    arr, single = card_rows(cards, "cards must be a 1-D set or an (N, k) array, "
                                   f"got shape {np.shape(cards)}")
    out = np.empty(arr.shape[0], np.int64)
    colex_index_rows(arr, n, out)
    bad = np.flatnonzero(out < 0)
    if bad.size:
        raise ValueError(f"row {int(bad[0])} is not a set of distinct elements of 0..{n - 1}: "
                         f"{arr[bad[0]].tolist()}")
    return int(out[0]) if single else out


def colex_unindex(idx: np.ndarray | int, k: int, n: int = 52) -> np.ndarray:
    """The ascending k-subsets of ``0..n-1`` with the given colex indices.

    Args:
        idx: int or 1-D integer array of indices in ``0 .. C(n, k) - 1``.
        k: subset size.
        n: universe size (at most 64; only used to check the range).

    Returns:
        ``uint8`` array ``(N, k)`` (``(k,)`` for a scalar index), rows ascending.

    Raises:
        ValueError: bad k or n, or an index out of range.
    """
    if not 1 <= n <= MAX_BINOM_N:
        raise ValueError(f"n must be in 1..{MAX_BINOM_N}, got {n}")
    if not 0 <= k <= n:
        raise ValueError(f"k must be in 0..n={n}, got {k}")
    arr = np.asarray(idx)
    single = arr.ndim == 0
    arr = np.atleast_1d(arr)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError("idx must be an int or a 1-D integer array")
    total = int(BINOM[n, k])
    if arr.size and (arr.min() < 0 or arr.max() >= total):
        raise ValueError(f"colex index out of range 0..C({n},{k})-1 = 0..{total - 1}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    out = np.empty((arr.shape[0], k), np.uint8)
    colex_unindex_rows(arr, k, n, out)
    return out[0] if single else out
