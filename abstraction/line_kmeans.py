"""k-means under the earth mover's distance on a line, for millions of points and thousands of
clusters: the imperfect-recall flop and turn of Texas Hold'em, every hand of the round
clustered at once by its river-equity histogram (the "EMD" abstraction of Johanson,
Burch, Valenzano & Bowling, "Evaluating state-space abstractions in extensive-form games",
AAMAS 2013).

On a line, EMD(p, q) = sum_b |P_b - Q_b| g_b, with P and Q the cumulative rows and g the gaps
between consecutive support points, and the mean of histograms is the mean of their cumulative
rows; so Lloyd's algorithm (``abstraction.lloyd`` with ``LineEMD``) applies with this distance
in the assignment step. There every point scans every centre, which at 14 million turn hands
and 9,000 centres is 10^11 distances per step. The scan is cut exactly by a lower bound: moving
mass a distance d moves the mean by at most d, so |mean(p) - mean(q)| <= EMD(p, q). The
centres, sorted by their means, are scanned outward from the point's own mean, nearest mean
first, until the gap in means exceeds the best distance found
(``_line_kmeans_kernels.assign_by_means``): the same nearest centre as a full scan. Any
1-Lipschitz function f gives such a bound, |E f(X) - E f(Y)| <= EMD(X, Y); besides the mean
the scan checks f(x) = |x - t| at the support's quarter points (``PIVOTS``) before summing a
centre's distance. From the second step on the scan starts from the point's previous centre,
whose distance (usually near the least) cuts it from the start. Labels, centres and errors
are a full scan's; 2.4x on the full-size flop (``bench/bench_line_kmeans.py``, BENCHMARKS).

Seeding is deterministic: the points at the k weighted quantiles of the means (the equity, for
equity histograms), as ``imperfect_recall.lloyd_1d`` seeds on a line. A cluster left empty is
re-seeded at the point farthest from its centre, so k clusters come out while there are k
distinct points. Iterations stop when the weighted error falls by less than ``rtol`` of
itself, or after ``max_iter`` (at full size an assignment step of the flop's 1.3 million
histograms against 9,000 centres takes about 13 CPU seconds, the turn's 14 million about ten
times that, so the builder caps the steps: ``imperfect_recall.LINE_MAX_ITER``).
"""

from __future__ import annotations

import numpy as np

from abstraction._line_kmeans_kernels import abs_moments, assign_by_means, cumulative_means
from abstraction._lloyd_kernels import centroid_sums
from schema.progress import progress_bar

MAX_ITER = 100
RTOL = 1e-5
#: where E|X - t| is taken, as fractions of the support's span (each a bound beside the mean's:
#: |E|X - t| - E|Y - t|| <= EMD(X, Y); ``_line_kmeans_kernels.abs_moments``)
PIVOTS = (0.25, 0.5, 0.75)


