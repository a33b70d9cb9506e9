"""Honest look-ups (issue 47): every strategy table stores each information set's
average-strategy weight; the look-up (CLI and API), ``evaluate``, the range grid and the SQL
view say "never trained" where it is 0 and "barely trained" below
``schema.strategy.BARELY_TRAINED`` of the round's mean, instead of presenting the uniform default
as advice; seats are named and numbered from 1 everywhere.

The Hold'em strategy is one iteration of chance-sampled CFR+ on a 3/6-bucket abstraction: one
iteration samples one deal, so each seat's average strategy holds weight at no more than one
bucket per betting node, and at least 2 of the 3 preflop buckets and 5 of the 6 flop buckets
of every node are provably never trained. The weights are counted here straight from
``average.npy`` and the betting tree's offsets, independently of the code under test.
"""

import json
import re

import numpy as np
import pyarrow.parquet as pq
import pytest

import cli
from solve.games import registry
from solve.games.compile import compile_game
from solve.games.rules import leduc
from solve.holdem.buckets import synthetic_buckets
from solve.holdem.game import HoldemRules, build_tree
from solve.lookup import open_lookup
from solve.table import read_strategy, strategy_path


#: the documented threshold (README, ``schema.strategy.BARELY_TRAINED``): barely trained below
#: 1% of the mean weight of the round's trained information sets
BARELY_TRAINED = 0.01


def test_the_documented_threshold():
    from schema import strategy

    assert strategy.BARELY_TRAINED == BARELY_TRAINED


def run(d, *argv):
    return cli.main(["--data-dir", str(d), *argv])


@pytest.fixture(scope="module")
def holdem_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("honest-holdem")
    assert run(d, "solve", "--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets",
               "2", "--name", "one", "--iterations", "1", "--sampler", "chance",
               "--lbr-deals", "0", "--h2h-deals", "50") == 0
    return d


def holdem_weights(d):
    """{(history, round 0-based, player 0-based): (buckets,) infoset weights} from average.npy."""
    buckets = synthetic_buckets((3, 6), n_rounds=2)
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    off, size = tree.offsets(buckets.n_buckets)
    avg = np.load(d / "strategies" / "one" / "average.npy")
    assert len(avg) == size
    out = {}
    for n in tree.decision_nodes():
        r, k = int(tree.round[n]), int(tree.nact[n])
        w = [float(sum(avg[off[n, 0] + b * off[n, 1] + a] for a in range(k)))
             for b in range(buckets.n_buckets[r])]
        out[(tree.history[n], r, int(tree.player[n]))] = np.array(w)
    return out


def direct_counts(weights):
    """{(round from 1, seat): (never, barely, infosets)} of {key: weights} keyed as above."""
    seat = {0: "small blind", 1: "big blind"}
    means = {}
    for (_, r, _), w in weights.items():
        means.setdefault(r, []).extend(w[w > 0])
    out = {}
    for (_, r, p), w in weights.items():
        cut = BARELY_TRAINED * np.mean(means[r])
        c = out.setdefault((r + 1, seat[p]), [0, 0, 0])
        c[0] += int((w == 0).sum())
        c[1] += int(((w > 0) & (w < cut)).sum())
        c[2] += len(w)
    return {k: tuple(v) for k, v in out.items()}


def reported_counts(out):
    """{(round, seat): (never, barely, infosets)} from ``evaluate``'s lines."""
    got = {}
    for m in re.finditer(r"round (\d+) ([a-z0-9 ]+?): (\d+) never trained, (\d+) barely trained, "
                         r"of (\d+)", out):
        got[(int(m[1]), m[2])] = (int(m[3]), int(m[4]), int(m[5]))
    return got


def test_holdem_evaluate_counts_the_never_trained_information_sets_per_round(holdem_dir,
                                                                               capsys):
    weights = holdem_weights(holdem_dir)
    want = direct_counts(weights)
    # provably never trained: one sampled deal trains at most one bucket per node and seat
    for (history, r, p), w in weights.items():
        assert (w == 0).sum() >= len(w) - 1, history
    assert want[(1, "small blind")][0] >= 4 and want[(2, "big blind")][0] >= 45
    assert run(holdem_dir, "evaluate", "one", "--lbr-deals", "0", "--h2h-deals", "20") == 0
    text = capsys.readouterr().out
    assert reported_counts(text) == want
    totals = {}
    for (r, _), v in want.items():
        totals[r] = tuple(a + b for a, b in zip(totals.get(r, (0, 0, 0)), v))
    for r, (never, barely, n) in totals.items():
        assert f"round {r}: {never} never trained, {barely} barely trained, of {n}" in text
    assert "as seat 0" not in text


