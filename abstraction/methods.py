"""Abstraction methods with the scikit-learn shape: ``Method(buckets=...).fit(hands)``.

- ``ExpectationBased`` (``eb``): Gilpin & Sandholm, "A competitive Texas Hold'em poker player
  via automated abstraction and real-time equilibrium computation", AAAI 2006.
- ``ExpectationSquared`` (``eb2``): the same on the squared equity (Gilpin & Sandholm, AAAI 2007).
- ``PotentialAware`` (``pa``): Gilpin, Sandholm & Sorensen, AAAI 2007.
- ``PotentialAwareEMD`` (``pa-emd``): the same with the earth mover's distance (Ganzfried &
  Sandholm, AAAI 2014).
- ``OpponentClusterHandStrength`` (``ochs``): Johanson, Burch, Valenzano & Bowling, AAMAS 2013.
- ``StrategyBased`` (``strategy``): hands clustered by their play in a solved finer game
  (Gilpin's thesis, CMU 2009, ch. 6; GS4): any round of Rhode Island Hold'em, Texas Hold'em's
  preflop (from a solve on the 169 preflop classes; later rounds potential-aware).
- ``Lossless`` (``lossless``): the ordered game isomorphism of GameShrink (Gilpin & Sandholm,
  "Lossless abstraction of imperfect information games", JACM 2007) for Rhode Island Hold'em:
  hands of a round share a bucket when they share the parent bucket and have the same
  distribution over the next round's buckets (in the last round: over showdown outcomes).
  13, 205 and 1,774 buckets. The public cards stay public: the abstraction is played with
  ``public_board`` on, so a player's information is (public board, bucket), the reading under
  which GameShrink's counts are lossless. So refined, the classes are exactly the
  strategically identical ones (13, 325 and 7,969; the opponent-aware fixed point
  :func:`strategic_classes` is the check), and abstract and real best responses agree.
  Played with the board hidden, as eb, eb2 and pa abstractions usually are, the same 1,774
  classes are not lossless: 2c|3c3d and 2c|3cTd share a bucket (both lose to all but
  the three other deuces) although the opponent holds a pair on one board and mostly high
  cards on the other, so bluffs and calls are worth different amounts.

Every method takes ``public_board`` (default off; always on for ``lossless``): when on, the
solver refines each bucket by the public cards (up to suit isomorphism), see
``abstraction.public_board.public_board_buckets``.

All learn ``rounds_`` (a list of ``RoundResult``: bucket per hand, parent per bucket,
centroids, report) and ``buckets_`` (built bucket counts).

Example:
    >>> from abstraction.games import rhode_island
    >>> eb = ExpectationBased(buckets=(13, 25, 125), random_state=0).fit(rhode_island())
    >>> eb.buckets_
    (13, 25, 125)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from abstraction.features import (OUTCOME_POSITIONS, EMDPotentialFeature, EquityFeature,
                                  OCHSFeature, PotentialFeature, StrategyFeature)
from abstraction import games as card_games
from abstraction.games import check_opponent_clusters
from abstraction.ochs import ochs_vectors, opponent_clusters
from abstraction.ochs_river import holdem_river
from abstraction.emd import EMDLine
from abstraction.hands import GameHands, LeafRound
from abstraction.imperfect_recall import KIND_OF_METHOD, build_imperfect
from abstraction.options import MethodOptions, OptionError, imperfect_alone, ints, option
from abstraction.tree import build_tree, round_result
from etl.rhode_island import hand_key, hand_rank3, hand_tree, raw_hands


class _Abstraction:
    method = ""
    #: the games the method is implemented for
    games = ("holdem", "rhode-island")
    #: why the method is not available for the other games, if it is worth saying
    games_note = ""
    #: the options a build of the method takes (``abstraction.options``)
    Options = MethodOptions

    def __init__(self, buckets: Sequence[int] | None, random_state: int = 0, n_init: int = 4,
                 kmax: int | None = None, workers: int = 1, progress: bool = False,
                 kmax_factor: float | None = None, public_board: bool = False,
                 scheduler: str | None = None, recall: str = "perfect"):
        self.buckets = buckets
        self.recall = recall
        self.scheduler = scheduler  # a Dask cluster for the per-parent work (etl.cluster)
        self.kmax_factor = kmax_factor
        self.public_board = public_board
        self.random_state = random_state
        self.n_init = n_init
        self.kmax = kmax
        self.workers = workers
        self.progress = progress

    def _check_params(self, hands: GameHands) -> tuple[int, ...]:
        sizes = hands.sizes
        if self.buckets is None:
            raise ValueError("buckets is required")
        buckets = tuple(int(b) for b in self.buckets)
        if self.recall not in ("perfect", "imperfect"):
            raise ValueError(f"recall must be perfect or imperfect, got {self.recall!r}")
        imperfect = self.recall == "imperfect"
        if imperfect and self.method not in KIND_OF_METHOD:
            raise ValueError(f"imperfect recall is built for {', '.join(KIND_OF_METHOD)}, "
                             f"not {self.method}")
        if imperfect and self.public_board:
            raise ValueError("imperfect recall is built without the public board")
        if len(buckets) != len(sizes):
            raise ValueError(f"buckets must have {len(sizes)} counts for {hands.game} "
                             f"(one per round), got {len(buckets)}")
        for r, (k, n) in enumerate(zip(buckets, sizes)):
            if k < 1:
                raise ValueError(f"buckets[{r}] must be at least 1, got {k}")
            if r and k < buckets[r - 1] and not imperfect:
                raise ValueError(f"buckets[{r}]={k} is fewer than buckets[{r - 1}]="
                                 f"{buckets[r - 1]}: every bucket needs a child")
            if k > n:
                raise ValueError(f"buckets[{r}]={k} is more than the {n} hands of round {r}")
        if not isinstance(self.random_state, (int, np.integer)) or self.random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {self.random_state!r}")
        if self.n_init < 1:
            raise ValueError(f"n_init must be at least 1, got {self.n_init}")
        if self.kmax is not None and self.kmax < 1:
            raise ValueError(f"kmax must be at least 1, got {self.kmax}")
        if self.kmax_factor is not None and self.kmax_factor <= 0:
            raise ValueError(f"kmax_factor must be positive, got {self.kmax_factor}")
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.public_board and not card_games.has(hands.game, lambda g: g.public_board):
            raise ValueError(f"public_board is implemented for "
                             f"{', '.join(card_games.names(lambda g: g.public_board))}, not "
                             f"{hands.game}")
        return buckets

    def _features(self, hands: GameHands, buckets: tuple[int, ...]):
        raise NotImplementedError

    def _last_feature(self, hands: GameHands):
        """Imperfect recall: the last round's (features, metric) (``emd``/``ochs`` only)."""
        return None

    def fit(self, hands: GameHands, checkpoint=None) -> "_Abstraction":
        """Build the abstraction of ``hands``; returns self. ``checkpoint``: a directory
        where the build saves each finished round and from which a re-run resumes
        (``abstraction.checkpoint``)."""
        buckets = self._check_params(hands)
        if self.recall == "imperfect":
            self.rounds_ = build_imperfect(hands, buckets, KIND_OF_METHOD[self.method],
                                           last_feature=self._last_feature(hands),
                                           random_state=int(self.random_state),
                                           n_init=self.n_init, progress=self.progress,
                                           checkpoint=checkpoint)
            self.buckets_ = tuple(r.n_buckets for r in self.rounds_)
            return self
        self.rounds_ = build_tree(hands, buckets, self._features(hands, buckets),
                                  random_state=int(self.random_state), n_init=self.n_init,
                                  kmax=self.kmax, kmax_factor=self.kmax_factor,
                                  workers=self.workers, progress=self.progress,
                                  scheduler=self.scheduler, checkpoint=checkpoint)
        self.buckets_ = tuple(r.n_buckets for r in self.rounds_)
        return self

    def bucket_of(self, hands, round: int) -> np.ndarray:
        """Bucket of the given hand rows (the game's canonical hand indexes) in ``round``."""
        if not hasattr(self, "rounds_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted: call fit(hands) first")
        if round not in range(len(self.rounds_)):
            raise ValueError(f"round must be in 0..{len(self.rounds_) - 1}, got {round}")
        return self.rounds_[round].bucket[np.asarray(hands)]

    predict = bucket_of

    @property
    def report_(self) -> list[dict]:
        return [r.report for r in self.rounds_]

    def river_codes(self) -> tuple[np.ndarray, np.ndarray] | None:
        """A last round given per parent bucket (``LeafRound``, Texas Hold'em's river) whose
        points are codes rather than equities: (the code of every river hand by canonical
        index, uint16; the codes' feature rows), which the store keeps so the river can be
        looked up (each river hand of a parent bucket in the child whose centroid is nearest
        its code's row); None otherwise."""
        return None

    def params(self) -> dict:
        return {"n_init": self.n_init, "kmax": self.kmax, "kmax_factor": self.kmax_factor,
                "public_board": bool(self.public_board), "recall": self.recall}


