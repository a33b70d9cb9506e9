"""Weighted k-means on hand features, and the per-parent error curve c[i, k].

Clustering is scikit-learn's ``KMeans`` (k-means++ seeding, Lloyd iterations, ``n_init``
restarts, the best kept) with each hand weighted by its probability (Gilpin & Sandholm, AAAI
2007, "Better automated abstraction techniques for imperfect information games", section 2).
Identical feature rows are merged first (their weights summed): the weighted k-means objective
is unchanged, it is much faster on poker hands (many share a value), and the number of distinct
rows is the most clusters a parent can have. One-dimensional features (EB, EB2, equity leaves)
are clustered exactly instead, for every k at once, by dynamic programming over the sorted
values (Wang & Song, "Ckmeans.1d.dp", The R Journal 2011): the same objective, its global
optimum, and far faster than thousands of small Lloyd runs. Parents with many distinct
multi-dimensional points (potential-aware Texas Hold'em) are priced by incremental Lloyd
(``abstraction.lloyd``). The problems are small, so callers run them under
``single_threaded()``: BLAS/OpenMP thread start-up would otherwise dominate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abstraction import metric_kmeans
from abstraction._kmeans1d_kernels import backtrack, optimal_1d
from abstraction._points_kernels import dedupe_sorted, row_hashes
from abstraction.emd import EMDLine
from abstraction.lloyd import LineEMD, incremental_curve, refine

#: Multi-dimensional parents with more distinct points than this get the incremental Lloyd
#: error curve (``abstraction.lloyd``) instead of k-means++ restarts for every k.
LARGE = 4096


@dataclass(frozen=True)
class Points:
    """Distinct feature rows with summed weights; ``inverse`` maps each hand to its row.
    ``metric``: None for k-means in L2 (squared error), else a distance of ``abstraction.emd``
    (clustered by ``abstraction.metric_kmeans``, the error a sum of distances)."""

    x: np.ndarray
    w: np.ndarray
    inverse: np.ndarray
    metric: object = None

    @classmethod
    def from_hands(cls, x: np.ndarray, w: np.ndarray, decimals: int = 12,
                   metric=None) -> "Points":
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 1:
            x = x[:, None]
        # Round before comparing so sums of the same probabilities in another order still merge.
        key = np.round(x, decimals)
        if len(key) > LARGE and key.shape[1] > 1:
            # np.unique(axis=0) sorts rows field by field: seconds for a 69,000-hand Texas
            # turn parent. Hash the rows instead, then compare equal-hash rows exactly.

            bits = np.ascontiguousarray(key + 0.0).view(np.uint64)  # + 0.0: -0.0 -> 0.0
            h = row_hashes(bits)
            inverse, first = dedupe_sorted(bits, np.argsort(h, kind="stable"), h)
            uniq = key[first]
        else:
            uniq, inverse = np.unique(key, axis=0, return_inverse=True)
            inverse = inverse.ravel()
        ws = np.bincount(inverse, weights=w, minlength=len(uniq))
        total = ws.sum()
        return cls(uniq, ws / total if total > 0 else ws, inverse, metric)

    def __len__(self) -> int:
        return len(self.w)


@dataclass(frozen=True)
class Histograms:
    """A feature callable's rows with the distance to cluster them under (see ``Points``)."""

    x: np.ndarray
    metric: object


def is_large(points: "Points") -> bool:
    """Whether ``error_curve`` prices these points incrementally (``abstraction.lloyd``)."""
    return ((points.metric is None or isinstance(points.metric, EMDLine))
            and points.x.shape[1] > 1 and len(points) > LARGE)


def refine_points(points: "Points", centroids: np.ndarray):
    """A large parent's clustering run to convergence from ``centroids`` (``is_large``):
    (labels per distinct point, centroids, error)."""
    if points.metric is None:
        return refine(points.x, points.w, centroids)
    m = points.metric  # EMD on a line: Lloyd on the cumulative rows
    labels, cents, err = refine(m.cdf(points.x), points.w, m.cdf(centroids),
                                dist=LineEMD(m.gaps))
    return labels, m.from_cdf(cents), err


def single_threaded():
    """Context manager: BLAS/OpenMP pools limited to one thread (per process)."""
    from threadpoolctl import threadpool_limits  # lazy: see kmeans
    return threadpool_limits(1)


def seed_for(random_state: int, *path: int) -> int:
    """A 32-bit seed for one k-means run, derived from the abstraction seed and its place."""
    return int(np.random.SeedSequence([random_state, *path]).generate_state(1)[0])


