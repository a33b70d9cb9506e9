"""Imperfect-recall abstractions: every round's hands clustered on their own.

A perfect-recall abstraction (``abstraction.tree``) nests each round's buckets inside the
previous round's; the player remembers its earlier buckets. An imperfect-recall abstraction
clusters all the hands of a round at once, so two hands with different pasts can share a
bucket and the player forgets the earlier buckets: the round's information sets are (betting
history, the round's own bucket). At the same number of buckets per round both kinds have the
same number of information sets per betting history, and imperfect recall spends them all on
the present (Waugh et al., "A practical use of imperfect recall", SARA 2009; Johanson, Burch,
Valenzano & Bowling, "Evaluating state-space abstractions in extensive-form games", AAMAS
2013; Ganzfried & Sandholm, "Potential-aware imperfect-recall abstraction with earth mover's
distance in imperfect-information games", AAAI 2014).

The rounds are built last to first, so that a potential-aware feature can be a histogram over
the next round's final buckets (the published construction), compared with the earth mover's
distance whose ground is the distance between those buckets' centres:

- ``ehs``: every round by its expected hand strength (equity; k-means in one dimension).
- ``emd``: the last round by its showdown-outcome distribution under EMD on the equity line,
  every earlier round by its histogram over the next round's buckets under EMD.
- ``ochs``: the last round by the OCHS vector (L2), earlier rounds as ``emd``.

Texas Hold'em (its river given per turn bucket, no river hand listed with a future): the river
by equity (``ehs``, ``emd``; its 1,950 distinct equities) or by the OCHS vectors of its 123
million hands (``ochs``: ``abstraction.ochs_river``, k-means on a sample, then every hand
assigned exactly; the round's ``bucket`` is then by [2,5] index); for ``emd`` and ``ochs`` the
preflop, flop and turn by their river-equity histograms (the equity tables' ``hist_flop`` and
``hist_turn``: river equity over all completions, 50 equal bins; the preflop's the mixture of
its flop hands') under EMD on the equity line, every hand of the round at once
(``abstraction.line_kmeans``: 14 million turn histograms into 9,000 clusters), which is
Johanson et al.'s imperfect-recall EMD and, with the OCHS river, their IR-KE-KO. For the turn,
a histogram over the river's own EHS buckets would be one over its 1,950 equities with the
same ground: the equity bins are its coarsening.

Which solvers accept the result: counterfactual regret minimisation (Rhode Island: on the
type-level form, its infosets tied into the information sets, or on the public tree with
``--engine tree``; the Texas Hold'em samplers) and every evaluation at real cards (exact
Rhode Island best response, head-to-head, local best response). The sequence-form LP and EGT
need perfect recall and refuse it.
"""

from __future__ import annotations

import time

import numpy as np

from abstraction.checkpoint import load_object, load_round, save_object, save_round, shared_path
from abstraction.clustering import Points, kmeans, seed_for
from abstraction.emd import EMDGround, EMDLine, Euclidean
from abstraction.hands import GameHands
from abstraction.line_kmeans import line_kmeans, quantile_positions
from abstraction.tree import RoundResult, round_result

#: The kinds of imperfect-recall feature, by the method name that builds them.
KIND_OF_METHOD = {"eb": "ehs", "pa-emd": "emd", "ochs": "ochs"}

#: One-dimensional problems above this many (distinct points x clusters) use Lloyd's algorithm
#: from weighted quantiles instead of the exact dynamic programme (whose tables are that big).
EXACT_1D_CELLS = 20_000_000
#: Lloyd steps of a large round clustered by ``line_kmeans`` (each a pass over all its hands).
LINE_MAX_ITER = 30