class ExpectationBased(_Abstraction):
    """EB: k-means on the equity p(win) + p(tie)/2, children allocated by the IP."""

    method = "eb"

    def _features(self, hands, buckets):
        return EquityFeature(hands, 1)


class ExpectationSquared(_Abstraction):
    """EB2: as EB on the squared equity."""

    method = "eb2"

    def _features(self, hands, buckets):
        return EquityFeature(hands, 2)


@dataclass(frozen=True)
class PotentialAwareOptions(MethodOptions):
    """The options of the potential-aware methods: ``intermediate`` too."""

    intermediate: tuple[int | None, ...] | None = option(
        None, "pa, pa-emd, ochs: bottom-up cluster counts per round, e.g. ,,200 (blank = "
              "default)", parse=ints("intermediate", blank=True),
        applies="the potential-aware methods (pa, pa-emd, ochs)")

    def check(self, game, method):
        super().check(game, method)
        if self.recall == "imperfect" and self.intermediate is not None:
            raise imperfect_alone()
        for s, m in enumerate(self.intermediate or ()):
            if m is not None and m < 1:
                raise OptionError(f"{{intermediate}}: round {s} needs at least 1 cluster, got "
                                  f"{m}", "intermediate")

    def model_kwargs(self, *args, **kwargs):
        return {**super().model_kwargs(*args, **kwargs), "intermediate": self.intermediate}

    def fingerprint(self):
        return {**super().fingerprint(), "intermediate": self.intermediate}


