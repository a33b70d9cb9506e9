"""Weighted k-means on hand features, and the per-parent error curve c[i, k].

Clustering is scikit-learn's ``KMeans`` (k-means++ seeding, Lloyd iterations, ``n_init``
restarts, the best kept) with each hand weighted by its probability (Gilpin & Sandholm, AAAI
2007, "Better automated abstraction techniques for imperfect information games", section 2).
Identical feature rows are merged first (their weights summed): the weighted k-means objective
is unchanged, it is much faster on poker hands (many share a value), and the number of distinct
rows is the most clusters a parent can have. The problems are tiny, so callers run them under
``single_threaded()``: BLAS/OpenMP thread start-up would otherwise dominate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits


@dataclass(frozen=True)
class Points:
    """Distinct feature rows with summed weights; ``inverse`` maps each hand to its row."""

    x: np.ndarray
    w: np.ndarray
    inverse: np.ndarray

    @classmethod
    def from_hands(cls, x: np.ndarray, w: np.ndarray, decimals: int = 12) -> "Points":
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 1:
            x = x[:, None]
        # Round before comparing so sums of the same probabilities in another order still merge.
        key = np.round(x, decimals)
        uniq, inverse = np.unique(key, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        ws = np.bincount(inverse, weights=w, minlength=len(uniq))
        total = ws.sum()
        return cls(uniq, ws / total if total > 0 else ws, inverse)

    def __len__(self) -> int:
        return len(self.w)


def single_threaded():
    """Context manager: BLAS/OpenMP pools limited to one thread (per process)."""
    return threadpool_limits(1)


def seed_for(random_state: int, *path: int) -> int:
    """A 32-bit seed for one k-means run, derived from the abstraction seed and its place."""
    return int(np.random.SeedSequence([random_state, *path]).generate_state(1)[0])


def kmeans(points: Points, k: int, seed: int, n_init: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Cluster distinct points into ``min(k, len(points))`` clusters.

    Returns:
        (labels per distinct point, centroids (k, d), weighted sum of squared distances).
    """
    n = len(points)
    if k >= n:
        return np.arange(n), points.x.copy(), 0.0
    if k == 1:
        c = points.w @ points.x
        return np.zeros(n, dtype=np.int64), c[None, :], _sse(points, c[None, :],
                                                              np.zeros(n, dtype=np.int64))
    km = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit(points.x,
                                                                      sample_weight=points.w)
    labels = km.labels_.astype(np.int64)
    used, labels = np.unique(labels, return_inverse=True)
    centroids = km.cluster_centers_[used]
    return labels, centroids, _sse(points, centroids, labels)


def _sse(points: Points, centroids: np.ndarray, labels: np.ndarray) -> float:
    d = points.x - centroids[labels]
    return float(points.w @ np.einsum("ij,ij->i", d, d))


def error_curve(points: Points, kmax: int, random_state: int, path: tuple[int, ...],
                n_init: int) -> np.ndarray:
    """c[k-1] = k-means error with k clusters, k = 1 .. min(kmax, distinct points).

    The run for each k has its own seed (``seed_for(random_state, *path, k)``) so the final
    clustering with the chosen k can be repeated exactly.
    """
    kmax = max(1, min(kmax, len(points)))
    curve = np.empty(kmax)
    for k in range(1, kmax + 1):
        curve[k - 1] = kmeans(points, k, seed_for(random_state, *path, k), n_init)[2]
    return curve
