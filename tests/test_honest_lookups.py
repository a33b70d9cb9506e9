"""Honest look-ups (issue 47): every strategy table stores each information set's
average-strategy weight; the look-up (CLI and API), ``evaluate``, the range grid and the SQL
view say "never trained" where it is 0 and "barely trained" below
``schema.strategy.BARELY_TRAINED`` of the round's mean, instead of presenting the uniform default
as advice; seats are named and numbered from 1 everywhere.

The Hold'em strategy is three iterations of chance-sampled CFR+ on a 3/6-bucket abstraction:
an iteration samples one deal, so each seat's average strategy holds weight at no more than
three buckets per betting node, and at least 3 of the 6 flop buckets of every node are
provably never trained. An information set is never trained too where its average is still
exactly the uniform strategy every information set starts at (all its accumulator entries
equal: weight gathered only at iterations when regret matching still played it uniformly, e.g.
visited once); three iterations leave some of those and some that moved. The weights are
counted here straight from ``average.npy`` and the betting tree's offsets, independently of
the code under test.
"""

import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
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
               "2", "--name", "one", "--iterations", "3", "--sampler", "chance",
               "--lbr-deals", "0", "--h2h-deals", "50") == 0
    return d


def holdem_average(d):
    """{(history, round 0-based, player 0-based): (buckets, actions) average-strategy
    accumulator entries} from average.npy."""
    buckets = synthetic_buckets((3, 6), n_rounds=2)
    tree = build_tree(HoldemRules(n_rounds=2, max_bets=2))
    off, size = tree.offsets(buckets.n_buckets)
    avg = np.load(d / "strategies" / "one" / "average.npy")
    assert len(avg) == size
    out = {}
    for n in tree.decision_nodes():
        r, k = int(tree.round[n]), int(tree.nact[n])
        out[(tree.history[n], r, int(tree.player[n]))] = np.array(
            [[avg[off[n, 0] + b * off[n, 1] + a] for a in range(k)]
             for b in range(buckets.n_buckets[r])])
    return out


def holdem_weights(d):
    """{key as above: (buckets,) infoset weights}."""
    return {key: a.astype(np.float64).sum(axis=1) for key, a in holdem_average(d).items()}


def holdem_uniform(d):
    """{key as above: (buckets,) whether the information set holds weight but its average is
    still the uniform start: every accumulator entry equal}."""
    return {key: (a.sum(axis=1) > 0) & (a == a[:, :1]).all(axis=1)
            for key, a in holdem_average(d).items()}


def direct_counts(weights, uniform):
    """{(round from 1, seat): (never, barely, infosets)} of {key: weights} keyed as above:
    never trained where the weight is 0 or the average still the uniform start."""
    seat = {0: "small blind", 1: "big blind"}
    means = {}
    for (_, r, _), w in weights.items():
        means.setdefault(r, []).extend(w[w > 0])
    out = {}
    for key, w in weights.items():
        _, r, p = key
        never = (w == 0) | uniform[key]
        cut = BARELY_TRAINED * np.mean(means[r])
        c = out.setdefault((r + 1, seat[p]), [0, 0, 0])
        c[0] += int(never.sum())
        c[1] += int((~never & (w < cut)).sum())
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
    weights, uniform = holdem_weights(holdem_dir), holdem_uniform(holdem_dir)
    want = direct_counts(weights, uniform)
    # provably never trained: one sampled deal a iteration trains at most one bucket per node
    for (history, r, p), w in weights.items():
        assert (w == 0).sum() >= len(w) - 3, history
    assert want[(2, "big blind")][0] >= 3 * sum(1 for _, r, p in weights if (r, p) == (1, 1))
    # both kinds of never trained are there: no weight, and weight at the uniform start
    assert sum(int(u.sum()) for u in uniform.values()) > 0
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
    weights, uniform = holdem_weights(holdem_dir), holdem_uniform(holdem_dir)
    look = open_lookup(holdem_dir, "one")
    seen = set()
    # the flop after a raised and called preflop and a bet by the big blind: the small blind
    for hole in ("AcAd", "7c3d", "KcQc", "5s4s", "JhTh", "8d8c", "Qs3h", "6h6d", "AhKs"):
        got = look.at(hole, "2c2d2h", "rc/r")
        assert got.seat == "small blind" and got.player == 1 and got.round == 2
        b = int(got.infoset.split(".")[1])
        w = weights[("rc/r", 1, 0)][b]
        assert got.weight == pytest.approx(w)
        assert got.reached == (w > 0)
        assert (got.training == "never trained") == (w == 0 or uniform[("rc/r", 1, 0)][b])
        if w == 0:
            assert got.training == "never trained" and got.trained is False
        seen.add(got.training)
    assert "never trained" in seen
    # a spot without weight on the command line: no advice, the default said to be one
    never = next(h for h in ("AcAd", "7c3d", "KcQc", "5s4s", "JhTh", "8d8c", "Qs3h", "6h6d",
                             "AhKs") if look.at(h, "2c2d2h", "rc/r").weight == 0)
    assert run(holdem_dir, "strategy", "one", "--hole", never, "--board", "2c2d2h",
               "--history", "rc/r") == 0
    out = capsys.readouterr().out
    assert "small blind (player 1) to act in round 2" in out
    assert "NEVER TRAINED" in out and "uniform default (not advice)" in out
    assert "holds no weight here" in out
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


