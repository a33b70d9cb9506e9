"""The type-level sequence form of an abstracted game (solve.games.abstract_form) is the same
game the public-tree compiler builds with the abstraction: equal values, equal abstract best
responses; CFR on it solves the abstract game; checkpoints resume exactly."""

import numpy as np
import pytest

from solve.algorithms.abstract_cfr import AbstractFormSolver, make_solver
from bench.bench_deal_matrices import OneBoardAtATime  # ``bucket`` only
from etl.rhode_island import hand_tree
from solve.abstractions import FunctionAbstraction, RhodeIslandTableAbstraction
from solve.algorithms.cfr import CFRSolver
from solve.algorithms.evaluate import expected_value, exploitability
from solve.games.abstract_form import MAX_TYPES, MAX_WORK, _deal_matrices, abstract_form, to_strategy
from solve.games.compile import compile_game
from solve.games.rules import LimitPokerRules, leduc, rhode_island
from solve.algorithms.lp import solve_lp
from solve.strategy import Strategy
from solve.algorithms.treeplex import exploitability as form_exploitability
from solve.algorithms.treeplex import value as form_value
from solve.algorithms import _treeplex_kernels as TK

from leduc_buckets import LEDUC_VALUE, leduc_coarse, leduc_lossless


def three_rounds() -> LimitPokerRules:
    """A small 3-round game shaped like Rhode Island Hold'em (1 private card, then 1 and 1
    public cards; 4 ranks x 3 suits)."""
    return LimitPokerRules(name="mini-ri", n_ranks=4, n_suits=3, private_cards=1,
                           public_cards=(0, 1, 1), bet_sizes=(2, 4, 4), bet_caps=(2, 2, 2),
                           contributions=(1, 1), first_to_act=(0, 0, 0), ranking="leduc",
                           rank_symbols="JQKA", suit_symbols="abc")


