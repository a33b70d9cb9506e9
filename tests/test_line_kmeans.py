"""k-means under EMD on a line with many centres (``abstraction.line_kmeans``) and the Texas
Hold'em imperfect-recall rounds it clusters: the pruned assignment is a full scan's, and a
built round's every hand sits in its EMD-nearest bucket."""

from __future__ import annotations

import numpy as np
import pytest

from abstraction import imperfect_recall
from abstraction._emd_kernels import emd_line_assign, emd_line_pairwise
from abstraction.emd import EMDLine
from abstraction.games import with_leaf_round
from abstraction.hands import GameHands, HandRound
from abstraction.line_kmeans import _quantile_seeds, assign, line_kmeans, row_means
from abstraction.methods import ExpectationBased, PotentialAwareEMD
from schema import progress


def histograms(rng, n, bins):
    x = rng.random((n, bins)) ** 4
    return x / x.sum(1, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_assignment_is_the_full_scan(dtype):
    rng = np.random.default_rng(0)
    line = EMDLine(np.sort(rng.random(12)))
    x = line.cdf(histograms(rng, 3000, 12)).astype(dtype)
    c = line.cdf(histograms(rng, 300, 12))
    c[150:160] = c[10:20]  # tied centres: the lower index wins, as in a full scan
    x[:10] = c[10:20]      # points on those centres
    labels, dist = assign(x, c, line.gaps)
    full = emd_line_pairwise(x.astype(np.float64), c, line.gaps)
    np.testing.assert_array_equal(labels, emd_line_assign(x.astype(np.float64), c, line.gaps))
    np.testing.assert_allclose(dist, full.min(axis=1), rtol=0, atol=1e-12)
    assert (labels[:10] == np.arange(10, 20)).all()
    # started from any centre (a Lloyd step starts from the previous one): the same result,
    # ties included (points on the tied centres started from the higher copy)
    start = rng.integers(0, len(c), len(x))
    start[:10] = np.arange(150, 160)
    again, dist2 = assign(x, c, line.gaps, start=start)
    np.testing.assert_array_equal(again, labels)
    np.testing.assert_allclose(dist2, dist, rtol=0, atol=1e-12)
    # rows whose mass is not 1 (float32 cumulative sums are off by far less): the bounds hold
    xm = x * (1.0 + 0.1 * rng.standard_normal(len(x)))[:, None].astype(dtype)
    np.testing.assert_array_equal(assign(xm, c, line.gaps)[0],
                                  emd_line_assign(xm.astype(np.float64), c, line.gaps))
    # the bound the scan stops on: means differ by at most the distance
    mu, cmu = row_means(x, line.gaps), row_means(c, line.gaps)
    assert (np.abs(mu[:, None] - cmu[None, :]) <= full + 1e-12).all()


def test_warm_started_steps_give_the_cold_scans_clustering():
    rng = np.random.default_rng(4)
    line = EMDLine.equity_bins(16)
    x = line.cdf(histograms(rng, 4000, 16)).astype(np.float32)
    w = rng.random(len(x))
    cold = line_kmeans(x, w / w.sum(), line.gaps, 90, max_iter=20, warm=False)
    warm = line_kmeans(x, w / w.sum(), line.gaps, 90, max_iter=20)
    np.testing.assert_array_equal(warm[0], cold[0])
    np.testing.assert_array_equal(warm[1], cold[1])
    assert warm[2:] == cold[2:]


def test_line_kmeans_returns_k_nonempty_clusters_each_point_at_its_nearest():
    rng = np.random.default_rng(1)
    line = EMDLine.equity_bins(20)
    x = line.cdf(histograms(rng, 5000, 20))
    w = rng.random(5000)
    w /= w.sum()
    labels, cents, err, steps = line_kmeans(x, w, line.gaps, 64)
    assert 1 <= steps <= 100
    assert cents.shape == (64, 20) and set(np.unique(labels)) == set(range(64))
    full = emd_line_pairwise(x, cents, line.gaps)
    np.testing.assert_allclose(full[np.arange(5000), labels], full.min(axis=1), atol=1e-12)
    assert err == pytest.approx(float(w @ full.min(axis=1)), rel=1e-12)
    # Lloyd from the quantile seeds lowers the seeds' own error
    seeds = x[_quantile_seeds(row_means(x, line.gaps), w, 64)]
    assert err < float(w @ emd_line_pairwise(x, seeds, line.gaps).min(axis=1))
    again = line_kmeans(x.astype(np.float32), w, line.gaps, 64)
    assert again[0].shape == labels.shape  # float32 rows are accepted (memory at full size)
    with pytest.raises(ValueError, match="at least 1"):
        line_kmeans(x, w, line.gaps, 0)


def test_line_kmeans_reports_its_steps_and_error(monkeypatch, capsys):
    monkeypatch.setattr(progress, "_forced", "log")
    rng = np.random.default_rng(2)
    line = EMDLine.equity_bins(10)
    x = line.cdf(histograms(rng, 800, 10))
    w = np.full(800, 1 / 800)
    quiet = line_kmeans(x, w, line.gaps, 16)
    assert capsys.readouterr().err == ""
    labels, _, err, steps = line_kmeans(x, w, line.gaps, 16, progress=True, desc="turn EMD")
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].split(" ", 1)[1].startswith("turn EMD: 0/100 step")
    assert f"{steps}/100 step" in lines[-1] and f"err={err:.6g}" in lines[-1]
    np.testing.assert_array_equal(labels, quiet[0])  # the bar does not change the result


