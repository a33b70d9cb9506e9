"""Card codes: a card is an integer ``c`` in 0..51 with ``rank = c // 4`` and ``suit = c % 4``.

Ranks run 0 = deuce .. 12 = ace; suits 0..3 are clubs, diamonds, hearts, spades (``"cdhs"``),
so ``"2c" = 0``, ``"As" = 51`` (docs/design.md section 2). Arrays of cards are ``uint8``.

>>> parse_card("As"), format_card(0)
(51, '2c')
>>> format_cards(parse_cards("Td 9d As"))
'Td 9d As'
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable

import numpy as np

N_CARDS = 52
N_RANKS = 13
N_SUITS = 4
RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"


class Rank(IntEnum):
    """Card ranks, deuce lowest."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12


class Suit(IntEnum):
    """Card suits in code order ``c, d, h, s``."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3


def make_card(rank: int, suit: int) -> int:
    """The code of the card of ``rank`` (0..12) and ``suit`` (0..3).

    Raises:
        ValueError: rank or suit out of range.
    """
    if not 0 <= rank < N_RANKS:
        raise ValueError(f"rank must be in 0..12, got {rank}")
    if not 0 <= suit < N_SUITS:
        raise ValueError(f"suit must be in 0..3, got {suit}")
    return 4 * int(rank) + int(suit)


def rank_of(card: int) -> int:
    """Rank 0..12 of a card code."""
    return int(card) // 4


def suit_of(card: int) -> int:
    """Suit 0..3 of a card code."""
    return int(card) % 4


def parse_card(text: str) -> int:
    """Card code of a two-character name like ``"As"``, ``"Td"`` or ``"2c"``.

    Rank letters are case-insensitive, suit letters too (``"aS"`` is the ace of spades).

    Raises:
        ValueError: not a card name.
    """
    if len(text) != 2:
        raise ValueError(f"card must be two characters like 'As', got {text!r}")
    r = RANK_CHARS.find(text[0].upper())
    s = SUIT_CHARS.find(text[1].lower())
    if r < 0 or s < 0:
        raise ValueError(f"not a card: {text!r} (ranks {RANK_CHARS}, suits {SUIT_CHARS})")
    return 4 * r + s


def format_card(card: int) -> str:
    """Two-character name of a card code.

    Raises:
        ValueError: code not in 0..51.
    """
    c = int(card)
    if not 0 <= c < N_CARDS:
        raise ValueError(f"card code must be in 0..51, got {c}")
    return RANK_CHARS[c // 4] + SUIT_CHARS[c % 4]


def parse_cards(text: str) -> np.ndarray:
    """Cards of a string of names, separated by spaces/commas or run together (``"AsKd"``).

    Returns:
        ``uint8`` array of card codes in the order written.

    Raises:
        ValueError: a bad name or a repeated card.
    """
    compact = "".join(ch for ch in text if not ch.isspace() and ch != ",")
    if len(compact) % 2:
        raise ValueError(f"cannot split {text!r} into two-character card names")
    cards = np.array([parse_card(compact[i:i + 2]) for i in range(0, len(compact), 2)],
                     dtype=np.uint8)
    if len(np.unique(cards)) != len(cards):
        raise ValueError(f"repeated card in {text!r}")
    return cards


def format_cards(cards: Iterable[int], sep: str = " ") -> str:
    """Names of a sequence of card codes joined by ``sep``."""
    return sep.join(format_card(c) for c in cards)


def cards_to_strings(cards: np.ndarray, sep: str = "") -> np.ndarray:
    """Names of every row of an ``(N, k)`` card array, e.g. ``"AsKd"`` (vectorised over rows).

    Returns:
        an object array of ``N`` strings.
    """
    arr = np.asarray(cards)
    if arr.ndim != 2:
        raise ValueError(f"cards must be a 2-D (N, k) array, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= N_CARDS):
        raise ValueError("card codes must be in 0..51")
    names = np.array([RANK_CHARS[c // 4] + SUIT_CHARS[c % 4] for c in range(N_CARDS)],
                     dtype=object)
    parts = names[arr.astype(np.int64)]
    if arr.shape[1] == 0:
        return np.full(arr.shape[0], "", dtype=object)
    out = parts[:, 0].copy()
    for j in range(1, arr.shape[1]):
        out = out + sep + parts[:, j]
    return out


def strings_to_cards(texts: Iterable[str]) -> np.ndarray:
    """``(N, k)`` ``uint8`` array of the cards of ``N`` strings, each naming ``k`` cards.

    Raises:
        ValueError: a bad name, or rows of different lengths.
    """
    rows = [parse_cards(t) for t in texts]
    if not rows:
        return np.zeros((0, 0), np.uint8)
    k = len(rows[0])
    if any(len(r) != k for r in rows):
        raise ValueError("every string must name the same number of cards")
    return np.stack(rows).astype(np.uint8)


def card_rows(cards, shape_error: str, widths: tuple[int, ...] | None = None) -> tuple[np.ndarray, bool]:
    """Coerce one set of cards ``(k,)`` or many ``(N, k)`` to a C-contiguous 2-D integer array
    for the numba kernels: ``uint8`` and ``int64`` are kept (no copy), other integer dtypes
    become ``int64``. Returns ``(rows, single)``, ``single`` when the input was 1-D.

    Raises:
        ValueError: ``shape_error`` if the result is not 2-D (or its width not in ``widths``);
            a non-integer dtype.
    """
    arr = np.asarray(cards)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or (widths is not None and arr.shape[1] not in widths):
        raise ValueError(shape_error)
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"cards must be integers, got dtype {arr.dtype}")
    if arr.dtype not in (np.uint8, np.int64):  # uint8: the natural card dtype, least traffic
        arr = arr.astype(np.int64)
    return np.ascontiguousarray(arr), single