def mini_buckets(r, hands, board):
    """Rank (4), then rank x paired-with-flop merged for the two top ranks (7), then x paired
    with the turn card (14): nested, suit-invariant."""
    rank = hands[:, 0] // 3
    if r == 0:
        return rank
    b1 = np.minimum(rank * 2 + (rank == board[0] // 3), 6)
    if r == 1:
        return b1
    return b1 * 2 + (rank == board[1] // 3)


def _random_plans(form, rng):
    """Realization plans of random behaviour strategies (some actions never taken)."""
    sf = form.sf
    plans = []
    for p in (0, 1):
        q = rng.random(sf.n_seq[p]) * (rng.random(sf.n_seq[p]) > 0.2)
        for o, n in zip(sf.offset[p], sf.nact[p]):
            block = q[o:o + n]
            q[o:o + n] = block / block.sum() if block.sum() > 0 else 1.0 / n
        x = np.zeros(sf.n_seq[p])
        TK.plan_from_behaviour(q, sf.parent[p], sf.offset[p], sf.nact[p], x)
        plans.append(x)
    return plans


CASES = [(leduc, leduc_coarse), (leduc, leduc_lossless), (three_rounds, mini_buckets)]


@pytest.mark.parametrize("rules,fn", CASES)
def test_form_is_the_compiled_abstract_game(rules, fn):
    ab = FunctionAbstraction(fn.__name__, fn)
    game = compile_game(rules(), ab)
    form = abstract_form(game, ab)
    assert sum(len(k) for k in form.keys) == game.n_infosets
    rng = np.random.default_rng(0)
    for _ in range(3):
        x, y = _random_plans(form, rng)
        s = to_strategy(form, game, x, y)
        assert form_value(form.sf, x, y) == pytest.approx(expected_value(game, s), abs=1e-12)
        assert form_exploitability(form.sf, x, y) == pytest.approx(
            exploitability(game, s, abstract=True), abs=1e-12)


def test_cfr_on_the_form_matches_the_lp_and_the_tree():
    ab = FunctionAbstraction("coarse", leduc_coarse)
    game = compile_game(leduc(), ab)
    _, v_lp = solve_lp(game)
    solver = make_solver(game, "cfr+", ab)
    assert isinstance(solver, AbstractFormSolver)
    solver.iterate(3000)
    assert solver.abstract_exploitability() < 1e-4
    assert solver.abstract_value() == pytest.approx(v_lp, abs=1e-4)
    s = solver.average_strategy()
    assert exploitability(game, s, abstract=True) == pytest.approx(
        solver.abstract_exploitability(), abs=1e-12)
    tree = CFRSolver(game, "cfr+").iterate(3000).average_strategy()
    assert expected_value(game, tree) == pytest.approx(expected_value(game, s), abs=2e-4)


def test_lossless_form_keeps_the_value():
    ab = FunctionAbstraction("lossless", leduc_lossless)
    solver = make_solver(compile_game(leduc(), ab), "dcfr", ab).iterate(2000)
    assert solver.abstract_value() == pytest.approx(LEDUC_VALUE, abs=1e-4)


def test_checkpoint_resumes_exactly(tmp_path):
    ab = FunctionAbstraction("mini", mini_buckets)
    game = compile_game(three_rounds(), ab)
    form = abstract_form(game, ab)
    for alg in ("cfr+", "dcfr"):
        straight = AbstractFormSolver(form, game, alg).iterate(60)
        half = AbstractFormSolver(form, game, alg).iterate(25)
        half.save(tmp_path / "c.npz")
        resumed = AbstractFormSolver(form, game, alg).load(tmp_path / "c.npz").iterate(35)
        assert resumed.iteration_ == 60
        for a, b in zip(straight.plans(), resumed.plans()):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="dcfr"):  # c.npz holds the dcfr run now
        AbstractFormSolver(form, game, "cfr+").load(tmp_path / "c.npz")
    CFRSolver(game, "cfr+").save(tmp_path / "tree.npz")
    with pytest.raises(ValueError, match="public-tree"):
        AbstractFormSolver(form, game, "cfr+").load(tmp_path / "tree.npz")


def test_unreached_infosets_are_flagged():
    ab = FunctionAbstraction("coarse", leduc_coarse)
    game = compile_game(leduc(), ab)
    solver = make_solver(game, "cfr+", ab).iterate(500)
    s = solver.average_strategy()
    assert isinstance(s, Strategy)
    un = s.unreached()
    # every flagged infoset has a uniform placeholder row
    nact = game.info_nact[un]
    np.testing.assert_allclose(s.probs[un].sum(axis=1), 1.0)
    assert all(np.allclose(s.probs[i, :n], 1.0 / n) for i, n in zip(un, nact))


def test_too_many_types_falls_back_to_the_tree():
    ab = FunctionAbstraction("lossless", leduc_lossless)
    game = compile_game(leduc(), ab)
    with pytest.raises(ValueError, match="exceed"):
        abstract_form(game, ab, max_types=3)
    assert isinstance(make_solver(game, "cfr+", None), CFRSolver)
    assert isinstance(make_solver(game, "cfr+", ab, engine="tree"), CFRSolver)


@pytest.mark.parametrize("rules,fn", CASES[1:])
def test_sparse_matrices_give_the_same_game(rules, fn, monkeypatch):
    import solve.games.abstract_form as AF

    ab = FunctionAbstraction(fn.__name__, fn)
    game = compile_game(rules(), ab)
    dense = abstract_form(game, ab)
    monkeypatch.setattr(AF, "SPARSE_BELOW", 1.01)  # every matrix sparse
    sparse = abstract_form(game, ab)
    x, y = _random_plans(dense, np.random.default_rng(1))
    np.testing.assert_allclose(sparse.sf.A @ y, dense.sf.A @ y, rtol=0, atol=1e-15)
    np.testing.assert_allclose(sparse.sf.A.T @ x, dense.sf.A.T @ x, rtol=0, atol=1e-15)


def test_malformed_abstractions_are_refused():
    def negative_on_one_board(r, hands, board):  # -1 only on the first board of round 1
        rank = hands[:, 0] // 2
        return rank if r == 0 else np.where(board[0] == 0, -1, rank)

    ab = FunctionAbstraction("bad", leduc_coarse)
    game = compile_game(leduc(), ab)
    with pytest.raises(ValueError, match="negative bucket"):
        abstract_form(game, FunctionAbstraction("bad", negative_on_one_board))
    with pytest.raises(ValueError, match="compiled with"):
        abstract_form(game, FunctionAbstraction("other", leduc_coarse))


class ForgetfulAbstraction(FunctionAbstraction):
    """An imperfect-recall abstraction: each round's buckets on their own, not nested."""

    perfect_recall = False


def forgetful_buckets(r, hands, board):
    """Rank pairs (2), then whether the hand pairs the flop card or is high (2), then the
    turn card's rank class against the hand's (3): each round clustered on its own, so the
    later buckets mix hands of every earlier bucket."""
    rank = hands[:, 0] // 3
    if r == 0:
        return rank // 2
    if r == 1:
        return ((rank == board[0] // 3) | (rank == 3)).astype(np.int64)
    return np.sign(rank - board[1] // 3) + 1


@pytest.mark.parametrize("alg", ["cfr", "cfr+", "dcfr"])
def test_imperfect_recall_on_the_form_is_the_tree_cfr(alg):
    """CFR on the form with its infosets tied is the public tree's CFR on the imperfect-recall
    game: the same strategy after every iteration count, and the same abstract exploitability
    (the tree's level-by-level best response)."""
    ab = ForgetfulAbstraction("forgetful", forgetful_buckets)
    game = compile_game(three_rounds(), ab)
    labels = game.infoset_labels()
    assert any(str(lab).startswith("-.-.") for lab in labels)
    form = abstract_form(game, ab)
    assert not form.perfect_recall
    assert sum(len(form.information_sets(p)) for p in (0, 1)) == game.n_infosets
    assert sum(len(k) for k in form.keys) > game.n_infosets  # the refinement is larger
    solver = make_solver(game, alg, ab)
    assert isinstance(solver, AbstractFormSolver)
    tree = CFRSolver(game, alg)
    for n in (1, 9, 40):
        solver.iterate(n - solver.iteration_)
        tree.iterate(n - tree.iteration_)
        a, b = solver.average_strategy(), tree.average_strategy()
        np.testing.assert_allclose(a.probs, b.probs, rtol=0, atol=1e-10)
        np.testing.assert_array_equal(a.reached, b.reached)
    assert solver.abstract_exploitability() == pytest.approx(
        exploitability(game, tree.average_strategy(), abstract=True), abs=1e-10)
    # the value of the average profile on the form is the compiled game's
    assert solver.abstract_value() == pytest.approx(
        expected_value(game, solver.average_strategy()), abs=1e-10)


def test_imperfect_recall_checkpoint_resumes_exactly(tmp_path):
    ab = ForgetfulAbstraction("forgetful", forgetful_buckets)
    game = compile_game(three_rounds(), ab)
    form = abstract_form(game, ab)
    straight = AbstractFormSolver(form, game, "dcfr").iterate(30)
    half = AbstractFormSolver(form, game, "dcfr").iterate(12)
    half.save(tmp_path / "c.npz")
    resumed = AbstractFormSolver(form, game, "dcfr").load(tmp_path / "c.npz").iterate(18)
    for a, b in zip(straight.plans(), resumed.plans()):
        np.testing.assert_array_equal(a, b)
    # the perfect-recall refinement's checkpoint does not load into the tied solver
    pr = AbstractFormSolver(abstract_form(game, FunctionAbstraction("forgetful",
                                                                     forgetful_buckets)),
                            game, "dcfr")
    with pytest.raises(ValueError, match="tying"):
        pr.load(tmp_path / "c.npz")


def _old_format(path, solver):
    """Rewrite ``path`` as a checkpoint of before chance-weighted averages: no
    ``average_weight``, every history adding 1 x its own reach x strategy (under perfect
    recall: the sums divided by the infosets' mean chance weight)."""
    with np.load(path) as z:
        state = {k: z[k] for k in z.files if k != "average_weight"}
    state["average"] = state["average"] / solver._history_chance_weight()[:, None]
    np.savez(path, **state)


def test_tree_checkpoints_from_before_chance_weighted_averages(tmp_path):
    ab = FunctionAbstraction("mini", mini_buckets)
    game = compile_game(three_rounds(), ab)
    straight = CFRSolver(game, "cfr+").iterate(20)
    half = CFRSolver(game, "cfr+").iterate(8)
    half.save(tmp_path / "c.npz")
    _old_format(tmp_path / "c.npz", half)
    resumed = CFRSolver(game, "cfr+").load(tmp_path / "c.npz").iterate(12)
    np.testing.assert_allclose(resumed.average_strategy().probs,
                               straight.average_strategy().probs, rtol=0, atol=1e-12)
    ir = ForgetfulAbstraction("forgetful", forgetful_buckets)
    ir_game = compile_game(three_rounds(), ir)
    CFRSolver(ir_game, "cfr+").iterate(2).save(tmp_path / "ir.npz")
    with np.load(tmp_path / "ir.npz") as z:
        np.savez(tmp_path / "ir.npz", **{k: z[k] for k in z.files if k != "average_weight"})
    with pytest.raises(ValueError, match="imperfect recall"):
        CFRSolver(ir_game, "cfr+").load(tmp_path / "ir.npz")


def test_every_board_in_one_call_builds_the_same_form():
    """``bucket_boards`` (a board per hand, one call a round) and ``bucket`` one board at a
    time give the same types and matrices, bit for bit (Rhode Island on 5 ranks, buckets by
    canonical hand)."""
    tree = hand_tree(n_ranks=5)
    ab = RhodeIslandTableAbstraction("by-index", [np.arange(len(t.cards)) % k
                                                  for t, k in zip(tree, (3, 7, 11))], n_ranks=5)
    rules = rhode_island(n_ranks=5)
    many = _deal_matrices(rules, ab, MAX_TYPES, MAX_WORK)
    one = _deal_matrices(rules, OneBoardAtATime(ab), MAX_TYPES, MAX_WORK)
    for (ta, pa, la), (tb, pb, lb) in zip(many[0], one[0]):
        assert np.array_equal(ta, tb) and np.array_equal(pa, pb) and la == lb
    dense = [m.toarray() if hasattr(m, "toarray") else m for m in (many[1], *many[2])]
    again = [m.toarray() if hasattr(m, "toarray") else m for m in (one[1], *one[2])]
    assert all(np.array_equal(a, b) for a, b in zip(dense, again))
    assert len(many[0][-1][2]) > 11  # boards refine the final round's types
