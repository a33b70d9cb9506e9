"""Opponent cluster hand strength (OCHS) of the last round: Rhode Island and Texas Hold'em.

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

In Texas Hold'em (``holdem_opponent_clusters``, ``holdem_ochs_table``) the 169 preflop classes
are clustered on their distributions of final river equity (``abstraction.holdem``: the
mixture of each class's flop ``hist_flop`` rows, 50 equal bins), weighted by class
probability, and every canonical river hand ([2,5] index, 123,156,254) gets its equity against
the hole cards of each cluster, every opponent hand not sharing a card with the 7 known cards
equally likely (exact counts, board by board, ``abstraction._ochs_kernels``; 1/2 against a
cluster none of whose hands is live). Clusters are numbered by increasing mean equity. The table
(float32: 3.7 GiB at 8 clusters; 33 s on 2 cores) is cached under ``<data_dir>/cache/`` by
cluster count and seed (``cached_holdem_ochs``); its clustering is in
``abstraction.ochs_river``. A full table is checked to have every class written exactly once
(the class sizes sum to the 2,809,475,760 raw river hands); its ``key`` (the counts summed over
the clusters) equals ``equity_river``'s ``2 * wins + ties``.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abstraction._ochs_kernels import N_RIVER_HANDS, board_counts, scatter_equity
from abstraction.clustering import seed_for
from abstraction.emd import EMDLine
from abstraction.metric_kmeans import kmeans
from etl._equity_kernels import suit_permutations
from etl.isomorphism import HandIndexer, raw_count
from etl.lock import file_lock
from etl.rhode_island import hand_rank3, hand_tree
from schema.progress import progress_bar

#: Texas Hold'em: starting-hand classes, and the most opponent clusters whose river table
#: (123,156,254 x clusters float32) is built: 7.3 GiB at 16.
HOLDEM_CLASSES = 169
HOLDEM_MAX_CLUSTERS = 16
RIVER_GROUPS = (2, 5)
#: canonical river boards per kernel call (about 200 MB of counts)
BOARD_CHUNK = 2048
#: bump when the table's definition changes (a cached table of another version is rebuilt)
CACHE_VERSION = "ochs-holdem-1"


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
    out = np.empty(13, dtype=np.int64)
    out[rank] = cluster_equity_histograms(hist, np.full(len(hist), 1.0 / len(hist)), clusters,
                                          random_state, n_init)
    return out


def cluster_equity_histograms(hist: np.ndarray, weight: np.ndarray, clusters: int,
                              random_state: int = 0, n_init: int = 4) -> np.ndarray:
    """Cluster of each starting hand: weighted k-means under EMD (ground: the equal bins'
    centres on the equity line) of its distribution of final equity (rows of ``hist``, each
    summing to 1; ``weight`` summing to 1); clusters numbered by increasing mean equity.
    Seeded by ``random_state``."""
    line = EMDLine.equity_bins(hist.shape[1])
    labels, centres, _ = kmeans(np.asarray(hist, np.float64), np.asarray(weight, np.float64),
                                line, clusters, seed_for(random_state, 7_000), n_init)
    mean = centres @ line.positions
    relabel = np.empty(len(mean), dtype=np.int64)
    relabel[np.argsort(mean, kind="stable")] = np.arange(len(mean))
    return relabel[labels]


def _check_range(clusters, most: int, what: str) -> int:
    if isinstance(clusters, bool) or not isinstance(clusters, (int, np.integer)):
        raise ValueError(f"opponent_clusters must be an integer, got {clusters!r}")
    if not 1 <= clusters <= most:
        raise ValueError(f"opponent_clusters must be in 1..{most} ({what}), got {clusters}")
    return int(clusters)


def check_holdem_clusters(clusters) -> int:
    """``clusters`` as an int if Texas Hold'em OCHS can be built with that many opponent
    clusters; ValueError (a one-line reason) otherwise."""
    clusters = _check_range(clusters, HOLDEM_CLASSES, "Texas Hold'em's preflop classes")
    if clusters > HOLDEM_MAX_CLUSTERS:
        gib = HandIndexer(RIVER_GROUPS).size * 4 * clusters / 2 ** 30
        raise ValueError(f"opponent_clusters={clusters} on holdem needs a {gib:.1f} GiB river "
                         f"table (123,156,254 hands x {clusters} float32): at most "
                         f"{HOLDEM_MAX_CLUSTERS} are supported")
    return int(clusters)


def holdem_opponent_clusters(histograms: np.ndarray, weight: np.ndarray, clusters: int,
                             random_state: int = 0, n_init: int = 4) -> np.ndarray:
    """Cluster of each of the 169 preflop classes (rows of ``HandIndexer((2,))``), from their
    distributions of final river equity (``histograms``, (169, bins)) and probabilities
    (``weight``); see ``cluster_equity_histograms``."""
    clusters = _check_range(clusters, HOLDEM_CLASSES, "Texas Hold'em's preflop classes")
    if histograms.shape[0] != HOLDEM_CLASSES or len(weight) != HOLDEM_CLASSES:
        raise ValueError(f"need the {HOLDEM_CLASSES} preflop classes' histograms and weights, "
                         f"got {histograms.shape[0]} and {len(weight)}")
    hist = np.asarray(histograms, np.float64)
    hist = hist / hist.sum(axis=1, keepdims=True)
    w = np.asarray(weight, np.float64)
    return cluster_equity_histograms(hist, w / w.sum(), clusters, random_state, n_init)


def pair_clusters(cluster_of_class: np.ndarray) -> np.ndarray:
    """(52, 52): the opponent cluster of hole cards ``{x, y}`` (symmetric; diagonal 0)."""
    a, b = np.triu_indices(52, 1)
    cls = np.asarray(cluster_of_class, np.int64)[
        HandIndexer((2,)).index(np.stack([a, b], axis=1).astype(np.uint8))]
    out = np.zeros((52, 52), np.int64)
    out[a, b] = cls
    out[b, a] = cls
    return out


@dataclass(frozen=True)
class BoardRows:
    """Every hand of some river boards (``holdem_board_rows``): row ``b * 1081 + h`` is hand
    ``h`` (the pairs of the 47 cards left, in ``etl._equity_kernels.pair_slots`` order) on
    board ``b``. ``idx``: its [2,5] canonical index; ``size``: raw hands in its class (0 where
    an earlier row of the board is the same class); ``hole`` (rows, 2); per opponent cluster
    (rows, clusters): ``wins``, ``ties`` and ``live`` (opponent hands it can face)."""

    idx: np.ndarray
    size: np.ndarray
    hole: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    live: np.ndarray

    @property
    def equity(self) -> np.ndarray:
        """(wins + ties / 2) / live per cluster; 1/2 where no hand of the cluster is live."""
        live = self.live.astype(np.float64)
        eq = (self.wins + 0.5 * self.ties) / np.maximum(live, 1.0)
        return np.where(live > 0, eq, 0.5)


def holdem_board_rows(boards: np.ndarray, cluster_of_class: np.ndarray) -> BoardRows:
    """Per-cluster wins, ties and live opponent hands of every hand on the given boards
    ((n, 5) distinct cards 0..51; any boards, canonical or not)."""
    boards = np.ascontiguousarray(boards, dtype=np.int64).reshape(-1, 5)
    if boards.size and (boards.min() < 0 or boards.max() > 51
                        or (np.diff(np.sort(boards, axis=1), axis=1) == 0).any()):
        raise ValueError("boards must be 5 distinct cards in 0..51 each")
    k = int(np.max(cluster_of_class)) + 1
    n = len(boards) * N_RIVER_HANDS
    rows = BoardRows(np.empty(n, np.int64), np.empty(n, np.int64), np.empty((n, 2), np.int64),
                     np.empty((n, k), np.uint16), np.empty((n, k), np.uint16),
                     np.empty((n, k), np.uint16))
    board_counts(boards, pair_clusters(cluster_of_class), k, HandIndexer(RIVER_GROUPS).tables,
                 suit_permutations(), rows.idx, rows.size, rows.hole, rows.wins, rows.ties,
                 rows.live)
    return rows


@dataclass(frozen=True)
class HoldemOCHS:
    """The river OCHS table, by [2,5] canonical index: ``vectors`` (hands, clusters) float32
    equity against each opponent cluster, ``key`` uint16 ``2 * wins + ties`` against all 990
    opponent hands, ``size`` uint8 raw hands per class; ``clusters`` (169,) the cluster of
    each preflop class."""

    clusters: np.ndarray
    vectors: np.ndarray
    key: np.ndarray
    size: np.ndarray

    @property
    def n_clusters(self) -> int:
        return self.vectors.shape[1]


def holdem_ochs_table(cluster_of_class: np.ndarray, progress: bool = False,
                      out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                      boards=None) -> HoldemOCHS:
    """The OCHS table of every canonical river hand (``HoldemOCHS``): each canonical
    five-card board (134,459) with its 1,081 hands, each class written once.

    Args:
        out: optional (vectors, key, size) arrays to fill (e.g. memory-mapped files).
        boards: canonical board indexes (``HandIndexer((5,))``) to do, e.g. for a timed
            partial run; default all (then every class is checked to be written exactly once).
    """
    cluster_of_class = np.asarray(cluster_of_class, np.int64)
    k = int(cluster_of_class.max()) + 1
    river, t5 = HandIndexer(RIVER_GROUPS), HandIndexer((5,))
    if out is None:
        out = (np.zeros((river.size, k), np.float32), np.zeros(river.size, np.uint16),
               np.zeros(river.size, np.uint8))
    vectors, key, size = out
    cop, perms = pair_clusters(cluster_of_class), suit_permutations()
    todo = np.arange(t5.size) if boards is None else np.asarray(boards, np.int64)
    n = BOARD_CHUNK * N_RIVER_HANDS
    idx, w, hole = np.empty(n, np.int64), np.empty(n, np.int64), np.empty((n, 2), np.int64)
    wins, ties, live = (np.empty((n, k), np.uint16) for _ in range(3))
    starts = range(0, len(todo), BOARD_CHUNK)
    for lo in progress_bar(starts, desc="OCHS river table", unit="chunk", disable=not progress):
        chunk = todo[lo:lo + BOARD_CHUNK]
        m = len(chunk) * N_RIVER_HANDS
        cards = t5.unindex(chunk).astype(np.int64)
        board_counts(cards, cop, k, river.tables, perms, idx[:m], w[:m], hole[:m], wins[:m],
                     ties[:m], live[:m])
        scatter_equity(idx[:m], w[:m], wins[:m], ties[:m], live[:m], vectors, key, size)
    if boards is None:
        total = int(size.sum(dtype=np.int64))
        if total != raw_count(RIVER_GROUPS) or not size.all():
            raise RuntimeError(f"OCHS table: {total} raw river hands written, expected "
                               f"{raw_count(RIVER_GROUPS)}")
    return HoldemOCHS(cluster_of_class, vectors, key, size)


def cache_dir(data_dir, clusters: int, seed: int) -> Path:
    """Where the table of ``clusters`` opponent clusters and abstraction seed ``seed`` is
    kept: ``<data_dir>/cache/ochs-holdem-k<clusters>-seed<seed>/`` (derived; safe to delete)."""
    return Path(data_dir) / "cache" / f"ochs-holdem-k{int(clusters)}-seed{int(seed)}"


def _meta(cluster_of_class: np.ndarray) -> dict:
    return {"version": CACHE_VERSION, "clusters": [int(c) for c in cluster_of_class]}


def _load(folder: Path, cluster_of_class: np.ndarray) -> HoldemOCHS | None:
    """The cached table in ``folder`` (memory-mapped, read-only) if it is whole and of these
    clusters, else None."""
    try:
        meta = json.loads((folder / "meta.json").read_text())
        if meta != _meta(cluster_of_class):
            return None
        arrays = [np.load(folder / f"{name}.npy", mmap_mode="r")
                  for name in ("vectors", "key", "size")]
    except (OSError, ValueError):
        return None
    n = HandIndexer(RIVER_GROUPS).size
    if any(len(a) != n for a in arrays) or arrays[0].shape[1] != int(max(cluster_of_class)) + 1:
        return None
    return HoldemOCHS(np.asarray(cluster_of_class, np.int64), *arrays)


def cached_holdem_ochs(data_dir, cluster_of_class: np.ndarray, seed: int,
                       progress: bool = False) -> HoldemOCHS:
    """The OCHS table from the cache of ``data_dir`` (``cache_dir``), computed and stored
    there first when missing or of other clusters. Written into a hidden staging folder beside
    it (``.npy`` files filled in place, fsynced, ``meta.json`` last), then renamed onto the
    cache folder, so a killed build never leaves a table that looks whole; two builders of the
    same table take turns (a file lock). Returned memory-mapped, read-only."""
    cluster_of_class = np.asarray(cluster_of_class, np.int64)
    k = int(cluster_of_class.max()) + 1
    folder = cache_dir(data_dir, k, seed)
    with file_lock(folder.parent / f".{folder.name}.lock"):
        table = _load(folder, cluster_of_class)
        if table is not None:
            return table
        staging = folder.parent / f".{folder.name}.{os.getpid()}.tmp"
        if staging.exists():
            shutil.rmtree(staging)
        staging.mkdir(parents=True)
        try:
            n = HandIndexer(RIVER_GROUPS).size
            out = tuple(np.lib.format.open_memmap(staging / f"{name}.npy", mode="w+",
                                                  dtype=dt, shape=shape)
                        for name, dt, shape in (("vectors", np.float32, (n, k)),
                                                ("key", np.uint16, (n,)),
                                                ("size", np.uint8, (n,))))
            holdem_ochs_table(cluster_of_class, progress, out=out)
            for a in out:
                a.flush()
            del out
            for name in ("vectors", "key", "size"):
                _fsync(staging / f"{name}.npy")
            (staging / "meta.json").write_text(json.dumps(_meta(cluster_of_class)))
            _fsync(staging / "meta.json")
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(staging, folder)
        finally:
            if staging.exists():
                shutil.rmtree(staging)
        table = _load(folder, cluster_of_class)
        if table is None:
            raise RuntimeError(f"the OCHS table just written to {folder} does not read back")
        return table


def _fsync(path: Path) -> None:
    with open(path, "rb+") as fh:
        os.fsync(fh.fileno())


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
