"""Strategy-based abstraction (issue 20, GS4): the strategy vectors read from a stored strategy
against the look-up of every situation at real cards, k-means under L1, and the method end to
end through the CLI."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

import cli
from abstraction.emd import L1
from abstraction.games import rhode_island
from abstraction.methods import StrategyBased
from abstraction.metric_kmeans import assign, kmeans
from abstraction.strategy_features import (Decision, round_vectors, strategy_vectors,
                                          strategy_vectors_with_columns)
from etl.rhode_island import hand_tree
from solve.games.rules import rhode_island as ri_rules
from solve.lookup import StrategyLookup

LETTER = {"c": ("check", "call"), "r": ("bet", "raise"), "f": ("fold",)}


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A small Rhode Island abstraction and a short DCFR solve on it (finer than the builds
    from it: a strategy on 50 flop buckets tells at most 50 kinds of flop hand apart)."""
    d = tmp_path_factory.mktemp("strategy")
    assert cli.main(["--data-dir", str(d), "build-abstraction", "--game", "rhode-island",
                     "--method", "eb", "--buckets", "13,50,250", "--name", "ab",
                     "--n-init", "1"]) == 0
    assert cli.main(["--data-dir", str(d), "solve", "--game", "rhode-island", "--abstraction",
                     "ab", "--algorithm", "dcfr", "--iterations", "30"]) == 0
    return d, "rhode-island-ab-dcfr"


def _probs(look, hole, board, history) -> dict:
    got = look.at(hole, board, history)
    return dict(zip(got.actions, got.probabilities))


def _prob(look, hole, board, history, letter):
    names = _probs(look, hole, board, history)
    return next(names[a] for a in LETTER[letter] if a in names)


def test_vectors_are_the_hands_own_reach_times_its_action_probabilities(solved):
    """Each entry, recomputed at real cards with the look-up (solve.lookup): the product of
    the hand's own action probabilities along the history, times its probability of the
    column's action there."""
    d, name = solved
    look = StrategyLookup(d, name)
    rules = ri_rules()
    tree = hand_tree()
    per_round = strategy_vectors_with_columns(d, name)
    rng = np.random.default_rng(11)
    for r, (vec, columns) in enumerate(per_round):
        assert vec.shape == (len(tree[r].weight), len(columns))
        assert len(set(columns)) == len(columns)
        for _ in range(6):
            cards = [int(c) for c in rng.choice(52, 3, replace=False)]
            row = int(tree[r].index_of(np.array([cards[:r + 1]]))[0])
            hole = rules.card_str(cards[0])
            for j in rng.choice(len(columns), 12, replace=False):
                history, seat, action = columns[j]
                board_r = "".join(rules.card_str(c) for c in cards[1:r + 1])
                want = _probs(look, hole, board_r, history)[action]
                # own reach: every earlier decision of the same seat on this history
                for k in range(len(history)):
                    if history[k] == "/":
                        continue
                    prefix = history[:k]
                    rnd = prefix.count("/")
                    board = "".join(rules.card_str(c) for c in cards[1:rnd + 1])
                    if look.at(hole, board, prefix).player - 1 == seat:
                        want *= _prob(look, hole, board, prefix, history[k])
                assert vec[row, j] == pytest.approx(want, abs=1e-9), (r, cards, columns[j])
    # the first round's first decision is the hand's whole strategy there
    vec0, cols0 = per_round[0]
    first = [j for j, c in enumerate(cols0) if c[0] == ""]
    np.testing.assert_allclose(vec0[:, first].sum(axis=1), 1.0)


def test_l1_kmeans_assigns_each_vector_to_its_l1_nearest_centre():
    rng = np.random.default_rng(5)
    x = rng.random((40, 7))
    w = np.full(40, 1 / 40)
    labels, centres, cost = kmeans(x, w, L1(), 4, seed=3, n_init=2)
    dist = np.abs(x[:, None, :] - centres[None, :, :]).sum(-1)
    assert np.allclose(dist[np.arange(40), labels], dist.min(axis=1))
    assert cost == pytest.approx(float(w @ dist.min(axis=1)))
    assert np.array_equal(assign(x, w, L1(), centres)[0], labels)