class PotentialAware(_Abstraction):
    """PA: k-means (L2) on histograms over bottom-up next-round clusters.

    Args:
        intermediate: clusters per round in the bottom-up passes (see ``PotentialFeature``).
    """

    method = "pa"
    Options = PotentialAwareOptions

    def __init__(self, buckets, random_state: int = 0, n_init: int = 4, kmax: int | None = None,
                 workers: int = 1, progress: bool = False,
                 intermediate: Sequence[int | None] | None = None,
                 kmax_factor: float | None = None, public_board: bool = False,
                 scheduler: str | None = None, recall: str = "perfect"):
        super().__init__(buckets, random_state, n_init, kmax, workers, progress, kmax_factor,
                         public_board, scheduler, recall)
        self.intermediate = intermediate

    def _check_params(self, hands):
        buckets = super()._check_params(hands)
        if self.intermediate is not None:
            for s, m in enumerate(self.intermediate):
                if m is not None and m < 1:
                    raise ValueError(f"intermediate[{s}] must be at least 1, got {m}")
        return buckets

    def _features(self, hands, buckets):
        inter = None if self.intermediate is None else tuple(self.intermediate)
        return PotentialFeature(hands, buckets, inter, int(self.random_state), self.n_init)

    def params(self) -> dict:
        return {**super().params(), "intermediate": self.intermediate}


@dataclass(frozen=True)
class LosslessOptions(MethodOptions):
    """The options of ``lossless``: the bucket counts are optional (the lossless counts); of
    the others only the seed is used."""

    buckets_required = False

    def model_kwargs(self, *args, **kwargs):
        return {"random_state": self.seed}


