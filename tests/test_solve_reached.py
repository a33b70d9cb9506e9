"""Issue 7 (exact LP): information sets a solved strategy never reaches are flagged in the
strategy table (``reached`` = false, uniform probability as the playable default) and listed
after ``solve``, not silently filled in."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cli
from solve.algorithms import _kernels as K
from solve.algorithms.cfr import CFRSolver
from solve.games import registry
from solve.limit_run import compile_with
from solve.algorithms.lp import solve_lp
from solve.table import read_strategy, strategy_path, to_table


def _compile(game, abstraction, data_dir):
    return compile_with(registry.get(game).make_rules(), game, abstraction, data_dir)[0]


def run(tmp_path, *argv):
    return cli.main(["--data-dir", str(tmp_path), *argv])


def own_reach(strategy):
    """(I,) sum over an infoset's (node, hand) members of the acting player's own reach under
    the behaviour strategy ``strategy`` (a forward pass; independent of the solver's weights)."""
    g = strategy.game
    beh = strategy.behaviour()
    reach = np.zeros((len(g.ntype), 2, g.n_hands))
    K.forward(g.ntype, g.nplayer, g.nboard, g.child_start, g.child_count, g.children, g.dslot,
              g.board_valid, beh, beh, reach)
    total = np.zeros(g.n_infosets)
    d, h = np.nonzero(g.info >= 0)
    node = g.dnode[d]
    np.add.at(total, g.info[d, h], reach[node, g.nplayer[node], h])
    return total


def labels(strategy, idx):
    g = strategy.game
    return {f"{g.infoset_labels()[I]} {g.infoset_histories()[I]}" for I in idx}


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_lp_flags_exactly_the_infosets_its_own_plan_never_reaches(tmp_path, game):
    g = _compile(game, None, tmp_path)
    s, _ = solve_lp(g)
    assert s.reached is not None
    reach = own_reach(s)
    # flagged <=> the player's own reach under the stored behaviour is 0
    np.testing.assert_array_equal(~s.reached, reach <= 1e-12)
    # never-reached rows carry the uniform default, so every row is still a distribution
    nact = g.info_nact
    for I in s.unreached():
        np.testing.assert_allclose(s.probs[I, :nact[I]], 1.0 / nact[I])
    if game == "kuhn":
        # the HiGHS vertex never bets as player 1 (alpha = 0), so player 1 reaches all of its
        # check-bet infosets and player 2 has not acted before its decisions: none unreached
        assert not len(s.unreached())
    else:
        un = s.unreached()
        assert len(un) > 0
        assert all(g.infoset_histories()[I] for I in un)  # never a player's first decision


def test_kuhn_lp_unreached_after_a_zero_probability_action(tmp_path):
    """A Kuhn profile where player 1 always bets the King (a sequence-form plan with weight 0
    on K-check): K after check-bet is flagged, nothing else."""
    g = _compile("kuhn", None, tmp_path)
    s, _ = solve_lp(g)
    labs = np.array([f"{c} {h}" for c, h in zip(g.infoset_labels(), g.infoset_histories())])
    w = s.probs.copy()
    k_root = int(np.flatnonzero(labs == "K ")[0])
    w[k_root] = [0.0, 1.0, 0.0]  # check 0, bet 1
    k_cr = int(np.flatnonzero(labs == "K cr")[0])
    w[k_cr] = 0.0  # its own sequence weight: x(K, check) = 0
    from solve.strategy import Strategy

    s2 = Strategy.from_weights(g, w, w.sum(axis=1) > 0)
    assert labels(s2, s2.unreached()) == {"K cr"}
    np.testing.assert_array_equal(~s2.reached, own_reach(s2) <= 0)


@pytest.mark.parametrize("algorithm", ["cfr+", "cfr", "dcfr"])
def test_cfr_family_on_kuhn_reaches_everything(tmp_path, algorithm):
    g = _compile("kuhn", None, tmp_path)
    s = CFRSolver(g, algorithm).iterate(200).average_strategy()
    assert s.reached is not None and s.reached.all()
    assert (own_reach(s) > 0).all()


def test_table_round_trip_and_old_tables(tmp_path):
    g = _compile("leduc", None, tmp_path)
    s, _ = solve_lp(g)
    path = tmp_path / "s.parquet"
    t = to_table("s", s)
    assert t.schema.field("reached").type == pa.bool_()
    pq.write_table(t, path)
    back = read_strategy(path, g)
    np.testing.assert_array_equal(back.reached, s.reached)
    np.testing.assert_array_equal(back.probs, s.probs)
    # a table without the column (written before it existed) reads as all reached
    pq.write_table(t.drop(["reached"]), path)
    old = read_strategy(path, g)
    assert old.reached is None and not len(old.unreached())
    np.testing.assert_array_equal(old.probs, s.probs)
    # NULL probability at never-reached rows (as classic tables store it) -> uniform default
    flags = t.column("reached").to_numpy(zero_copy_only=False)
    prob = t.column("probability").to_numpy()
    nulled = pa.array(np.where(flags, prob, np.nan), pa.float64(), from_pandas=True)
    pq.write_table(t.set_column(t.schema.get_field_index("probability"), "probability", nulled), path)
    np.testing.assert_allclose(read_strategy(path, g).probs, s.probs)
    # NULL at a reached row is an error
    bad = pa.array(np.where(flags, np.nan, prob), pa.float64(), from_pandas=True)
    pq.write_table(t.set_column(t.schema.get_field_index("probability"), "probability", bad), path)
    with pytest.raises(ValueError, match="NULL probabilities at reached"):
        read_strategy(path, g)


def test_cli_lists_unreached_and_evaluate_still_works(tmp_path, capsys):
    assert run(tmp_path, "solve", "--game", "leduc", "--algorithm", "lp", "--name", "l") == 0
    out = capsys.readouterr().out
    solved = float(out.split("value=")[1].split()[0])
    g = _compile("leduc", None, tmp_path)
    s, _ = solve_lp(g)
    for p in (0, 1):
        n = int(np.sum(g.info_player[s.unreached()] == p))
        assert f"player {p + 1}: {n} information sets never reached by its own strategy" in out
    rows = pq.read_table(strategy_path(tmp_path, "l")).to_pylist()
    flagged = {f"{r['cards']} {r['history']}" for r in rows if not r["reached"]}
    assert flagged == labels(s, s.unreached())
    first = out.split("never reached by its own strategy")[1].split(": ", 1)[1].split(", ")[0]
    assert first in flagged
    assert run(tmp_path, "evaluate", "l") == 0
    out = capsys.readouterr().out
    assert float(out.split("value=")[1].split()[0]) == pytest.approx(solved, abs=1e-6)
    assert float(out.split("exploitability=")[1].split()[0]) < 1e-9
    # CFR+ on Kuhn: nothing to list, every row reached
    assert run(tmp_path, "solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "100",
               "--name", "k") == 0
    assert "never reached" not in capsys.readouterr().out
    assert all(pq.read_table(strategy_path(tmp_path, "k")).column("reached").to_pylist())
    views = pytest.importorskip("queries.views")
    with views.connect(tmp_path) as con:  # the strategies view exposes the flag
        n, = con.execute("select count(*) from strategies where strategy = 'l' and not reached").fetchone()
        assert n == sum(not r["reached"] for r in rows)
        total, = con.execute("select max(abs(s - 1)) from (select sum(probability) s from strategies "
                             "group by strategy, player, cards, history)").fetchone()
        assert total < 1e-9


def test_abstract_game_flags_buckets_never_reached():
    """In an abstracted game the infosets are bucket sequences: LP flags exactly those with own
    reach 0 (summed over the hands in the bucket); CFR+ flags none."""
    from leduc_buckets import leduc_coarse

    from solve.abstractions import FunctionAbstraction
    from solve.games.compile import compile_game
    from solve.games.rules import leduc

    g = compile_game(leduc(), FunctionAbstraction("coarse", leduc_coarse))
    s, _ = solve_lp(g)
    np.testing.assert_array_equal(~s.reached, own_reach(s) <= 1e-12)
    assert to_table("c", s).column("reached").to_pylist() == list(s.reached[np.repeat(
        np.arange(g.n_infosets), g.info_nact)])
    c = CFRSolver(g, "cfr+").iterate(50).average_strategy()
    assert c.reached.all()
