"""A behaviour strategy profile on a compiled game: one probability row per infoset."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solve.algorithms import _kernels as K
from solve.games.compile import CompiledGame


@dataclass
class Strategy:
    """Behaviour strategies of both players.

    ``probs[I, a]`` is the probability of action ``a`` (the ``a``-th child of the infoset's
    nodes) at infoset ``I`` of ``game`` (rows of both players; ``game.info_player[I]``
    says whose). In an abstracted game the infosets are buckets; :meth:`behaviour` maps them
    back to every real (node, hand).

    ``reached[I]`` is False for an infoset the acting player's own strategy never reaches (its
    own sequence weight into it is 0 in the solver's weights): no behaviour is defined there and
    ``probs`` holds the uniform strategy as a playable default. ``None``: not known, taken as
    all reached.

    ``weight[I]``: the average-strategy weight infoset ``I`` received (``schema.strategy``'s
    ``weight``: the accumulator's sum over its actions for CFR, the own reach probability of
    the plan for the LP); ``None``: not known (a table written before weights were stored).
    """

    game: CompiledGame
    probs: np.ndarray  # (I, 3)
    reached: np.ndarray | None = None  # (I,) bool
    weight: np.ndarray | None = None  # (I,) float

    def unreached(self) -> np.ndarray:
        """Indices of the infosets flagged as never reached (empty if ``reached`` is None)."""
        if self.reached is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(~np.asarray(self.reached, dtype=bool))

    def behaviour(self) -> np.ndarray:
        """(D, 3, H) probability of each action at each decision node for each hand."""
        g = self.game
        out = np.zeros((len(g.dnode), 3, g.n_hands))
        K.normalise_average(g.info, self.probs, g.dnode, g.child_count, out)
        return out

    @classmethod
    def from_weights(cls, game: CompiledGame, weights: np.ndarray,
                     reached: np.ndarray | None = None,
                     weight: np.ndarray | None = None) -> "Strategy":
        """Normalise non-negative per-infoset weights (e.g. CFR average sums); uniform if all 0.

        ``reached``: (I,) bool flags of the infosets the weights' own player reaches (see the
        class docstring); stored on the result. ``weight``: (I,) the infosets' average-strategy
        weight (class docstring); None: the sum of ``weights`` over each infoset's actions.
        """
        w = np.asarray(weights, dtype=np.float64)
        nact = game.info_nact.astype(np.int64)
        mask = np.arange(3)[None, :] < nact[:, None]
        w = np.where(mask, w, 0.0)
        s = w.sum(axis=1, keepdims=True)
        probs = np.where(s > 0, w / np.where(s > 0, s, 1.0), mask / nact[:, None])
        if reached is not None:
            reached = np.asarray(reached, dtype=bool)
            if reached.shape != (game.n_infosets,):
                raise ValueError(f"reached has shape {reached.shape}, expected ({game.n_infosets},)")
        own = w.sum(axis=1) if weight is None else np.asarray(weight, dtype=np.float64)
        if own.shape != (game.n_infosets,):
            raise ValueError(f"weight has shape {own.shape}, expected ({game.n_infosets},)")
        return cls(game, probs, reached, own)

    @classmethod
    def uniform(cls, game: CompiledGame) -> "Strategy":
        return cls.from_weights(game, np.zeros((game.n_infosets, 3)))