def lloyd_1d(points: Points, k: int, max_iter: int = 300) -> tuple[np.ndarray, np.ndarray, float]:
    """Weighted 1-D k-means by Lloyd's algorithm from the weighted quantiles: (labels per
    distinct point, centroids (k', 1), weighted squared error). On a line each step is a sort
    order and a ``searchsorted`` of the midpoints, so millions of points take seconds. A
    cluster left empty is re-seeded at the point farthest from its centre (as scikit-learn
    does), so k' = min(k, distinct points)."""
    x = points.x[:, 0]
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], points.w[order]
    k = min(k, len(xs))
    c = np.unique(xs[quantile_positions(np.cumsum(ws), k)])
    for _ in range(20):  # re-seeding rounds
        c, lab = _lloyd_line(xs, ws, c, max_iter)
        if len(c) >= k:
            break
        far = np.argsort(-(xs - c[lab]) ** 2, kind="stable")
        c = np.unique(np.concatenate([c, xs[far[:k - len(c)]]]))
    labels = np.empty(len(xs), dtype=np.int64)
    labels[order] = lab
    err = float(ws @ (xs - c[lab]) ** 2)
    return labels, c[:, None], err


def _lloyd_line(xs, ws, c, max_iter):
    """Lloyd on sorted points from sorted centres ``c``; empty clusters dropped."""
    lab = None
    for _ in range(max_iter):
        new = np.searchsorted((c[:-1] + c[1:]) / 2, xs)
        if lab is not None and np.array_equal(new, lab):
            break
        lab = new
        wk = np.bincount(lab, weights=ws, minlength=len(c))
        keep = wk > 0
        c = np.bincount(lab, weights=ws * xs, minlength=len(c))[keep] / wk[keep]
    lab = np.searchsorted((c[:-1] + c[1:]) / 2, xs)
    used, lab = np.unique(lab, return_inverse=True)
    return c[used], lab


def _cluster(points: Points, k: int, seed: int, n_init: int):
    if points.metric is None and points.x.shape[1] == 1 and k < len(points) \
            and k * len(points) > EXACT_1D_CELLS:
        return lloyd_1d(points, k)
    return kmeans(points, k, seed, n_init)


def _next_ground(res: RoundResult, metric) -> object:
    """The EMD ground over round r+1's buckets: the distance between their centres, under
    the distance the centres were clustered with."""
    c = np.asarray(res.centroids, dtype=np.float64)
    if metric is None:
        return EMDLine(c[:, 0]) if c.shape[1] == 1 else EMDGround(Euclidean().ground(c))
    return EMDGround(metric.ground(c))


def _histograms(hands: GameHands, r: int, child_bucket: np.ndarray, k_next: int) -> np.ndarray:
    """(hands of round r, K_{r+1}): each hand's probability of reaching each next-round bucket."""
    nxt = hands.rounds[r + 1]
    n = len(hands.rounds[r].weight)
    h = np.zeros(n * k_next)
    np.add.at(h, nxt.parent.astype(np.int64) * k_next + child_bucket, nxt.weight)
    h = h.reshape(n, k_next)
    return h / h.sum(axis=1, keepdims=True)


def _ordered(labels: np.ndarray, cents: np.ndarray, weight: np.ndarray, equity: np.ndarray):
    """Relabel clusters weak -> strong (mean equity, then centroid), as the tree does."""
    k = len(cents)
    w = np.bincount(labels, weights=weight, minlength=k)
    eq = np.bincount(labels, weights=weight * equity, minlength=k) / np.maximum(w, 1e-300)
    rank = np.lexsort(tuple(np.asarray(cents).T[::-1]) + (eq,))
    relabel = np.empty(k, dtype=np.int64)
    relabel[rank] = np.arange(k)
    return relabel[labels], np.asarray(cents)[rank]


def _river_by_vectors(river, k: int, seed: int):
    """A listed-per-hand river clustered by its feature vectors (``river.cluster``): the
    ``RoundResult`` (``bucket`` by river hand, buckets weak -> strong), error, distinct rows."""
    labels, cents, err, distinct = river.cluster(k, seed)
    kk = len(cents)
    w, count, eq, lo, hi = river.bucket_stats(labels, kk)
    rank = np.lexsort(tuple(np.asarray(cents).T[::-1]) + (eq,))
    relabel = np.empty(kk, dtype=np.int32)
    relabel[rank] = np.arange(kk, dtype=np.int32)
    for a in range(0, len(labels), 1 << 24):
        labels[a:a + (1 << 24)] = relabel[labels[a:a + (1 << 24)]]
    res = RoundResult(labels, np.full(kk, -1, np.int64), list(np.asarray(cents)[rank]), w[rank],
                      count[rank], eq[rank], np.stack([lo, hi], axis=1)[rank])
    return res, err, distinct


