"""Limit Texas Hold'em (issue 6) on tiny hand-strength abstractions: betting tree, abstract
best response against brute force, duplicate matches, LBR, CFR+ resume, CLI and SQL."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import cli
from solve.holdem.buckets import HoldemBuckets, river_lut, synthetic_buckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.pcs import HoldemPCS
from solve.holdem.evaluate import (Policy, best_response, duplicate_match, local_best_response,
                                   sample_deals, seat_value)
from solve.holdem.game import DECISION, RIVER_KEYS, HoldemRules, build_tree


@pytest.fixture(scope="module")
def tiny1():
    """Preflop-only game (cap 2 bets), 3 buckets."""
    return build_tree(HoldemRules(n_rounds=1, max_bets=2)), synthetic_buckets((3,), n_rounds=1)


@pytest.fixture(scope="module")
def tiny2():
    """Preflop + flop (cap 2 bets), 3 and 6 buckets."""
    return build_tree(HoldemRules(n_rounds=2, max_bets=2)), synthetic_buckets((3, 6), n_rounds=2)


@pytest.fixture(scope="module")
def solved2(tiny2):
    tree, b = tiny2
    s = HoldemCFR(tree, b, seed=3)
    s.iterate(40_000)
    return Policy.table("s", tree, b, s.average_)


def random_policy(tree, b, seed):
    off, size = tree.offsets(b.n_buckets)
    return Policy.table("r", tree, b, np.random.default_rng(seed).random(size).astype(np.float32))


def test_betting_tree_of_the_real_game():
    t = build_tree()
    dec = t.ntype == DECISION
    assert dec.sum() == 6378  # heads-up limit Hold'em's betting sequences
    assert [int((dec & (t.round == r)).sum()) for r in range(4)] == [8, 70, 630, 5670]
    assert t.history[:4] == ["", "f", "c", "cc/"]
    assert t.action_names(0) == ["fold", "call", "raise"]
    assert t.action_names(int(np.flatnonzero(np.array(t.history) == "cc/")[0])) == ["check", "bet"]
    # a showdown after raising to the cap everywhere: 4 bets of 2, 2, 4, 4 per player
    sd = [i for i, h in enumerate(t.history) if h == "rrrc/rrrrc/rrrrc/rrrrc"]
    assert t.spent[sd[0]].tolist() == [8 + 8 + 16 + 16] * 2
    off, size = t.offsets((20, 800, 4800, 28800))
    assert size == 432_578_020


def test_river_lookup_from_thresholds():
    th = pd.DataFrame({"parent_bucket": [0, 0, 1], "bucket": [0, 1, 2],
                       "min_equity": [10 / 1980, 900 / 1980, 0.0],
                       "max_equity": [500 / 1980, 1.0, 1.0]})
    lut, parents = river_lut(th, 2)
    assert lut.shape == (2, RIVER_KEYS) and parents.tolist() == [0, 0, 1]
    assert lut[0, 0] == 0 and lut[0, 500] == 0 and lut[0, 700] == 0 and lut[0, 900] == 1
    assert (lut[1] == 2).all()


def test_best_response_matches_brute_force(tiny1):
    """Exact BR over a fixed set of deals = the best of all pure strategies of the player."""
    tree, b = tiny1
    opp = random_policy(tree, b, 1)
    deals = sample_deals(60, seed=4)
    off, size = tree.offsets(b.n_buckets)
    for p in (0, 1):
        value, br = best_response(tree, opp, p, deals)
        slots = [(n, bk) for n in tree.decision_nodes() if tree.player[n] == p
                 for bk in range(b.n_buckets[0])]
        best = -np.inf
        for choice in itertools.product(*(range(tree.nact[n]) for n, _ in slots)):
            w = np.zeros(size, np.float32)
            for (n, bk), a in zip(slots, choice):
                w[off[n, 0] + bk * off[n, 1] + a] = 1
            pure = Policy.table("p", tree, b, w)
            v = (seat_value(tree, pure, opp, deals) if p == 0
                 else -seat_value(tree, opp, pure, deals))
            best = max(best, v)
        assert value == pytest.approx(best, abs=1e-9)


def test_best_response_two_rounds_is_consistent(tiny2):
    """Two rounds: the BR's own value equals its evaluation and beats random pure strategies."""
    tree, b = tiny2
    opp = random_policy(tree, b, 2)
    deals = sample_deals(300, seed=5)
    rng = np.random.default_rng(0)
    off, size = tree.offsets(b.n_buckets)
    for p in (0, 1):
        value, br = best_response(tree, opp, p, deals)
        brp = Policy.table("br", tree, b, br)
        ev = seat_value(tree, brp, opp, deals) if p == 0 else -seat_value(tree, opp, brp, deals)
        assert value == pytest.approx(ev, abs=1e-9)
        for _ in range(20):
            other = Policy.table("o", tree, b, (rng.random(size) < 0.5).astype(np.float32))
            v = (seat_value(tree, other, opp, deals) if p == 0
                 else -seat_value(tree, opp, other, deals))
            assert v <= value + 1e-9


