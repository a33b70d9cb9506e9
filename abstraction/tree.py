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
    """:func:`build_tree`'s rounds in order: each loaded from ``checkpoint`` if an earlier run
    saved it there, else built (:func:`_build_round`) and saved."""
    results: list[RoundResult] = []
    for r in range(len(hands.sizes)):
        saved = load_round(checkpoint, r)
        if isinstance(saved, RoundResult):
            if progress:
                print(f"round {r}: {saved.n_buckets} buckets resumed from {checkpoint}",
                      file=sys.stderr, flush=True)
            results.append(saved)
            continue
        results.append(_build_round(hands, r, int(buckets[r]), results[-1] if r else None,
                                    features, random_state, n_init, kmax, kmax_factor, workers,
                                    progress))
        save_round(checkpoint, r, results[-1])
    return results


@dataclass
class _Parents:
    """One round's hands grouped by parent bucket (round 0: one group of all hands).

    Attributes:
        leaf: the round is a leaf round (``LeafRound``): each parent holds (equity,
            probability) points, not hands, and the round has no per-hand buckets.
        n_hands: hands of the round (0 in a leaf round).
        groups: per parent, the rows of its hands (None in a leaf round).
        p: probability of each parent.
        equity, hand_w: per parent, the equity and the weight of each of its hands (points).
        tasks: per parent, ``(features, r, rows or points, i)``: the start of its
            ``_parent_task``.
    """

    leaf: bool
    n_hands: int
    groups: list
    p: np.ndarray
    equity: list
    hand_w: list
    tasks: list


def _build_round(hands, r, budget, prev, features, random_state, n_init, kmax, kmax_factor,
                 workers, progress) -> RoundResult:
    """Round ``r`` with ``budget`` buckets under the previous round ``prev`` (None in round
    0): every parent's error curve, the allocation IP, then every parent clustered with the
    number of children the IP gave it (module docstring)."""
    t0 = time.perf_counter()
    par = _parents(hands, r, prev, features)
    n_parents = len(par.tasks)
    cap = _children_cap(r, budget, n_parents, kmax, kmax_factor)
    tasks = [t + (par.hand_w[i], cap, random_state, n_init) for i, t in enumerate(par.tasks)]
    desc = f"round {r}: {n_parents} parent(s) -> {budget} buckets"
    out = _run(_parent_task, tasks, workers, progress, desc)
    report = {"round": r, "requested": budget, "parents": n_parents}
    children = _allocate_children(r, budget, out, par.p, report)
    distinct = int(sum(o[1] for o in out))
    refined = _refine_large(tasks, out, children, workers, progress, desc)
    result, error = _cluster_parents(r, par, out, children, refined, random_state, n_init)
    result.report = _round_report(report, result, budget, distinct, error, par.leaf, t0)
    return result


def _parents(hands: GameHands, r: int, prev: RoundResult | None, features) -> _Parents:
    """Round ``r``'s hands grouped by their parent's bucket in ``prev``, or, in the leaf
    round, each parent's (equity, probability) points."""
    if r == len(hands.rounds):  # the last round given per parent bucket (LeafRound)
        raw, p = hands.leaf.points(prev.bucket)
        leaf = features.leaf_transform  # one bound method for all tasks (scattered once)
        return _Parents(leaf=True, n_hands=0, groups=[None] * len(raw), p=p,
                        equity=[pt.x[:, 0] for pt in raw], hand_w=[pt.w for pt in raw],
                        tasks=[(leaf, r, pt, i) for i, pt in enumerate(raw)])
    h = hands.rounds[r]
    if r == 0:
        groups = [np.arange(len(h))]
    else:
        parent_bucket = prev.bucket[h.parent]
        order = np.argsort(parent_bucket, kind="stable")
        cuts = np.searchsorted(parent_bucket[order], np.arange(prev.n_buckets + 1))
        groups = [np.sort(order[cuts[i]:cuts[i + 1]]) for i in range(prev.n_buckets)]
    return _Parents(leaf=False, n_hands=len(h), groups=groups,
                    p=np.array([h.weight[rows].sum() for rows in groups]),
                    equity=[h.equity[rows] for rows in groups],
                    hand_w=[h.weight[rows] for rows in groups],
                    tasks=[(features, r, rows, i) for i, rows in enumerate(groups)])


def _children_cap(r: int, budget: int, n_parents: int, kmax: int | None,
                  kmax_factor: float | None) -> int:
    """The most children a parent's error curve is priced for (0 in round 0: no curve, the
    one parent gets the whole budget)."""
    cap = budget - n_parents + 1 if r else 0
    if kmax is not None and r:
        cap = min(cap, kmax)
    if kmax_factor is not None and r:
        cap = min(cap, max(1, math.ceil(kmax_factor * budget / n_parents)))
    return cap


