"""Independent oracle: OpenSpiel's Leduc/Kuhn, sequence-form LP and exploitability."""

import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_expl  # noqa: E402
from open_spiel.python.algorithms import sequence_form_lp  # noqa: E402

from solve.algorithms.cfr import CFRSolver  # noqa: E402
from solve.algorithms.evaluate import exploitability  # noqa: E402
from solve.games.compile import CHANCE, CHECK_A, CALL_A, BET_A, RAISE_A, FOLD_A, compile_game  # noqa: E402
from solve.games.rules import kuhn, leduc  # noqa: E402
from solve.algorithms.lp import solve_lp  # noqa: E402


def to_openspiel(game, strategy, os_game):
    """Export our profile to an OpenSpiel TabularPolicy (OpenSpiel card ids = ours)."""
    pol = os_policy.TabularPolicy(os_game)
    beh = strategy.behaviour()
    kuhn_like = os_game.get_type().short_name == "kuhn_poker"
    for state in pol.states:
        p = state.current_player()
        hist = state.history()
        node, board = 0, []
        for a in hist[2:]:
            if game.ntype[node] == CHANCE:  # betting letters do not depend on the card dealt
                board.append(a)
                node = game.children[game.child_start[node]]
                continue
            cs, cc = game.child_start[node], game.child_count[node]
            codes = list(game.child_action[cs:cs + cc])
            node = game.children[cs + codes.index(_our_code(a, codes, kuhn_like))]
        if game.ntype[node] == CHANCE:
            continue
        d, h = game.locate(game.history[node], board, (hist[p],))
        cs, cc = game.child_start[game.dnode[d]], game.child_count[game.dnode[d]]
        codes = list(game.child_action[cs:cs + cc])
        row = pol.state_lookup[state.information_state_string()]
        for a in state.legal_actions():
            pol.action_probability_array[row, a] = beh[d, codes.index(_our_code(a, codes, kuhn_like)), h]
    return pol


def _our_code(a, codes, kuhn_like):
    facing = FOLD_A in codes
    if kuhn_like:
        return (FOLD_A if facing else CHECK_A) if a == 0 else (CALL_A if facing else BET_A)
    return {0: FOLD_A, 1: CALL_A if facing else CHECK_A, 2: RAISE_A if facing else BET_A}[a]


@pytest.fixture(scope="module")
def os_leduc():
    return pyspiel.load_game("leduc_poker")


def test_leduc_lp_value_matches_openspiel(os_leduc):
    v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(os_leduc)
    assert v0 == pytest.approx(-v1, abs=1e-6)
    _, value = solve_lp(compile_game(leduc()))
    assert value == pytest.approx(v0, abs=1e-6)


@pytest.mark.parametrize("iso", [True, False])
@pytest.mark.parametrize("alg", ["lp", "cfr", "cfr+", "dcfr"])
def test_leduc_exploitability_matches_openspiel(os_leduc, alg, iso):
    g = compile_game(leduc(), suit_isomorphism=iso)
    s = solve_lp(g)[0] if alg == "lp" else CFRSolver(g, alg).iterate(25).average_strategy()
    ours = exploitability(g, s)
    theirs = os_expl.exploitability(os_leduc, to_openspiel(g, s, os_leduc))
    assert ours == pytest.approx(theirs, abs=1e-6)
    if alg != "lp":
        assert ours > 1e-3  # a non-trivial comparison


@pytest.mark.parametrize("alg", ["lp", "cfr", "cfr+", "dcfr"])
def test_kuhn_exploitability_matches_openspiel(alg):
    os_kuhn = pyspiel.load_game("kuhn_poker")
    g = compile_game(kuhn())
    s = solve_lp(g)[0] if alg == "lp" else CFRSolver(g, alg).iterate(7).average_strategy()
    assert exploitability(g, s) == pytest.approx(
        os_expl.exploitability(os_kuhn, to_openspiel(g, s, os_kuhn)), abs=1e-6)


@pytest.mark.parametrize("name,rules", [("kuhn_poker", kuhn), ("leduc_poker", leduc)])
def test_expected_value_matches_openspiel(name, rules):
    from open_spiel.python.algorithms.expected_game_score import policy_value

    from solve.algorithms.evaluate import expected_value

    os_game = pyspiel.load_game(name)
    g = compile_game(rules())
    a = CFRSolver(g, "cfr").iterate(3).average_strategy()
    b = CFRSolver(g, "dcfr").iterate(5).current_strategy()
    theirs = policy_value(os_game.new_initial_state(), [to_openspiel(g, a, os_game), to_openspiel(g, b, os_game)])
    assert expected_value(g, a, b) == pytest.approx(theirs[0], abs=1e-9)
