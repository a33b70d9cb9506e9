"""Classic games (issue 7): Kuhn with blinds, von Neumann poker, flop poker, Leduc as a tree."""

from fractions import Fraction

import numpy as np
import pytest

from solve.games import classic
from solve.games.tree import sequence_form
from solve.algorithms.lp_exact import solve_exact
from solve.algorithms.treeplex import SequenceCFR, exploitability, solve_lp, value

LEDUC_VALUE = -0.0856064240780  # test_solve_kuhn_leduc / OpenSpiel


def test_kuhn_tree_matches_compiled_kuhn():
    from solve.games.compile import compile_game
    from solve.games.rules import kuhn
    from solve.algorithms.lp import solve_lp as solve_compiled

    _, v_compiled = solve_compiled(compile_game(kuhn()))
    _, _, v = solve_lp(sequence_form(classic.kuhn()))
    assert v == pytest.approx(v_compiled, abs=1e-10)
    assert solve_exact(sequence_form(classic.kuhn()))[2] == Fraction(-1, 18)


@pytest.mark.parametrize("Y", [1, 2, Fraction(5, 2)])
def test_kuhn_blinds_equal_blinds_is_kuhn(Y):
    sf = sequence_form(classic.kuhn_blinds(Y, Y))
    x, y, v, _ = solve_exact(sf)
    assert v == Fraction(-1, 18) * Y  # Kuhn with antes and bet Y
    # player 2 calling everything is still an equilibrium strategy: its Kuhn value per card
    # is at least -Y, so folding never gains


@pytest.mark.parametrize("r", [Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(3, 4)])
def test_kuhn_blinds_value_function(r):
    """v(X, Y) = Y v(X/Y); in the regime where player 2 with J is indifferent between folding
    and calling (it folds with probability 2/3) the envelope theorem gives dv/dr =
    P(player 2 folds) = 1/3 * 2/3, and v(1) = -1/18 (Kuhn): v(r) = -1/18 - 2/9 (1 - r)."""
    sf = sequence_form(classic.kuhn_blinds(r, 1))
    _, _, v_exact, _ = solve_exact(sf)
    assert v_exact == Fraction(-1, 18) - Fraction(2, 9) * (1 - r)
    _, _, v_float = solve_lp(sf)
    assert v_float == pytest.approx(float(v_exact), abs=1e-9)
    sf3 = sequence_form(classic.kuhn_blinds(3 * r, 3))
    assert solve_exact(sf3)[2] == 3 * v_exact


@pytest.mark.parametrize("r", [Fraction(1, 10), Fraction(1, 5), Fraction(9, 10)])
def test_kuhn_blinds_cfr_matches_lp(r):
    sf = sequence_form(classic.kuhn_blinds(r, 1))
    _, _, v = solve_lp(sf)
    s = SequenceCFR(sf, "cfr+").iterate(3000)
    x, y = s.average()
    assert exploitability(sf, x, y) < 2e-3
    assert value(sf, x, y) == pytest.approx(v, abs=2e-3)


def test_kuhn_blinds_rejects_bad_blinds():
    with pytest.raises(ValueError, match="must not exceed"):
        classic.kuhn_blinds(2, 1)
    with pytest.raises(ValueError, match="positive"):
        classic.kuhn_blinds(0, 1)


@pytest.mark.parametrize("a,B", [(1, 2), (1, 1), (Fraction(1, 2), 3)])
def test_von_neumann_converges_to_closed_form(a, B):
    cf = classic.von_neumann_closed_form(a, B)
    errs = []
    for M in (10, 40, 160):
        _, _, v = solve_lp(sequence_form(classic.von_neumann(a, B, M)))
        errs.append(abs(v - float(cf["value"])))
    assert errs[0] + 1e-12 >= errs[1] and errs[1] + 1e-12 >= errs[2]
    if errs[0] > 1e-9:  # (for a = B the discrete value can equal the continuous one exactly)
        assert errs[2] < errs[0]
    assert errs[2] < 1.0 * (float(a) + float(B)) / 160