class Lossless(_Abstraction):
    """Lossless: GameShrink's ordered game isomorphism classes, played with the public board
    visible (see module docstring). Rhode Island Hold'em only.

    ``buckets`` is not needed; when given, a round asking for fewer buckets than the lossless
    count is an error (the result would not be lossless).
    """

    method = "lossless"
    games = ("rhode-island",)
    games_note = "Texas Hold'em's lossless abstraction is far too large to build"
    Options = LosslessOptions

    def __init__(self, buckets=None, random_state: int = 0, **_ignored):
        super().__init__(buckets, random_state, public_board=True)

    def fit(self, hands: GameHands, checkpoint=None) -> "Lossless":
        if not card_games.has(hands.game, lambda g: g.lossless):
            raise ValueError(f"lossless is implemented for "
                             f"{', '.join(card_games.names(lambda g: g.lossless))}, not "
                             f"{hands.game}")
        classes = outcome_partition(hands)
        self.rounds_ = []
        for r, hr in enumerate(hands.rounds):
            pb = self.rounds_[-1].bucket[hr.parent] if r else np.zeros(len(hr), dtype=np.int64)
            key = np.stack([pb, classes[r]], axis=1)
            uniq, inv = np.unique(key, axis=0, return_inverse=True)
            inv = inv.ravel()
            w = np.bincount(inv, weights=hr.weight)
            eq = np.bincount(inv, weights=hr.weight * hr.equity) / w
            order = np.lexsort((uniq[:, 1], eq, uniq[:, 0]))  # by parent, then equity
            relabel = np.empty(len(order), dtype=np.int64)
            relabel[order] = np.arange(len(order))
            bucket = relabel[inv].astype(np.int32)
            parent = (uniq[order, 0] if r else np.full(len(order), -1)).astype(np.int32)
            sizes = np.bincount(bucket)
            report = {"round": r, "requested": len(order), "built": len(order), "error": 0.0,
                      "sizes": {"min": int(sizes.min()), "median": float(np.median(sizes)),
                                "mean": float(sizes.mean()), "max": int(sizes.max())}}
            self.rounds_.append(round_result(bucket, parent, [np.array([e]) for e in eq[order]],
                                             hr.weight, hr.equity, report))
        self.buckets_ = tuple(r.n_buckets for r in self.rounds_)
        if self.buckets is not None:
            asked = tuple(int(b) for b in self.buckets)
            if len(asked) != len(self.buckets_) or any(a < b for a, b in
                                                       zip(asked, self.buckets_)):
                raise ValueError(f"lossless {hands.game} needs buckets {self.buckets_}, "
                                 f"got {asked}")
        return self

    def params(self) -> dict:
        return {"public_board": True}


def outcome_partition(hands: GameHands) -> list[np.ndarray]:
    """GameShrink's ordered game isomorphism classes: hands with equal own futures, i.e. the
    same showdown outcome distribution in the last round, in earlier rounds the same
    distribution over the next round's classes, nested under the parent class. Rhode Island
    Hold'em: 13, 205 and 1,774 classes -- what potential-aware clustering at those counts finds.
    Lossless only with the public board visible (see the module docstring)."""
    last = len(hands.rounds) - 1
    h = hands.rounds[last]
    sig = h.outcome if h.outcome is not None else h.equity[:, None]
    cls = _classes(sig)
    classes = [None] * (last + 1)
    classes[last] = cls
    for s in range(last - 1, -1, -1):
        nxt = hands.rounds[s + 1]
        hist = np.zeros((len(hands.rounds[s]), int(cls.max()) + 1))
        np.add.at(hist, (nxt.parent, cls), hands.transition(s + 1))
        cls = _classes(hist)
        classes[s] = cls
    out = []
    for r, hr in enumerate(hands.rounds):
        pb = out[-1][hr.parent] if r else np.zeros(len(hr), dtype=np.int64)
        out.append(_classes(np.stack([pb, classes[r]], axis=1).astype(np.float64)))
    return out