def kmeans(points: Points, k: int, seed: int, n_init: int,
           warm: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """Cluster distinct points into ``min(k, len(points))`` clusters.

    Args:
        warm: optional centroids of a (k-1)-clustering. The result is then also compared with
            Lloyd's algorithm started from them plus the point farthest from its centroid,
            which can only improve on the (k-1) error: the error curve never goes up with k.
    Returns:
        (labels per distinct point, centroids (k, d), weighted sum of squared distances).
    """
    n = len(points)
    if k >= n:
        return np.arange(n), points.x.copy(), 0.0
    if points.metric is not None:
        return metric_kmeans.kmeans(points.x, points.w, points.metric, k, seed, n_init, warm)
    if points.x.shape[1] == 1:
        return assign(points, _optimal_1d(points, k)[1][-1])
    if k == 1:
        c = (points.w @ points.x)[None, :]
        return assign(points, c)
    # lazy: scikit-learn takes ~3 s to import, which every CLI command would pay at start-up
    from sklearn.cluster import KMeans
    km = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit(points.x,
                                                                      sample_weight=points.w)
    best = assign(points, km.cluster_centers_)
    if warm is not None and len(warm) == k - 1:
        _, d2 = _nearest(points.x, warm)
        init = np.vstack([warm, points.x[int(np.argmax(d2))]])
        km2 = KMeans(n_clusters=k, init=init, n_init=1).fit(points.x, sample_weight=points.w)
        other = assign(points, km2.cluster_centers_)
        if other[2] < best[2]:
            best = other
    return best


def _nearest(x: np.ndarray, centroids: np.ndarray, chunk: int = 1 << 16):
    labels = np.empty(len(x), dtype=np.int64)
    d2 = np.empty(len(x))
    cc = np.einsum("ij,ij->i", centroids, centroids)
    for a in range(0, len(x), chunk):
        xs = x[a:a + chunk]
        dist = cc[None, :] - 2.0 * xs @ centroids.T
        labels[a:a + chunk] = np.argmin(dist, axis=1)
        diff = xs - centroids[labels[a:a + chunk]]
        d2[a:a + chunk] = np.einsum("ij,ij->i", diff, diff)
    return labels, d2


def assign(points: Points, centroids: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Each point to its nearest centroid; drops centroids left without points.

    Returns (labels, centroids, weighted sum of squared distances; of distances under a
    ``metric``).
    """
    if points.metric is not None:
        return metric_kmeans.assign(points.x, points.w, points.metric, centroids)
    labels, d2 = _nearest(points.x, centroids)
    used, labels = np.unique(labels, return_inverse=True)
    return labels.ravel(), centroids[used], float(points.w @ d2)


def _optimal_1d(points: Points, kmax: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Exact 1-D k-means errors and centroids for k = 1..kmax (kmax <= distinct points)."""
    x = points.x[:, 0]
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], points.w[order]
    n = len(xs)
    kmax = min(kmax, n)
    D, T = optimal_1d(xs, ws, kmax)
    cents = []
    for k in range(1, kmax + 1):
        lab = backtrack(T, k, n)
        wk = np.bincount(lab, weights=ws, minlength=k)
        cents.append((np.bincount(lab, weights=ws * xs, minlength=k) / np.maximum(wk, 1e-300))
                     [:, None])
    return D[:, n - 1].copy(), cents


def error_curve(points: Points, kmax: int, random_state: int, path: tuple[int, ...],
                n_init: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """c[k-1] = k-means error with k clusters, k = 1 .. min(kmax, distinct points).

    One-dimensional points are solved exactly (``_optimal_1d``); more than ``LARGE``
    multi-dimensional points incrementally (``abstraction.lloyd``: each k from the k-1
    clustering plus one seeded centre, then a few Lloyd steps; the tree refines the k it
    picks). Otherwise each k has its own seed (``seed_for(random_state, *path, k)``) and is
    warm-started from the k-1 solution too (see ``kmeans``), so the curve is non-increasing. Returns the curve
    and the centroids for each k; the final clustering with the chosen k assigns each point
    to its nearest centroid.
    """
    kmax = max(1, min(kmax, len(points)))
    if is_large(points) and points.metric is not None:
        m = points.metric
        curve, cents = incremental_curve(m.cdf(points.x), points.w, kmax,
                                         seed_for(random_state, *path), dist=LineEMD(m.gaps))
        return curve, [m.from_cdf(c) for c in cents]
    if points.metric is not None:
        return metric_kmeans.error_curve(points.x, points.w, points.metric, kmax,
                                         lambda k: seed_for(random_state, *path, k), n_init)
    if points.x.shape[1] == 1:
        return _optimal_1d(points, kmax)
    if is_large(points):
        return incremental_curve(points.x, points.w, kmax, seed_for(random_state, *path))
    curve = np.empty(kmax)
    cents: list[np.ndarray] = []
    warm = None
    for k in range(1, kmax + 1):
        _, warm, curve[k - 1] = kmeans(points, k, seed_for(random_state, *path, k), n_init, warm)
        cents.append(warm)
    return curve, cents