def spot_where(look, history, want):
    """(board, hole, look-up) of the first real cards at ``history`` (a flop history) whose
    look-up satisfies ``want``."""
    from itertools import combinations

    from etl.cards import format_card

    for board in ("9s5h3d", "Kc8d4h", "AsQsTs", "7c8h9s", "6d6h2c", "2c2d2h"):
        for a, b in combinations(range(52), 2):
            h = format_card(a) + format_card(b)
            if not {h[:2], h[2:]} & {board[i:i + 2] for i in (0, 2, 4)}:
                got = look.at(h, board, history)
                if want(got):
                    return board, h, got
    raise AssertionError(f"no spot at {history}")


def test_holdem_an_average_still_at_the_uniform_start_is_never_trained(holdem_dir, capsys):
    """An information set that holds weight but whose average strategy is still exactly the
    uniform start (the solver never moved it) is never trained -- in the look-up (CLI and
    JSON), in ``evaluate``'s counts and in the SQL view; one whose average moved is not."""
    from queries.views import connect, create_views

    weights, uniform = holdem_weights(holdem_dir), holdem_uniform(holdem_dir)
    key = ("rc/r", 1, 0)
    assert uniform[key].any() and ((weights[key] > 0) & ~uniform[key]).any()
    look = open_lookup(holdem_dir, "one")
    board, hole, got = spot_where(
        look, "rc/r", lambda g: uniform[key][int(g.infoset.split(".")[1])])
    assert got.weight > 0 and got.reached is True
    assert got.training == "never trained" and got.trained is False
    assert got.probabilities == pytest.approx([1 / 3] * 3)
    moved_board, moved_hole, moved = spot_where(
        look, "rc/r", lambda g: g.weight > 0 and not uniform[key][int(g.infoset.split(".")[1])])
    assert moved.training != "never trained" and moved.probabilities != pytest.approx([1 / 3] * 3)

    # the command line says why, and that the probabilities are no advice
    assert run(holdem_dir, "strategy", "one", "--hole", hole, "--board", board, "--history",
               "rc/r") == 0
    out = capsys.readouterr().out
    assert "NEVER TRAINED: the solver never moved this information set off its uniform " \
           "starting strategy" in out
    assert f"average-strategy weight {got.weight:.4g}" in out
    assert "uniform default (not advice)" in out
    assert run(holdem_dir, "strategy", "one", "--hole", hole, "--board", board, "--history",
               "rc/r", "--format", "json") == 0
    js = json.loads(capsys.readouterr().out)
    assert js["training"] == "never trained" and js["trained"] is False and js["weight"] > 0
    assert run(holdem_dir, "strategy", "one", "--hole", moved_hole, "--board", moved_board,
               "--history", "rc/r") == 0
    assert "NEVER TRAINED" not in capsys.readouterr().out

    # evaluate counts it among the never trained of its round and seat
    assert run(holdem_dir, "evaluate", "one", "--lbr-deals", "0", "--h2h-deals", "20") == 0
    text = capsys.readouterr().out
    counts = reported_counts(text)
    assert counts == direct_counts(weights, uniform)
    zero_only = sum(int((w == 0).sum()) for (_, r, p), w in weights.items() if (r, p) == (1, 0))
    assert counts[(2, "small blind")][0] > zero_only
    assert "hold weight, their average still the uniform start" in text

    # and so does the SQL view
    create_views(holdem_dir)
    with connect(holdem_dir) as con:
        def training(cards):
            return con.execute("SELECT DISTINCT training FROM strategies WHERE strategy = 'one' "
                               "AND history = 'rc/r' AND cards = ?", [cards]).fetchall()
        assert training(got.infoset) == [("never trained",)]
        assert training(moved.infoset) == [(moved.training,)]


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

    weights, uniform = holdem_weights(holdem_dir), holdem_uniform(holdem_dir)
    client = TestClient(create_app(holdem_dir))
    look = open_lookup(holdem_dir, "one")
    for hole in ("AcAd", "7c3d", "KcQc"):
        r = client.get("/strategies/one/lookup", params={"hole": hole, "board": "2c2d2h",
                                                         "history": "rc/r"})
        assert r.status_code == 200
        js = r.json()
        b = int(js["infoset"].split(".")[1])
        w = weights[("rc/r", 1, 0)][b]
        assert js["reached"] == (w > 0) and js["seat"] == "small blind"
        assert (js["training"] == "never trained") == (w == 0 or uniform[("rc/r", 1, 0)][b])
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
    weights, uniform = holdem_weights(holdem_dir), holdem_uniform(holdem_dir)
    with connect(holdem_dir) as con:
        rows = con.execute("SELECT DISTINCT history, round, player, seat, cards, weight, "
                           "training FROM strategies WHERE strategy = 'one'").fetchall()
    assert len(rows) == sum(len(w) for w in weights.values())
    for history, rnd, player, seat, cards, weight, training in rows:
        key, b = (history, rnd - 1, player - 1), int(cards.split(".")[-1])
        w = weights[key][b]
        assert seat == ("small blind", "big blind")[player - 1]
        assert weight == pytest.approx(w)
        assert (training == "never trained") == (w == 0 or uniform[key][b])


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
    assert not holdem_uniform(d)[("rc/r", 1, 0)][b]
    got = open_lookup(d, "one").at(hole, board, "rc/r")
    assert got.training == "barely trained" and got.reached is True and got.trained is False
    assert got.weight < got.weight_threshold
    assert got.probabilities == pytest.approx(before.probabilities, rel=1e-5)
    assert run(d, "strategy", "one", "--hole", hole, "--board", board, "--history",
               "rc/r") == 0
    assert "BARELY TRAINED" in capsys.readouterr().out
    assert run(d, "evaluate", "one", "--lbr-deals", "0", "--h2h-deals", "20") == 0
    got = reported_counts(capsys.readouterr().out)
    assert got == direct_counts(weights, holdem_uniform(d)) and got[(2, "small blind")][1] >= 1