def _classes(x: np.ndarray, decimals: int = 9) -> np.ndarray:
    return np.unique(np.round(x, decimals), axis=0, return_inverse=True)[1].ravel()


def _mix64(x: np.ndarray, salt: int) -> np.ndarray:
    """splitmix64 of ``x`` (uint64) with ``salt``: a fixed pseudo-random hash."""
    with np.errstate(over="ignore"):
        x = x + np.uint64(salt) * np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def strategic_classes() -> list[np.ndarray]:
    """Classes of strategically identical canonical Rhode Island hands (rows of
    ``hand_tree()``), per round: 13, 325 and 7,969, with no public information assumed. The
    check of ``lossless``: its classes refined by the public board are exactly these.

    Works on raw histories (private, public...), with every (opponent card, public cards to
    come) continuation equally likely. A history's signature is the multiset, over its
    continuations, of (own last-round class, opponent's last-round class, outcome); classes
    are nested (the key holds the parent class), so a last-round class fixes the whole bucket
    sequence. Starting from one class per round, each pass splits classes by (parent class,
    class, signature) until no class splits. Multisets are compared by two independent 64-bit
    sum-of-hashes (a collision would need two different multisets to agree on 128 bits).
    """
    raw = [raw_hands(r).astype(np.int64) for r in range(3)]
    keys = [hand_key(x) for x in raw]

    def index(r, cards):
        return np.searchsorted(keys[r], hand_key(cards))

    last = raw[2]
    opp = np.arange(52)
    ok = (opp[None, :] != last[:, :1]) & (opp[None, :] != last[:, 1:2]) & (opp[None, :] != last[:, 2:])
    me, o = np.nonzero(ok)  # every (own last-round history, opponent card) pair once
    them = index(2, np.column_stack([o, last[me, 1], last[me, 2]]))
    strength = hand_rank3(last).astype(np.int64)
    outcome = (np.sign(strength[me] - strength[them]) + 1).astype(np.uint64)
    parent = [None, index(0, raw[1][:, :1]), index(1, last[:, :2])]
    ancestor = [parent[1][parent[2][me]], parent[2][me], me]
    cls = [np.zeros(len(x), dtype=np.int64) for x in raw]
    while True:
        pair = (cls[2][me].astype(np.uint64) * np.uint64(1 << 20)
                + cls[2][them].astype(np.uint64)) * np.uint64(3) + outcome
        new = []
        for r in range(3):
            sig = []
            for salt in (1, 2):
                h = np.zeros(len(raw[r]), dtype=np.uint64)
                np.add.at(h, ancestor[r], _mix64(pair, salt))
                sig.append(h.view(np.int64))
            pc = np.zeros(len(raw[r]), dtype=np.int64) if r == 0 else new[r - 1][parent[r]]
            key = np.column_stack([pc, cls[r]] + sig)
            new.append(np.unique(key, axis=0, return_inverse=True)[1].ravel().astype(np.int64))
        done = all(a.max() == b.max() for a, b in zip(new, cls))
        cls = new
        if done:
            break
    tree = hand_tree(canonical=True)
    return [cls[r][index(r, tree[r].cards.astype(np.int64))] for r in range(3)]


class PotentialAwareEMD(PotentialAware):
    """PA-EMD: potential-aware with the earth mover's distance (Ganzfried & Sandholm, AAAI
    2014): histograms over next-round clusters compared with EMD, the clusters' centres as
    ground (``EMDPotentialFeature``). On Texas Hold'em the precomputed next-round equity
    histograms are compared with EMD on the equity line."""

    method = "pa-emd"

    def _features(self, hands, buckets):
        inter = None if self.intermediate is None else tuple(self.intermediate)
        return EMDPotentialFeature(hands, buckets, inter, int(self.random_state), self.n_init)

    def _last_feature(self, hands):
        if len(hands.rounds) < len(hands.sizes):
            return None  # a LeafRound river (Texas Hold'em): clustered by equity
        return hands.rounds[-1].outcome, EMDLine(OUTCOME_POSITIONS)