def standin(seed=0, sizes=(30, 200, 600, 1500), bins=8):
    """Texas Hold'em's shape at toy size: next-round histograms on the early rounds, the river
    a ``LeafRound`` as ``holdem_hands`` gives it."""
    rng = np.random.default_rng(seed)
    rounds = []
    for r, n in enumerate(sizes):
        parent = np.full(n, -1) if r == 0 else np.concatenate(
            [np.arange(sizes[r - 1]), rng.integers(0, sizes[r - 1], n - sizes[r - 1])])
        w = rng.random(n)
        rounds.append(HandRound(weight=w / w.sum(), parent=parent,
                                equity=np.round(rng.random(n), 2),
                                histogram=histograms(rng, n, bins) if r < 3 else None))
    return with_leaf_round(GameHands("holdem", tuple(rounds)))


@pytest.mark.parametrize("large", [False, True])
def test_holdem_imperfect_emd_rounds_put_every_hand_in_its_emd_nearest_bucket(monkeypatch,
                                                                             large):
    """Preflop, flop, turn: all hands of the round at once by their next-round histogram under
    EMD on the bin centres (``line_kmeans`` when the round is large: forced here); river by
    equity, as imperfect ``eb`` builds it."""
    if large:
        monkeypatch.setattr(imperfect_recall, "EXACT_1D_CELLS", 0)
    game = standin()
    model = PotentialAwareEMD((10, 40, 60, 20), n_init=2, recall="imperfect").fit(game)
    assert model.buckets_ == (10, 40, 60, 20)
    assert [("lloyd_steps" in rep) for rep in model.report_] == [large] * 3 + [False]
    assert [rep["feature"] for rep in model.report_] == ["emd", "emd", "emd", "ehs"]
    bins = 8
    line = EMDLine.equity_bins(bins)
    for r in range(3):
        res, h = model.rounds_[r], game.rounds[r]
        assert (res.parent == -1).all()
        d = line.pairwise(h.histogram, np.asarray(res.centroids))
        np.testing.assert_allclose(d[np.arange(len(d)), res.bucket], d.min(axis=1), atol=1e-9)
        assert np.all(np.diff(res.mean_equity) >= 0)  # weak -> strong
    eb = ExpectationBased((10, 40, 60, 20), n_init=2, recall="imperfect").fit(game)
    np.testing.assert_array_equal(model.rounds_[3].mean_equity, eb.rounds_[3].mean_equity)
