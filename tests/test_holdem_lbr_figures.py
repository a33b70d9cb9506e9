"""LBR figures kept beside Hold'em strategies (``solve.holdem.assess``): ``evaluate NAME
--lbr-boards N`` stores LBR's chips per board and seat and reads them back when asked again;
the SQL views ``holdem_lbr_boards`` and ``holdem_lbr`` (``queries/holdem_figures.sql``) count
each board once and state the bound as ``evaluate`` does; and ``holdem_exact_best_response``
puts that bound, overall and per seat, beside an exact best response of the same strategy."""

import json

import numpy as np
import pytest

import cli
from solve.holdem import assess
from solve.holdem import best_response as BR
from solve.holdem.evaluate import board_lbr, lbr_estimates
from solve.holdem.figures import FigureStore
from solve.holdem.run import load_policy

SOLVE = ["solve", "--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets", "2",
         "--lbr-deals", "20", "--h2h-deals", "50", "--iterations", "300"]


@pytest.fixture()
def run(tmp_path):
    """``cli.py --data-dir TMP ...`` with strategy ``h`` solved there."""
    def call(*a):
        return cli.main(["--data-dir", str(tmp_path), *a])
    assert call(*SOLVE, "--name", "h") == 0
    return call


def sql(run, capsys, query):
    capsys.readouterr()
    assert run("sql", query, "--format", "json") == 0
    return json.loads(capsys.readouterr().out)


def lbr_line(out: str) -> str:
    (line,) = [x for x in out.splitlines() if x.startswith("local best response")]
    return line


def test_evaluate_keeps_lbr_over_boards_and_reads_it_back(run, tmp_path, capsys, monkeypatch):
    capsys.readouterr()
    assert run("evaluate", "h", "--lbr-boards", "3", "--h2h-deals", "2") == 0
    first = lbr_line(capsys.readouterr().out)
    assert "(n=3) over boards" in first
    ev = tmp_path / "strategies" / "h" / "evaluations"
    (stored,) = ev.glob("lbr-*.json")
    key = json.loads(stored.read_text())["key"]
    assert (key["boards"], key["seed"], key["iterations"]) == (3, assess.LBR_SEED, 300)
    # what evaluate printed before figures were kept: board_lbr on the same boards
    pol, tree = load_policy("h", tmp_path, {})
    values = np.asarray(json.loads(stored.read_text())["value"])
    lbr, s0, s1 = lbr_estimates(values, tree.rules.big_blind)
    assert board_lbr(tree, pol, 3, seed=assess.LBR_SEED)[0] == lbr
    assert f"{lbr} over boards [as small blind: {s0.mean:+.1f}" in first

    def refuse(*a, **k):
        raise AssertionError("measured again")

    monkeypatch.setattr(assess, "board_lbr_values", refuse)
    assert run("evaluate", "h", "--lbr-boards", "3", "--h2h-deals", "2") == 0
    assert lbr_line(capsys.readouterr().out) == first
    # the views: one row per board, the bound as evaluate states it
    boards = sql(run, capsys, "SELECT seed, board, responder_small_blind_mbb, "
                 "responder_big_blind_mbb, lbr_mbb FROM holdem_lbr_boards ORDER BY board")
    assert [(b["seed"], b["board"]) for b in boards] == [(8, 0), (8, 1), (8, 2)]
    for b, v in zip(boards, values):
        assert b["responder_small_blind_mbb"] == pytest.approx(v[0] * 500, abs=1e-9)
        assert b["responder_big_blind_mbb"] == pytest.approx(v[1] * 500, abs=1e-9)
        assert b["lbr_mbb"] == pytest.approx(v.mean() * 500, abs=1e-9)
    (row,) = sql(run, capsys, "SELECT spec, iterations, tau, boards, seeds, lbr_mbb, "
                 "lbr_half_width_mbb, lbr_responder_small_blind_mbb, "
                 "lbr_responder_big_blind_mbb, current FROM holdem_lbr")
    assert (row["spec"], row["iterations"], row["tau"], row["boards"], row["seeds"],
            row["current"]) == ("h", 300, None, 3, "8", True)
    assert row["lbr_mbb"] == pytest.approx(lbr.mean, abs=1e-9)
    assert row["lbr_half_width_mbb"] == pytest.approx(lbr.half_width, abs=1e-9)
    assert row["lbr_responder_small_blind_mbb"] == pytest.approx(s0.mean, abs=1e-9)
    assert row["lbr_responder_big_blind_mbb"] == pytest.approx(s1.mean, abs=1e-9)


