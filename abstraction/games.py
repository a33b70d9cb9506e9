"""Game adapters: a game's hands as a ``GameHands`` tree, the input of every method.

Rhode Island Hold'em is small enough to compute directly (``etl.rhode_island``: 13, 325 and
9,997 canonical hands in its three rounds). Texas Hold'em is read from the equity tables (see
``abstraction.holdem``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from abstraction.clustering import Points
from abstraction.hands import GameHands, HandRound, LeafRound
from etl.rhode_island import hand_tree

GAMES = ("holdem", "rhode-island")
ROUNDS = {"holdem": 4, "rhode-island": 3}
#: Canonical hands per round (Texas Hold'em: [2], [2,3], [2,3,1], [2,3,1,1]; docs/design.md s. 2).
HAND_COUNTS = {"holdem": (169, 1_286_792, 55_190_538, 2_428_287_420),
               "rhode-island": (13, 325, 9_997)}


@lru_cache(maxsize=8)
def rhode_island(ranking: str = "standard", n_ranks: int = 13) -> GameHands:
    """Rhode Island Hold'em's canonical hand tree with exact equities.

    Rows are the canonical hands of ``etl.rhode_island.hand_tree()`` (same order); the last
    round carries the (win, tie, loss) distribution as its showdown outcome. ``ranking``: a
    showdown ranking variant of ``etl.rhode_island.RANKINGS`` (default docs/design.md's);
    ``n_ranks``: a reduced deck of the lowest ranks (``etl.rhode_island.N_RANKS``).
    """
    rounds = []
    for h in hand_tree(canonical=True, ranking=ranking, n_ranks=n_ranks):
        total = (h.wins + h.ties + h.losses).astype(np.float64)
        outcome = np.stack([h.wins, h.ties, h.losses], axis=1) / total[:, None]
        rounds.append(HandRound(weight=np.asarray(h.weight), parent=np.asarray(h.parent),
                                equity=np.asarray(h.equity), outcome=outcome))
    return GameHands("rhode-island", tuple(rounds))


def with_leaf_round(game: GameHands) -> GameHands:
    """The same game with its last round given per parent bucket (a ``LeafRound``), the way
    Texas Hold'em's river is: a reference for ``LeafRound`` and a check of the builder."""
    last = game.rounds[-1]

    def points(prev_bucket: np.ndarray):
        parent_bucket = prev_bucket[last.parent]
        k = int(prev_bucket.max()) + 1
        out = [Points.from_hands(last.equity[parent_bucket == b], last.weight[parent_bucket == b])
               for b in range(k)]
        return out, np.bincount(parent_bucket, weights=last.weight, minlength=k)

    return GameHands(game.game, game.rounds[:-1], LeafRound(len(last), points))