def test_uniform_default_is_read_at_the_tables_float32_precision():
    from schema.strategy import TRAINING, training_codes, uniform_default

    third = float(np.float32(1 / 3))  # what a Hold'em table stores for 1/3: 0.33333334
    assert third != 1 / 3 and abs(third - 1 / 3) > 1e-9 * (1 / 3)
    below = float(np.nextafter(np.float32(1 / 3), np.float32(0)))
    above = float(np.nextafter(np.float32(1 / 3), np.float32(1)))
    assert uniform_default([[1 / 3] * 3, [third] * 3]).tolist() == [True, True]
    assert uniform_default([[below, third, 1 - below - third],
                            [above, third, third]]).tolist() == [False, False]
    assert uniform_default([[0.5, 0.5], [0.5000001, 0.4999999]]).tolist() == [True, False]
    # weight with an average still uniform: never trained, whatever the weight
    codes = training_codes(np.array([5.0, 5.0, 0.001, 0.0]), 1.0,
                           np.array([True, False, True, False]))
    assert [TRAINING[c] for c in codes] == ["never trained", "trained", "never trained",
                                             "never trained"]


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


def test_holdem_table_stores_uniform_start_per_row_with_contiguous_information_sets(holdem_dir):
    """The Hold'em table carries ``uniform_start`` (true on every row of an information set
    holding weight whose average is still the uniform start), and an information set's rows are
    contiguous -- what the view reads row by row and the upgrade's streaming pass relies on."""
    from schema.strategy import HOLDEM_WEIGHT_SCHEMA

    t = pq.read_table(strategy_path(holdem_dir, "one"))
    assert t.schema.equals(HOLDEM_WEIGHT_SCHEMA, check_metadata=False)
    uniform = holdem_uniform(holdem_dir)
    keys = list(zip(t.column("history").to_pylist(), t.column("round").to_pylist(),
                    t.column("player").to_pylist(), t.column("cards").to_pylist()))
    flags = t.column("uniform_start").to_pylist()
    seen, runs = set(), 0
    for i, key in enumerate(keys):
        if i == 0 or key != keys[i - 1]:
            assert key not in seen  # one contiguous run per information set
            seen.add(key)
            runs += 1
        history, rnd, player, cards = key
        assert flags[i] == bool(uniform[(history, rnd, player)][int(cards.split(".")[-1])])
    assert runs == sum(len(w) for w in holdem_weights(holdem_dir).values())
    assert any(flags) and not all(flags)