def _histogram_rows(hist) -> tuple[np.ndarray, np.ndarray]:
    """(float32 distinct normalised histogram rows, each hand's row): a Texas Hold'em round's
    rows read by equity-table index (``abstraction.holdem._HistRows.distinct``: the turn's 55
    million hands have 14 million histograms), else every hand is a row."""
    if hasattr(hist, "distinct"):
        return hist.distinct()
    x = np.asarray(hist, dtype=np.float32)
    return x, np.arange(len(x))


def _by_equity_histograms(h, k: int, seed: int, n_init: int, progress: bool = False,
                          desc: str = "EMD k-means", checkpoint=None):
    """A round clustered on its own by its river-equity histogram under EMD on the
    equity line (bins at their centres): ``line_kmeans`` when the round is large (the mean
    bound makes its assignment exact and fast), else k-means++ restarts under EMD. Returns
    (RoundResult, error, distinct rows, ``line_kmeans``'s Lloyd steps or None). With a
    build's ``checkpoint`` directory the result is shared with every other build of the data
    directory that clusters the same rows the same way (``abstraction.checkpoint.shared_path``:
    imperfect-recall ``pa-emd`` and ``ochs`` share their flop and turn)."""
    x, inverse = _histogram_rows(h.histogram)
    line = EMDLine.equity_bins(x.shape[1])
    w = np.bincount(inverse, weights=h.weight, minlength=len(x))
    w = w / w.sum()
    shared = shared_path(checkpoint, "emd-line", {"k": k, "seed": seed, "n_init": n_init,
                                                  "max_iter": LINE_MAX_ITER},
                         x, w, inverse, h.weight, h.equity)
    if shared is not None and (saved := load_object(shared)) is not None:
        return saved
    out = _cluster_histograms(h, x, inverse, line, w, k, seed, n_init, progress, desc)
    if shared is not None:
        save_object(shared, out)
    return out


def _cluster_histograms(h, x, inverse, line, w, k, seed, n_init, progress, desc):
    steps = None
    if len(x) * k <= EXACT_1D_CELLS:
        pts = Points.from_hands(x.astype(np.float64), w, metric=line)
        labels, cents, err = kmeans(pts, k, seed, n_init)
        labels, distinct = labels[pts.inverse], len(pts)
    else:
        np.cumsum(x, axis=1, out=x)  # cumulative rows, in place
        labels, ccdf, err, steps = line_kmeans(x, w, line.gaps, k, max_iter=LINE_MAX_ITER,
                                                 progress=progress, desc=desc)
        cents, distinct = line.from_cdf(ccdf), len(x)
    labels, cents = _ordered(labels[inverse], cents, h.weight, h.equity)
    res = round_result(labels.astype(np.int32), np.full(len(cents), -1, np.int64), list(cents),
                       h.weight, h.equity, {})
    return res, err, distinct, steps