def test_boards_counted_once_pooled_over_seeds_and_beside_the_exact_figure(run, tmp_path,
                                                                           capsys):
    pol, tree = load_policy("h", tmp_path, {})
    load = lambda: (tree, pol)  # noqa: E731
    # the first 2 boards of seed 5, then its first 4 (overlapping), then boards 4-5 as a block
    a = assess.stored_board_lbr(tmp_path, "h", *assess.same_boards(2, 5), load)
    b = assess.stored_board_lbr(tmp_path, "h", *assess.same_boards(4, 5), load)
    assert np.array_equal(a, b[:2])  # the boards are drawn prefix-consistently
    boards, perms, _ = assess.same_boards(6, 5)
    c = assess.stored_board_lbr(tmp_path, "h", boards[4:], perms[4:],
                                {"boards": 2, "seed": 5, "first": 4}, load)
    d = assess.stored_board_lbr(tmp_path, "h", *assess.same_boards(1, 9), load)
    # and a purified strategy's, apart
    pure, _ = load_policy("h~pure", tmp_path, {})
    assess.stored_board_lbr(tmp_path, "h~pure", *assess.same_boards(2, 5), lambda: (tree, pure))
    rows = sql(run, capsys, "SELECT tau, seed, board FROM holdem_lbr_boards "
               "ORDER BY tau NULLS FIRST, seed, board")
    assert [(r["tau"], r["seed"], r["board"]) for r in rows] == [
        (None, 5, 0), (None, 5, 1), (None, 5, 2), (None, 5, 3), (None, 5, 4), (None, 5, 5),
        (None, 9, 0), ("pure", 5, 0), ("pure", 5, 1)]
    every = np.concatenate([b, c, d])
    lbr, s0, s1 = lbr_estimates(every, tree.rules.big_blind)
    got = {r["spec"]: r for r in sql(run, capsys, "SELECT spec, boards, seeds, lbr_mbb, "
                                     "lbr_half_width_mbb, lbr_responder_small_blind_mbb, "
                                     "lbr_responder_big_blind_mbb, current FROM holdem_lbr")}
    assert set(got) == {"h", "h~pure"} and got["h~pure"]["current"] is False
    row = got["h"]
    assert (row["boards"], row["seeds"], row["current"]) == (7, "5,9", True)
    assert row["lbr_mbb"] == pytest.approx(lbr.mean, abs=1e-9)
    assert row["lbr_half_width_mbb"] == pytest.approx(lbr.half_width, abs=1e-9)
    assert row["lbr_responder_small_blind_mbb"] == pytest.approx(s0.mean, abs=1e-9)
    assert row["lbr_responder_big_blind_mbb"] == pytest.approx(s1.mean, abs=1e-9)
    # an exact best response of the same strategy on the full deck, stored as run_exact stores
    # it (computing one takes CPU hours): the view puts the pooled bound beside it, per seat
    exact = {"br_seat0_mbb": 900.0, "br_seat1_mbb": 700.0, "exploitability_mbb": 800.0,
             "value_mbb": 100.0, "flops": 1755}
    key = BR.store_key(tmp_path, "h", tree, BR.FULL_DECK)
    FigureStore(tmp_path / "strategies" / "h" / "evaluations").put(
        {**key, "kind": "exact-best-response"}, exact)
    (x,) = sql(run, capsys, "SELECT spec, full_deck, lbr_source, lbr_boards, lbr_mbb, "
               "lbr_half_width_mbb, exact_minus_lbr_mbb, exact_minus_lbr_small_blind_mbb, "
               "exact_minus_lbr_big_blind_mbb FROM holdem_exact_best_response")
    assert (x["spec"], x["full_deck"], x["lbr_source"], x["lbr_boards"]) == (
        "h", True, "boards", 7)
    assert x["lbr_mbb"] == pytest.approx(lbr.mean, abs=1e-9)
    assert x["lbr_half_width_mbb"] == pytest.approx(lbr.half_width, abs=1e-9)
    assert x["exact_minus_lbr_mbb"] == pytest.approx(800.0 - lbr.mean, abs=1e-9)
    assert x["exact_minus_lbr_small_blind_mbb"] == pytest.approx(900.0 - s0.mean, abs=1e-9)
    assert x["exact_minus_lbr_big_blind_mbb"] == pytest.approx(700.0 - s1.mean, abs=1e-9)
    # a figure of another FigureStore version means something else: not in the views
    for f in (tmp_path / "strategies" / "h" / "evaluations").glob("*.json"):
        stored = json.loads(f.read_text())
        stored["key"]["version"] -= 1
        f.write_text(json.dumps(stored))
    assert sql(run, capsys, "SELECT count(*) AS n FROM holdem_lbr_boards") == [{"n": 0}]
    assert sql(run, capsys, "SELECT count(*) AS n FROM holdem_exact_best_response") == [
        {"n": 0}]
