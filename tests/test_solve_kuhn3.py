"""Three-player Kuhn: NashConv under CFR-family solvers, checked against OpenSpiel."""

import numpy as np
import pytest

from solve.games.kuhn3 import Kuhn3Solver, build, nash_conv, values


def to_openspiel(game, strat, os_game):
    from open_spiel.python import policy as os_policy

    pol = os_policy.TabularPolicy(os_game)
    index = {h: n for n, h in enumerate(game.history) if game.player[n] >= 0}
    for state in pol.states:
        hist = state.history()
        p = state.current_player()
        n = index["".join("cb"[a] for a in hist[3:])]
        row = pol.state_lookup[state.information_state_string()]
        pol.action_probability_array[row, :2] = strat[n, hist[p]]
    return pol


def test_tree_shape():
    g = build()
    assert g.n_nodes == 25
    assert np.allclose(g.utility.sum(axis=2), 0.0)


@pytest.mark.parametrize("alg", ["cfr+", "dcfr"])
def test_nash_conv_below_1e3(alg):
    s = Kuhn3Solver(alg).iterate(600)
    strat = s.average_strategy()
    assert nash_conv(s.game, strat) < 1e-3
    assert values(s.game, strat).sum() == pytest.approx(0.0, abs=1e-12)


def test_vanilla_cfr_converges():
    s = Kuhn3Solver("cfr")
    s.iterate(100)
    a = nash_conv(s.game, s.average_strategy())
    s.iterate(1900)
    b = nash_conv(s.game, s.average_strategy())
    assert b < a and b < 3e-3


def test_nash_conv_matches_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_expl

    os_game = pyspiel.load_game("kuhn_poker", {"players": 3})
    s = Kuhn3Solver("cfr").iterate(20)
    strat = s.average_strategy()
    assert nash_conv(s.game, strat) == pytest.approx(os_expl.nash_conv(os_game, to_openspiel(s.game, strat, os_game)),
                                                     abs=1e-9)