def _from_tables(hands: GameHands) -> bool:
    """Are ``hands`` read from the equity tables (Texas Hold'em: OCHS clusters the river from
    them, given per turn bucket)?"""
    return card_games.has(hands.game, lambda g: g.equity_tables)


@dataclass(frozen=True)
class OCHSOptions(PotentialAwareOptions):
    """The options of ``ochs``: ``opponent_clusters`` too."""

    opponent_clusters: int | None = option(
        None, "ochs: clusters of opponent starting hands (default 8; rhode-island 1..13, holdem "
              "1..169, at most 16 for the river table's memory)", type=int)

    def check(self, game, method):
        super().check(game, method)
        if self.opponent_clusters is not None:
            try:
                game.check_opponent_clusters(self.opponent_clusters)
            except ValueError as exc:
                raise OptionError(f"{{opponent_clusters}}: {exc}", "opponent_clusters") from None

    def model_kwargs(self, *args, **kwargs):
        out = super().model_kwargs(*args, **kwargs)
        if self.opponent_clusters is not None:
            out["opponent_clusters"] = self.opponent_clusters
        return out

    def fingerprint(self):
        return {**super().fingerprint(), "opponent_clusters": self.opponent_clusters}


class OpponentClusterHandStrength(PotentialAware):
    """OCHS (Johanson et al., AAMAS 2013): the last round by equity against each of
    ``opponent_clusters`` clusters of opponent starting hands (``abstraction.ochs``).
    Rhode Island Hold'em: earlier rounds potential-aware with EMD over those clusters.

    Texas Hold'em (``abstraction.ochs_river``; ``opponent_clusters`` 1..169, at most 16 for
    the river table's memory): perfect recall clusters the river within each turn bucket by
    k-means on the OCHS vectors of the river hands its turn hands reach (each river hand by its
    code: the 123 million vectors quantised into 65,535 codes first), and the preflop, flop and
    turn as ``pa-emd`` does on Texas Hold'em: next-round equity histograms (``hist_flop``,
    ``hist_turn``, the preflop's the mixture of its flop hands') under EMD on the equity line,
    Johanson et al.'s own combination. Not EMD over the river's OCHS clusters as on Rhode
    Island: each of the turn's 55 million hands would need a histogram over the river clusters
    of its parent, each parent its own ground, and the flop likewise over those. Imperfect
    recall clusters all river hands on their own and every flop and turn hand at once by its
    river-equity histogram under EMD (``abstraction.line_kmeans``), Johanson et al.'s
    IR-KE-KO."""

    method = "ochs"
    games = ("holdem", "rhode-island")
    Options = OCHSOptions

    def __init__(self, buckets, random_state: int = 0, n_init: int = 4, kmax: int | None = None,
                 workers: int = 1, progress: bool = False,
                 intermediate: Sequence[int | None] | None = None,
                 kmax_factor: float | None = None, public_board: bool = False,
                 scheduler: str | None = None, opponent_clusters: int = 8,
                 recall: str = "perfect"):
        super().__init__(buckets, random_state, n_init, kmax, workers, progress, intermediate,
                         kmax_factor, public_board, scheduler, recall)
        self.opponent_clusters = opponent_clusters

    def _check_params(self, hands):
        buckets = super()._check_params(hands)
        check_opponent_clusters(hands.game, self.opponent_clusters)
        if _from_tables(hands) and (hands.leaf is None or hands.rounds[0].histogram is None):
            raise ValueError("ochs on holdem needs abstraction.holdem.holdem_hands (preflop "
                             "histograms, the river given per turn bucket)")
        return buckets

    def fit(self, hands: GameHands, checkpoint=None) -> "OpponentClusterHandStrength":
        self._river = self.opponent_clusters_ = self._codes = None
        if _from_tables(hands):
            self._check_params(hands)
            self._river = holdem_river(hands, self.opponent_clusters, int(self.random_state),
                                       self.n_init, self.recall == "perfect", self.progress)
            if self.recall == "perfect":
                hands = replace(hands, leaf=LeafRound(hands.leaf.size, self._river.points))
        try:
            super().fit(hands, checkpoint)
        finally:
            river, self._river = self._river, None  # the table is memory-mapped GiBs
        if river is not None:
            self.opponent_clusters_ = np.asarray(river.table.clusters)
            self.rounds_[-1].report.update(river.report())
            if river.codebook is not None:
                self._codes = (river.codes, np.asarray(river.codebook))
        return self

    def river_codes(self):
        return getattr(self, "_codes", None)

    def _last_feature(self, hands):
        return self._river if self._river is not None else (self._vectors(), None)

    def _vectors(self) -> np.ndarray:
        return ochs_vectors(opponent_clusters(self.opponent_clusters,
                                              random_state=int(self.random_state),
                                              n_init=self.n_init))

    def _features(self, hands, buckets):
        inter = None if self.intermediate is None else tuple(self.intermediate)
        if _from_tables(hands):  # the feature ships to the workers: not the river's table
            hands = replace(hands, leaf=LeafRound(hands.leaf.size, None))
            kw = {"codebook": np.asarray(self._river.codebook)}
        else:
            kw = {"vectors": self._vectors()}
        return OCHSFeature(hands, buckets, inter, int(self.random_state), self.n_init, **kw)

    def params(self) -> dict:
        out = {**super().params(), "opponent_clusters": self.opponent_clusters}
        if getattr(self, "opponent_clusters_", None) is not None:
            out["opponent_cluster_of_class"] = [int(c) for c in self.opponent_clusters_]
        return out