def test_von_neumann_closed_form_classic_numbers():
    cf = classic.von_neumann_closed_form(1, 2)  # pot-sized bet: value 1/9, thresholds 1/9, 7/9, 5/9
    assert (cf["alpha"], cf["beta"], cf["c"], cf["value"]) == (Fraction(1, 9), Fraction(7, 9),
                                                               Fraction(5, 9), Fraction(1, 9))


def test_von_neumann_exact_small_grid():
    sf = sequence_form(classic.von_neumann(1, 2, 10))
    assert solve_exact(sf)[2] == Fraction(11, 100)


def test_leduc_tree_matches_compiled_leduc():
    _, _, v = solve_lp(sequence_form(classic.leduc()))
    assert v == pytest.approx(LEDUC_VALUE, abs=1e-9)


@pytest.fixture(scope="module")
def flop_equity(flop_equity_arrays):
    """classic.flop_equity(), built once per session (tests/conftest.py)."""
    return flop_equity_arrays


def test_flop_equity_counts(flop_equity):
    counts, score = flop_equity
    assert counts.sum() == 1326 * 1225
    np.testing.assert_array_equal(score, -score.T)
    lab = classic.class_labels()
    assert len(set(lab)) == 169
    aa, kk, aks = lab.index("AA"), lab.index("KK"), lab.index("AKs")
    assert counts[aa, aa] == 6 and counts[aa, kk] == 36 and counts[aks, aa] == 4 * 3


def test_flop_equity_against_direct_enumeration(flop_equity):
    """AA vs KK and AKs vs 22: all combos x all 17,296 flops with the evaluator directly."""
    import itertools

    from etl.evaluator import evaluate

    counts, score = flop_equity
    lab = classic.class_labels()
    hands = list(itertools.combinations(range(52), 2))
    cls = classic.hand_class(np.array([h[0] for h in hands]), np.array([h[1] for h in hands]))
    for c1, c2 in (("AA", "KK"), ("AKs", "22")):
        i, j = lab.index(c1), lab.index(c2)
        total = 0
        n = 0
        for h1 in (hands[k] for k in np.flatnonzero(cls == i)):
            for h2 in (hands[k] for k in np.flatnonzero(cls == j)):
                if set(h1) & set(h2):
                    continue
                n += 1
                rest = [c for c in range(52) if c not in h1 and c not in h2]
                flops = np.array(list(itertools.combinations(rest, 3)), dtype=np.uint8)
                s1 = evaluate(np.column_stack([np.tile(np.array(h1, np.uint8), (len(flops), 1)), flops]))
                s2 = evaluate(np.column_stack([np.tile(np.array(h2, np.uint8), (len(flops), 1)), flops]))
                total += int(np.sign(s1.astype(np.int64) - s2.astype(np.int64)).sum())
        assert n == counts[i, j]
        assert total == score[i, j]


def test_flop_poker_lp_and_cfr_agree(flop_equity):
    sf = sequence_form(classic.flop_poker(1, 2, flop_equity))
    x, y, v = solve_lp(sf)
    assert exploitability(sf, x, y) < 1e-9
    s = SequenceCFR(sf, "cfr+").iterate(1500)
    xc, yc = s.average()
    assert abs(value(sf, xc, yc) - v) < 1e-4
    assert exploitability(sf, xc, yc) < 1e-4


def test_flop_poker_exact_value_is_certified(flop_equity):
    """The exact route certifies flop poker (678 sequences) via the support equations."""
    sf = sequence_form(classic.flop_poker(1, 2, flop_equity))
    x, y, v, method = solve_exact(sf)
    assert method == "certify" and isinstance(v, Fraction)
    _, _, vf = solve_lp(sf)
    assert float(v) == pytest.approx(vf, abs=1e-12)
