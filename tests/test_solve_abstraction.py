"""Card abstractions: lossless buckets keep the value; LP and CFR+ agree on abstract games."""

import os

import numpy as np
import pytest

from solve.abstractions import FunctionAbstraction, ri_rank_category
from solve.algorithms.cfr import CFRSolver
from solve.algorithms.evaluate import exploitability, expected_value, head_to_head
from solve.games.compile import compile_game
from solve.games.rules import leduc, rhode_island
from solve.algorithms.lp import solve_lp

from leduc_buckets import LEDUC_VALUE, leduc_coarse, leduc_lossless


def test_lossless_abstraction_keeps_value():
    g = compile_game(leduc(), FunctionAbstraction("lossless", leduc_lossless))
    s, v = solve_lp(g)
    assert v == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert exploitability(g, s) == pytest.approx(0.0, abs=1e-9)


def test_coarse_abstraction_lp_vs_cfr_plus():
    g = compile_game(leduc(), FunctionAbstraction("coarse", leduc_coarse))
    s_lp, v_lp = solve_lp(g)
    assert exploitability(g, s_lp, abstract=True) == pytest.approx(0.0, abs=1e-9)
    assert expected_value(g, s_lp) == pytest.approx(v_lp, abs=1e-9)
    s_cfr = CFRSolver(g, "cfr+").iterate(3000).average_strategy()
    assert exploitability(g, s_cfr, abstract=True) < 1e-3
    assert expected_value(g, s_cfr) == pytest.approx(v_lp, abs=1e-3)
    # the abstract equilibrium is exploitable in the real game, and loses to the real one
    assert exploitability(g, s_lp) > 1e-2
    full = compile_game(leduc())
    eq, _ = solve_lp(full)
    assert head_to_head(full, eq, s_lp) > 0


def test_not_suit_invariant_is_rejected():
    def by_suit(r, hands, board):
        return hands[:, 0] % 2
    with pytest.raises(ValueError, match="suit-invariant"):
        compile_game(leduc(), FunctionAbstraction("suits", by_suit))


def test_bucket_sequences_keep_perfect_recall():
    def forgetful(r, hands, board):  # round-2 bucket ignores the private card...
        return hands[:, 0] // 2 if r == 0 else np.full(len(hands), board[0] // 2)
    g = compile_game(leduc(), FunctionAbstraction("forgetful", forgetful))
    # infosets are (bucket sequence, history): still perfect recall, the LP is exact
    s, v = solve_lp(g)
    assert exploitability(g, s, abstract=True) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.skipif(not os.environ.get("POKER_SLOW_TESTS"), reason="slow (~15 min): set POKER_SLOW_TESTS=1")
def test_rhode_island_abstract_lp_vs_cfr_plus():
    """Issue 3: on an abstracted Rhode Island game (13, 25, 125 buckets) the LP and CFR+ agree
    on the abstract game's value to 1e-3 chips. The LP runs on the public tree (HiGHS interior
    point, ~11 min), CFR+ on the type-level form (solve.algorithms.abstract_cfr, ms per iteration)."""
    from solve.algorithms.abstract_cfr import make_solver

    ab = FunctionAbstraction("ri-13-25-125", ri_rank_category)
    g = compile_game(rhode_island(), ab)
    s_lp, v_lp = solve_lp(g)
    assert exploitability(g, s_lp, abstract=True) < 1e-6
    solver = make_solver(g, "cfr+", ab)
    while solver.abstract_exploitability() >= 1e-2 and solver.iteration_ < 400_000:
        solver.iterate(5000)
    assert solver.abstract_exploitability() < 1e-2
    assert solver.abstract_value() == pytest.approx(v_lp, abs=1e-3)
    assert expected_value(g, solver.average_strategy()) == pytest.approx(v_lp, abs=1e-3)