def test_hands_with_equal_vectors_share_a_bucket():
    """Strategy rounds cluster the given vectors: when a round's hands carry only as many
    distinct vectors as the round has buckets under each parent, equal vectors share a bucket."""
    game = rhode_island()
    n1 = len(game.rounds[1])
    parent = game.rounds[1].parent
    # two kinds of flop hand under every preflop hand, by the parity of the row
    kind = np.arange(n1) % 2
    v1 = np.eye(2)[kind]
    vectors = [np.eye(13), v1, np.zeros((len(game.rounds[2]), 1))]
    model = StrategyBased((13, 26, 125), vectors=vectors, rounds=(1,), random_state=0,
                          n_init=1).fit(game)
    b1 = model.rounds_[1].bucket
    for p in range(13):
        rows = np.flatnonzero(parent == p)
        for k in (0, 1):
            assert len(set(b1[rows[kind[rows] == k]].tolist())) == 1
        assert len(set(b1[rows].tolist())) == 2


def test_strategy_method_checks_its_vectors():
    game = rhode_island()
    with pytest.raises(ValueError, match="needs the strategy vectors"):
        StrategyBased((13, 25, 125)).fit(game)
    with pytest.raises(ValueError, match="rows for the"):
        StrategyBased((13, 25, 125), vectors=[np.eye(13), np.eye(3), np.eye(3)]).fit(game)


def test_build_from_a_stored_strategy(solved, capsys):
    d, name = solved
    argv = ["--data-dir", str(d), "build-abstraction", "--game", "rhode-island", "--method",
            "strategy", "--from-strategy", name, "--buckets", "13,25,125", "--n-init", "1"]
    assert cli.main(argv + ["--name", "gs4"]) == 0
    assert cli.main(argv + ["--name", "gs4-again"]) == 0
    capsys.readouterr()
    for r, want in enumerate((13, 25, 125)):
        a = pq.read_table(d / "abstractions" / "gs4" / f"round{r}.parquet").column("bucket")
        b = pq.read_table(d / "abstractions" / "gs4-again" / f"round{r}.parquet").column("bucket")
        assert len(set(a.to_pylist())) == want and a.equals(b)  # the counts asked, seeded
    assert len(strategy_vectors(d, name)) == 3


@pytest.mark.parametrize("extra, msg", [
    ([], "--method strategy needs --from-strategy"),
    (["--from-strategy", "rhode-island-nope-dcfr"], "no strategy"),
    (["--from-strategy", "x", "--strategy-rounds", "7"], "--strategy-rounds"),
])
def test_strategy_build_errors_are_one_line(solved, capsys, extra, msg):
    d, _ = solved
    rc = cli.main(["--data-dir", str(d), "build-abstraction", "--game", "rhode-island",
                   "--method", "strategy", "--buckets", "13,25,125", "--name", "bad"] + extra)
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and msg in err[0], err
    assert not (d / "abstractions" / "bad").exists()


def test_from_strategy_applies_to_the_strategy_method_only(solved, capsys):
    d, name = solved
    rc = cli.main(["--data-dir", str(d), "build-abstraction", "--game", "rhode-island",
                   "--method", "eb", "--buckets", "13,25,125", "--name", "bad2",
                   "--from-strategy", name])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and "--from-strategy" in err[0], err


def test_a_hand_without_a_row_at_its_own_earlier_decision_is_refused():
    """Hand "b" has no row at the first decision, where its seat acted: its reach is unknown.
    (Read through pandas' ``get_indexer``, the missing row was -1, i.e. the last row.)"""
    decisions = {
        "": Decision(0, 0, np.array(["a"]), np.array(["call", "raise"]), np.array([[0.5, 0.5]])),
        "c": Decision(0, 1, np.array(["a", "b"]), np.array(["check"]), np.array([[1.0], [1.0]])),
    }
    with pytest.raises(ValueError, match="no information set for some round-0 hands at ''"):
        round_vectors(decisions, [np.array(["a", "b"])], 0, "s")
    decisions[""] = Decision(0, 0, np.array(["a", "b"]), np.array(["call", "raise"]),
                             np.array([[0.5, 0.5], [0.25, 0.75]]))
    vectors, columns = round_vectors(decisions, [np.array(["a", "b"])], 0, "s")
    assert columns == [("", 0, "call"), ("", 0, "raise"), ("c", 1, "check")]
    assert vectors.tolist() == [[0.5, 0.5, 1.0], [0.25, 0.75, 1.0]]
