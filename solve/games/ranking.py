"""Showdown rankings: ``strength(hands (H, k), board (m,) or (H, m)) -> int64 (H,)``, higher
is better; a board of shape (H, m) gives each hand its own board (many boards in one call).

Card ids are ``rank * n_suits + suit`` with rank 0 the lowest. Equal strength splits the pot.
"""

from __future__ import annotations

import numpy as np

from etl.rhode_island import RANKINGS as RI_RANKINGS
from etl.rhode_island import hand_rank3


def high_card(hands: np.ndarray, board: np.ndarray, n_suits: int) -> np.ndarray:
    """Kuhn: the higher private card wins."""
    return (hands[:, 0] // n_suits).astype(np.int64)


def leduc(hands: np.ndarray, board: np.ndarray, n_suits: int) -> np.ndarray:
    """Leduc: a pair with the public card beats any unpaired hand, else the higher card."""
    r = hands[:, 0] // n_suits
    pub = np.asarray(board)[..., 0] // n_suits
    return np.where(r == pub, 100 + r, r).astype(np.int64)


def rhode_island(hands: np.ndarray, board: np.ndarray, n_suits: int,
                 variant: str = "standard") -> np.ndarray:
    """Best 3-card hand of one private card and two public cards (``variant``: a ranking of
    ``etl.rhode_island.RANKINGS``; default docs/design.md section 5)."""
    if n_suits != 4:
        raise ValueError("Rhode Island ranking needs 4 suits")
    b = np.broadcast_to(np.asarray(board), (len(hands), 2))
    cards = np.column_stack([hands[:, 0], b[:, 0], b[:, 1]])
    return hand_rank3(cards, variant).astype(np.int64)


def _rhode_island_variant(variant: str):
    def rank(hands: np.ndarray, board: np.ndarray, n_suits: int) -> np.ndarray:
        return rhode_island(hands, board, n_suits, variant)
    rank.__doc__ = f"Rhode Island Hold'em, showdown ranking variant {variant!r}."
    return rank


#: Ranking name (``LimitPokerRules.ranking``) -> function. ``rhode_island:VARIANT`` are the
#: ranking variants of ``etl.rhode_island.RANKINGS`` (issue 14).
RANKINGS = {"high_card": high_card, "leduc": leduc, "rhode_island": rhode_island,
            **{f"rhode_island:{v}": _rhode_island_variant(v)
               for v in RI_RANKINGS if v != "standard"}}


#: Rankings that ignore suits: a card is named by its rank in information sets
#: (:mod:`solve.games.limit_tree`), as suits change nothing.
SUIT_BLIND = frozenset({"high_card", "leduc"})


def rhode_island_variant(name: str) -> str:
    """The ``etl.rhode_island.RANKINGS`` variant of Rhode Island ranking ``name``."""
    return name.split(":", 1)[1] if ":" in name else "standard"
