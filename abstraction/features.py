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

from abstraction.clustering import Histograms, Points, kmeans, seed_for
from abstraction.emd import L1, EMDGround, EMDLine, Euclidean
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
        stop, desc = self._descent(r, rows)
        x = game.rounds[stop].histogram[desc[stop]] \
            if game.rounds[stop].histogram is not None else self.leaf(desc[stop])
        labels = self._cluster(r, stop, parent, x, desc[stop])
        for s in range(stop - 1, r, -1):
            hist = self._histogram(s, desc[s], desc[s + 1], labels)
            labels = self._cluster(r, s, parent, hist, desc[s])
        return self._histogram(r, rows, desc[r + 1], labels)

    def _descent(self, r: int, rows: np.ndarray) -> tuple[int, dict[int, np.ndarray]]:
        """The levels of the bottom-up pass below round ``r``: it starts at ``stop``, the last
        listed round or the first one after ``r`` with a precomputed histogram, and ``desc[s]``
        (s = r..stop) are the round-s hands that descend from ``rows`` (``desc[r]`` is ``rows``)."""
        game = self.hands
        last = len(game.rounds) - 1
        stop = next((s for s in range(r + 1, last + 1)
                     if game.rounds[s].histogram is not None), last)
        desc = {r: rows}
        for s in range(r + 1, stop + 1):
            desc[s] = game.descendants(s - 1, desc[s - 1], s)
        return stop, desc

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


#: The last round's showdown outcomes (win, tie, loss) as points on the equity line.
OUTCOME_POSITIONS = np.array([1.0, 0.5, 0.0])


@dataclass(frozen=True)
class EMDPotentialFeature(PotentialFeature):
    """Potential-aware with the earth mover's distance (Ganzfried & Sandholm, AAAI 2014).

    As ``PotentialFeature``, bottom-up over the parent's descendants, but every level is
    clustered by k-means under EMD (``abstraction.metric_kmeans``) and a hand's histogram over
    the next level's clusters is compared with EMD whose ground is the distance between those
    clusters' centres (themselves histograms, compared under the level below's ground). The
    last round is a distribution over showdown outcomes, whose ground is the equity line
    (loss 0, tie 1/2, win 1). A precomputed next-round equity histogram (Texas Hold'em's
    ``hist_flop``/``hist_turn``: equal equity bins) is compared with EMD on the bin centres,
    the equity-histogram EMD of Johanson et al. (AAMAS 2013); the bottom-up recursion over
    next-round clusters runs where hands are listed down to the showdown (Rhode Island).
    """

    def leaf(self, rows: np.ndarray) -> Histograms:
        h = self.hands.rounds[-1]
        if h.outcome is not None:
            return Histograms(h.outcome[rows], EMDLine(OUTCOME_POSITIONS))
        return Histograms(h.equity[rows][:, None], Euclidean())

    @staticmethod
    def _equity_histograms(x: np.ndarray) -> Histograms:
        bins = x.shape[1]
        return Histograms(np.asarray(x, dtype=np.float64), EMDLine.equity_bins(bins))

    def __call__(self, r: int, rows: np.ndarray, parent: int) -> Histograms:
        game = self.hands
        last = len(game.rounds) - 1
        if r == 0 and self.buckets[0] >= len(rows):
            # every hand keeps its own bucket whatever the feature (Rhode Island's 13 private
            # cards): skip the bottom-up pass, which would cluster every last-round hand
            return Histograms(np.eye(len(rows)), Euclidean())
        if game.rounds[r].histogram is not None:
            return self._equity_histograms(game.rounds[r].histogram[rows])
        if r == last:
            return self.leaf(rows)
        stop, desc = self._descent(r, rows)
        x = self._equity_histograms(game.rounds[stop].histogram[desc[stop]]) \
            if game.rounds[stop].histogram is not None else self.leaf(desc[stop])
        labels, ground = self._cluster_ground(r, stop, parent, x, desc[stop])
        for s in range(stop - 1, r, -1):
            hist = self._histogram(s, desc[s], desc[s + 1], labels)
            labels, ground = self._cluster_ground(r, s, parent, Histograms(hist, ground),
                                                  desc[s])
        return Histograms(self._histogram(r, rows, desc[r + 1], labels), ground)

    def _cluster_ground(self, r: int, s: int, parent: int, x: Histograms, rows: np.ndarray):
        """Labels of the level's hands and the EMD ground of a histogram over its clusters:
        the distances between the clusters' centres under the level's own distance."""
        l2 = isinstance(x.metric, Euclidean)  # L2 rows (OCHS vectors): ordinary k-means
        pts = Points.from_hands(x.x, self.hands.rounds[s].weight[rows],
                                metric=None if l2 else x.metric)
        k = self.clusters_at(r, s)
        labels, centres, _ = kmeans(pts, k, seed_for(self.random_state, r, parent, 10_000 + s),
                                    self.n_init)
        return labels[pts.inverse], EMDGround(x.metric.ground(centres))


@dataclass(frozen=True)
class OCHSFeature(EMDPotentialFeature):
    """Opponent cluster hand strength (Johanson, Burch, Valenzano & Bowling, "Evaluating
    state-space abstractions in extensive-form games", AAMAS 2013): in the last round a hand's
    feature is its equity against each cluster of opponent hands, clustered by k-means in L2.

    Rhode Island Hold'em: ``vectors`` has one row per last-round hand (``abstraction.ochs``);
    earlier rounds are potential-aware with EMD over those clusters (``EMDPotentialFeature``),
    the ground the L2 distances between OCHS centres. Texas Hold'em: the river is a
    ``LeafRound`` whose points are river codes (``abstraction.ochs_river``), a code's feature
    its row of ``codebook``; the earlier rounds have precomputed equity histograms, compared
    with EMD on the equity line as ``pa-emd`` does (the combination of Johanson et al.)."""

    vectors: np.ndarray | None = None
    codebook: np.ndarray | None = None

    def leaf(self, rows: np.ndarray) -> Histograms:
        return Histograms(self.vectors[rows], Euclidean())

    def leaf_transform(self, x: np.ndarray) -> np.ndarray:
        """A ``LeafRound``'s points ``(mean equity, code)``: the code's OCHS vector."""
        return self.codebook[x[:, 1].astype(np.int64)]

    def __call__(self, r: int, rows: np.ndarray, parent: int):
        if self.hands.leaf is None and r == len(self.hands.rounds) - 1:
            return self.vectors[rows]
        return super().__call__(r, rows, parent)


@dataclass(frozen=True)
class StrategyFeature(PotentialFeature):
    """Strategy-based (``abstraction.strategy_features``): in the rounds of ``rounds`` a hand's
    feature is its strategy vector from a solved finer game (``vectors[r]``, one row per hand),
    clustered by k-means under L1; the other rounds are potential-aware as ``pa``."""

    vectors: tuple | None = None
    rounds: tuple = ()

    def __call__(self, r: int, rows: np.ndarray, parent: int):
        if r in self.rounds:
            return Histograms(self.vectors[r][rows], L1())
        return super().__call__(r, rows, parent)