def build_imperfect(hands: GameHands, buckets, kind: str, *, last_feature=None,
                    random_state: int = 0, n_init: int = 4, progress: bool = False,
                    checkpoint=None) -> list[RoundResult]:
    """Per round, the imperfect-recall clustering of all its hands (module docstring).

    Args:
        hands: the game; a Texas Hold'em river is a ``LeafRound`` (``ehs``, ``ochs``).
        buckets: K_r per round.
        kind: ``ehs``, ``emd`` or ``ochs``.
        last_feature: for ``emd``/``ochs``, ``(x (hands, d), metric or None)`` of every
            last-round hand; for ``ochs`` with a ``LeafRound``, the river
            (``abstraction.ochs_river.OCHSRiver``: ``cluster`` and ``bucket_stats``).
        progress: a bar over the Lloyd steps of a round clustered by ``line_kmeans``.
        checkpoint: a directory (``abstraction.checkpoint``) where each finished round is
            saved and from which a re-run resumes; also shares the flop and turn EMD rounds
            of Texas Hold'em with other builds.
    """
    if kind not in ("ehs", "emd", "ochs"):
        raise ValueError(f"imperfect recall is built for ehs, emd and ochs, not {kind!r}")
    n_rounds = len(hands.sizes)
    has_leaf = len(hands.rounds) < n_rounds
    if has_leaf and kind == "ochs" and not hasattr(last_feature, "cluster"):
        raise ValueError(f"imperfect-recall ochs on {hands.game} needs the river's OCHS table "
                         f"(its river is given per turn bucket)")
    out: list[RoundResult | None] = [None] * n_rounds
    metric_of = [None] * n_rounds
    for r in reversed(range(n_rounds)):
        saved = load_round(checkpoint, r)
        if saved is not None:
            out[r], metric_of[r] = saved
            print(f"round {r}: {out[r].n_buckets} buckets resumed from {checkpoint}", flush=True)
            continue
        t0 = time.perf_counter()
        steps = None
        feature = kind
        k = int(buckets[r])
        seed = seed_for(random_state, r, k)
        if r == len(hands.rounds) and kind == "ochs":  # Hold'em river by OCHS vectors
            res, err, distinct = _river_by_vectors(last_feature, k, seed)
        elif r == len(hands.rounds):  # Hold'em river: its distinct equities, as one parent
            feature = "ehs"
            pts = hands.leaf.points(np.zeros(len(hands.rounds[-1].weight), np.int64))[0][0]
            labels, cents, err = _cluster(pts, k, seed, n_init)
            eq = pts.x[:, 0]
            labels, cents = _ordered(labels, cents, pts.w, eq)
            kk = len(cents)
            lo = np.full(kk, np.inf)
            hi = np.full(kk, -np.inf)
            np.minimum.at(lo, labels, eq)
            np.maximum.at(hi, labels, eq)
            w = np.bincount(labels, weights=pts.w, minlength=kk)
            res = RoundResult(np.empty(0, np.int32), np.full(kk, -1, np.int64), list(cents), w,
                              np.bincount(labels, minlength=kk),
                              np.bincount(labels, weights=pts.w * eq, minlength=kk) / w,
                              np.stack([lo, hi], axis=1))
            distinct = len(pts)
        elif has_leaf and kind != "ehs" and hands.rounds[r].histogram is not None:
            # Texas Hold'em flop and turn (and preflop): river-equity histograms, EMD on
            # the equity line, every hand of the round at once (line_kmeans)
            h = hands.rounds[r]
            res, err, distinct, steps = _by_equity_histograms(
                h, k, seed, n_init, progress, f"round {r} EMD k-means ({k:,} buckets)",
                checkpoint)
            feature = "emd"
        else:
            h = hands.rounds[r]
            if kind == "ehs" or has_leaf:
                x, metric, feature = h.equity[:, None], None, "ehs"
            elif r == n_rounds - 1:
                x, metric = last_feature
            else:
                nxt = out[r + 1]
                x = _histograms(hands, r, nxt.bucket, nxt.n_buckets)
                metric = _next_ground(nxt, metric_of[r + 1])
            pts = Points.from_hands(x, h.weight, metric=metric)
            labels, cents, err = _cluster(pts, k, seed, n_init)
            labels, cents = _ordered(labels[pts.inverse], cents, h.weight, h.equity)
            res = round_result(labels.astype(np.int32), np.full(len(cents), -1, np.int64),
                               list(cents), h.weight, h.equity, {})
            metric_of[r] = metric
            distinct = len(pts)
        sizes = res.hands
        res.report = {"round": r, "requested": k, "built": res.n_buckets, "recall": "imperfect",
                      "feature": feature, "error": float(err), "distinct_hand_values": distinct,
                      "sizes": {"min": int(sizes.min()), "median": float(np.median(sizes)),
                                "mean": float(sizes.mean()), "max": int(sizes.max())},
                      "seconds": round(time.perf_counter() - t0, 3)}
        if steps is not None:
            res.report["lloyd_steps"] = steps
        if res.n_buckets < k:
            res.report["reason"] = (f"only {res.n_buckets} buckets possible: the round's hands "
                                    f"have {distinct} distinct feature values"
                                    if distinct <= k else
                                    f"k-means left {k - res.n_buckets} clusters empty")
        out[r] = res
        save_round(checkpoint, r, (res, metric_of[r]))
    return out
