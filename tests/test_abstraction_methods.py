"""Abstraction methods on Rhode Island Hold'em: tree structure, counts, seeds, lossless."""

from __future__ import annotations

import numpy as np
import pytest

from abstraction.games import rhode_island
from abstraction.methods import (ExpectationBased, ExpectationSquared, Lossless,
                                 PotentialAware, outcome_partition)

SMALL = (13, 25, 125)


@pytest.fixture(scope="module")
def game():
    return rhode_island()


def check_tree(game, model, requested=None):
    for r, res in enumerate(model.rounds_):
        h = game.rounds[r]
        assert res.bucket.shape == (len(h),)          # one bucket per hand
        assert res.bucket.min() == 0
        assert np.array_equal(np.unique(res.bucket), np.arange(res.n_buckets))
        assert len(res.centroids) == res.n_buckets
        if r == 0:
            assert np.all(res.parent == -1)
            continue
        # every bucket has exactly one parent: all its hands' parent hands share one bucket
        prev = model.rounds_[r - 1].bucket[h.parent]
        pairs = np.unique(np.stack([res.bucket, prev], axis=1), axis=0)
        assert len(pairs) == res.n_buckets
        assert np.array_equal(res.parent[pairs[:, 0]], pairs[:, 1])
    if requested is not None:
        for res, k in zip(model.rounds_, requested):
            assert res.n_buckets == k or (res.n_buckets < k and "reason" in res.report)


@pytest.mark.parametrize("cls", [ExpectationBased, ExpectationSquared, PotentialAware])
def test_small_abstractions(game, cls):
    m = cls(SMALL, random_state=0, n_init=2).fit(game)
    assert m.buckets_ == SMALL
    check_tree(game, m, SMALL)
    for rep in m.report_[1:]:
        assert rep["ip_objective"] <= rep["equal_split_error"] + 1e-15
    again = cls(SMALL, random_state=0, n_init=2).fit(game)
    for a, b in zip(m.rounds_, again.rounds_):
        assert np.array_equal(a.bucket, b.bucket) and np.array_equal(a.parent, b.parent)
    assert np.array_equal(m.bucket_of([0, 5, 9], 1), m.rounds_[1].bucket[[0, 5, 9]])


def test_fewer_buckets_with_reason(game):
    m = ExpectationBased((13, 205, 205), random_state=0, n_init=1).fit(game)
    check_tree(game, m, (13, 205, 205))
    assert m.buckets_[1] == 204  # EB cannot split hands of equal equity
    assert "distinct" in m.report_[1]["reason"]


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def test_lossless_counts(game, ri_lossless):
    m = ri_lossless  # Lossless().fit(game), shared with test_solve_lossless (conftest.py)
    # GameShrink's ordered game isomorphism; lossless with the public board visible, which
    # Lossless always sets (tests/test_solve_lossless.py checks that it is lossless so)
    assert m.buckets_ == (13, 205, 1774)
    assert m.public_board and m.params() == {"public_board": True}
    check_tree(game, m)
    for res, cls in zip(m.rounds_, outcome_partition(game)):
        assert same_partition(res.bucket, cls)


def test_potential_aware_finds_lossless_partition(game, ri_lossless):
    pa = PotentialAware((13, 205, 1774), random_state=3, n_init=1).fit(game)
    assert pa.buckets_ == (13, 205, 1774)
    for a, b in zip(pa.rounds_, ri_lossless.rounds_):
        assert same_partition(a.bucket, b.bucket)


def test_public_board_is_rhode_island_only():
    class HoldemLike:  # the parameter check needs only the game and its sizes
        game = "holdem"
        sizes = (169, 1_286_792, 13_960_050, 123_156_254)

    with pytest.raises(ValueError, match="public_board is implemented for rhode-island"):
        ExpectationBased((20, 800, 4800, 28800), public_board=True)._check_params(HoldemLike())


