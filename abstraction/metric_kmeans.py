"""k-means under a distance other than L2 (the earth mover's distance of ``abstraction.emd``).

The potential-aware EMD abstraction (Ganzfried & Sandholm, AAAI 2014, Algorithm 1) clusters
histograms with k-means whose assignment step uses the earth mover's distance and whose update
step takes each cluster's (weighted) mean histogram. The objective reported, and priced for the
allocation IP, is the weighted sum of distances to the assigned centre, sum_i w_i d(x_i, c(i)).
Seeding is k-means++ with sampling proportional to w * d (Arthur & Vassilvitskii, SODA 2007,
with d in place of d^2 as for k-median); ``n_init`` seeded restarts, the best kept. The mean
step does not always lower an EMD objective, so each run keeps the best assignment it met.

The error curve for k = 1..kmax starts every k from its own seeding and also from the (k-1)
centres plus the point farthest from them; the second alone can only lower the (k-1) error,
so the curve never goes up with k.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

MAX_ITER = 100


def _means(x, w, labels, k, old):
    ws = np.bincount(labels, weights=w, minlength=k)
    # sum of w_i x_i per cluster as a sparse (clusters x rows) product: the same sums in the
    # same order as np.add.at, which took a quarter of a strategy build's time (11x faster)
    member = sparse.csr_matrix((w, (labels, np.arange(len(x)))), shape=(k, len(x)))
    sums = np.asarray(member @ x, dtype=np.float64)
    out = old.copy()
    nz = ws > 0
    out[nz] = sums[nz] / ws[nz, None]
    return out


def assign(x, w, metric, centres):
    """Nearest centre of every row; unused centres dropped. Returns (labels, centres, cost)."""
    d = metric.pairwise(x, centres)
    labels = d.argmin(axis=1)
    cost = float(w @ d[np.arange(len(x)), labels])
    used, labels = np.unique(labels, return_inverse=True)
    return labels.ravel(), centres[used], cost


def _seed(x, w, metric, k, rng):
    p = w / w.sum()
    centres = [x[rng.choice(len(x), p=p)]]
    dmin = metric.pairwise(x, centres[0][None, :])[:, 0]
    for _ in range(1, k):
        mass = w * dmin
        if mass.sum() <= 0:
            break
        i = rng.choice(len(x), p=mass / mass.sum())
        centres.append(x[i])
        dmin = np.minimum(dmin, metric.pairwise(x, x[i][None, :])[:, 0])
    return np.array(centres)


def lloyd(x, w, metric, centres, max_iter: int = MAX_ITER):
    """Assignment and mean steps from ``centres`` until the assignment repeats; returns the
    best (labels, centres, cost) met."""
    labels, cents, cost = assign(x, w, metric, centres)
    best = (labels, cents, cost)
    for _ in range(max_iter):
        new = _means(x, w, labels, len(cents), cents)
        labels2, cents2, cost2 = assign(x, w, metric, new)
        if cost2 < best[2] - 1e-15:
            best = (labels2, cents2, cost2)
        if len(cents2) == len(cents) and np.array_equal(labels2, labels):
            break
        labels, cents = labels2, cents2
    return best


def kmeans(x, w, metric, k: int, seed: int, n_init: int, warm=None):
    """``min(k, len(x))`` clusters of distinct rows ``x`` with weights ``w`` under ``metric``;
    ``warm``: centres of a (k-1)-clustering (or fewer) (see module docstring). Returns (labels, centres,
    cost)."""
    n = len(x)
    if k >= n:
        return np.arange(n), x.copy(), 0.0
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(n_init):
        run = lloyd(x, w, metric, _seed(x, w, metric, k, rng))
        if best is None or run[2] < best[2]:
            best = run
    if warm is not None and len(warm) < k:
        dmin = metric.pairwise(x, warm).min(axis=1)
        start = np.vstack([warm, x[int(np.argmax(dmin))]])
        for run in (assign(x, w, metric, start), lloyd(x, w, metric, start)):
            if run[2] < best[2]:
                best = run
    return best


def error_curve(x, w, metric, kmax: int, seed_of, n_init: int):
    """c[k-1] = cost with k clusters, k = 1..min(kmax, len(x)), and the centres for each k;
    ``seed_of(k)`` is the seed of the k run."""
    kmax = max(1, min(kmax, len(x)))
    curve = np.empty(kmax)
    cents, warm = [], None
    for k in range(1, kmax + 1):
        _, warm, curve[k - 1] = kmeans(x, w, metric, k, seed_of(k), n_init, warm)
        cents.append(warm)
    return curve, cents
