"""Solvers of issue 7: excessive gap technique, genetic algorithm, exact rational LP, CLI."""

from fractions import Fraction

import numpy as np
import pytest

from solve.algorithms import _treeplex_kernels as K
from solve.algorithms.egt import EGTSolver
from solve.algorithms.ga import GAParams, GeneticSolver
from solve.algorithms.lp_exact import simplex_max, solve_exact
from solve.algorithms.treeplex import SequenceCFR, behaviour, exploitability, solve_lp, value
from solve.games import classic
from solve.games.tree import sequence_form
from solve.table import table_format


@pytest.fixture(scope="module")
def leduc_sf():
    return sequence_form(classic.leduc())


def _smoothed_direct(solver, p, g, mu):
    """max over the treeplex of g'x - mu (d(x) - d_min), evaluating d at the maximiser
    directly (entropy_value) instead of through the log-sum-exp recursion."""
    P = solver.P[p]
    x, q, _ = P.smoothed(g, mu)
    d = K.entropy_value(x, P.beta, P.parent, P.offset, P.nact)
    return float(g @ x - mu * (d - P.d_min))


def test_egt_keeps_excessive_gap_and_reaches_1e3_on_leduc(leduc_sf):
    sf = leduc_sf
    s = EGTSolver(sf)
    for step in range(4000):
        s.step()
        mu1, mu2 = s.mu
        phi = _smoothed_direct(s, 0, sf.A @ s.y, mu1)
        f = -_smoothed_direct(s, 1, -(sf.A.T @ s.x), mu2)
        assert f >= phi - 1e-9, f"excessive gap condition violated after step {step + 1}"
        # the condition bounds the duality gap: max_x x'Ay - min_y x'Ay <= mu1 D1 + mu2 D2
        if step % 200 == 199:
            e = exploitability(sf, s.x, s.y)
            D1, D2 = -s.P[0].d_min, -s.P[1].d_min
            assert 2 * e <= mu1 * D1 + mu2 * D2 + 1e-9
            if e < 1e-3:
                break
    assert exploitability(sf, s.x, s.y) < 1e-3
    assert value(sf, s.x, s.y) == pytest.approx(-0.0856064240780, abs=2e-3)


def test_egt_without_heuristics_keeps_condition():
    sf = sequence_form(classic.kuhn())
    s = EGTSolver(sf, balancing=False, decrease=False)
    for _ in range(300):
        s.step()
        assert s.excessive_gap() >= -1e-9
    assert exploitability(sf, s.x, s.y) < 0.02


def test_ga_reduces_exploitability_on_von_neumann():
    sf = sequence_form(classic.von_neumann(1, 2, 20))
    params = GAParams(population=40, generations=40, hands=200, survivors=10, mutation=0.02, seed=3)
    hist = GeneticSolver(sf, params).run().exploitability
    assert len(hist) == 40
    assert np.mean(hist[-5:]) < 0.5 * hist[0]
    # seeded: the same run again is identical
    assert GeneticSolver(sf, params).run().exploitability == hist


def test_ga_output_is_mean_of_survivors():
    sf = sequence_form(classic.kuhn())
    g = GeneticSolver(sf, GAParams(population=8, generations=1, hands=20, survivors=3, seed=1))
    g.step()
    plans = []
    for c in g.pop[0][:3]:
        x = np.zeros(sf.n_seq[0])
        K.pure_plan(c, sf.parent[0], sf.offset[0], sf.nact[0], x)
        plans.append(x)
    np.testing.assert_allclose(g.x, np.mean(plans, axis=0))


def test_ga_rejects_bad_params():
    sf = sequence_form(classic.kuhn())
    with pytest.raises(ValueError, match="survivors"):
        GeneticSolver(sf, GAParams(population=4, survivors=5))