def test_holdem_lookup_says_never_trained_where_the_weights_are_zero(holdem_dir, capsys):
    weights = holdem_weights(holdem_dir)
    look = open_lookup(holdem_dir, "one")
    seen = set()
    # the flop after a raised and called preflop and a bet by the big blind: the small blind
    for hole in ("AcAd", "7c3d", "KcQc", "5s4s", "JhTh", "8d8c", "Qs3h", "6h6d", "AhKs"):
        got = look.at(hole, "2c2d2h", "rc/r")
        assert got.seat == "small blind" and got.player == 1 and got.round == 2
        w = weights[("rc/r", 1, 0)][int(got.infoset.split(".")[1])]
        assert got.weight == pytest.approx(w)
        assert got.reached == (w > 0)
        if w == 0:
            assert got.training == "never trained" and got.trained is False
        seen.add(got.training)
    assert "never trained" in seen
    # a never-trained spot on the command line: no advice, the default said to be one
    never = next(h for h in ("AcAd", "7c3d", "KcQc", "5s4s", "JhTh", "8d8c", "Qs3h", "6h6d",
                             "AhKs") if look.at(h, "2c2d2h", "rc/r").training == "never trained")
    assert run(holdem_dir, "strategy", "one", "--hole", never, "--board", "2c2d2h",
               "--history", "rc/r") == 0
    out = capsys.readouterr().out
    assert "small blind (player 1) to act in round 2" in out
    assert "NEVER TRAINED" in out and "uniform default (not advice)" in out
    assert run(holdem_dir, "strategy", "one", "--hole", never, "--board", "2c2d2h",
               "--history", "rc/r", "--format", "json") == 0
    js = json.loads(capsys.readouterr().out)
    assert js["reached"] is False and js["trained"] is False
    assert js["training"] == "never trained" and js["weight"] == 0.0
    assert js["seat"] == "small blind" and js["player"] == 1 and js["round"] == 2
    # the purified strategy was trained exactly where the strategy was: the average weights
    pure = open_lookup(holdem_dir, "one~pure")
    board, hole = trained_spot(look)
    a, b = look.at(hole, board, "rc/r"), pure.at(hole, board, "rc/r")
    assert a.training == "trained" and (a.weight, a.training) == (b.weight, b.training)
    a, b = look.at(never, "2c2d2h", "rc/r"), pure.at(never, "2c2d2h", "rc/r")
    assert b.training == "never trained" and a.weight == b.weight == 0


def trained_spot(look):
    """(board, hole) where the small blind's flop information set at rc/r was trained."""
    from itertools import combinations

    from etl.cards import format_card

    return next(
        (board, h) for board in ("9s5h3d", "Kc8d4h", "AsQsTs", "7c8h9s", "6d6h2c")
        for h in (format_card(a) + format_card(b) for a, b in combinations(range(52), 2))
        if not {h[:2], h[2:]} & {board[i:i + 2] for i in (0, 2, 4)}
        and look.at(h, board, "rc/r").training == "trained")


def test_holdem_api_and_range_grid_say_never_trained(holdem_dir):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from queries.api import create_app

    weights = holdem_weights(holdem_dir)
    client = TestClient(create_app(holdem_dir))
    look = open_lookup(holdem_dir, "one")
    for hole in ("AcAd", "7c3d", "KcQc"):
        r = client.get("/strategies/one/lookup", params={"hole": hole, "board": "2c2d2h",
                                                         "history": "rc/r"})
        assert r.status_code == 200
        js = r.json()
        w = weights[("rc/r", 1, 0)][int(js["infoset"].split(".")[1])]
        assert js["reached"] == (w > 0) and js["seat"] == "small blind"
        assert (js["training"] == "never trained") == (w == 0)
        assert js == look.at(hole, "2c2d2h", "rc/r").as_dict()
    r = client.get("/strategies/one/range", params={"history": "rc/r", "board": "2c2d2h"})
    assert r.status_code == 200
    g = r.json()
    assert g["seat"] == "small blind"
    never, combos = np.array(g["never_trained"]), np.array(g["combos"])
    assert never.sum() > 0
    probs = np.array(g["probabilities"], dtype=float)  # null -> nan
    # a cell whose every combination is never trained shows no probability at all
    full = (combos > 0) & (never == combos)
    assert full.any() and np.isnan(probs[:, full]).all()
    assert not np.isnan(probs[:, (combos > 0) & (never < combos)]).any()


