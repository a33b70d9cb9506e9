"""Imperfect-recall abstractions (issue 20): each round clustered on its own (EHS exactly in
one dimension, EMD histograms over the next round's buckets checked against enumeration and
the transport LP), the compiled game's information sets (history, own bucket) as many as
perfect recall's, the solvers that need perfect recall refusing, and Texas Hold'em's solver
and evaluators running on non-nested buckets."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

import cli
from abstraction.clustering import Points, _optimal_1d
from abstraction.games import rhode_island
from abstraction.imperfect_recall import _histograms, lloyd_1d
from abstraction.methods import ExpectationBased, PotentialAwareEMD
from solve.abstractions import RhodeIslandTableAbstraction
from solve.games.compile import compile_game
from solve.games.rules import rhode_island as ri_rules
from solve.holdem.buckets import HoldemBuckets, river_lut, synthetic_buckets
from solve.holdem.evaluate import Policy, duplicate_match
from solve.holdem.game import RIVER_KEYS, HoldemRules, build_tree
from solve.holdem.pcs import HoldemPCS
from solve.holdem.table import bucket_labels


@pytest.fixture(scope="module")
def game():
    return rhode_island()


def test_ehs_rounds_are_the_exact_1d_kmeans_of_all_the_rounds_hands(game):
    m = ExpectationBased((13, 20, 30), recall="imperfect", n_init=1).fit(game)
    for r, res in enumerate(m.rounds_):
        h = game.rounds[r]
        assert (res.parent == -1).all()
        pts = Points.from_hands(h.equity, h.weight)
        err, cents = _optimal_1d(pts, res.n_buckets)
        want = cents[res.n_buckets - 1][:, 0]
        np.testing.assert_allclose(np.sort(np.asarray(res.centroids)[:, 0]), np.sort(want),
                                   atol=1e-12)
        # equal equities share a bucket, and buckets read weak -> strong
        assert np.all(np.diff(res.mean_equity) > 0)
        for v in np.unique(h.equity)[:20]:
            assert len(set(res.bucket[h.equity == v].tolist())) == 1
    # not nested: a round-1 bucket holds hands of several preflop buckets
    b0, b1, par = m.rounds_[0].bucket, m.rounds_[1].bucket, game.rounds[1].parent
    assert any(len(set(b0[par[b1 == k]].tolist())) > 1 for k in range(m.buckets_[1]))


def test_lloyd_1d_is_a_fixed_point_and_close_to_the_optimum():
    rng = np.random.default_rng(3)
    pts = Points.from_hands(rng.beta(2, 3, 5000), np.full(5000, 1 / 5000))
    labels, c, err = lloyd_1d(pts, 12)
    x = pts.x[:, 0]
    near = np.argmin(np.abs(x[:, None] - c[None, :, 0]), axis=1)
    assert np.array_equal(near, labels)  # every point at its nearest centre
    for j in range(len(c)):  # every centre the weighted mean of its points
        sel = labels == j
        assert c[j, 0] == pytest.approx(np.average(x[sel], weights=pts.w[sel]))
    opt = _optimal_1d(pts, 12)[0][-1]
    assert err == pytest.approx(float(pts.w @ (x - c[labels, 0]) ** 2))
    assert opt <= err <= 1.05 * opt


def transport_lp(p, q, ground):
    n = len(p)
    a_eq = []
    for i in range(n):
        row = np.zeros((n, n))
        row[i, :] = 1
        a_eq.append(row.ravel())
    for j in range(n):
        row = np.zeros((n, n))
        row[:, j] = 1
        a_eq.append(row.ravel())
    res = linprog(ground.ravel(), A_eq=np.array(a_eq), b_eq=np.concatenate([p, q]),
                  bounds=(0, None), method="highs")
    return res.fun


def test_emd_flop_feature_is_the_histogram_over_river_buckets_and_each_hand_its_emd_nearest(
        game):
    m = PotentialAwareEMD((13, 8, 10), recall="imperfect", n_init=1).fit(game)
    river, flop = m.rounds_[2], m.rounds_[1]
    hist = _histograms(game, 1, river.bucket, river.n_buckets)
    rng = np.random.default_rng(0)
    h2 = game.rounds[2]
    for i in rng.choice(len(hist), 5, replace=False):  # by enumeration of the river cards
        kids = np.flatnonzero(h2.parent == i)
        want = np.bincount(river.bucket[kids], weights=h2.weight[kids],
                           minlength=river.n_buckets)
        np.testing.assert_allclose(hist[i], want / want.sum())
    # the ground: the EMD between the river buckets' centres (outcome distributions on the
    # equity line); each flop hand sits in the bucket whose centre is EMD-nearest (LP)
    pos = np.array([1.0, 0.5, 0.0])
    rc = np.asarray(river.centroids)
    line = np.abs(pos[:, None] - pos[None, :])
    ground = np.array([[transport_lp(a, b, line) for b in rc] for a in rc])
    fc = np.asarray(flop.centroids)
    for i in rng.choice(len(hist), 12, replace=False):
        d = [transport_lp(hist[i], c, ground) for c in fc]
        assert d[flop.bucket[i]] == pytest.approx(min(d), abs=1e-9)


def test_imperfect_recall_information_sets_are_history_and_own_bucket(game):
    pr = ExpectationBased((13, 20, 30), n_init=1).fit(game)
    ir = ExpectationBased((13, 20, 30), recall="imperfect", n_init=1).fit(game)
    rules = ri_rules()
    counts = []
    for m, recall in ((pr, True), (ir, False)):
        ab = RhodeIslandTableAbstraction("x", [r.bucket for r in m.rounds_], perfect_recall=recall)
        g = compile_game(rules, ab)
        labels = g.infoset_labels()
        counts.append(np.bincount(g.info_round, minlength=3))
        if not recall:
            assert all(str(lab).startswith("-." * int(r)) for lab, r in
                       zip(labels, g.info_round))
    # as many information sets per round as perfect recall at the same bucket counts (the
    # fair comparison of issue 20): one per betting history and bucket
    assert np.array_equal(counts[0], counts[1])


def test_cli_builds_and_solves_imperfect_recall_on_the_form_and_refuses_the_lp(tmp_path,
                                                                                    capsys):
    d = str(tmp_path)
    assert cli.main(["--data-dir", d, "build-abstraction", "--game", "rhode-island", "--method",
                     "eb", "--recall", "imperfect", "--buckets", "13,10,10", "--n-init",
                     "1"]) == 0
    name = "rhode-island-eb-ir-13-10-10"
    capsys.readouterr()
    rc = cli.main(["--data-dir", d, "solve", "--game", "rhode-island", "--abstraction",
                   name, "--iterations", "2", "--algorithm", "lp"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and "needs perfect recall" in err[0], err
    assert cli.main(["--data-dir", d, "solve", "--game", "rhode-island", "--abstraction", name,
                     "--algorithm", "dcfr", "--iterations", "3", "--engine", "form"]) == 0
    out = capsys.readouterr().out
    assert "exploitability=" in out  # evaluated in the real game


@pytest.mark.parametrize("argv, msg", [
    (["--method", "pa"], "--recall imperfect is built for --method eb, pa-emd, ochs, not pa"),
    (["--method", "eb", "--public-board"], "takes neither --public-board"),
])
def test_recall_errors_are_one_line(tmp_path, capsys, argv, msg):
    rc = cli.main(["--data-dir", str(tmp_path), "build-abstraction", "--game", "rhode-island",
                   "--buckets", "13,10,10", "--recall", "imperfect"] + argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and msg in err[0], err


def _imperfect_holdem():
    """Preflop + flop, 3 and 6 buckets, the flop buckets not nested in the preflop ones."""
    b = synthetic_buckets((3, 6), n_rounds=2)
    flop = (b.arrays[1].astype(np.int64) * 5 + 1) % 6  # scrambled across parents
    return HoldemBuckets.from_arrays("ir", [b.arrays[0], flop], [np.full(3, -1), np.full(6, -1)])


def test_holdem_imperfect_recall_lookups_labels_and_solve():
    b = _imperfect_holdem()
    assert not b.perfect_recall and synthetic_buckets((3, 6), n_rounds=2).perfect_recall
    with pytest.raises(ValueError, match="imperfect recall"):
        b.child_ranges()
    assert bucket_labels(b)[1].to_pylist() == [f"-.{k}" for k in range(6)]
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    s = HoldemPCS(tree, b, seed=1)
    s.iterate(200)
    trained = Policy.table("s", tree, b, s.average_)
    calls = Policy.always_call(tree, b)
    assert duplicate_match(tree, trained, calls, 20_000, seed=3).mean > 0


def test_imperfect_recall_river_lookup_is_the_same_for_every_turn_bucket():
    lo = np.array([0.0, 0.3, 0.7])
    hi = np.array([0.29, 0.69, 1.0])
    th = {"parent_bucket": np.full(3, -1), "bucket": np.arange(3), "min_equity": lo,
          "max_equity": hi}
    lut, parents = river_lut(th, 4)
    assert lut.shape == (4, RIVER_KEYS) and (parents == -1).all()
    assert (lut == lut[0]).all()
    keys = np.arange(RIVER_KEYS) / (RIVER_KEYS - 1)
    np.testing.assert_array_equal(lut[0], np.searchsorted(lo, keys, side="right") - 1)