def test_simplex_small_lp():
    # max 3a + 2b  s.t. a + b <= 4, a + 3b <= 6, a <= 3 -> a = 3, b = 1, value 11
    z, v = simplex_max([3, 2], [[1, 1], [1, 3], [1, 0]], [4, 6, 3], [], [])
    assert z == [3, 1] and v == 11
    # with an equality: max a s.t. a + b = 2, b >= 0 -> 2
    z, v = simplex_max([1, 0], [], [], [[1, 1]], [2])
    assert v == 2 and z == [2, 0]


@pytest.mark.parametrize("make", [classic.kuhn, lambda: classic.kuhn_blinds(Fraction(1, 3), 1),
                                  lambda: classic.von_neumann(1, 2, 12)])
def test_exact_lp_is_certified_and_matches_highs(make):
    sf = sequence_form(make())
    x, y, v, method = solve_exact(sf)
    assert method == "simplex" and isinstance(v, Fraction)
    _, _, vf = solve_lp(sf)
    assert float(v) == pytest.approx(vf, abs=1e-9)
    assert all(isinstance(t, Fraction) for t in x)
    # the certify route gives the same value
    assert solve_exact(sf, "certify")[2] == v


def test_exact_lp_certifies_leduc(leduc_sf):
    """Leduc (674 sequences, a degenerate LP): the float vertex's defining equations solved
    in rational arithmetic give a certified equilibrium; the value is OpenSpiel's."""
    x, y, v, method = solve_exact(leduc_sf)
    assert method == "certify" and isinstance(v, Fraction)
    assert float(v) == pytest.approx(-0.0856064240780, abs=1e-12)
    assert all(isinstance(t, Fraction) and t >= 0 for t in x + y)
    assert exploitability(leduc_sf, np.array(x, float), np.array(y, float)) < 1e-12


def test_behaviour_flags_unreached_infosets():
    sf = sequence_form(classic.kuhn())
    x, y, v, _ = solve_exact(sf)
    b = behaviour(sf, 0, x)
    for I, lab in enumerate(b.labels):
        reached = x[int(sf.parent[0][I])] > 0
        assert b.unreached[I] == (not reached)
        if not reached:
            assert all(p != p for p in b.probs[I])  # NaN: not filled in
    # player 1 with K always bets in the LP's solution or not: either way consistent
    xf, _, _ = solve_lp(sf)
    bf = behaviour(sf, 0, xf, tol=1e-12)
    assert np.isnan(bf.probs[bf.unreached]).all()


@pytest.mark.parametrize("alg", ["cfr", "cfr+", "dcfr"])
def test_sequence_cfr_family_on_leduc(leduc_sf, alg):
    s = SequenceCFR(leduc_sf, alg).iterate(300)
    assert exploitability(leduc_sf, *s.average()) < (0.05 if alg == "cfr" else 5e-3)


def test_cli_exact_kuhn_prints_fraction(tmp_path, capsys):
    import cli

    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "kuhn", "--algorithm", "lp", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "value (exact, simplex) = -1/18" in out
    assert "kuhn-lp-exact" in out


def test_cli_von_neumann_prints_closed_form(tmp_path, capsys):
    import cli

    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "von-neumann", "--grid", "20",
                     "--algorithm", "lp"]) == 0
    out = capsys.readouterr().out
    assert "alpha=1/9" in out and "beta=7/9" in out and "c=5/9" in out and "value=1/9" in out


def test_cli_ga_and_errors(tmp_path, capsys):
    import cli

    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "von-neumann", "--grid", "10",
                     "--algorithm", "ga", "--generations", "3", "--population", "10", "--survivors", "4"]) == 0
    assert capsys.readouterr().out.count("exploitability") >= 3
    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "kuhn-blinds", "--small-blind", "2",
                     "--big-blind", "1", "--algorithm", "lp"]) == 2
    assert "must not exceed" in capsys.readouterr().err


