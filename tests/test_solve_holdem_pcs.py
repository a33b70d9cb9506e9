"""Public-chance-sampling CFR and exact per-board evaluation for limit Hold'em (issue 17) on
tiny hand-strength abstractions: the vectorised terminal sums, tree walk and board values
against the scalar kernels summed over the same deals, the exact abstract exploitability
falling as PCS iterates, resume, and the CLI."""

import itertools

import numpy as np
import pytest

import cli
from solve.holdem import _kernels as K
from solve.holdem import _vector_kernels as P
from solve.holdem.buckets import indexer_tables, synthetic_buckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.evaluate import (Policy, best_response, board_match, board_seat_values,
                                   duplicate_match, sample_deals, seat_value)
from solve.holdem.game import HoldemRules, build_tree
from solve.holdem.pcs import HoldemPCS

BOARD = np.array([3, 17, 30, 44, 51], np.uint8)


@pytest.fixture(scope="module")
def tiny2():
    """Preflop + flop (cap 2 bets), 3 and 6 buckets."""
    return build_tree(HoldemRules(n_rounds=2, max_bets=2)), synthetic_buckets((3, 6), n_rounds=2)


def board_hands(b, board=BOARD, n_rounds=2):
    ha, hb = np.zeros(1326, np.int64), np.zeros(1326, np.int64)
    bkt, val, gend = np.zeros((1326, 4), np.int64), np.zeros(1326, np.int64), np.zeros(1326,
                                                                                      np.int64)
    H = P.board_hands(board, n_rounds, b.arrays, indexer_tables(), b.river_key, ha, hb, bkt, val,
                      gend, np.empty(7, np.uint8), np.zeros(4, np.int64))
    return H, ha[:H], hb[:H], bkt[:H], val[:H], gend[:H]


def test_board_hands_are_every_hand_off_the_board_by_strength(tiny2):
    _, b = tiny2
    H, ha, hb, _, val, gend = board_hands(b)
    assert H == 1081  # C(47, 2)
    assert len({(a, c) for a, c in zip(ha, hb)}) == H
    assert not set(BOARD.tolist()) & (set(ha.tolist()) | set(hb.tolist()))
    assert np.all(np.diff(val) >= 0)
    for i in range(H):  # gend: one past the last hand tied with hand i
        assert val[gend[i] - 1] == val[i] and (gend[i] == H or val[gend[i]] > val[i])


def test_fold_and_showdown_sums_match_brute_force(tiny2):
    _, b = tiny2
    H, ha, hb, _, val, gend = board_hands(b)
    rng = np.random.default_rng(4)
    reach = rng.random(H) * (rng.random(H) < 0.8)
    compat = ((ha[:, None] != ha[None, :]) & (ha[:, None] != hb[None, :])
              & (hb[:, None] != ha[None, :]) & (hb[:, None] != hb[None, :]))
    sign = np.sign(val[:, None] - val[None, :])
    fold, show, card = np.zeros(H), np.zeros(H), np.zeros(52)
    P.fold_sums(H, ha, hb, reach, card, fold)
    P.showdown_sums(H, ha, hb, gend, reach, card, show)
    assert np.allclose(fold, compat @ reach, rtol=0, atol=1e-9)
    assert np.allclose(show, (compat * sign) @ reach, rtol=0, atol=1e-9)


def test_vector_walk_equals_scalar_values_summed_over_the_same_deals(tiny2):
    """Each hand's counterfactual value at the root (both players on regret matching of
    random regrets) is the sum over the opponent's compatible hands of the scalar kernels'
    expected chips on those deals."""
    tree, b = tiny2
    off, size = tree.offsets(b.n_buckets)
    R = (np.random.default_rng(1).random(size) - 0.3).astype(np.float32)
    tabs = indexer_tables()
    ha, hb, vals = np.zeros(1326, np.int64), np.zeros(1326, np.int64), {}
    for p in (0, 1):
        v = np.zeros(1326)
        H = P.pcs_root_values(tree.ntype, tree.player, tree.round, tree.nact, tree.child,
                              tree.spent, off, b.arrays, *tabs, b.river_key, 2, R, p, BOARD, ha,
                              hb, v)
        vals[p] = v[:H]
    pairs = [(i, j) for i in range(H) for j in range(H)
             if len({ha[i], hb[i], ha[j], hb[j]}) == 4]
    assert len(pairs) == H * 990
    idx = np.array(pairs)
    deals = np.column_stack([ha[idx[:, 0]], hb[idx[:, 0]], ha[idx[:, 1]], hb[idx[:, 1]],
                             np.tile(BOARD, (len(idx), 1))]).astype(np.uint8)
    pol = Policy.table("rm", tree, b, np.maximum(R, 0))  # normalised = regret matching
    out = np.empty(len(deals))
    K.seat_values(tree.ntype, tree.player, tree.round, tree.nact, tree.child, tree.code,
                  tree.size, tree.spent, 2, *tabs, b.river_key, *pol.args(), *pol.args(), deals,
                  out)
    seat0 = np.bincount(idx[:, 0], weights=out, minlength=H)
    seat1 = np.bincount(idx[:, 1], weights=-out, minlength=H)
    assert np.abs(vals[0]).max() > 100  # not trivially zero
    assert np.allclose(vals[0], seat0, rtol=0, atol=1e-7)
    assert np.allclose(vals[1], seat1, rtol=0, atol=1e-7)


