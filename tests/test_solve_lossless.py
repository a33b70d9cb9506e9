"""The lossless Rhode Island abstraction is lossless in the solver: against a strategy that
depends on buckets only, the best response restricted to buckets (abstract game) is worth
exactly as much as the real-game best response (regression: the old 13/205/1774 classes,
equal own outcome distributions only, gave 3169.5 vs 3261.3 chips on this strategy)."""

from __future__ import annotations

import numpy as np
import pytest

from abstraction.games import rhode_island as ri_hands
from abstraction.methods import outcome_partition
from etl.rhode_island import hand_tree


@pytest.fixture(scope="module")
def lossless(ri_lossless):
    """Lossless().fit(ri_hands()), built once per session (tests/conftest.py)."""
    return ri_lossless


def _bucket(buckets, r, cards):
    return buckets[r][hand_tree()[r].index_of(np.array(cards))]


def test_opponent_view_keeps_hands_apart(lossless):
    # 2c|3c3d and 2c|3cTd: both lose to all but the three other deuces (same outcome
    # distribution) but the opponent holds at least a pair of threes only on the first board
    hands = [(0, 4, 5), (0, 4, 35)]
    old = outcome_partition(ri_hands())
    assert _bucket(old, 2, hands)[0] == _bucket(old, 2, hands)[1]
    new = [res.bucket for res in lossless.rounds_]
    assert _bucket(new, 2, hands)[0] != _bucket(new, 2, hands)[1]


def test_abstract_and_real_best_response_agree(lossless):
    from solve.abstractions import RhodeIslandTableAbstraction
    from solve.evaluate import best_response_value
    from solve.games.compile import compile_game
    from solve.games.rules import rhode_island
    from solve.strategy import Strategy

    ab = RhodeIslandTableAbstraction("lossless", [res.bucket for res in lossless.rounds_])
    game = compile_game(rhode_island(), ab)
    s = Strategy.from_weights(game, np.random.default_rng(0).random((game.n_infosets, 3)) ** 4)
    for player in (0, 1):
        assert best_response_value(game, s, player, abstract=True) == pytest.approx(
            best_response_value(game, s, player), rel=1e-12, abs=1e-9)
