"""The numpy builder of :func:`solve.games.compile.compile_game` gives arrays byte-identical
to the per-item builder it replaced (kept in ``tests/compile_reference.py``): Kuhn, Leduc,
small and real Rhode Island games and rule variants, with and without suit isomorphism, with
perfect- and imperfect-recall card abstractions."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import compile_reference as ref
from etl.rhode_island import hand_tree
from solve.abstractions import FunctionAbstraction, RhodeIslandTableAbstraction, ri_rank_category
from solve.games import rules as R
from solve.games.compile import compile_game


def three_rounds() -> R.LimitPokerRules:
    return R.LimitPokerRules(name="mini-ri", n_ranks=4, n_suits=3, private_cards=1,
                             public_cards=(0, 1, 1), bet_sizes=(2, 4, 4), bet_caps=(2, 2, 2),
                             contributions=(1, 1), first_to_act=(0, 1, 0), ranking="leduc",
                             rank_symbols="JQKA", suit_symbols="abc")


def blinds_two_cards() -> R.LimitPokerRules:
    """Two private cards, blinds, a round without public cards after the first."""
    return R.LimitPokerRules(name="tiny-blinds", n_ranks=3, n_suits=2, private_cards=2,
                             public_cards=(0, 0, 1), bet_sizes=(2, 2, 4), bet_caps=(2, 1, 2),
                             contributions=(1, 2), first_to_act=(1, 0, 0), ranking="high_card",
                             blind_bets=1)


def mini_buckets(r, hands, board):
    rank = hands[:, 0] // 3
    if r == 0:
        return rank
    b1 = np.minimum(rank * 2 + (rank == board[0] // 3), 6)
    return b1 if r == 1 else b1 * 2 + (rank == board[1] // 3)


def forgetful(r, hands, board):
    return mini_buckets(r, hands, board) % (3 + r)


def leduc_buckets(r, hands, board):
    rank = hands[:, 0] // 2
    return rank if r == 0 else rank * 2 + (rank == board[0] // 2)


def ri_table(n_ranks: int, recall: bool) -> RhodeIslandTableAbstraction:
    sizes = [len(t.cards) for t in hand_tree(n_ranks=n_ranks)]
    buckets = [np.arange(n) % m for n, m in zip(sizes, (5, 11, 23))]
    return RhodeIslandTableAbstraction("t", buckets, perfect_recall=recall, n_ranks=n_ranks)


class Forgetful(FunctionAbstraction):
    perfect_recall = False


def assert_identical(a, b):
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, f.name
            assert np.array_equal(x, y), f.name
            assert x.tobytes() == y.tobytes(), f.name
        else:
            assert type(x) is type(y) and x == y, f.name
    assert a._hand_index == b._hand_index
    assert a._node_index == b._node_index


CASES = [
    (R.kuhn, None), (R.leduc, None), (R.leduc, lambda: FunctionAbstraction("l", leduc_buckets)),
    (three_rounds, None), (three_rounds, lambda: FunctionAbstraction("m", mini_buckets)),
    (three_rounds, lambda: Forgetful("f", forgetful)), (blinds_two_cards, None),
    (lambda: R.rhode_island(n_ranks=3), None),
    (lambda: R.rhode_island("raise-cap-4", n_ranks=3), None),
    (lambda: R.rhode_island("p2-first-postflop", n_ranks=4), None),
    (lambda: R.rhode_island(n_ranks=3), lambda: ri_table(3, True)),
    (lambda: R.rhode_island(n_ranks=3), lambda: ri_table(3, False)),
]


@pytest.mark.parametrize("iso", [True, False])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_small_games_are_identical(case, iso):
    rules_fn, ab_fn = CASES[case]
    rules = rules_fn()
    ab = ab_fn() if ab_fn else None
    assert_identical(compile_game(rules, ab, iso), ref.compile_game(rules, ab, iso))


def test_not_suit_invariant_is_refused_alike():
    ab = FunctionAbstraction("suits", lambda r, h, b: h[:, 0] % 2)
    for fn in (compile_game, ref.compile_game):
        with pytest.raises(ValueError, match="not suit-invariant"):
            fn(R.leduc(), ab)


@pytest.mark.parametrize("public_board", [False, True])
def test_table_abstractions_are_suit_invariant_as_they_say(public_board):
    """``RhodeIslandTableAbstraction.suit_invariant`` lets compile_game skip the check; the
    same buckets behind a plain function (checked under every suit permutation of every
    board) compile to the same game, so the claim holds (random buckets, 4 ranks)."""
    sizes = [len(t.cards) for t in hand_tree(n_ranks=4)]
    rng = np.random.default_rng(3)
    ab = RhodeIslandTableAbstraction("t", [rng.integers(0, m, n) for n, m in
                                           zip(sizes, (3, 7, 19))], public_board=public_board,
                                     n_ranks=4)
    assert ab.suit_invariant
    checked = FunctionAbstraction("t", ab.bucket)
    rules = R.rhode_island(n_ranks=4)
    assert_identical(compile_game(rules, ab), compile_game(rules, checked))


def test_real_rhode_island_is_identical():
    rules = R.rhode_island()
    assert_identical(compile_game(rules), ref.compile_game(rules))
    ab = FunctionAbstraction("ri-13-25-125", ri_rank_category)
    assert_identical(compile_game(rules, ab), ref.compile_game(rules, ab))