def _allocate_children(r: int, budget: int, out: list, p: np.ndarray,
                       report: dict) -> np.ndarray:
    """Children of each parent: in round 0 the budget (at most the distinct points), later
    the allocation IP's choice over the parents' error curves (its objective and that of an
    equal split go into ``report``)."""
    if r == 0:
        return np.array([min(budget, len(out[0][0]))])
    curves = [o[2][0] for o in out]
    alloc = allocate(curves, p, budget)
    naive = equal_split(curves, p, budget)
    report.update(ip_objective=alloc.objective, equal_split_error=naive.objective)
    return alloc.children


def _refine_large(tasks: list, out: list, children: np.ndarray, workers, progress: bool,
                  desc: str) -> dict:
    """Parent index -> (hand labels, centroids, error) of every large parent: those priced by
    the incremental Lloyd curve and not kept have their chosen clustering refined to
    convergence in a second parallel pass."""
    big = [i for i, o in enumerate(out) if o[0] is None]
    return dict(zip(big, _run(_refine_task,
                              [tasks[i][:5] + (out[i][2][1][int(children[i]) - 1],)
                               for i in big], workers, progress, desc + " (refine)")))


def _cluster_parent(r: int, i: int, pts, k, curve, refined: dict, random_state: int,
                    n_init: int):
    """(hand labels, centroids, error) of parent ``i`` split into ``k`` children: clustered
    here in round 0, refined already for a large parent, else the clustering on the error
    ``curve`` whose error the IP saw."""
    if r == 0:
        labels, cents, sse = kmeans(pts, int(k), seed_for(random_state, r, i, int(k)), n_init)
        return labels[pts.inverse], cents, sse
    if pts is None:
        return refined[i]
    labels, cents, sse = assign(pts, curve[1][int(k) - 1])
    return labels[pts.inverse], cents, sse


def _ordered_children(hand_labels: np.ndarray, cents: np.ndarray, hand_w: np.ndarray,
                      equity: np.ndarray, p_parent: float):
    """One parent's children ordered by mean equity (then centroid) so bucket ids read
    weak -> strong: the new id of each cluster label and, in the new order, the centroids,
    probabilities, hand counts, mean equities and (least, greatest) equities."""
    kk = len(cents)
    w = np.bincount(hand_labels, weights=hand_w, minlength=kk)
    eq = np.bincount(hand_labels, weights=hand_w * equity, minlength=kk) / np.maximum(w, 1e-300)
    lo = np.full(kk, np.inf)
    hi = np.full(kk, -np.inf)
    np.minimum.at(lo, hand_labels, equity)
    np.maximum.at(hi, hand_labels, equity)
    rank = np.lexsort(tuple(cents.T[::-1]) + (eq,))
    relabel = np.empty(kk, dtype=np.int64)
    relabel[rank] = np.arange(kk)
    return (relabel, cents[rank], (w / max(w.sum(), 1e-300) * p_parent)[rank],
            np.bincount(hand_labels, minlength=kk)[rank], eq[rank],
            np.stack([lo, hi], axis=1)[rank])


def _cluster_parents(r: int, par: _Parents, out: list, children: np.ndarray, refined: dict,
                     random_state: int, n_init: int) -> tuple[RoundResult, float]:
    """Every parent split into its children, the round's buckets numbered parent by parent;
    the round (its report still empty) and its error (the parents' errors weighted by their
    probabilities)."""
    bucket = np.empty(par.n_hands, dtype=np.int32)
    parent_of_bucket, centroids, weight, count, mean_eq, ranges = [], [], [], [], [], []
    error = 0.0
    for i, k in enumerate(children):
        hand_labels, cents, sse = _cluster_parent(r, i, out[i][0], k, out[i][2], refined,
                                                  random_state, n_init)
        error += float(par.p[i] * sse)
        relabel, cents, w, n, eq, rng = _ordered_children(hand_labels, cents, par.hand_w[i],
                                                          par.equity[i], par.p[i])
        if not par.leaf:
            bucket[par.groups[i]] = len(parent_of_bucket) + relabel[hand_labels]
        parent_of_bucket.extend([i if r else -1] * len(cents))
        centroids.extend(cents)
        weight.append(w)
        count.append(n)
        mean_eq.append(eq)
        ranges.append(rng)
    result = RoundResult(bucket, np.asarray(parent_of_bucket, dtype=np.int32), centroids,
                         np.concatenate(weight), np.concatenate(count).astype(np.int64),
                         np.concatenate(mean_eq), np.concatenate(ranges), {})
    return result, error


def _round_report(report: dict, result: RoundResult, budget: int, distinct: int,
                  error: float, leaf: bool, t0: float) -> dict:
    """``report`` completed: buckets built, error, distinct feature values, the bucket size
    distribution, seconds since ``t0`` and, when fewer buckets than asked, why."""
    built = result.n_buckets
    sizes = result.hands
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
    return report


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
            from distributed import get_client  # heavy; only with a scheduler

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
