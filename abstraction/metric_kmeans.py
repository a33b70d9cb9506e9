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

Lloyd's assignment step skips the distances the triangle inequality rules out (Elkan, "Using
the triangle inequality to accelerate k-means", ICML 2003): every distance here is a metric
(L1, L2, EMD on a line, and EMD under a ground that is itself one: the distances between the
next round's centres), so a lower bound on d(x, c) survives the centre's move as
d(x, c) - d(c, c'); a pair is computed again only when its bound is not above the point's
distance to its own (moved) centre. The seeding skips a new centre's distance to ``x`` when
it is more than twice ``x``'s distance away from ``x``'s nearest centre, and hands Lloyd its
distances as the first lower bounds. Labels, centres and costs are those of a full scan (ties
to the lowest index; the costs are exact distances); the skipped pairs were most of the work
(a Rhode Island GS4 13,25,125 build: 256 s against 2,068 s; for a general-ground EMD each
skipped pair is a transport problem not solved).
"""

from __future__ import annotations

import numpy as np

MAX_ITER = 100
#: relative slack on the bounds: a pair is skipped only when its lower bound exceeds the
#: point's own distance by more than the rounding of the bounds could account for
SLACK = 1e-9


def _means(x, w, labels, k, old):
    from scipy import sparse  # lazy: ~0.4 s at every CLI start-up
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
    labels, cents, cost, _ = _settle(w, metric.pairwise(x, centres), centres)
    return labels, cents, cost


def _seed(x, w, metric, k, rng):
    """k-means++ centres (D-weighted) and a matrix of lower bounds on every row's distances to
    them, exact at each row's nearest centre: a new centre ``c`` is farther from ``x`` than
    ``x``'s nearest centre ``a`` whenever d(c, a) > 2 d(x, a) (triangle inequality), and then
    ``d(c, a) - d(x, a)`` stands in for d(x, c) (as ``lloyd`` expects)."""
    n = len(x)
    p = w / w.sum()
    first = rng.choice(n, p=p)
    picked = [first]
    dmin = metric.pairwise(x, x[first][None, :])[:, 0]
    cols = [dmin.copy()]
    near = np.zeros(n, dtype=np.int64)  # column of each row's nearest centre
    for _ in range(1, k):
        mass = w * dmin
        if mass.sum() <= 0:
            break
        i = rng.choice(n, p=mass / mass.sum())
        between = metric.pairwise(x[i][None, :], x[picked])[0]
        col = between[near] - dmin
        need = col <= dmin * (1.0 + SLACK) + SLACK
        col = col[:, None]
        _where(metric, x, x[i][None, :], need[:, None], col)
        col = col[:, 0]
        closer = col < dmin
        near[closer] = len(cols)
        dmin = np.where(closer, col, dmin)
        picked.append(i)
        cols.append(col)
    return x[picked], np.column_stack(cols)


def _settle(w, dist, centres):
    """Labels (nearest by ``dist``, whose row minima are exact), centres without the unused
    ones, cost, and ``dist`` restricted to the used centres."""
    labels = dist.argmin(axis=1)
    cost = float(w @ dist[np.arange(len(dist)), labels])
    used, labels = np.unique(labels, return_inverse=True)
    return labels.ravel(), centres[used], cost, dist[:, used]


def _where(metric, x, c, need, out):
    """``out[i, j]`` = d(x[i], c[j]) wherever ``need[i, j]`` (whole rows for a metric that
    computes only whole rows)."""
    if hasattr(metric, "where"):
        metric.where(x, c, need, out)
        return
    rows = need.any(axis=1)
    if rows.any():
        out[rows] = np.where(need[rows], metric.pairwise(x[rows], c), out[rows])


def lloyd(x, w, metric, centres, max_iter: int = MAX_ITER, dist=None):
    """Assignment and mean steps from ``centres`` until the assignment repeats; returns the
    best (labels, centres, cost) met. The assignment is exact; the distances ruled out by
    the triangle inequality are not computed (module docstring). ``dist``: the rows'
    distances to ``centres`` when the caller has them."""
    n = len(x)
    rows = np.arange(n)
    dist = metric.pairwise(x, centres) if dist is None else dist
    labels, cents, cost, lower = _settle(w, dist, centres)
    best = (labels, cents, cost)
    for _ in range(max_iter):
        new = _means(x, w, labels, len(cents), cents)
        # lower[i, j] <= d(x_i, new_j): exact where computed, else an older distance minus the
        # centre's moves since
        lower = lower - metric.paired(cents, new)[None, :]
        own = metric.paired(x, new[labels])
        lower[rows, labels] = own
        need = lower <= (own * (1.0 + SLACK) + SLACK)[:, None]
        need[rows, labels] = False
        _where(metric, x, new, need, lower)
        labels2, cents2, cost2, lower = _settle(w, lower, new)
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
        centres, dist = _seed(x, w, metric, k, rng)
        run = lloyd(x, w, metric, centres, dist=dist)
        if best is None or run[2] < best[2]:
            best = run
    if warm is not None and len(warm) < k:
        dw = metric.pairwise(x, warm)
        far = x[int(np.argmax(dw.min(axis=1)))]
        start = np.vstack([warm, far])
        dist = np.hstack([dw, metric.pairwise(x, far[None, :])])
        labels, cents, cost, _ = _settle(w, dist, start)  # assign(), from the distances in hand
        for run in ((labels, cents, cost), lloyd(x, w, metric, start, dist=dist)):
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
