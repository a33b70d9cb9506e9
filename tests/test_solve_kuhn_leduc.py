"""Kuhn and Leduc: values, the Kuhn equilibrium family, solver agreement, checkpoint/resume."""

import numpy as np
import pytest

from solve.algorithms.cfr import CFRSolver
from solve.algorithms.evaluate import (_depths, best_response_value, expected_value, exploitability,
                                      head_to_head)
from solve.games.compile import compile_game
from solve.games.rules import kuhn, leduc
from solve.algorithms.lp import solve_lp

KUHN_VALUE = -1.0 / 18.0
LEDUC_VALUE = -0.0856064240780  # also checked against OpenSpiel in test_solve_openspiel


@pytest.fixture(scope="module")
def kuhn_game():
    return compile_game(kuhn())


@pytest.fixture(scope="module")
def leduc_game():
    return compile_game(leduc())


def probs(game, beh, history, card):
    d, h = game.locate(history, [], (card,))
    return beh[d, : game.child_count[game.dnode[d]], h]


def check_kuhn_family(game, strategy, tol):
    J, Q, K = 0, 1, 2
    beh = strategy.behaviour()
    alpha = probs(game, beh, "", J)[1]  # P1 bets J
    assert -tol <= alpha <= 1 / 3 + tol
    assert probs(game, beh, "", Q)[1] == pytest.approx(0.0, abs=tol)
    assert probs(game, beh, "", K)[1] == pytest.approx(3 * alpha, abs=3 * tol)
    assert probs(game, beh, "cr", J)[1] == pytest.approx(0.0, abs=tol)      # fold J
    assert probs(game, beh, "cr", Q)[1] == pytest.approx(alpha + 1 / 3, abs=3 * tol)
    assert probs(game, beh, "cr", K)[1] == pytest.approx(1.0, abs=tol)
    # player 2 (unique): call K always, Q 1/3, J never; after a check bet K, bluff J 1/3
    assert probs(game, beh, "r", K)[1] == pytest.approx(1.0, abs=tol)
    assert probs(game, beh, "r", Q)[1] == pytest.approx(1 / 3, abs=tol)
    assert probs(game, beh, "r", J)[1] == pytest.approx(0.0, abs=tol)
    assert probs(game, beh, "c", K)[1] == pytest.approx(1.0, abs=tol)
    assert probs(game, beh, "c", Q)[1] == pytest.approx(0.0, abs=tol)
    assert probs(game, beh, "c", J)[1] == pytest.approx(1 / 3, abs=tol)


def test_kuhn_lp(kuhn_game):
    strategy, value = solve_lp(kuhn_game)
    assert value == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert expected_value(kuhn_game, strategy) == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert exploitability(kuhn_game, strategy) == pytest.approx(0.0, abs=1e-9)
    check_kuhn_family(kuhn_game, strategy, 1e-7)


def test_kuhn_cfr_plus(kuhn_game):
    solver = CFRSolver(kuhn_game, "cfr+").iterate(2000)
    s = solver.average_strategy()
    assert expected_value(kuhn_game, s) == pytest.approx(KUHN_VALUE, abs=1e-4)
    assert exploitability(kuhn_game, s) < 1e-4
    check_kuhn_family(kuhn_game, s, 5e-3)


def test_kuhn_uniform_values(kuhn_game):
    from solve.strategy import Strategy
    u = Strategy.uniform(kuhn_game)
    # a best response to uniform gains more than the equilibrium value
    assert best_response_value(kuhn_game, u, 0) > KUHN_VALUE
    assert head_to_head(kuhn_game, u, u) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("iso", [True, False])
def test_leduc_lp(iso):
    g = compile_game(leduc(), suit_isomorphism=iso)
    strategy, value = solve_lp(g)
    assert value == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert exploitability(g, strategy) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("alg,iters,target", [("cfr", 2000, 1e-2), ("cfr+", 2000, 1e-3), ("dcfr", 2000, 1e-3)])
def test_leduc_cfr_family(leduc_game, alg, iters, target):
    s = CFRSolver(leduc_game, alg).iterate(iters).average_strategy()
    e = exploitability(leduc_game, s)
    assert 0 <= e < target
    assert abs(expected_value(leduc_game, s) - LEDUC_VALUE) < 2 * e + 1e-9


def test_leduc_isomorphism_matches_full_game():
    full = compile_game(leduc(), suit_isomorphism=False)
    iso = compile_game(leduc(), suit_isomorphism=True)
    a = CFRSolver(full, "cfr+").iterate(50).average_strategy()
    b = CFRSolver(iso, "cfr+").iterate(50).average_strategy()
    assert exploitability(full, a) == pytest.approx(exploitability(iso, b), rel=1e-9)
    assert expected_value(full, a) == pytest.approx(expected_value(iso, b), rel=1e-9)


@pytest.mark.parametrize("alg", ["cfr", "cfr+", "dcfr"])
def test_resume_matches_uninterrupted(tmp_path, leduc_game, alg):
    whole = CFRSolver(leduc_game, alg).iterate(30)
    part = CFRSolver(leduc_game, alg).iterate(12)
    part.save(tmp_path / "ck.npz")
    resumed = CFRSolver(leduc_game, alg).load(tmp_path / "ck.npz").iterate(18)
    assert resumed.iteration_ == 30
    np.testing.assert_array_equal(resumed.regrets_, whole.regrets_)
    np.testing.assert_array_equal(resumed.average_, whole.average_)


def test_depths_level_by_level_equal_a_walk_from_the_root(leduc_game):
    """The best response's level order: each node's depth, computed a level at a time, is its
    parent's plus one, as a plain walk over the nodes (parents come first) gives it."""
    g = leduc_game
    walk = np.zeros(len(g.ntype), np.int64)
    for n in range(len(g.ntype)):
        walk[g.children[g.child_start[n]:g.child_start[n] + g.child_count[n]]] = walk[n] + 1
    assert walk.max() > 3
    assert np.array_equal(_depths(g.child_start, g.child_count, g.children), walk)


def test_bad_algorithm(kuhn_game):
    with pytest.raises(ValueError, match="algorithm"):
        CFRSolver(kuhn_game, "cfr++")
