"""The card games of the abstraction layer: a game's hands as a ``GameHands`` tree, the input of
every method, and what the builder needs to know of the game, behind one object per game.

Rhode Island Hold'em is small enough to compute directly (``etl.rhode_island``: 13, 325 and
9,997 canonical hands in its three rounds). Texas Hold'em is read from the equity tables (see
``abstraction.holdem``).

These are the abstraction layer's half of the game registry (``solve.games.registry``, whose
entries with ``card_abstractions`` are these games; ``tests/test_registry_dispatch.py`` checks
the two agree): the abstraction layer lies below ``solve`` and cannot import it. Code that
needs something of a game asks its :class:`CardGame` (:func:`get`), never its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from abstraction.clustering import Points
from abstraction.hands import GameHands, HandRound, LeafRound
from abstraction.holdem import holdem_hands
from abstraction.ochs import _check_range, check_holdem_clusters
from etl.rhode_island import hand_tree


@dataclass(frozen=True)
class CardGame:
    """A game whose hands the abstraction methods cluster.

    ``hand_counts``: canonical hands per round; ``public_board``: buckets per public board
    (``public_board=True``) are implemented; ``lossless``: the lossless abstraction can be
    built; ``equity_tables``: the hands are read from the ETL's equity tables (Texas
    Hold'em: the river given per turn bucket, OCHS's river clustered from the tables, a build
    on every core by default with ``kmax_factor`` 3, an exported abstraction carrying the
    tables' fingerprint); ``strategy_rounds``: the rounds the ``strategy`` method may cluster
    by strategy vectors (None: any), ``strategy_rounds_note`` why; ``strategy_source``: what
    its ``from_strategy`` must name; ``check_clusters``: OCHS's check of its number of
    opponent clusters (the int, or ValueError); ``read_hands``: the hands' reader.
    """

    name: str
    hand_counts: tuple[int, ...]
    public_board: bool = False
    lossless: bool = False
    equity_tables: bool = False
    strategy_rounds: tuple[int, ...] | None = None
    strategy_rounds_note: str = ""
    strategy_source: str = ""
    check_clusters: Callable[[object], int] | None = None
    read_hands: Callable[..., GameHands] | None = None

    @property
    def rounds(self) -> int:
        return len(self.hand_counts)

    def hands(self, data_dir=None, workers: int = 1, progress: bool = False,
              need_histograms: bool = True) -> GameHands:
        """The game's hands (``need_histograms``: the potential-aware methods' histograms)."""
        return self.read_hands(data_dir=data_dir, workers=workers, progress=progress,
                               need_histograms=need_histograms)

    def check_opponent_clusters(self, clusters) -> int:
        """``clusters`` as an int if OCHS on this game can be built with that many opponent
        clusters; ValueError with a one-line reason otherwise."""
        return self.check_clusters(clusters)


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


def _rhode_island_hands(data_dir=None, workers: int = 1, progress: bool = False,
                        need_histograms: bool = True) -> GameHands:
    return rhode_island()


#: The card games, by name (the games of ``solve.games.registry`` that take card abstractions).
CARD_GAMES = {g.name: g for g in (
    #: Canonical hands per round (Texas Hold'em: [2], [2,3], [2,3,1], [2,3,1,1]; docs/design.md s. 2).
    CardGame("holdem", (169, 1_286_792, 55_190_538, 2_428_287_420), equity_tables=True,
             strategy_rounds=(0,),
             strategy_rounds_note="only the preflop (1, the default) is clustered by strategy "
                                  "vectors, the flop, turn and river potential-aware",
             strategy_source="a holdem strategy solved on an abstraction with the 169 preflop "
                             "classes",
             check_clusters=check_holdem_clusters,
             read_hands=lambda **kw: holdem_hands(**kw)),  # looked up at call time: tests replace it
    CardGame("rhode-island", (13, 325, 9_997), public_board=True, lossless=True,
             strategy_source="a solved Rhode Island strategy on an abstraction, e.g. the "
                             "lossless one",
             check_clusters=lambda c: _check_range(c, 13, "Rhode Island's private-card ranks"),
             read_hands=_rhode_island_hands),
)}
GAMES = tuple(CARD_GAMES)
ROUNDS = {g.name: g.rounds for g in CARD_GAMES.values()}
HAND_COUNTS = {g.name: g.hand_counts for g in CARD_GAMES.values()}


def get(name: str) -> CardGame:
    """The card game called ``name``; ValueError naming the known ones otherwise."""
    if name not in CARD_GAMES:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(GAMES)}")
    return CARD_GAMES[name]


def names(predicate: Callable[[CardGame], bool] = lambda g: True) -> tuple[str, ...]:
    """The names of the card games for which ``predicate`` holds."""
    return tuple(g.name for g in CARD_GAMES.values() if predicate(g))


def has(name: str, predicate: Callable[[CardGame], bool]) -> bool:
    """Is ``name`` a card game for which ``predicate`` holds?"""
    return name in CARD_GAMES and predicate(CARD_GAMES[name])


def check_opponent_clusters(game: str, clusters) -> int:
    """``clusters`` if OCHS on ``game`` can be built with that many opponent clusters;
    ValueError with a one-line reason otherwise."""
    if game not in CARD_GAMES:
        raise ValueError(f"ochs is implemented for {' and '.join(GAMES)}, not {game}")
    return CARD_GAMES[game].check_opponent_clusters(clusters)