def old_format_copy(src, dst, row_group_size=7):
    """A copy of data directory ``src`` whose strategy ``one`` is written as before
    ``uniform_start`` existed (``STRATEGY_WEIGHT_SCHEMA``), in row groups of ``row_group_size``
    rows: a row group ends inside an information set (2 or 3 rows) again and again."""
    import shutil

    from schema.strategy import STRATEGY_WEIGHT_SCHEMA, with_format

    shutil.copytree(src, dst)
    path = strategy_path(dst, "one")
    t = pq.read_table(path).drop(["uniform_start"])
    old = pa.Table.from_arrays(t.columns, schema=with_format(STRATEGY_WEIGHT_SCHEMA, "holdem"))
    path.unlink()
    pq.write_table(old, path, row_group_size=row_group_size)
    return path


def view_training(d, cards):
    from queries.views import connect, create_views

    create_views(d)
    with connect(d) as con:
        return con.execute("SELECT DISTINCT training FROM strategies WHERE strategy = 'one' "
                           "AND history = 'rc/r' AND cards = ?", [cards]).fetchall()


def test_an_old_holdem_table_reads_and_the_upgrade_adds_uniform_start(holdem_dir, tmp_path,
                                                                     capsys):
    """A Hold'em table written before ``uniform_start`` still reads (the view shows the weight
    rule there, the look-up the full one); ``strategies --upgrade`` adds the column from the
    table's own rows (the writer's values exactly, across row groups that cut information sets),
    records the new SHA-256, and the view then agrees with the look-up."""
    from schema.catalog import session_scope
    from schema.catalog_solve import SolveRun
    from schema.storage import file_sha256

    d = tmp_path / "old"
    path = old_format_copy(holdem_dir, d)
    assert "uniform_start" not in pq.read_schema(path).names
    uniform = holdem_uniform(holdem_dir)
    key = ("rc/r", 1, 0)
    look = open_lookup(d, "one")
    _, _, got = spot_where(look, "rc/r", lambda g: uniform[key][int(g.infoset.split(".")[1])])
    assert got.training == "never trained" and got.weight > 0
    # the old table: the weight rule only (documented in strategies.sql)
    assert view_training(d, got.infoset) in ([("trained",)], [("barely trained",)])
    from queries.views import connect
    with connect(d) as con:
        n = con.execute("SELECT count(*) FROM strategies WHERE strategy = 'one'").fetchone()[0]
    assert n == pq.read_metadata(path).num_rows

    assert run(d, "strategies", "--upgrade", "one") == 0
    out = capsys.readouterr().out
    flagged = sum(int(u.sum()) for u in uniform.values())
    assert f"{flagged:,} still at the uniform start" in out
    new = pq.read_table(path)
    assert new.column("uniform_start").equals(
        pq.read_table(strategy_path(holdem_dir, "one")).column("uniform_start"))
    assert new.drop(["uniform_start"]).equals(pq.read_table(strategy_path(holdem_dir, "one"))
                                              .drop(["uniform_start"]))
    assert pq.read_schema(path).metadata[b"poker.strategy_format"] == b"holdem"
    with session_scope(d) as s:
        assert s.get(SolveRun, "one").sha256 == file_sha256(path)
    assert view_training(d, got.infoset) == [("never trained",)]
    assert open_lookup(d, "one").at(*spot_args(look, got)).training == "never trained"
    test_holdem_view_names_seats_and_says_never_trained(d)  # every information set agrees
    # again: already current, nothing written
    before = file_sha256(path)
    assert run(d, "strategies", "--upgrade", "one") == 0
    assert "already current" in capsys.readouterr().out and file_sha256(path) == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")) == []


