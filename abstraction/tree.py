"""The shared abstraction-tree builder: k-means per parent bucket + the allocation IP.

Gilpin & Sandholm's top-down construction (AAAI 2006 section 3; AAAI 2007 "Better automated
abstraction techniques..."; DESIGN.md section 4): round 0 is clustered into K_0 buckets. For
every later round r and every round-(r-1) bucket i, the hands whose parent hand lies in bucket
i are clustered for k = 1..kmax_i, giving the error curve c[i, k]; the 0-1 integer program of
``abstraction.allocation`` picks how many children each bucket gets within the budget K_r,
and the parent's hands are then clustered with that k. A round-r bucket therefore has exactly
one parent (perfect recall). Methods differ only in the feature a hand is clustered on, given
as a callable ``features(r, rows, parent_bucket) -> array (len(rows), d)``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from tqdm import tqdm

from abstraction.allocation import allocate, equal_split
from abstraction.clustering import (Points, assign, error_curve, kmeans, seed_for,
                                   single_threaded)
from abstraction.hands import GameHands

FeatureFn = Callable[[int, np.ndarray, int], np.ndarray]


@dataclass
class RoundResult:
    """One round of a built abstraction.

    Attributes:
        bucket: bucket id of every hand of the round (0 .. K_r-1).
        parent: parent bucket (round r-1) of every bucket; -1 in round 0.
        centroids: the k-means centroid of every bucket (in its parent's feature space).
        report: requested/built bucket counts, reason when fewer, IP objective, the error of
            an equal split, bucket size distribution, seconds.
    """

    bucket: np.ndarray
    parent: np.ndarray
    centroids: list[np.ndarray]
    report: dict = field(default_factory=dict)

    @property
    def n_buckets(self) -> int:
        return len(self.parent)


def build_tree(hands: GameHands, buckets: Sequence[int], features: FeatureFn, *,
               random_state: int = 0, n_init: int = 4, kmax: int | None = None,
               workers: int = 1, progress: bool = False) -> list[RoundResult]:
    """Build the bucket tree round by round (see module docstring).

    Args:
        hands: the game's hand tree.
        buckets: K_r per round (totals, not per parent).
        features: the method's feature callable (must pickle when ``workers > 1``).
        random_state: seed of every k-means run (each run derives its own seed from it).
        n_init: k-means restarts per run.
        kmax: cap on children per parent (default: the most any parent could get,
            ``K_r - P + 1``, and never more than the parent's distinct feature rows).
        workers: processes for the per-parent work.
        progress: show a progress bar per round.
    """
    with single_threaded():
        return _build(hands, buckets, features, random_state, n_init, kmax, workers, progress)


def _build(hands, buckets, features, random_state, n_init, kmax, workers, progress):
    results: list[RoundResult] = []
    for r in range(len(hands.rounds)):
        t0 = time.perf_counter()
        h = hands.rounds[r]
        if r == 0:
            groups = [np.arange(len(h))]
        else:
            parent_bucket = results[-1].bucket[h.parent]
            order = np.argsort(parent_bucket, kind="stable")
            cuts = np.searchsorted(parent_bucket[order], np.arange(results[-1].n_buckets + 1))
            groups = [np.sort(order[cuts[i]:cuts[i + 1]]) for i in range(results[-1].n_buckets)]
        budget = int(buckets[r])
        n_parents = len(groups)
        cap = budget - n_parents + 1 if r else budget
        if kmax is not None and r:
            cap = min(cap, kmax)
        tasks = [(features, r, rows, i, cap if r else 0, h.weight[rows], random_state, n_init)
                 for i, rows in enumerate(groups)]
        desc = f"round {r}: {n_parents} parent(s) -> {budget} buckets"
        out = _run(tasks, workers, progress, desc)
        points = [o[0] for o in out]
        p = np.array([h.weight[rows].sum() for rows in groups])
        report = {"round": r, "requested": budget, "parents": n_parents}
        if r == 0:
            children = np.array([min(budget, len(points[0]))])
        else:
            curves = [o[1][0] for o in out]
            alloc = allocate(curves, p, budget)
            naive = equal_split(curves, p, budget)
            children = alloc.children
            report.update(ip_objective=alloc.objective, equal_split_error=naive.objective)
        distinct = int(sum(len(pt) for pt in points))
        bucket = np.empty(len(h), dtype=np.int32)
        parent_of_bucket, centroids = [], []
        error = 0.0
        for i, (rows, pts, k) in enumerate(zip(groups, points, children)):
            if r == 0:
                labels, cents, sse = kmeans(pts, int(k), seed_for(random_state, r, i, int(k)),
                                            n_init)
            else:  # the clustering whose error the IP saw
                labels, cents, sse = assign(pts, out[i][1][1][int(k) - 1])
            error += float(p[i] * sse)
            hand_labels = labels[pts.inverse]
            w = np.bincount(hand_labels, weights=h.weight[rows], minlength=len(cents))
            eq = np.bincount(hand_labels, weights=h.weight[rows] * h.equity[rows],
                             minlength=len(cents)) / np.maximum(w, 1e-300)
            # children ordered by mean equity (then centroid) so bucket ids read weak -> strong
            rank = np.lexsort(tuple(cents.T[::-1]) + (eq,))
            relabel = np.empty(len(rank), dtype=np.int64)
            relabel[rank] = np.arange(len(rank))
            bucket[rows] = len(parent_of_bucket) + relabel[hand_labels]
            parent_of_bucket.extend([i if r else -1] * len(rank))
            centroids.extend(cents[rank])
        built = len(parent_of_bucket)
        sizes = np.bincount(bucket, minlength=built)
        report.update(built=built, error=error, distinct_hand_values=distinct,
                      sizes={"min": int(sizes.min()), "median": float(np.median(sizes)),
                             "mean": float(sizes.mean()), "max": int(sizes.max())},
                      seconds=round(time.perf_counter() - t0, 3))
        if built < budget:
            report["reason"] = (f"only {built} buckets possible: the hands have {distinct} "
                                "distinct feature values under their parents"
                                if distinct < budget else
                                f"the allocation IP used {built} of {budget} buckets")
        results.append(RoundResult(bucket, np.asarray(parent_of_bucket, dtype=np.int32),
                                   centroids, report))
    return results


def _parent_task(features: FeatureFn, r: int, rows: np.ndarray, i: int, cap: int,
                 weight: np.ndarray, random_state: int, n_init: int):
    with single_threaded():  # also in worker processes
        pts = Points.from_hands(features(r, rows, i), weight)
        curve = error_curve(pts, cap, random_state, (r, i), n_init) if cap else None
    return pts, curve


def _run(tasks, workers: int, progress: bool, desc: str):
    if workers <= 1 or len(tasks) == 1:
        return [_parent_task(*t) for t in tqdm(tasks, desc=desc, disable=not progress,
                                               leave=False)]
    from joblib import Parallel, delayed

    gen = Parallel(n_jobs=workers, return_as="generator")(delayed(_parent_task)(*t)
                                                          for t in tasks)
    return list(tqdm(gen, total=len(tasks), desc=desc, disable=not progress, leave=False))
