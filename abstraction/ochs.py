"""Opponent cluster hand strength (OCHS) features of Rhode Island Hold'em's last round.

Johanson, Burch, Valenzano & Bowling, "Evaluating state-space abstractions in extensive-form
games" (AAMAS 2013), section 4: the opponent's starting hands are grouped into a few clusters
(they use 8 of Texas Hold'em's 169, by k-means with the earth mover's distance on each hand's
distribution of final-round hand strength); a final-round hand's feature is then its equity
(p(win) + p(tie)/2) against the opponent hands of each cluster, card removal respected.

In Rhode Island Hold'em the starting hand is the private card: its 13 ranks are clustered on
their distributions of last-round equity over ``bins`` equal bins (EMD on the bin centres,
``abstraction.metric_kmeans``), and every one of the 9,997 canonical last-round hands gets its
equity against the opponent's cards of each cluster (each card not among its own three equally
likely).
"""

from __future__ import annotations

import numpy as np

from abstraction.clustering import seed_for
from abstraction.emd import EMDLine
from abstraction.metric_kmeans import kmeans
from etl.rhode_island import hand_rank3, hand_tree


def opponent_clusters(clusters: int, bins: int = 20, random_state: int = 0, n_init: int = 4,
                      ranking: str = "standard") -> np.ndarray:
    """Cluster of each private-card rank (13,): k-means under EMD of the ranks' distributions
    of last-round equity; clusters numbered by increasing mean equity."""
    tree = hand_tree(canonical=True, ranking=ranking)
    river = tree[2]
    start = tree[1].parent[river.parent]  # the round-0 hand of every last-round hand
    rank = tree[0].cards[:, 0].astype(np.int64) >> 2
    b = np.minimum((river.equity * bins).astype(np.int64), bins - 1)
    hist = np.zeros((len(tree[0].weight), bins))
    np.add.at(hist, (start, b), river.weight)
    hist /= hist.sum(axis=1, keepdims=True)
    labels, centres, _ = kmeans(hist, np.full(len(hist), 1.0 / len(hist)),
                                EMDLine((np.arange(bins) + 0.5) / bins), clusters,
                                seed_for(random_state, 7_000), n_init)
    mean = centres @ ((np.arange(bins) + 0.5) / bins)
    relabel = np.empty(len(mean), dtype=np.int64)
    relabel[np.argsort(mean, kind="stable")] = np.arange(len(mean))
    out = np.empty(13, dtype=np.int64)
    out[rank] = relabel[labels]
    return out


def ochs_vectors(cluster_of_rank: np.ndarray, ranking: str = "standard") -> np.ndarray:
    """(9,997, clusters) equity of every canonical last-round hand against each opponent
    cluster (rows in ``etl.rhode_island.hand_tree()[2]`` order)."""
    cards = hand_tree(canonical=True, ranking=ranking)[2].cards.astype(np.int64)
    n, k = len(cards), int(cluster_of_rank.max()) + 1
    mine = hand_rank3(cards, ranking).astype(np.int64)
    value = np.zeros((n, k))
    count = np.zeros((n, k))
    for o in range(52):
        ok = (cards != o).all(axis=1)
        theirs = hand_rank3(np.column_stack([np.full(ok.sum(), o), cards[ok, 1:]]),
                            ranking).astype(np.int64)
        c = cluster_of_rank[o >> 2]
        value[ok, c] += (mine[ok] > theirs) + 0.5 * (mine[ok] == theirs)
        count[ok, c] += 1
    return value / count