def test_cfr_lowers_abstract_exploitability(tiny2, solved2):
    tree, b = tiny2
    deals = sample_deals(4000, seed=6)

    def expl(pol):
        return 0.5 * sum(best_response(tree, pol, p, deals)[0] for p in (0, 1))

    assert expl(solved2) < 0.5 * expl(random_policy(tree, b, 0))


def test_duplicate_self_play_is_zero(tiny2, solved2):
    tree, _ = tiny2
    e = duplicate_match(tree, solved2, solved2, 2000, seed=1)
    assert abs(e.mean) <= e.half_width + 1e-9


def test_strategy_beats_the_baselines(tiny2, solved2):
    tree, b = tiny2
    for make in (Policy.always_call, Policy.always_raise):
        e = duplicate_match(tree, solved2, make(tree, b), 4000, seed=2)
        assert e.mean - e.half_width > 0, (make, e)


def test_lbr_exploits_always_call(tiny2):
    tree, b = tiny2
    lbr, s0, s1 = local_best_response(tree, Policy.always_call(tree, b), 300, seed=3)
    assert lbr.mean - lbr.half_width > 0
    assert lbr.mean == pytest.approx(0.5 * (s0.mean + s1.mean))


@pytest.mark.parametrize("solver,first,then", [(HoldemCFR, 3000, 2000), (HoldemPCS, 6, 4)])
def test_resume_is_bit_identical(tiny2, tmp_path, solver, first, then):
    """Both samplers: a run resumed from a checkpoint equals the run that never stopped."""
    tree, b = tiny2
    a = solver(tree, b, seed=9)
    a.iterate(first)
    a.iterate(then)
    c = solver(tree, b, seed=9)
    c.iterate(first)
    c.save(tmp_path / "ck")
    d = solver(tree, b, seed=0)
    d.load(tmp_path / "ck")
    d.iterate(then)
    assert d.iteration_ == first + then
    assert np.array_equal(a.regrets_, d.regrets_) and np.array_equal(a.average_, d.average_)
    other = solver(build_tree(HoldemRules(n_rounds=2, max_bets=3)), b)
    with pytest.raises(ValueError):
        other.load(tmp_path / "ck")


def test_from_arrays_checks_ranges():
    with pytest.raises(ValueError):
        HoldemBuckets.from_arrays("x", [np.array([0, 3])], [np.full(3, -1)])


def run(tmp_path, *argv):
    return cli.main(["--data-dir", str(tmp_path), *argv])


def test_cli_solve_resume_sql_and_errors(tmp_path, capsys):
    args = ["solve", "--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets", "2",
            "--name", "h", "--lbr-deals", "20", "--h2h-deals", "500"]
    assert run(tmp_path, *args, "--iterations", "3000", "--sampler", "chance",
               "--keep-checkpoint") == 0
    out = capsys.readouterr().out
    assert "iterations=3000" in out and "vs always-call" in out and "LBR" in out
    # resumed without --sampler: the checkpoint's (chance), not the default (public)
    assert run(tmp_path, *args, "--iterations", "5000", "--resume") == 0
    assert "algorithm=cfr+ iterations=5000" in capsys.readouterr().out
    views = pytest.importorskip("queries.views")
    with views.connect(tmp_path) as con:
        rows = con.execute("select cards, probability from strategies where strategy = 'h' and "
                           "round = 1 and history = '' and action = 'raise' order by 1").fetchall()
        assert [r[0] for r in rows] == ["0", "1", "2"]
        worst, = con.execute("select max(abs(s - 1)) from (select sum(probability) s from "
                             "strategies where strategy = 'h' group by history, cards)").fetchone()
        assert worst < 1e-6  # probabilities are stored at float32 precision
        labels, = con.execute("select count(distinct cards) from strategies where "
                              "strategy = 'h' and round = 2").fetchone()
        assert labels == 6
    assert run(tmp_path, "evaluate", "h") == 0
    assert "local best response" in capsys.readouterr().out
    assert run(tmp_path, "evaluate", "h", "--lbr-boards", "3", "--h2h-deals", "50") == 0
    out = capsys.readouterr().out
    assert "(n=3) over boards" in out and "n=50)" in out
    assert run(tmp_path, "evaluate", "h", "--h2h-deals", "1") == 2
    assert "--h2h-deals must be at least 2" in capsys.readouterr().err
    assert run(tmp_path, "solve", "--game", "holdem", "--name", "z") == 2
    assert run(tmp_path, "solve", "--game", "holdem", "--abstraction", "nope") == 2
    assert run(tmp_path, "solve", "--game", "holdem", "--abstraction", "synthetic:3,5") == 2
    assert run(tmp_path, "solve", "--game", "holdem", "--abstraction", "synthetic:3",
               "--name", "q", "--resume") == 2
    err = capsys.readouterr().err
    assert err.count("error: ") == 4 and "Traceback" not in err


