"""Thresholding and purification of Hold'em strategies (``solve.holdem.threshold``; Ganzfried,
Sandholm & Waugh, AAMAS 2012): the kernel against a plain numpy reading of the definition, the
``NAME~TAU`` spec of ``load_policy`` and look-ups, and ``evaluate --threshold``."""

from pathlib import Path

import numpy as np
import pytest

import cli
from schema.errors import UserError
from solve.holdem.buckets import synthetic_buckets
from solve.holdem.game import HoldemRules, build_tree
from solve.holdem.pcs import HoldemPCS
from solve.holdem.run import load_policy, parse_threshold
from solve.holdem.threshold import threshold
from solve.lookup import lookup


@pytest.fixture(scope="module")
def solved():
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    b = synthetic_buckets((3, 6), n_rounds=2)
    s = HoldemPCS(tree, b, seed=3, hands=0)
    s.iterate(30)
    return tree, b, s.average_


def reference(tree, n_buckets, weights, tau):
    """The definition, one information set at a time."""
    off, size = tree.offsets(n_buckets)
    out = np.zeros(size)
    for n in tree.decision_nodes():
        k = tree.nact[n]
        for b in range(n_buckets[tree.round[n]]):
            i = off[n, 0] + b * off[n, 1]
            w = weights[i:i + k].astype(np.float64)
            if w.sum() <= 0:
                continue
            p = w / w.sum()
            best = int(np.argmax(p))
            keep = np.arange(k) == best if tau >= 1 else (p >= tau) | (np.arange(k) == best)
            out[i:i + k] = np.where(keep, p, 0.0) / p[keep].sum()
    return out


@pytest.mark.parametrize("tau", [0.05, 0.15, 0.4, 1.0])
def test_threshold_drops_the_small_probabilities_and_renormalises(solved, tau):
    tree, b, avg = solved
    got = threshold(tree, b.n_buckets, avg, tau)
    np.testing.assert_allclose(got, reference(tree, b.n_buckets, avg, tau), atol=1e-6)
    assert got[got > 0].min() >= tau - 1e-6  # what is played, is played at least tau
    if tau == 1.0:  # purification: one action per reached information set
        assert set(np.unique(got)) <= {0.0, 1.0}


def test_threshold_changes_the_solved_strategy_and_keeps_unreached_sets_empty(solved):
    tree, b, avg = solved
    got = threshold(tree, b.n_buckets, avg, 0.15)
    assert not np.allclose(got, reference(tree, b.n_buckets, avg, 1.0))  # not purified
    assert np.all(got[avg == 0] == 0) and (avg > 0).sum() >= (got > 0).sum()


def test_threshold_checks_its_arguments(solved):
    tree, b, avg = solved
    for tau in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="tau"):
            threshold(tree, b.n_buckets, avg, tau)
    with pytest.raises(ValueError, match="entries"):
        threshold(tree, b.n_buckets, avg[:-1], 0.1)


def test_parse_threshold():
    assert parse_threshold("pure") == 1.0 and parse_threshold("0.15") == 0.15
    assert parse_threshold("1") == 1.0
    for bad in ("0", "1.5", "-0.2", "nan", "x", ""):
        with pytest.raises(ValueError, match="threshold must be"):
            parse_threshold(bad)


def test_load_policy_evaluate_and_lookup_take_a_threshold(tmp_path, capsys):
    d = Path(tmp_path)
    args = ["--data-dir", str(d), "solve", "--game", "holdem", "--abstraction", "synthetic:3,6",
            "--max-bets", "2", "--lbr-deals", "0", "--h2h-deals", "50", "--name", "t",
            "--keep-averages", "--iterations", "200"]
    assert cli.main(args) == 0
    raw, tree = load_policy("t", d, {})
    for spec, tau in (("t~0.2", 0.2), ("t@200~pure", 1.0)):
        pol, _ = load_policy(spec, d, {})
        np.testing.assert_array_equal(
            pol.weights, threshold(tree, raw.buckets.n_buckets, raw.weights, tau))
    for bad in ("t~2", "t~", "t@200~x"):
        with pytest.raises(UserError, match="threshold must be"):
            load_policy(bad, d, {})
    capsys.readouterr()
    assert cli.main(["--data-dir", str(d), "evaluate", "t", "--threshold", "pure",
                     "--h2h-deals", "100", "--lbr-deals", "20"]) == 0
    assert "local best response" in capsys.readouterr().out
    assert cli.main(["--data-dir", str(d), "evaluate", "t", "--threshold", "7"]) == 2
    assert "threshold must be" in capsys.readouterr().err
    # a look-up of the purified strategy plays one action with certainty
    got = lookup(d, "t~pure", "AsKd", "", "")
    assert sorted(got.probabilities) == [0.0, 0.0, 1.0] or sorted(got.probabilities) == [0.0, 1.0]