def row_means(cx: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """Mean position of every distribution given by its cumulative row ``cx`` over a support
    with ``gaps``, less the support's largest point: -sum_b g_b P_b (float64 sums)."""
    return cumulative_means(np.ascontiguousarray(cx), np.ascontiguousarray(gaps, dtype=np.float64))


def pivot_moments(cx: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """E|X - t| of every cumulative row at the ``PIVOTS`` of the support (n, len(PIVOTS))."""
    gaps = np.ascontiguousarray(gaps, dtype=np.float64)
    return abs_moments(np.ascontiguousarray(cx), gaps, np.asarray(PIVOTS) * gaps.sum())


def assign(cx: np.ndarray, cc: np.ndarray, gaps: np.ndarray,
           mu: np.ndarray | None = None, start: np.ndarray | None = None,
           px: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(nearest centre, its distance) of every cumulative row ``cx`` among the cumulative
    centre rows ``cc``, exactly as a full scan (ties to the lower centre); ``mu`` and ``px``:
    the rows' ``row_means`` and ``pivot_moments`` when already known; ``start``: each row's
    previous centre, where its scan starts (the result is the same)."""
    gaps = np.ascontiguousarray(gaps, dtype=np.float64)
    cc = np.ascontiguousarray(cc, dtype=np.float64)
    mu = row_means(cx, gaps) if mu is None else mu
    px = pivot_moments(cx, gaps) if px is None else px
    cmu = row_means(cc, gaps)
    order = np.argsort(cmu, kind="stable")
    labels = np.full(len(cx), -1, dtype=np.int64) if start is None else start.astype(np.int64)
    dist = np.empty(len(cx))
    assign_by_means(cx, mu, cc, np.ascontiguousarray(cmu[order]), order, gaps, labels, dist,
                    px, pivot_moments(cc, gaps))
    return labels, dist


def quantile_positions(cw: np.ndarray, k: int) -> np.ndarray:
    """Positions, in a sorted order with cumulative weights ``cw``, of the points at the
    weighted quantiles (i + 1/2) / k, i < k: the seeds of k-means on a line (here and in
    ``imperfect_recall.lloyd_1d``)."""
    return np.minimum(np.searchsorted(cw, (np.arange(k) + 0.5) / k * cw[-1]), len(cw) - 1)


def _quantile_seeds(mu: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    order = np.argsort(mu, kind="stable")
    return order[quantile_positions(np.cumsum(w[order]), k)]


def line_kmeans(cx: np.ndarray, w: np.ndarray, gaps: np.ndarray, k: int,
                max_iter: int = MAX_ITER, rtol: float = RTOL, progress: bool = False,
                desc: str = "EMD k-means",
                warm: bool = True) -> tuple[np.ndarray, np.ndarray, float, int]:
    """k-means under EMD on a line of the distributions with cumulative rows ``cx`` (n, d)
    (float32 or float64; the last column 1) and weights ``w``, the support's ``gaps``;
    ``progress``: a bar (or log lines) over the Lloyd steps, with the error; ``warm``: each
    step's scan starts from the point's previous centre (False: from nothing, as before; the
    same result, for ``bench/bench_line_kmeans.py``).

    Returns:
        (labels (n,), cumulative centre rows (k', d) float64, weighted sum of distances,
        Lloyd steps taken); k' = min(k, distinct rows).
    """
    cx = np.ascontiguousarray(cx)
    w = np.asarray(w, dtype=np.float64)
    gaps = np.ascontiguousarray(gaps, dtype=np.float64)
    n = len(cx)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    k = min(int(k), n)
    mu = row_means(cx, gaps)
    px = pivot_moments(cx, gaps)
    cc = cx[_quantile_seeds(mu, w, k)].astype(np.float64)
    bar = progress_bar(total=max_iter, desc=desc, unit="step", disable=not progress)
    labels, dist = assign(cx, cc, gaps, mu, px=px)
    err = float(w @ dist)
    bar.set_postfix(err=f"{err:.6g}")
    steps = 0
    for _ in range(max_iter):
        steps += 1
        sums, ws = centroid_sums(cx, w, labels, k)
        new = cc.copy()
        nz = ws > 0
        new[nz] = sums[nz] / ws[nz, None]
        empty = np.flatnonzero(~nz)
        if len(empty):  # re-seed at the farthest points
            far = np.argsort(-dist, kind="stable")[:len(empty)]
            new[empty[:len(far)]] = cx[far]
        lab2, dist2 = assign(cx, new, gaps, mu, start=labels if warm else None, px=px)
        err2 = float(w @ dist2)
        bar.update(1)
        if err2 >= err and not len(empty):
            break
        gain = err - err2
        cc, labels, dist, err = new, lab2, dist2, err2
        bar.set_postfix(err=f"{err:.6g}")
        if 0 <= gain <= rtol * err and not len(empty):
            break
    bar.close()
    used, labels = np.unique(labels, return_inverse=True)
    return labels.ravel(), cc[used], err, steps