def test_workers_same_result(game):
    one = PotentialAware((13, 15, 20), random_state=1, n_init=1).fit(game)
    two = PotentialAware((13, 15, 20), random_state=1, n_init=1, workers=2).fit(game)
    for a, b in zip(one.rounds_, two.rounds_):
        assert np.array_equal(a.bucket, b.bucket)


@pytest.mark.parametrize("buckets, match", [
    ((13, 25), "3 counts"),
    ((13, 12, 125), "fewer than"),
    ((14, 25, 125), "more than the 13 hands"),
    ((13, 25, 0), "at least 1"),
])
def test_bad_buckets(game, buckets, match):
    with pytest.raises(ValueError, match=match):
        ExpectationBased(buckets).fit(game)


def test_lossless_rejects_too_few(game):
    with pytest.raises(ValueError, match="lossless"):
        Lossless(buckets=(13, 25, 125)).fit(game)


def test_error_curve_non_increasing():
    from abstraction.clustering import Points, error_curve

    rng = np.random.default_rng(0)
    x = np.round(rng.random((300, 2)), 2)
    pts = Points.from_hands(x, rng.random(300))
    curve, cents = error_curve(pts, 40, 0, (0,), 1)
    assert len(curve) == 40 and np.all(np.diff(curve) < 0)
    assert [len(c) for c in cents] == list(range(1, 41))


@pytest.mark.parametrize("cls", [ExpectationBased, PotentialAware])
def test_leaf_round_thresholds(game, cls):
    """A last round given per parent bucket (Texas river style) gives the same buckets as the
    hand-by-hand last round when the method clusters it on equity."""
    from abstraction.games import with_leaf_round

    full = ExpectationBased((13, 20, 60), random_state=0, n_init=1).fit(game)
    leafy = cls((13, 20, 60), random_state=0, n_init=1).fit(with_leaf_round(game))
    if cls is ExpectationBased:
        assert leafy.buckets_ == full.buckets_
        assert np.array_equal(leafy.rounds_[1].bucket, full.rounds_[1].bucket)
        assert np.array_equal(leafy.rounds_[2].parent, full.rounds_[2].parent)
        assert np.allclose(leafy.rounds_[2].ranges, full.rounds_[2].ranges)
        assert np.allclose(leafy.rounds_[2].weight, full.rounds_[2].weight)
    last = leafy.rounds_[2]
    assert len(last.bucket) == 0 and last.n_buckets == 60
    # buckets are disjoint equity intervals within each parent
    for b in range(leafy.buckets_[1]):
        rng = last.ranges[last.parent == b]
        assert np.all(rng[1:, 0] > rng[:-1, 1])


def test_exact_1d_kmeans():
    import itertools

    from abstraction.clustering import Points, error_curve, kmeans

    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(2, 9))
        x = np.sort(rng.random(n))
        w = rng.random(n)
        pts = Points.from_hands(x, w)
        curve, cents = error_curve(pts, n, 0, (0,), 1)
        for k in range(1, n + 1):
            best = np.inf  # brute force over contiguous splits (optimal in 1-D)
            for cuts in itertools.combinations(range(1, n), k - 1):
                err = 0.0
                for seg in np.split(np.arange(n), cuts):
                    ww, xx = pts.w[seg], pts.x[seg, 0]
                    err += ww @ (xx - ww @ xx / ww.sum()) ** 2
                best = min(best, err)
            assert curve[k - 1] == pytest.approx(best, rel=1e-9, abs=1e-15)
    x = rng.random((500, 1))
    pts = Points.from_hands(x, rng.random(500))
    for k in (3, 10, 40):  # never worse than Lloyd from k-means++
        from sklearn.cluster import KMeans
        km = KMeans(k, n_init=4, random_state=0).fit(pts.x, sample_weight=pts.w)
        assert kmeans(pts, k, 0, 1)[2] <= km.inertia_ * (1 + 1e-9)
