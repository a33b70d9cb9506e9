"""Rules of a two-player limit poker game, as data.

One frozen description covers Kuhn, Leduc, Rhode Island Hold'em and the limit Texas Hold'em
family (docs/design.md section 5): a deck of ``n_ranks * n_suits`` cards (card id
``rank * n_suits + suit``), ``private_cards`` per player, ``public_cards[r]`` dealt before
round ``r``, a fixed bet size and a bet cap per round, initial contributions (antes and
blinds), who acts first in each round, and a showdown ranking named in
:mod:`solve.games.ranking`. :func:`solve.games.compile.compile_game` turns it into arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from solve.games import ranking


@dataclass(frozen=True)
class LimitPokerRules:
    """Two-player limit poker rules (see module docstring)."""

    name: str
    n_ranks: int
    n_suits: int
    private_cards: int
    public_cards: tuple[int, ...]
    bet_sizes: tuple[int, ...]
    bet_caps: tuple[int, ...]
    contributions: tuple[int, int]
    first_to_act: tuple[int, ...]
    ranking: str
    blind_bets: int = 0  # bets already made in round 0 (a big blind counts as the first bet)
    rank_symbols: str = "23456789TJQKA"
    suit_symbols: str = "shdc"

    def __post_init__(self) -> None:
        rounds = len(self.public_cards)
        if rounds < 1:
            raise ValueError("public_cards must name at least one round")
        for field in ("bet_sizes", "bet_caps", "first_to_act"):
            if len(getattr(self, field)) != rounds:
                raise ValueError(f"{field} must have one entry per round ({rounds})")
        if self.private_cards not in (1, 2):
            raise ValueError("private_cards must be 1 or 2")
        if any(p not in (0, 1) for p in self.first_to_act):
            raise ValueError("first_to_act entries must be 0 or 1")
        if self.ranking not in ranking.RANKINGS:
            raise ValueError(f"unknown ranking {self.ranking!r}; known: {sorted(ranking.RANKINGS)}")
        need = 2 * self.private_cards + sum(self.public_cards)
        if self.n_ranks * self.n_suits < need:
            raise ValueError("deck too small for the cards dealt")

    @property
    def rounds(self) -> int:
        return len(self.public_cards)

    @property
    def n_cards(self) -> int:
        return self.n_ranks * self.n_suits

    def card_str(self, card: int) -> str:
        r, s = divmod(int(card), self.n_suits)
        return self.rank_symbols[r] + (self.suit_symbols[s] if self.n_suits > 1 else "")


def kuhn() -> LimitPokerRules:
    """Kuhn poker: J < Q < K, ante 1, one bet of 1 (Kuhn 1950)."""
    return LimitPokerRules(name="kuhn", n_ranks=3, n_suits=1, private_cards=1, public_cards=(0,),
                           bet_sizes=(1,), bet_caps=(1,), contributions=(1, 1),
                           first_to_act=(0,), ranking="high_card", rank_symbols="JQK")


def leduc() -> LimitPokerRules:
    """Leduc Hold'em (Southey et al. 2005): J J Q Q K K, ante 1, bets 2 then 4, cap 2."""
    return LimitPokerRules(name="leduc", n_ranks=3, n_suits=2, private_cards=1,
                           public_cards=(0, 1), bet_sizes=(2, 4), bet_caps=(2, 2),
                           contributions=(1, 1), first_to_act=(0, 0), ranking="leduc",
                           rank_symbols="JQK", suit_symbols="ab")


def rhode_island(variant: str = "published", n_ranks: int = 13) -> LimitPokerRules:
    """Rhode Island Hold'em (Shi & Littman 2001; Gilpin & Sandholm 2005): 52 cards, ante 500,
    bets 1000/2000/2000, at most 3 bets a round, player 1 first in every round, docs/design.md's
    ranking; ``variant`` names one of :data:`RHODE_ISLAND_VARIANTS` (rule details the published
    descriptions leave open, issue 14). ``n_ranks`` < 13: the same game on a reduced deck of
    the lowest ``n_ranks`` ranks of four suits (2..13; no ace, so no A-2-3), small enough to
    solve unabstracted exactly (docs/rhode-island-lossless.md)."""
    if variant not in RHODE_ISLAND_VARIANTS:
        raise ValueError(f"unknown Rhode Island variant {variant!r}; known: "
                         f"{', '.join(RHODE_ISLAND_VARIANTS)}")
    if int(n_ranks) != n_ranks or not 2 <= n_ranks <= 13:
        raise ValueError(f"n_ranks must be an integer in 2..13, got {n_ranks!r}")
    rules = dict(name="rhode-island", n_ranks=13, n_suits=4, private_cards=1,
                 public_cards=(0, 1, 1), bet_sizes=(1000, 2000, 2000), bet_caps=(3, 3, 3),
                 contributions=(500, 500), first_to_act=(0, 0, 0), ranking="rhode_island")
    rules.update(RHODE_ISLAND_VARIANTS[variant][1])
    if variant != "published":
        rules["name"] = f"rhode-island:{variant}"
    if n_ranks != 13:
        rules["n_ranks"] = int(n_ranks)
        rules["name"] += f"-{int(n_ranks)}-ranks"
    return LimitPokerRules(**rules)


#: Rhode Island Hold'em rule variants: name -> (what differs, the fields that differ).
#: ``published`` is the default (docs/design.md section 5); the others each change one detail.
RHODE_ISLAND_VARIANTS = {
    "published": ("ante 500, bets 1,000/2,000/2,000, 3 bets a round (bet, raise, re-raise), "
                  "player 1 first every round, A-2-3 the lowest straight, ties on all cards", {}),
    "raise-cap-4": ("3 raises after the bet (4 bets a round)", {"bet_caps": (4, 4, 4)}),
    "p2-first-postflop": ("player 2 acts first in rounds 2 and 3", {"first_to_act": (0, 1, 1)}),
    "no-wheel": ("A-2-3 is not a straight (ace-high)", {"ranking": "rhode_island:no-wheel"}),
    "wheel-second": ("A-2-3 is the second-best straight (below Q-K-A, above K-Q-J)",
                     {"ranking": "rhode_island:wheel-second"}),
    "top-card-ties": ("inside a category only the leading rank counts (high card, flush: the "
                      "highest card; pair: the pair)", {"ranking": "rhode_island:top-card-ties"}),
    "scaled-100": ("ante 5, bets 10/20/20 (published amounts / 100)",
                   {"contributions": (5, 5), "bet_sizes": (10, 20, 20)}),
}


GAMES = {"kuhn": kuhn, "leduc": leduc, "rhode-island": rhode_island}
