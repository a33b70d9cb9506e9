"""Earth mover's distance, k-means under it, OCHS features, and the pa-emd / ochs methods
(issue 20) checked against brute force: EMD against the transport linear program solved
directly, OCHS vectors against enumerating the opponent's cards, the builds' tree structure."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from abstraction import clustering
from abstraction.emd import L1, EMDGround, EMDLine, Euclidean, emd
from abstraction.games import rhode_island
from abstraction.hands import GameHands
from abstraction.methods import OpponentClusterHandStrength, PotentialAwareEMD
from abstraction.lloyd import LineEMD, incremental_curve
from abstraction.metric_kmeans import assign, error_curve, kmeans, lloyd
from abstraction.ochs import ochs_vectors, opponent_clusters
from etl.rhode_island import hand_rank3, hand_tree

SMALL = (13, 25, 125)


def transport_lp(p: np.ndarray, q: np.ndarray, ground: np.ndarray) -> float:
    """min sum_ab f_ab ground_ab  s.t.  sum_b f_ab = p_a, sum_a f_ab = q_b, f >= 0."""
    d = len(p)
    rows = np.zeros((2 * d, d * d))
    for a in range(d):
        rows[a, a * d:(a + 1) * d] = 1.0
        rows[d + a, a::d] = 1.0
    res = linprog(ground.ravel(), A_eq=rows, b_eq=np.concatenate([p, q]), bounds=(0, None),
                  method="highs")
    assert res.status == 0
    return float(res.fun)


def random_histograms(rng, n, d, zeros=True):
    x = rng.random((n, d)) ** 3
    if zeros:
        x[rng.random((n, d)) < 0.3] = 0.0
        x[:, 0] += 1e-3  # no empty row
    return x / x.sum(axis=1, keepdims=True)


def test_line_emd_equals_the_transport_lp():
    rng = np.random.default_rng(20)
    for d in (1, 2, 3, 7, 12):
        pos = rng.random(d)  # unsorted support on a line
        ground = np.abs(pos[:, None] - pos[None, :])
        x, c = random_histograms(rng, 6, d), random_histograms(rng, 4, d)
        got = EMDLine(pos).pairwise(x, c)
        want = np.array([[transport_lp(p, q, ground) for q in c] for p in x])
        np.testing.assert_allclose(got, want, atol=1e-9)
        np.testing.assert_allclose(EMDLine(pos).ground(c), EMDLine(pos).ground(c).T, atol=1e-12)


def test_ground_emd_equals_the_transport_lp():
    rng = np.random.default_rng(21)
    for d in (2, 5, 9):
        pts = rng.random((d, 2))
        ground = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
        x, c = random_histograms(rng, 5, d), random_histograms(rng, 3, d)
        got = EMDGround(ground).pairwise(x, c)
        want = np.array([[transport_lp(p, q, ground) for q in c] for p in x])
        np.testing.assert_allclose(got, want, atol=1e-9)
        assert emd(x[0], c[1], ground) == pytest.approx(want[0, 1], abs=1e-9)
        g = EMDGround(ground).ground(c)
        assert np.allclose(g, g.T) and np.all(np.diag(g) == 0)


def test_ground_emd_is_pots_emd2_to_the_last_bit():
    """``EMDGround`` calls POT's network simplex directly (``ot.emd2``'s checks cost 80% of a
    call): every distance is the one ``ot.emd2`` gives, bit for bit, including histograms
    with empty bins on either side and of unequal rounding in their sums."""
    import ot

    rng = np.random.default_rng(23)
    for d in (1, 3, 25, 60):
        pts = rng.random((d, 3))
        ground = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
        x, c = random_histograms(rng, 30, d), random_histograms(rng, 7, d) * 3.0
        got = EMDGround(ground).pairwise(x, c)
        for i, p in enumerate(x):
            for j, q in enumerate(c):
                sp, sq = p > 0, q > 0
                a, b = p[sp], q[sq]
                want = ot.emd2(a / a.sum(), b / b.sum(), ground[np.ix_(sp, sq)])
                assert got[i, j] == want


def test_euclidean_ground_is_the_distance_between_centres():
    c = np.array([[0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(Euclidean().ground(c), [[0, 5], [5, 0]])


def test_kmeans_under_emd_assigns_to_the_lp_nearest_centre_and_reports_its_cost():
    rng = np.random.default_rng(22)
    d = 6
    pts = rng.random((d, 2))
    ground = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    metric = EMDGround(ground)
    x = random_histograms(rng, 14, d)
    w = rng.random(14)
    w /= w.sum()
    labels, centres, cost = kmeans(x, w, metric, 3, seed=5, n_init=2)
    lp = np.array([[transport_lp(p, q, ground) for q in centres] for p in x])
    assert np.allclose(lp[np.arange(len(x)), labels], lp.min(axis=1), atol=1e-9)
    assert cost == pytest.approx(float(w @ lp.min(axis=1)), abs=1e-9)
    # each centre is the weighted mean histogram of its cluster (the published update), or
    # the clustering is the assignment to centres of the run's best earlier step
    lab2, _, cost2 = assign(x, w, metric, centres)
    assert cost2 == pytest.approx(cost) and np.array_equal(lab2, labels)
    curve, cents = error_curve(x, w, metric, 14, lambda k: 100 + k, n_init=2)
    assert np.all(np.diff(curve) <= 1e-12) and curve[-1] == 0.0
    again = kmeans(x, w, metric, 3, seed=5, n_init=2)
    assert np.array_equal(again[0], labels)  # seeded


def test_ochs_vectors_equal_enumeration_over_the_opponent_cards():
    tree = hand_tree()
    cards = tree[2].cards.astype(np.int64)
    k = 5
    cluster = opponent_clusters(k)
    assert sorted(set(cluster.tolist())) == list(range(k))
    vec = ochs_vectors(cluster)
    assert vec.shape == (len(cards), k)
    rng = np.random.default_rng(23)
    for i in rng.choice(len(cards), 150, replace=False):
        own = [int(c) for c in cards[i]]
        mine = int(hand_rank3(np.array([own]))[0])
        total = np.zeros(k)
        count = np.zeros(k)
        for o in range(52):
            if o in own:
                continue
            theirs = int(hand_rank3(np.array([[o, own[1], own[2]]]))[0])
            j = cluster[o // 4]
            total[j] += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            count[j] += 1
        np.testing.assert_allclose(vec[i], total / count, atol=1e-12)
    # weighted by the opponent cards of each cluster, the vector is the hand's exact equity
    # (the ETL's independent win/tie/loss counts)
    n_cards = np.zeros((len(cards), k))
    for o in range(52):
        n_cards[(cards != o).all(axis=1), cluster[o // 4]] += 1
    np.testing.assert_allclose((vec * n_cards).sum(1) / 49, tree[2].equity, atol=1e-12)


def test_thirteen_opponent_clusters_are_the_ranks_in_order():
    assert np.array_equal(opponent_clusters(13), np.arange(13))


def check_nested(game, model, requested):
    for r, res in enumerate(model.rounds_):
        assert res.bucket.shape == (len(game.rounds[r]),)
        assert np.array_equal(np.unique(res.bucket), np.arange(res.n_buckets))
        if r:
            prev = model.rounds_[r - 1].bucket[game.rounds[r].parent]
            pairs = np.unique(np.stack([res.bucket, prev], axis=1), axis=0)
            assert len(pairs) == res.n_buckets  # perfect recall: one parent per bucket
            assert np.array_equal(res.parent[pairs[:, 0]], pairs[:, 1])
            assert res.report["ip_objective"] <= res.report["equal_split_error"] + 1e-15
    assert model.buckets_ == requested


@pytest.mark.parametrize("cls", [PotentialAwareEMD, OpponentClusterHandStrength])
def test_rhode_island_builds(cls):
    game = rhode_island()
    model = cls(SMALL, random_state=0, n_init=1).fit(game)
    check_nested(game, model, SMALL)


def test_emd_feature_is_seeded_and_sums_to_one():
    game = rhode_island()
    m = PotentialAwareEMD(SMALL, random_state=3, n_init=1)
    feat = m._features(game, SMALL)
    rows = np.flatnonzero(game.rounds[1].parent == 12)  # the aces' flop hands
    a, b = feat(1, rows, 12), feat(1, rows, 12)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.metric.matrix, b.metric.matrix)
    np.testing.assert_allclose(a.x.sum(axis=1), 1.0)
    g = a.metric.matrix
    assert g.shape == (a.x.shape[1],) * 2 and np.allclose(g, g.T) and np.all(np.diag(g) == 0)


def test_ochs_needs_its_games_hands():
    """Texas Hold'em OCHS (tests/test_abstraction_holdem_ochs.py) needs the Hold'em adapter's
    hands; other games are refused."""
    game = rhode_island()
    with pytest.raises(ValueError, match="holdem_hands"):
        OpponentClusterHandStrength(SMALL).fit(GameHands("holdem", game.rounds))
    with pytest.raises(ValueError, match="implemented for holdem and rhode-island"):
        OpponentClusterHandStrength(SMALL).fit(GameHands("leduc", game.rounds))


def test_incremental_line_emd_curve_prices_each_k_by_its_nearest_centre_distances():
    """The large-parent path under EMD on a line: cumulative rows, gap-weighted L1."""
    rng = np.random.default_rng(24)
    bins = 12
    metric = EMDLine.equity_bins(bins)
    base = random_histograms(rng, 6, bins, zeros=False)
    x = base[rng.integers(0, 6, 1500)] + 0.01 * rng.random((1500, bins))
    x /= x.sum(axis=1, keepdims=True)
    w = rng.random(1500)
    w /= w.sum()
    pts = clustering.Points.from_hands(x, w, metric=metric)
    curve, cents = incremental_curve(metric.cdf(pts.x), pts.w, 10, seed=2, dist=LineEMD(metric.gaps))
    assert np.all(np.diff(curve) <= 1e-12)
    for k in (1, 4, 8):
        c = metric.from_cdf(cents[k - 1])
        np.testing.assert_allclose(c.sum(axis=1), 1.0)
        assert curve[k - 1] == pytest.approx(float(pts.w @ metric.pairwise(pts.x, c).min(1)),
                                             rel=1e-9)
    labels, c, err = clustering.refine_points(pts, metric.from_cdf(cents[5]))
    assert err <= curve[5] * (1 + 1e-9)
    d = metric.pairwise(pts.x, c)
    assert np.array_equal(labels, d.argmin(axis=1))
    assert err == pytest.approx(float(pts.w @ d.min(axis=1)), rel=1e-9)


def test_pa_emd_large_parent_path_gives_a_nested_tree(monkeypatch):
    """Every multi-dimensional EMD-on-a-line parent priced incrementally (as Texas Hold'em's
    flop and turn parents are): still one parent per bucket, the requested counts, seeded."""
    monkeypatch.setattr(clustering, "LARGE", 8)
    game = rhode_island()
    fits = [PotentialAwareEMD((13, 25, 125), random_state=0, n_init=1).fit(game)
            for _ in range(2)]
    check_nested(game, fits[0], (13, 25, 125))
    for a, b in zip(fits[0].rounds_, fits[1].rounds_):
        assert np.array_equal(a.bucket, b.bucket)


def _full_scan_lloyd(x, w, metric, centres, max_iter=100):
    """Lloyd with every distance computed (the definition the bounded Lloyd must match)."""
    def settle(c):
        d = metric.pairwise(x, c)
        lab = d.argmin(axis=1)
        used, lab = np.unique(lab, return_inverse=True)
        return lab.ravel(), c[used], float(w @ d.min(axis=1))
    lab, c, cost = settle(centres)
    steps = [(lab, c, cost)]  # every assignment met; the best (first of equals) is the result
    for _ in range(max_iter):
        ws = np.bincount(lab, weights=w, minlength=len(c))
        new = c.copy()
        for j in np.flatnonzero(ws > 0):
            new[j] = (w[lab == j] @ x[lab == j]) / ws[j]
        steps.append(settle(new))
        repeated = len(steps[-1][1]) == len(c) and np.array_equal(steps[-1][0], lab)
        lab, c = steps[-1][:2]
        if repeated:
            break
    return min(steps, key=lambda s: s[2])


@pytest.mark.parametrize("which", ["l1", "l1-sparse", "line", "ground", "euclidean"])
def test_lloyd_skipping_by_the_triangle_inequality_equals_a_full_scan(which):
    """The bounded Lloyd (Elkan's lower bounds) gives the full scan's labels, centres and cost
    at every k, under every metric (L1 and a general ground compute single pairs; the others
    whole rows)."""
    rng = np.random.default_rng(31)
    if which.startswith("l1"):
        # clustered rows, as strategy vectors are: many points settle early
        base = rng.random((6, 120))
        x = base[rng.integers(0, 6, 160)] + 0.05 * rng.random((160, 120))
        if which == "l1-sparse":
            x[rng.random(x.shape) < 0.6] = 0.0
        metric = L1()
    elif which == "line":
        x, metric = random_histograms(rng, 150, 12), EMDLine.equity_bins(12)
    elif which == "euclidean":
        x, metric = rng.random((150, 4)), Euclidean()
    else:
        pts = rng.random((5, 2))
        ground = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
        x, metric = random_histograms(rng, 40, 5), EMDGround(ground)
    w = rng.random(len(x))
    w /= w.sum()
    for k in (2, 5, 12):
        start = x[rng.choice(len(x), k, replace=False)]
        want = _full_scan_lloyd(x, w, metric, start)
        got = lloyd(x, w, metric, start)
        assert np.array_equal(got[0], want[0]), k
        assert np.allclose(got[1], want[1], rtol=0, atol=1e-12)
        assert got[2] == pytest.approx(want[2], rel=1e-12, abs=1e-15)