@dataclass(frozen=True)
class StrategyOptions(PotentialAwareOptions):
    """The options of ``strategy``: the solved strategy whose play clusters the hands and the
    rounds (1-based) it clusters."""

    from_strategy: str | None = option(
        None, "strategy (GS4, Gilpin's thesis, CMU 2009, ch. 6): the solved strategy whose play "
              "clusters the hands, by the L1 distance between their realisation plans. "
              "rhode-island: a Rhode Island strategy on an abstraction, e.g. the lossless one; "
              "holdem: a holdem strategy on an abstraction with the 169 preflop classes (e.g. "
              "built with {buckets} 169,...) and the later rounds abstracted, whose preflop "
              "play clusters the 169 preflop hands", metavar="NAME")
    strategy_rounds: tuple[int, ...] | None = option(
        None, "strategy: the rounds (1-based) clustered by strategy vectors, the others "
              "potential-aware (rhode-island: default all; holdem: 1 only, the preflop)",
        parse=ints("strategy_rounds", "round numbers"), metavar="R1,R2")

    def check(self, game, method):
        super().check(game, method)
        if self.from_strategy is None:
            raise OptionError(f"{{method}} strategy needs {{from_strategy}} NAME "
                              f"({game.strategy_source})", "method", "from_strategy")
        if self.strategy_rounds is None:
            return
        given = ",".join(map(str, self.strategy_rounds))
        if any(r - 1 not in range(game.rounds) for r in self.strategy_rounds):
            raise OptionError(f"{{strategy_rounds}}: {game.name} has rounds 1..{game.rounds}, "
                              f"got {given!r}", "strategy_rounds")
        if game.strategy_rounds is not None and {r - 1 for r in self.strategy_rounds} != set(
                game.strategy_rounds):
            raise OptionError(f"{{strategy_rounds}}: on {game.name} {game.strategy_rounds_note}"
                              f"; got {given!r}", "strategy_rounds")

    def rounds(self) -> tuple[int, ...] | None:
        """The strategy rounds 0-based, as ``StrategyBased`` takes them."""
        return None if self.strategy_rounds is None else tuple(r - 1 for r in
                                                              self.strategy_rounds)

    def model_kwargs(self, *args, **kwargs):
        return {**super().model_kwargs(*args, **kwargs), "rounds": self.rounds(),
                "from_strategy": self.from_strategy}

    def fingerprint(self):
        return {**super().fingerprint(), "from_strategy": self.from_strategy,
                "strategy_rounds": self.rounds()}


