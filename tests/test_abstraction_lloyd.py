"""Incremental Lloyd error curves (abstraction/lloyd.py) and the tree's large-parent path."""

import numpy as np
import pytest

from abstraction import clustering
from abstraction.lloyd import incremental_curve, refine


def _blobs(seed=0, n=3000, d=6, k=5):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 10, size=(k, d))
    lab = rng.integers(0, k, n)
    x = centres[lab] + rng.normal(scale=0.05, size=(n, d))
    w = rng.uniform(0.5, 1.5, n)
    return x, w / w.sum(), lab, centres


def _sse(x, w, labels):
    k = labels.max() + 1
    ws = np.bincount(labels, weights=w, minlength=k)
    c = np.stack([np.bincount(labels, weights=w * x[:, j], minlength=k) for j in
                  range(x.shape[1])], axis=1) / ws[:, None]
    return float(w @ ((x - c[labels]) ** 2).sum(axis=1))


def test_curve_is_non_increasing_and_each_error_is_its_clustering():
    x, w, _, _ = _blobs()
    curve, cents = incremental_curve(x, w, 12, seed=3)
    assert len(curve) == len(cents) == 12
    assert all(len(c) == k + 1 for k, c in enumerate(cents))
    assert np.all(np.diff(curve) <= 1e-12 * curve[0])
    # k = 1: the weighted variance, exactly
    assert curve[0] == pytest.approx(_sse(x, w, np.zeros(len(x), int)), rel=1e-9)
    # every reported error is the error of assigning the points to its centroids
    for k in (2, 5, 9):
        d2 = ((x[:, None, :] - cents[k - 1][None, :, :]) ** 2).sum(axis=2).min(axis=1)
        assert curve[k - 1] == pytest.approx(float(w @ d2), rel=1e-6)


def test_curve_finds_well_separated_clusters_and_refine_converges():
    x, w, lab, _ = _blobs()
    curve, cents = incremental_curve(x, w, 8, seed=1)
    truth = _sse(x, w, lab)
    assert curve[4] == pytest.approx(truth, rel=1e-3)  # k = 5 recovers the 5 blobs
    assert curve[3] > 10 * truth  # k = 4 cannot
    labels, c, err = refine(x, w, cents[4])
    assert err <= curve[4] * (1 + 1e-9)
    assert err == pytest.approx(_sse(x, w, labels), rel=1e-6)
    assert len(c) == 5 and sorted(np.bincount(labels)) == sorted(np.bincount(lab))


def test_curve_is_seeded_and_capped_by_distinct_points():
    x, w, _, _ = _blobs(n=40)
    a = incremental_curve(x, w, 100, seed=7)
    b = incremental_curve(x, w, 100, seed=7)
    assert np.array_equal(a[0], b[0])
    assert len(a[0]) <= 40


def test_tree_large_parent_path_matches_contract(monkeypatch):
    """With every multi-dimensional parent 'large', a potential-aware build still gives every
    hand one bucket, the requested counts, one parent per bucket, and the same result twice."""
    from abstraction.games import rhode_island
    from abstraction.methods import PotentialAware

    monkeypatch.setattr(clustering, "LARGE", 8)
    hands = rhode_island()
    fits = [PotentialAware(buckets=(13, 50, 250), random_state=0, n_init=1).fit(hands)
            for _ in range(2)]
    pa = fits[0]
    assert pa.buckets_ == (13, 50, 250)
    for r, res in enumerate(pa.rounds_):
        if len(res.bucket):
            assert res.bucket.min() == 0 and res.bucket.max() == res.n_buckets - 1
        if r:
            assert set(np.unique(res.parent)) == set(range(pa.rounds_[r - 1].n_buckets))
        assert np.array_equal(res.bucket, fits[1].rounds_[r].bucket)
    assert pa.rounds_[1].report["ip_objective"] >= pa.rounds_[1].report["error"] * (1 - 1e-9)


def test_points_hash_dedupe_equals_sorting_dedupe():
    from abstraction._points_kernels import dedupe_sorted, row_hashes
    from abstraction.clustering import LARGE, Points

    rng = np.random.default_rng(5)
    base = rng.dirichlet(np.ones(7), size=300)
    base[:3] = 0.0
    base[1, 0] = -0.0  # rounds and compares equal to 0.0
    rows = rng.integers(0, 300, size=LARGE + 500)
    x = base[rows]
    w = rng.uniform(size=len(x))
    pts = Points.from_hands(x, w)  # hash path (more than LARGE rows)
    uniq, inv = np.unique(np.round(x, 12) + 0.0, axis=0, return_inverse=True)
    inv = inv.ravel()
    assert len(pts) == len(uniq)
    # the same partition of the hands, the same rows and the same summed weights
    pairs = set(zip(pts.inverse.tolist(), inv.tolist()))
    assert len(pairs) == len(uniq)
    m = dict(pairs)
    assert np.array_equal(pts.x, uniq[[m[i] for i in range(len(pts))]])
    ws = np.bincount(inv, weights=w) / w.sum()
    assert np.allclose(pts.w, ws[[m[i] for i in range(len(pts))]])
    # every hash equal (all collide): rows are still told apart by exact comparison
    bits = np.ascontiguousarray(np.round(x, 12) + 0.0).view(np.uint64)
    h0 = np.zeros(len(x), np.uint64)
    inverse, first = dedupe_sorted(bits, np.arange(len(x)), h0)
    assert len(first) == len(uniq)
    assert len(set(zip(inverse.tolist(), inv.tolist()))) == len(uniq)
    assert len(row_hashes(bits)) == len(x)
