"""The shared abstraction-tree builder: k-means per parent bucket + the allocation IP.

Gilpin & Sandholm's top-down construction (AAAI 2006 section 3; AAAI 2007 "Better automated
abstraction techniques..."; docs/design.md section 4): round 0 is clustered into K_0 buckets. For
every later round r and every round-(r-1) bucket i, the hands whose parent hand lies in bucket
i are clustered for k = 1..kmax_i, giving the error curve c[i, k]; the 0-1 integer program of
``abstraction.allocation`` picks how many children each bucket gets within the budget K_r,
and the parent's hands are then clustered with that k. A round-r bucket therefore has exactly
one parent (perfect recall). Methods differ only in the feature a hand is clustered on, given
as a callable ``features(r, rows, parent_bucket) -> array (len(rows), d)`` (clustered by
k-means in L2), or ``Histograms(array, metric)`` to cluster under another distance.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from joblib import Parallel, delayed, parallel_config

from abstraction.allocation import allocate, equal_split
from abstraction.checkpoint import load_round, save_round
from abstraction.clustering import (Histograms, Points, assign, error_curve, is_large, kmeans,
                                   refine_points, seed_for, single_threaded)
from abstraction.hands import GameHands
from etl.cluster import dask_client
from schema.progress import progress_bar

FeatureFn = Callable[[int, np.ndarray, int], np.ndarray]


@dataclass
class RoundResult:
    """One round of a built abstraction.

    Attributes:
        bucket: bucket id of every hand of the round (0 .. K_r-1); empty for a leaf round given
            per parent (``LeafRound``), whose buckets are the equity ranges in ``ranges``.
        parent: parent bucket (round r-1) of every bucket; -1 in round 0.
        centroids: the k-means centroid of every bucket (in its parent's feature space).
        weight: probability of every bucket; hands: hands (leaf round: distinct equities) in it.
        mean_equity: mean equity of every bucket; ranges: (K_r, 2) least and greatest equity.
        report: requested/built bucket counts, reason when fewer, IP objective, the error of
            an equal split, bucket size distribution, seconds.
    """

    bucket: np.ndarray
    parent: np.ndarray
    centroids: list[np.ndarray]
    weight: np.ndarray
    hands: np.ndarray
    mean_equity: np.ndarray
    ranges: np.ndarray
    report: dict = field(default_factory=dict)

    @property
    def n_buckets(self) -> int:
        return len(self.parent)


def round_result(bucket: np.ndarray, parent: np.ndarray, centroids: list[np.ndarray],
                 hand_weight: np.ndarray, equity: np.ndarray, report: dict) -> RoundResult:
    """A ``RoundResult`` from per-hand buckets (bucket statistics computed here)."""
    k = len(parent)
    w = np.bincount(bucket, weights=hand_weight, minlength=k)
    lo = np.full(k, np.inf)
    hi = np.full(k, -np.inf)
    np.minimum.at(lo, bucket, equity)
    np.maximum.at(hi, bucket, equity)
    return RoundResult(bucket, parent, centroids, w, np.bincount(bucket, minlength=k),
                       np.bincount(bucket, weights=hand_weight * equity, minlength=k) / w,
                       np.stack([lo, hi], axis=1), report)


def build_tree(hands: GameHands, buckets: Sequence[int], features: FeatureFn, *,
               random_state: int = 0, n_init: int = 4, kmax: int | None = None,
               kmax_factor: float | None = None, workers: int = 1,
               progress: bool = False, scheduler: str | None = None,
               checkpoint=None) -> list[RoundResult]:
    """Build the bucket tree round by round (see module docstring).

    Args:
        hands: the game's hand tree.
        buckets: K_r per round (totals, not per parent).
        features: the method's feature callable (must pickle when ``workers > 1``).
        random_state: seed of every k-means run (each run derives its own seed from it).
        n_init: k-means restarts per run.
        kmax: cap on children per parent (default: the most any parent could get,
            ``K_r - P + 1``, and never more than the parent's distinct feature rows).
        kmax_factor: also cap children per parent at ``ceil(kmax_factor * K_r / P)`` (for
            large games, where pricing every k up to ``K_r - P + 1`` is too slow).
        workers: processes for the per-parent work.
        progress: show a progress bar per round.
        scheduler: run the per-parent work on a Dask cluster instead (``tcp://HOST:PORT`` or
            ``local:N``, see ``etl.cluster``); the result is the same, bit for bit (every
            task is seeded by itself).
        checkpoint: a directory (``abstraction.checkpoint``): each finished round is saved
            there, and rounds saved by an earlier run of the same build are loaded instead
            of clustered again.
    """
    with single_threaded():
        if scheduler is None:
            return _build(hands, buckets, features, random_state, n_init, kmax, kmax_factor,
                          workers, progress, checkpoint)
        with dask_client(scheduler), parallel_config(backend="dask"):
            return _build(hands, buckets, features, random_state, n_init, kmax, kmax_factor,
                          "dask", progress, checkpoint)


def _build(hands, buckets, features, random_state, n_init, kmax, kmax_factor, workers,
           progress, checkpoint=None):
    results: list[RoundResult] = []
    for r in range(len(hands.sizes)):
        saved = load_round(checkpoint, r)
        if isinstance(saved, RoundResult):
            if progress:
                print(f"round {r}: {saved.n_buckets} buckets resumed from {checkpoint}",
                      file=sys.stderr, flush=True)
            results.append(saved)
            continue
        t0 = time.perf_counter()
        leaf = r == len(hands.rounds)  # the last round given per parent bucket (LeafRound)
        budget = int(buckets[r])
        if leaf:
            raw, p = hands.leaf.points(results[-1].bucket)
            groups = [None] * len(raw)
            equity = [pt.x[:, 0] for pt in raw]
            hand_w = [pt.w for pt in raw]
            leaf = features.leaf_transform  # one bound method for all tasks (scattered once)
            tasks = [(leaf, r, pt, i) for i, pt in enumerate(raw)]
        else:
            h = hands.rounds[r]
            if r == 0:
                groups = [np.arange(len(h))]
            else:
                parent_bucket = results[-1].bucket[h.parent]
                order = np.argsort(parent_bucket, kind="stable")
                cuts = np.searchsorted(parent_bucket[order],
                                       np.arange(results[-1].n_buckets + 1))
                groups = [np.sort(order[cuts[i]:cuts[i + 1]])
                          for i in range(results[-1].n_buckets)]
            p = np.array([h.weight[rows].sum() for rows in groups])
            equity = [h.equity[rows] for rows in groups]
            hand_w = [h.weight[rows] for rows in groups]
            tasks = [(features, r, rows, i) for i, rows in enumerate(groups)]
        n_parents = len(tasks)
        cap = budget - n_parents + 1 if r else 0
        if kmax is not None and r:
            cap = min(cap, kmax)
        if kmax_factor is not None and r:
            cap = min(cap, max(1, math.ceil(kmax_factor * budget / n_parents)))
        tasks = [t + (hand_w[i], cap, random_state, n_init) for i, t in enumerate(tasks)]
        desc = f"round {r}: {n_parents} parent(s) -> {budget} buckets"
        out = _run(_parent_task, tasks, workers, progress, desc)
        points = [o[0] for o in out]
        n_distinct = [o[1] for o in out]
        report = {"round": r, "requested": budget, "parents": n_parents}
        if r == 0:
            children = np.array([min(budget, len(points[0]))])
        else:
            curves = [o[2][0] for o in out]
            alloc = allocate(curves, p, budget)
            naive = equal_split(curves, p, budget)
            children = alloc.children
            report.update(ip_objective=alloc.objective, equal_split_error=naive.objective)
        distinct = int(sum(n_distinct))
        # large parents were priced by the incremental Lloyd curve and not kept: their chosen
        # clustering is refined to convergence in a second parallel pass
        big = [i for i, pts in enumerate(points) if pts is None]
        refined = dict(zip(big, _run(_refine_task,
                                     [tasks[i][:5] + (out[i][2][1][int(children[i]) - 1],)
                                      for i in big], workers, progress, desc + " (refine)")))
        bucket = np.empty(0 if leaf else len(h), dtype=np.int32)
        parent_of_bucket, centroids, weight, count, mean_eq, ranges = [], [], [], [], [], []
        error = 0.0
        for i, (pts, k) in enumerate(zip(points, children)):
            if r == 0:
                labels, cents, sse = kmeans(pts, int(k), seed_for(random_state, r, i, int(k)),
                                            n_init)
                hand_labels = labels[pts.inverse]
            elif pts is None:
                hand_labels, cents, sse = refined[i]
            else:  # the clustering whose error the IP saw
                labels, cents, sse = assign(pts, out[i][2][1][int(k) - 1])
                hand_labels = labels[pts.inverse]
            error += float(p[i] * sse)
            kk = len(cents)
            w = np.bincount(hand_labels, weights=hand_w[i], minlength=kk)
            eq = np.bincount(hand_labels, weights=hand_w[i] * equity[i],
                             minlength=kk) / np.maximum(w, 1e-300)
            lo = np.full(kk, np.inf)
            hi = np.full(kk, -np.inf)
            np.minimum.at(lo, hand_labels, equity[i])
            np.maximum.at(hi, hand_labels, equity[i])
            # children ordered by mean equity (then centroid) so bucket ids read weak -> strong
            rank = np.lexsort(tuple(cents.T[::-1]) + (eq,))
            relabel = np.empty(kk, dtype=np.int64)
            relabel[rank] = np.arange(kk)
            if not leaf:
                bucket[groups[i]] = len(parent_of_bucket) + relabel[hand_labels]
            parent_of_bucket.extend([i if r else -1] * kk)
            centroids.extend(cents[rank])
            weight.append((w / max(w.sum(), 1e-300) * p[i])[rank])
            count.append(np.bincount(hand_labels, minlength=kk)[rank])
            mean_eq.append(eq[rank])
            ranges.append(np.stack([lo, hi], axis=1)[rank])
        built = len(parent_of_bucket)
        sizes = np.concatenate(count)
        report.update(built=built, error=error, distinct_hand_values=distinct,
                      sizes={"min": int(sizes.min()), "median": float(np.median(sizes)),
                             "mean": float(sizes.mean()), "max": int(sizes.max())},
                      seconds=round(time.perf_counter() - t0, 3))
        if leaf:
            report["sizes"]["unit"] = "distinct equity values"
        if built < budget:
            report["reason"] = (f"only {built} buckets possible: the hands have {distinct} "
                                "distinct feature values under their parents"
                                if distinct < budget else
                                f"the allocation IP used {built} of {budget} buckets")
        results.append(RoundResult(bucket, np.asarray(parent_of_bucket, dtype=np.int32),
                                   centroids, np.concatenate(weight), sizes.astype(np.int64),
                                   np.concatenate(mean_eq), np.concatenate(ranges), report))
        save_round(checkpoint, r, results[-1])
    return results


def _points(features, r, rows, i, weight) -> Points:
    if isinstance(rows, Points):  # a leaf round's (equity, probability) points
        return Points(features(rows.x), rows.w, np.arange(len(rows.w)))
    x = features(r, rows, i)
    if isinstance(x, Histograms):  # clustered under a distance other than L2
        return Points.from_hands(x.x, weight, metric=x.metric)
    return Points.from_hands(x, weight)


def _parent_task(features, *args):
    """Features of one parent's hands (or its leaf points), deduplicated, and the error curve.

    ``args`` is ``(r, rows, i, weight, cap, random_state, n_init)`` for hand rounds and
    ``(r, points, i, weight, cap, random_state, n_init)`` for a leaf round. Returns (points,
    number of distinct points, curve); the points are dropped (None) for large
    multi-dimensional parents (``is_large``), whose features are recomputed by ``_refine_task``
    rather than held for every parent at once.
    """
    r, rows, i, weight, cap, random_state, n_init = args
    pts = _points(features, r, rows, i, weight)
    curve = error_curve(pts, cap, random_state, (r, i), n_init) if cap else None
    return (None if cap and is_large(pts) else pts), len(pts), curve


def _refine_task(features, r, rows, i, weight, centroids):
    """Per-hand labels, centroids and error of a large parent's clustering: Lloyd's algorithm
    run to convergence from the centroids the allocation IP chose."""
    pts = _points(features, r, rows, i, weight)
    labels, cents, sse = refine_points(pts, centroids)
    return labels[pts.inverse], cents, sse


def _run(fn, tasks, workers, progress: bool, desc: str):
    """``fn(*task)`` for every task, each single-threaded (BLAS/OpenMP limited once per
    process, not per task: finding the thread pools costs ~16 ms, and a Texas build has
    thousands of tasks). ``workers == "dask"``: on the Dask cluster of the enclosing
    ``parallel_config(backend="dask")`` (:func:`build_tree`)."""
    if workers == "dask":
        # the feature callable (the round's hands, GiBs for Texas Hold'em) is the first item
        # of every task: scatter it to the workers once instead of shipping it with each task.
        # Scattered here under a fresh key (hash=False): joblib's own ``scatter=`` keys it by
        # content, so the next round's scatter of the same object could be dropped when the
        # previous round's futures were released ("lost dependencies", a flaky failure)
        if tasks:
            from distributed import get_client  # heavy; only with --scheduler

            shared = tasks[0][0]
            (future,) = get_client().scatter([shared], broadcast=True, hash=False)
            tasks = [(future, *t[1:]) if t[0] is shared else t for t in tasks]
        with parallel_config(backend="dask"):
            gen = Parallel(n_jobs=-1, return_as="generator")(delayed(fn)(*t) for t in tasks)
            return list(progress_bar(gen, total=len(tasks), desc=desc, disable=not progress,
                                     leave=False))
    if workers <= 1 or len(tasks) <= 1:
        with single_threaded():
            return [fn(*t) for t in progress_bar(tasks, desc=desc, disable=not progress, leave=False)]
    with parallel_config(backend="loky", inner_max_num_threads=1):
        gen = Parallel(n_jobs=workers, return_as="generator")(delayed(fn)(*t) for t in tasks)
        return list(progress_bar(gen, total=len(tasks), desc=desc, disable=not progress,
                         leave=False))