def test_holdem_view_names_seats_and_says_never_trained(holdem_dir):
    from queries.views import connect, create_views

    create_views(holdem_dir)
    weights = holdem_weights(holdem_dir)
    with connect(holdem_dir) as con:
        rows = con.execute("SELECT DISTINCT history, round, player, seat, cards, weight, "
                           "training FROM strategies WHERE strategy = 'one'").fetchall()
    assert len(rows) == sum(len(w) for w in weights.values())
    for history, rnd, player, seat, cards, weight, training in rows:
        w = weights[(history, rnd - 1, player - 1)][int(cards.split(".")[-1])]
        assert seat == ("small blind", "big blind")[player - 1]
        assert weight == pytest.approx(w)
        assert (training == "never trained") == (w == 0)


@pytest.fixture(scope="module")
def leduc_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("honest-leduc")
    assert run(d, "solve", "--game", "leduc", "--algorithm", "lp", "--name", "l") == 0
    return d


def leduc_infosets(d):
    """{(cards, history): (round 0-based, player 0-based, weight, reached)} from the table."""
    out = {}
    for r in pq.read_table(strategy_path(d, "l")).to_pylist():
        out[(r["cards"], r["history"])] = (r["round"], r["player"], r["weight"], r["reached"])
    return out


def at_infoset(look, rules, cards, history):
    """(hole, board, look-up) of real cards that land in information set ``cards``."""
    names = [rules.card_str(c) for c in range(rules.n_cards)]
    for hole in names:
        for board in (names if "/" in history else [""]):
            if hole != board:
                got = look.at(hole, board, history)
                if got.infoset == cards:
                    return hole, board, got
    raise AssertionError(f"no cards land in {cards} {history}")


def test_leduc_lp_weights_evaluate_lookup_and_old_tables(leduc_dir, capsys, tmp_path):
    infosets = leduc_infosets(leduc_dir)
    # the LP stores its plan's own reach: 0 exactly where the plan never gets (the LP vertex
    # leaves some Leduc information sets unreached)
    assert all((w > 0) == reached for _, _, w, reached in infosets.values())
    means = {}
    for rnd, _, w, _ in infosets.values():
        if w > 0:
            means.setdefault(rnd, []).append(w)
    want = {}
    for rnd, p, w, _ in infosets.values():
        c = want.setdefault((rnd + 1, f"player {p + 1}"), [0, 0, 0])
        c[0] += w == 0
        c[1] += 0 < w < BARELY_TRAINED * np.mean(means[rnd])
        c[2] += 1
    want = {k: tuple(v) for k, v in want.items()}
    assert sum(v[0] for v in want.values()) > 0
    assert run(leduc_dir, "evaluate", "l") == 0
    assert reported_counts(capsys.readouterr().out) == want

    # a never-trained information set looked up at real cards
    (cards, history), (rnd, p, _, _) = next(
        (k, v) for k, v in infosets.items() if v[2] == 0)
    rules = leduc()
    look = open_lookup(leduc_dir, "l")
    hole, board, got = at_infoset(look, rules, cards, history)
    assert got.training == "never trained" and got.reached is False and got.trained is False
    assert got.seat == f"player {p + 1}" and got.round == rnd + 1
    argv = ["strategy", "l", "--hole", hole, "--board", board, "--history", history]
    assert run(leduc_dir, *argv) == 0
    out = capsys.readouterr().out
    assert "NEVER TRAINED" in out and f"player {p + 1} to act in round {rnd + 1}" in out

    # an old table (no weights): still loads, the weights said to be unknown
    game = compile_game(rules)
    old = tmp_path / "old"
    (old / "strategies" / "l").mkdir(parents=True)
    t = pq.read_table(strategy_path(leduc_dir, "l"))
    pq.write_table(t.drop(["weight", "round_mean_weight"]), strategy_path(old, "l"))
    assert read_strategy(strategy_path(old, "l"), game).weight is None
    back = open_lookup(old, "l").at(hole, board, history)
    assert back.training == "never trained" and back.weight is None  # reached = false says so
    cards, history = next(k for k, v in infosets.items() if v[2] > 0)
    assert at_infoset(open_lookup(old, "l"), rules, cards, history)[2].training == "unknown"
    assert run(old, "evaluate", "l") == 0
    assert "never trained: unknown" in capsys.readouterr().out


