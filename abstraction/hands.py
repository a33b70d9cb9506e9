"""The input of every abstraction method: a game's hands, round by round, as a tree.

An abstraction builder needs, per round, each (canonical) hand's probability, its parent hand
in the previous round (perfect recall: a round-r hand extends exactly one round-(r-1) hand),
and its features: the equity, optionally the distribution over showdown outcomes (win, tie,
loss) in the last round, or a precomputed next-round histogram. Game adapters
(``abstraction/games.py``) produce a ``GameHands``; methods never see cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class HandRound:
    """One round of hands.

    Attributes:
        weight: probability of each hand (sums to 1 over the round).
        parent: row of the hand's prefix in the previous round; -1 in round 0.
        equity: p(win) + p(tie)/2 against a uniformly random opponent hand.
        outcome: optional (N, m) distribution over showdown outcomes (win, tie, loss); the
            last round's potential-aware feature when present.
        histogram: optional (N, bins) precomputed distribution of the next round's equity
            (the raw potential-aware feature of docs/design.md section 3).
    """

    weight: np.ndarray
    parent: np.ndarray
    equity: np.ndarray
    outcome: np.ndarray | None = None
    histogram: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.weight)


@dataclass(frozen=True)
class LeafRound:
    """A last round too large to list hand by hand (Texas Hold'em's river: 2.4 billion
    perfect-recall hands). Its buckets are equity ranges per parent bucket (docs/design.md section
    2), so all a builder needs is, per parent bucket, the distribution of the leaf equity.

    Attributes:
        size: number of (canonical) hands of the round.
        points: ``points(parent_bucket_of_each_previous_round_hand) -> (list of Points, p)``:
            per previous-round bucket, the distinct equities (``x`` of shape (n, 1)) with their
            conditional probabilities ``w`` (summing to 1), and ``p`` the buckets' probabilities.
            ``x[:, 0]`` is always the equity; a method may put more columns after it, which
            its feature's ``leaf_transform`` turns into the clustered feature (``ochs``: the
            river code, ``abstraction.ochs_river``).
    """

    size: int
    points: Callable


@dataclass(frozen=True)
class GameHands:
    """A game's hand tree: ``rounds[r].parent`` indexes ``rounds[r-1]``; an optional
    ``leaf`` is one more round given per parent bucket; ``data_dir``: the data directory the
    hands were read from (where a method may cache what it derives from them), if any."""

    game: str
    rounds: tuple[HandRound, ...]
    leaf: LeafRound | None = None
    data_dir: Path | None = None

    def __post_init__(self) -> None:
        for r, h in enumerate(self.rounds):
            n = len(h.weight)
            for name in ("parent", "equity"):
                if len(getattr(h, name)) != n:
                    raise ValueError(f"round {r}: {name} has {len(getattr(h, name))} rows, "
                                     f"weight has {n}")
            if r == 0 and np.any(h.parent != -1):
                raise ValueError("round 0 hands have no parent (parent must be -1)")
            if r > 0 and n and (h.parent.min() < 0 or h.parent.max() >= len(self.rounds[r - 1])):
                raise ValueError(f"round {r}: parent index out of range")

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.rounds) + ((self.leaf.size,) if self.leaf else ())

    def transition(self, r: int) -> np.ndarray:
        """P(hand | parent hand) for round r >= 1."""
        h = self.rounds[r]
        parent_w = self.rounds[r - 1].weight
        return h.weight / parent_w[h.parent]

    def children(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """CSR of round-r hands' children: ``order[start[h]:start[h+1]]`` are h's children."""
        nxt = self.rounds[r + 1]
        order = np.argsort(nxt.parent, kind="stable")
        start = np.searchsorted(nxt.parent[order], np.arange(len(self.rounds[r]) + 1))
        return order, start

    def descendants(self, r: int, hands: np.ndarray, s: int) -> np.ndarray:
        """Rows of round s (> r) that descend from the given round-r hands, sorted."""
        mask = np.zeros(len(self.rounds[r]), dtype=bool)
        mask[hands] = True
        for q in range(r + 1, s + 1):
            mask = mask[self.rounds[q].parent]
        return np.flatnonzero(mask)