def test_flop_equity_cache_roundtrip(tmp_path, monkeypatch, flop_equity_arrays):
    """flop_equity(path) computes once and then reads the file back. The scores kernel's
    result is the session's (tests/conftest.py: the same call on the same inputs, checked in
    test_classic_games) instead of a second identical run of it."""
    calls = []
    import solve.games._classic_kernels as CK

    score = flop_equity_arrays[1]
    monkeypatch.setattr(CK, "flop_scores", lambda *a: calls.append(1) or score.copy())
    path = tmp_path / "eq.npz"
    a = classic.flop_equity(path)
    b = classic.flop_equity(path)
    assert len(calls) == 1
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[0], flop_equity_arrays[0])  # counts: computed here
    np.testing.assert_array_equal(b[1], score)


def test_cli_flags_unreached_infosets_in_table_and_output(tmp_path, capsys):
    """The exact LP leaves player 1's K after check-bet unreached (it bets K): the printed
    list names it and the table has reached = false and probability NULL, not a filled-in
    or NaN behaviour."""
    import pyarrow.parquet as pq

    import cli
    from solve.table import strategy_path

    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "kuhn", "--algorithm", "lp", "--exact"]) == 0
    out = capsys.readouterr().out
    sf = sequence_form(classic.kuhn())
    x, _, _, _ = solve_exact(sf)
    b = behaviour(sf, 0, x)
    unreached = [lab for lab, u in zip(b.labels, b.unreached) if u]
    assert unreached and f"player 1: {len(unreached)} information sets never reached" in out
    assert all(lab in out for lab in unreached)
    rows = pq.read_table(strategy_path(tmp_path, "kuhn-lp-exact")).to_pylist()
    flagged = {r["cards"] + "|" + r["history"] for r in rows if not r["reached"]}
    assert flagged == set(unreached)
    for r in rows:
        p = r["probability"]
        assert (p is None) == (not r["reached"])
        assert p is None or (0.0 <= p <= 1.0)


def test_evaluate_classic_tables(tmp_path, capsys):
    """A stored classic strategy reads back to the same exploitability and value; a main-path
    table is not taken for a classic one; a table that does not fit its game is refused."""
    import re

    import pyarrow.parquet as pq

    import cli
    from schema.errors import UserError
    from solve import tree_run
    from solve.games import registry
    from solve.table import strategy_path

    def numbers(text):
        return [float(v) for v in re.findall(r"(?:value|exploitability)=(\S+)", text)]

    for argv, name in ((["--game", "von-neumann", "--grid", "12", "--algorithm", "ga", "--generations", "4",
                         "--population", "10", "--survivors", "4"], "von-neumann-1-2-12-ga"),
                       (["--game", "kuhn-blinds", "--small-blind", "1/2", "--big-blind", "1",
                         "--algorithm", "lp", "--exact"], "kuhn-blinds-1_2-1-lp-exact"),
                       (["--game", "leduc", "--algorithm", "egt", "--iterations", "30"], "leduc-egt")):
        assert cli.main(["--data-dir", str(tmp_path), "solve", *argv]) == 0
        out = capsys.readouterr().out
        solved = numbers(next(line for line in out.splitlines() if line.startswith(name + ":")))
        path = strategy_path(tmp_path, name)
        assert table_format(path) == "tree"
        build = registry.get(tree_run.table_params(path)[0]).backend.sequence_form
        tree_run.evaluate(path, build, tmp_path, print)
        assert numbers(capsys.readouterr().out) == pytest.approx(solved, rel=1e-5, abs=1e-12)
    assert cli.main(["--data-dir", str(tmp_path), "solve", "--game", "kuhn", "--algorithm", "lp", "--name", "k"]) == 0
    assert table_format(strategy_path(tmp_path, "k")) == "compiled"
    # a table whose rows do not fit the game named in its metadata
    path = strategy_path(tmp_path, "von-neumann-1-2-12-ga")
    t = pq.read_table(path)
    pq.write_table(t.slice(0, t.num_rows - 2), path)
    with pytest.raises(UserError, match="rows for player 2"):
        tree_run.load_table(path, registry.get("von-neumann").backend.sequence_form, tmp_path)
