"""Rhode Island Hold'em hands: 3-card ranking, exact equities, and the hand tree.

Rhode Island Hold'em (Shi & Littman, "Abstraction methods for game theoretic poker", 2000;
Gilpin & Sandholm, "Lossless abstraction of imperfect information games", JACM 2007) deals each
player one private card, then one public card before round 2 and one before round 3. The
showdown hand is the private card plus both public cards, ranked (docs/design.md section 5):
straight flush > three of a kind > straight > flush > pair > high card; the ace plays high
(Q-K-A) or low (A-2-3, the lowest straight).

A round-r hand (r = 0, 1, 2) is the tuple (private, public_1, ..., public_r) of distinct cards:
52, 2,652 and 132,600 raw hands. Renaming suits gives the canonical hands (suits relabelled in
order of first appearance): 13, 325 and 9,997. Cards are 0..51 with ``rank = c // 4``
(0 = deuce .. 12 = ace) and ``suit = c % 4``.

Equities are exact: against a uniformly random opponent card, with the public cards still to
come dealt uniformly from the rest (the opponent's card is dealt first; it does not matter).

Example:
    >>> int(hand_rank3([[48, 0, 4]])[0]) < int(hand_rank3([[0, 4, 8]])[0])  # A-2-3 < 2-3-4
    True
    >>> [len(h.weight) for h in hand_tree()]
    [13, 325, 9997]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from etl._rhode_island_kernels import (  # noqa: F401  (rank3 is re-exported for numba callers)
    FLUSH, HIGH_CARD, PAIR, STRAIGHT, STRAIGHT_FLUSH, TIES_ALL, TIES_TOP, TRIPS, WHEEL_LOW,
    WHEEL_NONE, WHEEL_SECOND, rank3, rank3_many, wtl_counts)

ROUNDS = 3
CATEGORY_NAMES = ("high card", "pair", "flush", "straight", "three of a kind", "straight flush")
# Outcomes per hand in each round's win/tie/loss counts: opponent card x unordered rest of board.
OUTCOMES = (51 * 50 * 49 // 2, 50 * 49, 49)
#: Ranks of the full deck; a reduced deck (``n_ranks`` below) keeps the lowest ``n_ranks``
#: ranks of all four suits, cards ``0 .. 4 * n_ranks - 1``, ranked by the same function (no
#: ace, so no A-2-3), small enough for exact checks of the whole pipeline (issue 49).
N_RANKS = 13
#: Showdown ranking variants (issue 14): name -> (how A-2-3 plays, how a category's hands
#: compare). ``standard`` is docs/design.md section 5: A-2-3 the lowest straight, all cards count.
#: ``no-wheel``: A-2-3 is no straight (ace high); ``wheel-second``: A-2-3 is the second-best
#: straight (below Q-K-A, above K-Q-J); ``top-card-ties``: inside a category only the leading
#: rank counts (high card and flush: the highest card; pair: the pair), equal leads split.
RANKINGS = {"standard": (WHEEL_LOW, TIES_ALL), "no-wheel": (WHEEL_NONE, TIES_ALL),
            "wheel-second": (WHEEL_SECOND, TIES_ALL), "top-card-ties": (WHEEL_LOW, TIES_TOP)}


def ranking_params(ranking: str) -> tuple[int, int]:
    """The kernel parameters (wheel, ties) of ranking variant ``ranking`` (see ``RANKINGS``)."""
    try:
        return RANKINGS[ranking]
    except KeyError:
        raise ValueError(f"unknown Rhode Island ranking {ranking!r}; known: "
                         f"{', '.join(RANKINGS)}") from None


def hand_rank3(cards, ranking: str = "standard") -> np.ndarray:
    """Strength of each 3-card hand: int32, higher is better, equal values tie.

    Args:
        cards: integer array of shape (N, 3), cards 0..51, distinct within a row.
        ranking: a variant named in ``RANKINGS`` (default: docs/design.md's).
    Returns:
        int32 array of shape (N,); ``value >> 12`` is the category (see ``category3``).
    Raises:
        ValueError: wrong shape, a card outside 0..51 or a repeated card.
    """
    wheel, ties = ranking_params(ranking)
    cards = _check_cards(cards, 3)
    return rank3_many(cards, wheel, ties)


def category3(cards) -> np.ndarray:
    """Category of each 3-card hand: 0 high card, 1 pair, 2 flush, 3 straight, 4 trips,
    5 straight flush (names in ``CATEGORY_NAMES``)."""
    return (hand_rank3(cards) >> 12).astype(np.int8)


def all_three_card_sets() -> np.ndarray:
    """The 22,100 sets {a < b < c} in colex order (row i has colex index i)."""
    out = np.empty((22100, 3), dtype=np.int8)
    i = 0
    for c in range(52):
        for b in range(c):
            for a in range(b):
                out[i] = (a, b, c)
                i += 1
    return out


@lru_cache(maxsize=1)
def rank_table() -> np.ndarray:
    """Rank of every 3-card set, indexed by its colex index ``C(a,1)+C(b,2)+C(c,3)``."""
    table = rank3_many(all_three_card_sets())
    table.setflags(write=False)
    return table


def canonicalize(cards) -> np.ndarray:
    """Rename suits in order of first appearance (private card first): the canonical hand.

    Two hands get the same canonical form exactly when one is the other with suits renamed.
    """
    cards = _check_cards(cards, None)
    ranks, suits = cards >> 2, cards & 3
    n, k = cards.shape
    new = np.full_like(suits, -1)
    mapping = np.full((n, 4), -1, dtype=np.int64)
    next_suit = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    for j in range(k):
        s = suits[:, j]
        fresh = mapping[rows, s] < 0
        mapping[rows[fresh], s[fresh]] = next_suit[fresh]
        next_suit += fresh
        new[:, j] = mapping[rows, s]
    return (ranks * 4 + new).astype(np.int8)


def hand_key(cards: np.ndarray) -> np.ndarray:
    """An integer key of each (ordered) hand: base-52 digits, private card most significant."""
    key = np.zeros(cards.shape[0], dtype=np.int64)
    for j in range(cards.shape[1]):
        key = key * 52 + cards[:, j]
    return key


def outcomes(n_ranks: int = N_RANKS) -> tuple[int, int, int]:
    """Outcomes per hand in each round's win/tie/loss counts (``OUTCOMES`` for 52 cards)."""
    n = 4 * _check_ranks(n_ranks)
    return ((n - 1) * (n - 2) * (n - 3) // 2, (n - 2) * (n - 3), n - 3)


def raw_hands(round_: int, n_ranks: int = N_RANKS) -> np.ndarray:
    """All ordered tuples (private, public_1..public_r) of distinct cards, in key order
    (``n_ranks``: a reduced deck, see ``N_RANKS``)."""
    _check_round(round_)
    k = round_ + 1
    grids = np.meshgrid(*([np.arange(4 * _check_ranks(n_ranks))] * k), indexing="ij")
    cards = np.stack([g.ravel() for g in grids], axis=1)
    ok = np.ones(len(cards), dtype=bool)
    for a in range(k):
        for b in range(a + 1, k):
            ok &= cards[:, a] != cards[:, b]
    return cards[ok].astype(np.int8)


@dataclass(frozen=True)
class RoundHands:
    """The hands of one round and their place in the hand tree.

    Attributes:
        round: 0, 1 or 2 (private card; + 1 public; + 2 public).
        cards: (N, round+1) int8; canonical (or raw) hands in key order.
        weight: probability of being dealt each hand (sums to 1).
        parent: index of the hand's round-1 prefix in the previous round (-1 in round 0).
        wins, ties, losses: exact counts; their sum is ``OUTCOMES[round]`` for every hand.
        n_ranks: ranks of the deck (13; fewer for a reduced deck, see ``N_RANKS``).
    """

    round: int
    cards: np.ndarray
    weight: np.ndarray
    parent: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    n_ranks: int = N_RANKS

    @property
    def equity(self) -> np.ndarray:
        """p(win) + p(tie)/2."""
        return (self.wins + 0.5 * self.ties) / (self.wins + self.ties + self.losses)

    @property
    def transition(self) -> np.ndarray:
        """P(this hand | its parent hand): the hand tree's edge probabilities (round 0: the
        probability of the hand)."""
        if self.round == 0:
            return self.weight.copy()
        return self.weight / np.bincount(self.parent, weights=self.weight)[self.parent]

    def index_of(self, cards) -> np.ndarray:
        """Row of each given hand (raw cards are canonicalised first when the tree is)."""
        cards = _check_cards(cards, self.round + 1)
        keys = hand_key(self.cards)
        canon = hand_key(canonicalize(cards)) if self._canonical else hand_key(cards)
        pos = np.searchsorted(keys, canon)
        pos = np.minimum(pos, len(keys) - 1)
        if not np.array_equal(keys[pos], canon):
            raise ValueError("some hands are not in this round's hand list")
        return pos

    @property
    def _canonical(self) -> bool:
        n = 4 * self.n_ranks  # raw hands: n (n-1) ... (n-round)
        return len(self.cards) != math.prod(range(n - self.round, n + 1))


@lru_cache(maxsize=8)
def hand_tree(canonical: bool = True, ranking: str = "standard",
              n_ranks: int = N_RANKS) -> tuple[RoundHands, ...]:
    """The three rounds of Rhode Island Hold'em hands, with exact equities and parent links.

    Args:
        canonical: suit-canonical hands (13, 325, 9,997) or all raw hands (52, 2,652, 132,600).
        ranking: the showdown ranking variant the equities are computed with (``RANKINGS``);
            the hands and their order do not depend on it.
        n_ranks: a reduced deck of the lowest ``n_ranks`` ranks (see ``N_RANKS``).
    Returns:
        A tuple of three ``RoundHands``; ``tree[r].parent`` indexes ``tree[r-1]``.
    """
    wheel, ties = ranking_params(ranking)
    out = []
    prev_keys = None
    for r in range(ROUNDS):
        raw = raw_hands(r, n_ranks)
        if canonical:
            canon = canonicalize(raw)
            keys, first, counts = np.unique(hand_key(canon), return_index=True,
                                            return_counts=True)
            cards = canon[first]
        else:
            cards, counts = raw, np.ones(len(raw), dtype=np.int64)
            keys = hand_key(cards)
        weight = counts / counts.sum()
        if r == 0:
            parent = np.full(len(cards), -1, dtype=np.int32)
        else:
            parent = np.searchsorted(prev_keys, hand_key(cards[:, :r])).astype(np.int32)
        wtl = wtl_counts(cards.astype(np.int64), wheel, ties, 4 * n_ranks)
        for a in (cards, weight, parent, wtl):
            a.setflags(write=False)
        out.append(RoundHands(r, cards, weight, parent, wtl[:, 0], wtl[:, 1], wtl[:, 2],
                              n_ranks))
        prev_keys = keys
    return tuple(out)


def _check_round(round_: int) -> None:
    if round_ not in range(ROUNDS):
        raise ValueError(f"round must be 0, 1 or 2, got {round_!r}")


def _check_ranks(n_ranks: int) -> int:
    if int(n_ranks) != n_ranks or not 2 <= n_ranks <= N_RANKS:
        raise ValueError(f"n_ranks must be an integer in 2..{N_RANKS}, got {n_ranks!r}")
    return int(n_ranks)


def _check_cards(cards, k: int | None) -> np.ndarray:
    cards = np.asarray(cards)
    if cards.ndim != 2 or (k is not None and cards.shape[1] != k):
        raise ValueError(f"cards must have shape (N, {k or 'k'}), got {cards.shape}")
    if cards.size and (cards.min() < 0 or cards.max() > 51):
        raise ValueError("cards must be in 0..51")
    s = np.sort(cards, axis=1)
    if cards.shape[1] > 1 and np.any(s[:, 1:] == s[:, :-1]):
        raise ValueError("a hand repeats a card")
    return cards.astype(np.int64)