class StrategyBased(PotentialAware):
    """Strategy-based (GS4; Gilpin's thesis, "Algorithms for abstracting and solving imperfect
    information games", CMU 2009, ch. 6): the hands of the rounds in ``rounds`` clustered by
    k-means under the L1 distance between their strategy vectors in a solved finer game
    (``vectors``: per round, one row per hand, from
    ``abstraction.strategy_features.strategy_vectors``), the other rounds potential-aware as
    ``pa``.

    Rhode Island Hold'em: ``rounds`` default all; the vectors from any stored strategy on an
    abstraction (the lossless one gives the real game's play). Texas Hold'em: the preflop only
    (``rounds`` default and must be ``(0,)``; ``vectors`` may hold the preflop's alone), its
    169 hands' vectors read from a strategy solved with the 169 lossless preflop classes and the
    later rounds abstracted; the flop, turn and river as ``pa`` builds them on Texas Hold'em
    (the precomputed next-round equity histograms, the river by equity ranges within its turn
    bucket)."""

    method = "strategy"
    games = ("holdem", "rhode-island")
    Options = StrategyOptions
    #: per game, the rounds that may be clustered by strategy vectors (None: any)
    vector_rounds = {"holdem": (0,), "rhode-island": None}

    def __init__(self, buckets, random_state: int = 0, n_init: int = 4, kmax: int | None = None,
                 workers: int = 1, progress: bool = False,
                 intermediate: Sequence[int | None] | None = None,
                 kmax_factor: float | None = None, public_board: bool = False,
                 scheduler: str | None = None, vectors: Sequence[np.ndarray] | None = None,
                 rounds: Sequence[int] | None = None, from_strategy: str | None = None):
        super().__init__(buckets, random_state, n_init, kmax, workers, progress, intermediate,
                         kmax_factor, public_board, scheduler)
        self.vectors = vectors
        self.rounds = rounds
        self.from_strategy = from_strategy

    def _check_params(self, hands):
        buckets = super()._check_params(hands)
        if hands.game not in self.games:
            raise ValueError(f"strategy is implemented for {' and '.join(self.games)}, not "
                             f"{hands.game}")
        if self.vectors is None:
            raise ValueError("strategy needs the strategy vectors of a solved game (vectors=, "
                             "or the build option from_strategy=NAME)")
        rounds = self._rounds(hands)
        allowed = self.vector_rounds[hands.game]
        if allowed is not None and any(r not in allowed for r in rounds):
            raise ValueError(f"strategy on {hands.game} clusters only round(s) "
                             f"{', '.join(map(str, allowed))} (0-based) by strategy vectors, "
                             f"the others potential-aware; got rounds {rounds}")
        for r in rounds:
            if r not in range(len(hands.rounds)):
                raise ValueError(f"rounds: no round {r} in {hands.game}")
            if r >= len(self.vectors):
                raise ValueError(f"vectors has no round {r} (only {len(self.vectors)} rounds)")
            if len(self.vectors[r]) != len(hands.rounds[r]):
                raise ValueError(f"vectors[{r}] has {len(self.vectors[r])} rows for the "
                                 f"{len(hands.rounds[r])} hands of round {r}")
        return buckets

    def _rounds(self, hands) -> tuple[int, ...]:
        if self.rounds is not None:
            return tuple(int(r) for r in self.rounds)
        allowed = self.vector_rounds.get(hands.game)
        return tuple(range(len(hands.rounds))) if allowed is None else tuple(allowed)

    def _features(self, hands, buckets):
        inter = None if self.intermediate is None else tuple(self.intermediate)
        return StrategyFeature(hands, buckets, inter, int(self.random_state), self.n_init,
                               vectors=tuple(self.vectors), rounds=self._rounds(hands))

    def params(self) -> dict:
        return {**super().params(), "from_strategy": self.from_strategy,
                "strategy_rounds": None if self.rounds is None else list(self.rounds)}


#: Every method, in the order ``--help`` lists them; a new method is added here only.
METHODS = {"pa": PotentialAware, "eb": ExpectationBased, "eb2": ExpectationSquared,
           "pa-emd": PotentialAwareEMD, "ochs": OpponentClusterHandStrength,
           "strategy": StrategyBased, "lossless": Lossless}
