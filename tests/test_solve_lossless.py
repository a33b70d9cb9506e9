"""The lossless Rhode Island abstraction (GameShrink's 13/205/1,774 classes) is lossless in
the solver because it is played with the public board visible: refined by the board, its
classes are exactly the strategically identical ones, and against a strategy that depends on
buckets only, the best response restricted to buckets (abstract game) is worth exactly as
much as the real-game best response. With the board hidden, the same classes lose."""

from __future__ import annotations

import numpy as np
import pytest

from abstraction.methods import strategic_classes
from etl.rhode_island import hand_tree
from solve.abstractions import RhodeIslandTableAbstraction, public_board_buckets


@pytest.fixture(scope="module")
def lossless(ri_lossless):
    """Lossless().fit(ri_hands()), built once per session (tests/conftest.py)."""
    return ri_lossless


def _labels(model):
    return [res.bucket for res in model.rounds_]


def _bucket(buckets, r, cards):
    return buckets[r][hand_tree()[r].index_of(np.array(cards))]


def test_refined_by_board_are_the_strategic_classes(lossless):
    refined = public_board_buckets(_labels(lossless))
    strategic = strategic_classes()  # opponent-aware fixed point, no public information
    assert tuple(int(b.max()) + 1 for b in refined) == (13, 325, 7969)
    for a, b in zip(refined, strategic):
        pairs = np.unique(np.stack([a, b], axis=1), axis=0)
        assert len(pairs) == int(a.max()) + 1 == int(b.max()) + 1  # the same partition


def test_board_keeps_hands_apart(lossless):
    # 2c|3c3d and 2c|3cTd: both lose to all but the three other deuces (one class), but the
    # opponent holds at least a pair of threes only on the first board
    hands = [(0, 4, 5), (0, 4, 35)]
    labels = _labels(lossless)
    assert _bucket(labels, 2, hands)[0] == _bucket(labels, 2, hands)[1]
    ab = RhodeIslandTableAbstraction("lossless", labels, public_board=True)
    assert ab.n_buckets == (13, 325, 7969)
    assert _bucket(ab.round_buckets, 2, hands)[0] != _bucket(ab.round_buckets, 2, hands)[1]


def test_refinement_is_nested(lossless):
    refined = public_board_buckets(_labels(lossless))
    tree = hand_tree()
    for r in (1, 2):
        pairs = np.unique(np.stack([refined[r], refined[r - 1][tree[r].parent]], 1), axis=0)
        assert len(pairs) == int(refined[r].max()) + 1  # one parent per refined bucket


def _best_responses(ab):
    from solve.algorithms.evaluate import best_response_value
    from solve.games.compile import compile_game
    from solve.games.rules import rhode_island
    from solve.strategy import Strategy

    game = compile_game(rhode_island(), ab)
    s = Strategy.from_weights(game, np.random.default_rng(0).random((game.n_infosets, 3)) ** 4)
    return [(best_response_value(game, s, p, abstract=True), best_response_value(game, s, p))
            for p in (0, 1)]


def test_abstract_and_real_best_response_agree(lossless):
    ab = RhodeIslandTableAbstraction("lossless", _labels(lossless), public_board=True)
    for abstract, real in _best_responses(ab):
        assert abstract == pytest.approx(real, rel=1e-12, abs=1e-9)


def test_hidden_board_is_not_lossless(lossless):
    # the same classes with the board hidden: the real best response is worth more than the
    # abstract one (3261.3 vs 3169.5 chips for one player on this strategy, session 3)
    ab = RhodeIslandTableAbstraction("lossless-hidden", _labels(lossless), public_board=False)
    gaps = [real - abstract for abstract, real in _best_responses(ab)]
    assert max(gaps) > 1.0


def test_coarse_abstraction_with_the_board_visible_is_exploitable():
    """The board-visible setting (issue 14): a coarse abstraction played with the public cards
    visible still loses information (its own cards), so the real best response gains on the
    abstract one; only the lossless classes make the two equal (test above)."""
    from abstraction.games import rhode_island as ri_hands
    from abstraction.methods import ExpectationBased

    eb = ExpectationBased(buckets=(13, 25, 125), random_state=0, n_init=1).fit(ri_hands())
    ab = RhodeIslandTableAbstraction("eb-public", _labels(eb), public_board=True)
    assert ab.n_buckets[1] > 25  # refined by the board
    gaps = [real - abstract for abstract, real in _best_responses(ab)]
    assert min(gaps) >= -1e-6 and max(gaps) > 1.0