def test_holdem_barely_trained_below_one_percent_of_the_round_mean(holdem_dir, tmp_path,
                                                                     capsys):
    import shutil

    d = tmp_path / "barely"
    shutil.copytree(holdem_dir, d)
    look = open_lookup(d, "one")
    board, hole = trained_spot(look)
    before = look.at(hole, board, "rc/r")
    # scale that information set's weights down to a millionth: same probabilities, barely
    # trained against the round's other trained information sets
    buckets = synthetic_buckets((3, 6), n_rounds=2)
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    off, _ = tree.offsets(buckets.n_buckets)
    n = next(int(n) for n in tree.decision_nodes() if tree.history[n] == "rc/r")
    b = int(before.infoset.split(".")[1])
    path = d / "strategies" / "one" / "average.npy"
    avg = np.load(path)
    i = off[n, 0] + b * off[n, 1]
    avg[i:i + int(tree.nact[n])] *= np.float32(1e-6)
    np.save(path, avg)
    weights = holdem_weights(d)
    assert sum(((w > 0).sum() for (_, r, _), w in weights.items() if r == 1)) > 1
    got = open_lookup(d, "one").at(hole, board, "rc/r")
    assert got.training == "barely trained" and got.reached is True and got.trained is False
    assert got.weight < got.weight_threshold
    assert got.probabilities == pytest.approx(before.probabilities, rel=1e-5)
    assert run(d, "strategy", "one", "--hole", hole, "--board", board, "--history",
               "rc/r") == 0
    assert "BARELY TRAINED" in capsys.readouterr().out
    assert run(d, "evaluate", "one", "--lbr-deals", "0", "--h2h-deals", "20") == 0
    got = reported_counts(capsys.readouterr().out)
    assert got == direct_counts(weights) and got[(2, "small blind")][1] >= 1


def test_training_codes_and_seat_names():
    from schema.strategy import TRAINING, seat_name, training_codes

    codes = training_codes(np.array([0.0, 0.009, 0.011, 2.0, np.nan]), 1.0)
    assert [TRAINING[c] for c in codes] == ["never trained", "barely trained", "trained",
                                             "trained", "unknown"]
    assert [seat_name(p, blinds=True) for p in (0, 1)] == ["small blind", "big blind"]
    assert [seat_name(p) for p in (0, 1)] == ["player 1", "player 2"]
    assert [registry.get(g).backend.seat_name(p) for g in ("holdem", "leduc") for p in (0, 1)] \
        == ["small blind", "big blind", "player 1", "player 2"]


def test_solvers_store_the_weight_their_strategy_was_made_from(tmp_path):
    from leduc_buckets import leduc_coarse

    from solve.abstractions import FunctionAbstraction
    from solve.algorithms.abstract_cfr import make_solver
    from solve.algorithms.cfr import CFRSolver
    from solve.table import to_table

    game = compile_game(leduc())
    solver = CFRSolver(game, "cfr+").iterate(5)
    s = solver.average_strategy()
    # CFR: the accumulator's sum over each information set's actions
    np.testing.assert_array_equal(s.weight, solver.average_.sum(axis=1))
    path = tmp_path / "s.parquet"
    pq.write_table(to_table("s", s), path)
    np.testing.assert_array_equal(read_strategy(path, game).weight, s.weight)
    # the type-level form of an abstraction: the average plan's own reach, 0 where unreached
    ab = FunctionAbstraction("coarse", leduc_coarse)
    coarse = compile_game(leduc(), ab)
    f = make_solver(coarse, "cfr+", ab).iterate(200).average_strategy()
    assert f.weight is not None and ((f.weight > 0) == f.reached).all()
    first = coarse.infoset_histories() == ""  # a player's first decision: reached with prob. 1
    np.testing.assert_allclose(f.weight[first & (coarse.info_player == 0)], 1.0)


def test_leduc_view_agrees_with_the_table_and_reads_old_tables(leduc_dir, tmp_path):
    from queries.views import connect, create_views

    infosets = leduc_infosets(leduc_dir)
    means = {}
    for rnd, _, w, _ in infosets.values():
        if w > 0:
            means.setdefault(rnd, []).append(w)
    create_views(leduc_dir)
    with connect(leduc_dir) as con:
        rows = con.execute("SELECT DISTINCT cards, history, round, player, seat, training "
                           "FROM strategies WHERE strategy = 'l'").fetchall()
    assert len(rows) == len(infosets)
    for cards, history, rnd, player, seat, training in rows:
        r, p, w, _ = infosets[(cards, history)]
        assert (rnd, player, seat) == (r + 1, p + 1, f"player {p + 1}")
        want = ("never trained" if w == 0 else "barely trained"
                if w < BARELY_TRAINED * np.mean(means[r]) else "trained")
        assert training == want
    # a table written before weights: unknown, or never trained where flagged unreached
    old = tmp_path / "old"
    (old / "strategies" / "l").mkdir(parents=True)
    t = pq.read_table(strategy_path(leduc_dir, "l"))
    pq.write_table(t.drop(["weight", "round_mean_weight"]), strategy_path(old, "l"))
    create_views(old)
    with connect(old) as con:
        got = dict(con.execute("SELECT training, count(*) FROM strategies GROUP BY ALL")
                   .fetchall())
    never = sum(1 for r in t.column("reached").to_pylist() if not r)
    assert got == {"unknown": t.num_rows - never, "never trained": never}