def test_four_rounds_with_one_bucket_per_round():
    """The full game's lookups (turn [2,3,1], river key -> per-turn-bucket table) on a
    card-blind abstraction: zero arrays of the real sizes (allocated lazily by the OS)."""
    from etl.isomorphism import HandIndexer

    rounds = [np.zeros(HandIndexer(g).size, np.int32) for g in ((2,), (2, 3), (2, 3, 1))]
    parents = [np.array([-1]), np.array([0]), np.array([0]), np.array([0])]
    b = HoldemBuckets.from_arrays("blind", rounds, parents, np.zeros((1, RIVER_KEYS), np.int32),
                                  np.zeros(HandIndexer((2, 5)).size, np.uint16))
    tree = build_tree()
    s = HoldemCFR(tree, b, seed=1)
    s.iterate(300)
    pol = Policy.table("blind", tree, b, s.average_)
    e = duplicate_match(tree, pol, pol, 200, seed=1)
    assert abs(e.mean) <= e.half_width + 1e-9
    deals = sample_deals(100, seed=2)
    value, br = best_response(tree, pol, 1, deals)
    brp = Policy.table("br", tree, b, br)
    assert value == pytest.approx(-seat_value(tree, pol, brp, deals), abs=1e-9)
    lbr, _, _ = local_best_response(tree, Policy.always_call(tree, b), 200, seed=3)
    assert lbr.mean - lbr.half_width > 0  # LBR sees its cards; always-call never folds


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_cli_solve_checkpoints_on_ctrl_c_and_runs_once_per_name(tmp_path, capsys, monkeypatch,
                                                                signame):
    """Ctrl-C or SIGTERM in a solve: the running chunk finishes, a checkpoint is saved
    (exit 130, no strategy stored) and --resume goes on from it; a second solve of the same
    name while one runs is refused with one line."""
    import os
    import signal

    from etl.lock import try_file_lock

    args = ["solve", "--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets", "2",
            "--name", "c", "--lbr-deals", "0", "--h2h-deals", "50", "--sampler", "chance"]
    calls = []
    real = HoldemCFR.iterate

    def iterate(self, n):
        real(self, n)
        calls.append(self.iteration_)
        if len(calls) == 3:
            os.kill(os.getpid(), getattr(signal, signame))

    monkeypatch.setattr(HoldemCFR, "iterate", iterate)
    assert run(tmp_path, *args, "--iterations", "10000000") == 130
    err = capsys.readouterr().err
    assert f"stopped at {calls[2]:,} iterations" in err and "interrupted" in err
    ck = tmp_path / "strategies" / "c" / "checkpoint" / "state.json"
    assert json.loads(ck.read_text())["iteration"] == calls[2]
    assert not (tmp_path / "strategies" / "c" / "run.json").exists()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handlers are given back
    with try_file_lock(tmp_path / ".locks" / "solve-c.lock") as mine:
        assert mine
        assert run(tmp_path, *args, "--iterations", "20", "--resume") == 2
    assert "another solve of 'c' is running" in capsys.readouterr().err
    monkeypatch.setattr(HoldemCFR, "iterate", real)
    assert run(tmp_path, *args, "--iterations", str(calls[2] + 500), "--resume") == 0
    assert f"iterations={calls[2] + 500}" in capsys.readouterr().out