@pytest.mark.parametrize("regret,averaging", [("plus", "linear"), ("vanilla", "uniform")])
def test_exact_abstract_best_response_falls_as_pcs_iterates(tiny2, regret, averaging):
    tree, b = tiny2
    deals = sample_deals(20_000, seed=6)

    def expl(s):
        pol = Policy.table("s", tree, b, s.average_)
        return 0.5 * sum(best_response(tree, pol, p, deals)[0] for p in (0, 1))

    s = HoldemPCS(tree, b, seed=2, regret=regret, averaging=averaging)
    seen = []
    for n in (4, 36, 360):
        s.iterate(n)
        seen.append(expl(s))
    assert seen[0] > seen[1] > seen[2], seen
    assert seen[2] < 0.25 * seen[0], seen


def test_resume_is_bit_identical_and_checks_the_sampler(tiny2, tmp_path):
    tree, b = tiny2
    a = HoldemPCS(tree, b, seed=9)
    a.iterate(6)
    a.iterate(4)
    c = HoldemPCS(tree, b, seed=9)
    c.iterate(6)
    c.save(tmp_path / "ck")
    d = HoldemPCS(tree, b, seed=0)
    d.load(tmp_path / "ck")
    d.iterate(4)
    assert d.iteration_ == 10
    assert np.array_equal(a.regrets_, d.regrets_) and np.array_equal(a.average_, d.average_)
    with pytest.raises(ValueError, match="sampler"):
        HoldemCFR(tree, b).load(tmp_path / "ck")
    with pytest.raises(ValueError, match="averaging"):
        HoldemPCS(tree, b, averaging="quadratic").load(tmp_path / "ck")
    with pytest.raises(ValueError):
        HoldemPCS(tree, b, regret="cfr")


def test_cli_public_sampler(tmp_path, capsys):
    d = str(tmp_path)
    args = ["--data-dir", d, "solve", "--game", "holdem", "--abstraction", "synthetic:3,6",
            "--max-bets", "2", "--lbr-deals", "50", "--h2h-deals", "200"]
    assert cli.main(args + ["--sampler", "public", "--iterations", "20"]) == 0
    out = capsys.readouterr().out
    assert "algorithm=pcs " in out and "holdem-synthetic-3-6-pcs" in out
    assert cli.main(args + ["--sampler", "public", "--iterations", "30", "--resume"]) == 0
    assert "iterations=30 " in capsys.readouterr().out
    assert cli.main(args + ["--regret", "vanilla", "--iterations", "10"]) == 2
    assert "--sampler public" in capsys.readouterr().err


def test_board_values_equal_scalar_values_over_every_deal_of_the_board(tiny2):
    """The exact per-board head-to-head equals the scalar kernels' mean over all 1,070,190
    deals of hole cards on that board, for two abstractions and a baseline."""
    tree, b = tiny2
    b2 = synthetic_buckets((2, 6), n_rounds=2, name="other")
    rng = np.random.default_rng(3)
    a = Policy.table("a", tree, b, rng.random(tree.offsets(b.n_buckets)[1]).astype(np.float32))
    c = Policy.table("c", tree, b2, rng.random(tree.offsets(b2.n_buckets)[1]).astype(np.float32))
    rest = [x for x in range(52) if x not in BOARD]
    deals = np.array([[*h0, *h1, *BOARD] for h0 in itertools.combinations(rest, 2)
                      for h1 in itertools.combinations([x for x in rest if x not in h0], 2)],
                     np.uint8)
    assert len(deals) == 1081 * 990
    for x, y in ((a, c), (c, a), (a, Policy.always_raise(tree, b))):
        v = board_seat_values(tree, x, y, BOARD[None, :])[0]
        assert v == pytest.approx(seat_value(tree, x, y, deals), abs=1e-12)
    e = board_match(tree, a, c, 50, seed=1)
    assert e.n == 50 and abs(e.mean - duplicate_match(tree, a, c, 20000, seed=1).mean) < 50
    assert board_match(tree, a, a, 20, seed=2).mean == pytest.approx(0.0, abs=1e-9)
