"""What each method clusters hands on: equity, equity squared, or next-round histograms.

- Expectation-based (Gilpin & Sandholm, AAAI 2006): the equity ``p(win) + p(tie)/2``;
  its square for EB2 (Gilpin & Sandholm, AAAI 2007).
- Potential-aware (Gilpin, Sandholm & Sorensen, "Potential-aware automated abstraction of
  sequential games, and holistic equilibrium analysis of Texas Hold'em poker", AAAI 2007): a
  hand's feature is its distribution over clusters of next-round hands, compared with L2.
  The clusters are built bottom-up over the hands that descend from the parent bucket being
  split: the last round's descendants are clustered on their showdown feature, the round
  before on histograms over those clusters, and so on up to the next round. The last round
  itself has no future: its feature is the distribution over showdown outcomes (win, tie,
  loss) when the game provides it (its mean is the equity; equity alone merges hands that are
  strategically different, e.g. 23 of Rhode Island Hold'em's 1,774 own-outcome river classes),
  else the equity. A game can supply precomputed histograms over next-round equity bins
  (``HandRound.histogram``) instead of the bottom-up pass.

Each feature is a picklable callable ``(round, rows, parent_bucket) -> (len(rows), d)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from abstraction.clustering import Points, kmeans, seed_for
from abstraction.hands import GameHands


@dataclass(frozen=True)
class EquityFeature:
    """equity ** power (1: EB, 2: EB2)."""

    hands: GameHands
    power: int = 1

    def __call__(self, r: int, rows: np.ndarray, parent: int) -> np.ndarray:
        return (self.hands.rounds[r].equity[rows] ** self.power)[:, None]

    def leaf_transform(self, equity: np.ndarray) -> np.ndarray:
        """Feature of a ``LeafRound``'s equities."""
        return equity ** self.power


@dataclass(frozen=True)
class PotentialFeature:
    """Histograms over bottom-up next-round clusters (see module docstring).

    Attributes:
        hands: the game.
        buckets: the requested bucket counts (for the default intermediate counts).
        intermediate: clusters per round in the bottom-up passes (index = round; None or a
            missing/None entry means the default ``ceil(K_s / K_(r-1))``: as many as round s
            has buckets per bucket of the parent round, so at least the next round's per-parent
            child count).
        random_state, n_init: k-means seeding and restarts.
    """

    hands: GameHands
    buckets: tuple[int, ...]
    intermediate: tuple[int | None, ...] | None = None
    random_state: int = 0
    n_init: int = 4

    def leaf(self, rows: np.ndarray) -> np.ndarray:
        h = self.hands.rounds[-1]
        return h.outcome[rows] if h.outcome is not None else h.equity[rows][:, None]

    def leaf_transform(self, equity: np.ndarray) -> np.ndarray:
        """A ``LeafRound`` is abstracted by equity (there is no future)."""
        return equity

    def clusters_at(self, r: int, s: int) -> int:
        if self.intermediate is not None and s < len(self.intermediate) \
                and self.intermediate[s] is not None:
            return int(self.intermediate[s])
        k_prev = self.buckets[r - 1] if r else 1
        return max(1, math.ceil(self.buckets[s] / k_prev))

    def __call__(self, r: int, rows: np.ndarray, parent: int) -> np.ndarray:
        game = self.hands
        last = len(game.rounds) - 1
        if game.rounds[r].histogram is not None:  # precomputed next-round histogram
            return game.rounds[r].histogram[rows]
        if r == last:
            return self.leaf(rows)
        # bottom-up from the last listed round, or from the first one with a histogram
        stop = next((s for s in range(r + 1, last + 1)
                     if game.rounds[s].histogram is not None), last)
        desc = {r: rows}
        for s in range(r + 1, stop + 1):
            desc[s] = game.descendants(s - 1, desc[s - 1], s)
        x = game.rounds[stop].histogram[desc[stop]] \
            if game.rounds[stop].histogram is not None else self.leaf(desc[stop])
        labels = self._cluster(r, stop, parent, x, desc[stop])
        for s in range(stop - 1, r, -1):
            hist = self._histogram(s, desc[s], desc[s + 1], labels)
            labels = self._cluster(r, s, parent, hist, desc[s])
        return self._histogram(r, rows, desc[r + 1], labels)

    def _cluster(self, r: int, s: int, parent: int, x: np.ndarray, rows: np.ndarray):
        pts = Points.from_hands(x, self.hands.rounds[s].weight[rows])
        k = self.clusters_at(r, s)
        labels = kmeans(pts, k, seed_for(self.random_state, r, parent, 10_000 + s),
                        self.n_init)[0]
        return labels[pts.inverse]

    def _histogram(self, s: int, rows: np.ndarray, child_rows: np.ndarray,
                   child_labels: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(rows, self.hands.rounds[s + 1].parent[child_rows])
        hist = np.zeros((len(rows), int(child_labels.max()) + 1))
        np.add.at(hist, (pos, child_labels), self.hands.transition(s + 1)[child_rows])
        return hist