def test_an_upgrade_cut_off_around_the_catalog_commit_resumes(holdem_dir, tmp_path, capsys,
                                                              monkeypatch):
    """The table and its catalog digest change together: killed before the catalog commit,
    the old table and row stand and a re-run upgrades; killed between the commit and the rename,
    a re-run finds the pending copy's digest in the catalog and finishes the rename. Either way
    the catalog's SHA-256 ends equal to the table's, as an export needs."""
    import solve.runs
    from schema.catalog import session_scope
    from schema.catalog_solve import SolveRun
    from schema.storage import file_sha256

    d = tmp_path / "old"
    path = old_format_copy(holdem_dir, d)
    pending = solve.runs.pending_upgrade_path(path)

    def digest():
        with session_scope(d) as s:
            return s.get(SolveRun, "one").sha256

    old_table, old_row = file_sha256(path), digest()

    def killed(*a, **k):
        raise KeyboardInterrupt

    # before the commit: nothing the readers see has changed
    with monkeypatch.context() as m:
        m.setattr(solve.runs, "_set_digest", killed)
        with pytest.raises(KeyboardInterrupt):
            solve.runs.upgrade_strategy(d, "one")
    assert file_sha256(path) == old_table and digest() == old_row and pending.is_file()
    assert run(d, "strategies", "--upgrade", "one") == 0
    assert "still at the uniform start" in capsys.readouterr().out
    assert "uniform_start" in pq.read_schema(path).names
    assert digest() == file_sha256(path) != old_table and not pending.exists()

    # between the commit and the rename: the re-run finishes it
    path2 = old_format_copy(holdem_dir, tmp_path / "old2")
    d2 = tmp_path / "old2"
    replace = os.replace

    def rename_killed(src, dst):  # only the rename onto the table (AtomicFile's own go on)
        if Path(dst) == path2:
            raise KeyboardInterrupt
        replace(src, dst)

    with monkeypatch.context() as m:
        m.setattr(os, "replace", rename_killed)
        with pytest.raises(KeyboardInterrupt):
            solve.runs.upgrade_strategy(d2, "one")
    pending2 = solve.runs.pending_upgrade_path(path2)
    with session_scope(d2) as s:
        assert s.get(SolveRun, "one").sha256 == file_sha256(pending2) != file_sha256(path2)
    assert run(d2, "strategies", "--upgrade", "one") == 0
    assert "finished an upgrade that was cut off" in capsys.readouterr().out
    with session_scope(d2) as s:
        assert s.get(SolveRun, "one").sha256 == file_sha256(path2)
    assert "uniform_start" in pq.read_schema(path2).names and not pending2.exists()
    assert pq.read_table(path2).equals(pq.read_table(path))


def one_error(capsys):
    """The one ``error:`` line a failed command printed (after any progress lines), which
    must be the last line of its stderr."""
    lines = capsys.readouterr().err.strip().splitlines()
    assert [x for x in lines if x.startswith("error:")] == lines[-1:]
    return lines[-1]


def spot_args(look, got):
    return got.hole, got.board, got.history


def test_an_upgrade_that_fails_leaves_the_old_table_intact(holdem_dir, tmp_path, capsys):
    """Interrupted midway, a damaged row group, a truncated file, rows not grouped by
    information set: the upgrade fails (one line) and the old table is byte for byte the same,
    no temporary file left."""
    from schema.storage import file_sha256
    from solve.holdem.table import upgrade_strategy_table

    d = tmp_path / "old"
    path = old_format_copy(holdem_dir, d)
    before = file_sha256(path)

    def no_tmp():
        return not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]

    def stop(done, total):
        if done:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        upgrade_strategy_table(path, progress=stop)
    assert file_sha256(path) == before and no_tmp()

    # a damaged column chunk in a later row group
    meta = pq.read_metadata(path)
    g = meta.num_row_groups - 2
    col = meta.row_group(g).column(meta.schema.names.index("cards"))
    start = col.dictionary_page_offset or col.data_page_offset
    raw = bytearray(path.read_bytes())
    raw[start:start + col.total_compressed_size] = b"\xff" * col.total_compressed_size
    damaged = d / "strategies" / "damaged"
    damaged.mkdir()
    (damaged / "strategy.parquet").write_bytes(bytes(raw))
    want = file_sha256(damaged / "strategy.parquet")
    assert run(d, "strategies", "--upgrade", "damaged") != 0
    assert "cannot be read" in one_error(capsys)
    assert file_sha256(damaged / "strategy.parquet") == want
    assert not [p for p in damaged.iterdir() if p.name.endswith(".tmp")]

    # a partial file (cut off: no footer)
    (damaged / "strategy.parquet").write_bytes(bytes(raw[:len(raw) // 2]))
    assert run(d, "strategies", "--upgrade", "damaged") != 0
    assert "cannot be read as a strategy table" in one_error(capsys)
    assert (damaged / "strategy.parquet").stat().st_size == len(raw) // 2

    # rows not contiguous per information set (sorted by action): refused
    t = pq.read_table(path)
    by_action = np.argsort(np.array(t.column("action").to_pylist()), kind="stable")
    pq.write_table(t.take(pa.array(by_action)), damaged / "strategy.parquet", row_group_size=7)
    want = file_sha256(damaged / "strategy.parquet")
    assert run(d, "strategies", "--upgrade", "damaged") != 0
    assert "not contiguous" in one_error(capsys)
    assert file_sha256(damaged / "strategy.parquet") == want
    assert file_sha256(path) == before and no_tmp()
