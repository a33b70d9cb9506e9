"""The game registry: every game ``solve``, ``evaluate`` and ``compare`` know, in one table.

One :class:`Game` entry per game says how the game is represented and what applies to it:

- ``representation``: ``"rules"`` (a :class:`solve.games.rules.LimitPokerRules` factory:
  compiled to arrays for the CFR family and the LP by :mod:`solve.games.compile`, and made
  into a generic tree for the sequence-form solvers by :mod:`solve.games.limit_tree`, so the
  game is defined once); ``"tree"`` (a classic game built as a generic tree from its CLI
  parameters, :mod:`solve.cli.classic`); ``"kuhn3"`` (three-player Kuhn, :mod:`solve.games.kuhn3`);
  ``"holdem"`` (limit Texas Hold'em on a built abstraction, :mod:`solve.holdem.run`);
- ``algorithms``: what ``solve --algorithm`` accepts; for a rules game, ``egt``, ``ga`` and
  ``lp --exact`` run on its generic tree, the others on the compiled game;
- ``card_abstractions``: ``solve --abstraction`` applies (the abstractions are built by
  ``abstraction/``, which knows the game's hands);
- ``compare``: ``cli.py compare`` evaluates it exactly (rules games) or by sampling (holdem);
- ``check_every``: iterations between exploitability checks by default;
- ``reference``: the real game's equilibrium ``compare`` measures against: ``"lp"`` (the
  sequence-form LP solution) or ``"iterative"`` (the real game solved by the CFR family to
  ``--equilibrium-target``, for games too large for the LP).

Adding a two-player limit game with one private card is one rules factory (and, if it needs
one, one ranking in :mod:`solve.games.ranking`) plus one line in :func:`builtin_games`; it is
then solved by every algorithm, evaluated and compared, with no other list to edit. A game can
also join from outside the package: a module named in the ``POKER_GAME_PLUGINS`` environment
variable (comma-separated module names) that defines ``GAMES``, a list of :class:`Game`
(see ``tests/test_game_registry.py``).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Callable

from schema.errors import UserError
from solve.games import rules as limit_rules
from solve.games.rules import LimitPokerRules

#: The algorithms of the CFR family (the compiled game; also every iterative solver's loop).
CFR_FAMILY = ("cfr", "cfr+", "dcfr")
#: Sequence-form solvers that run on a generic tree.
TREE_ALGORITHMS = ("egt", "ga")
REPRESENTATIONS = ("rules", "tree", "kuhn3", "holdem")
PLUGINS_ENV = "POKER_GAME_PLUGINS"


@dataclass(frozen=True)
class Game:
    """One game of the registry (module docstring)."""

    name: str
    summary: str
    representation: str
    rules: Callable[[], LimitPokerRules] | None = None
    algorithms: tuple[str, ...] = ("lp",) + CFR_FAMILY + TREE_ALGORITHMS
    card_abstractions: bool = False
    compare: bool = False
    check_every: int = 50
    reference: str = "lp"

    def __post_init__(self) -> None:
        if self.representation not in REPRESENTATIONS:
            raise ValueError(f"game {self.name!r}: representation must be one of "
                             f"{', '.join(REPRESENTATIONS)}")
        if (self.representation == "rules") != (self.rules is not None):
            raise ValueError(f"game {self.name!r}: a rules factory goes with representation "
                             "'rules' (and only with it)")
        if self.reference not in ("lp", "iterative"):
            raise ValueError(f"game {self.name!r}: reference must be 'lp' or 'iterative'")

    def make_rules(self) -> LimitPokerRules:
        if self.rules is None:
            raise ValueError(f"game {self.name!r} is not defined by limit poker rules")
        return self.rules()

    def check_algorithm(self, algorithm: str) -> None:
        """A one-line error unless ``algorithm`` solves this game."""
        if algorithm not in ("lp",) + CFR_FAMILY + TREE_ALGORITHMS:
            raise UserError(f"unknown algorithm {algorithm!r}; choose from "
                            f"{', '.join(self.algorithms)}")
        if algorithm not in self.algorithms:
            raise UserError(f"{self.name} is solved with {', '.join(self.algorithms)}, "
                            f"not {algorithm}")


def builtin_games() -> list[Game]:
    """The games of this package, in the order ``--help`` lists them."""
    return [
        Game("kuhn", "Kuhn poker (Kuhn 1950)", "rules", limit_rules.kuhn, compare=True),
        Game("kuhn3", "three-player Kuhn poker", "kuhn3", algorithms=CFR_FAMILY),
        Game("leduc", "Leduc Hold'em (Southey et al. 2005)", "rules", limit_rules.leduc,
             compare=True),
        Game("rhode-island", "Rhode Island Hold'em (Shi & Littman 2001)", "rules",
             limit_rules.rhode_island, algorithms=("lp",) + CFR_FAMILY, card_abstractions=True,
             compare=True, check_every=10, reference="iterative"),
        Game("kuhn-blinds", "Kuhn poker with blinds", "tree"),
        Game("von-neumann", "von Neumann poker (1944), discrete", "tree"),
        Game("flop-poker", "von Neumann betting on a Texas Hold'em flop", "tree"),
        Game("draw27", "2-7 triple draw, bucketed", "tree"),
        Game("holdem", "limit Texas Hold'em on a built abstraction", "holdem",
             algorithms=("cfr+", "dcfr"), card_abstractions=True, compare=True),
    ]


def games() -> dict[str, Game]:
    """Name -> :class:`Game`: the built-in games, then those of the plug-in modules named in
    ``POKER_GAME_PLUGINS`` (read on each call: nothing is cached between calls)."""
    out = {g.name: g for g in builtin_games()}
    for module in filter(None, (m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(","))):
        try:
            extra = importlib.import_module(module).GAMES
        except (ImportError, AttributeError) as exc:
            raise UserError(f"{PLUGINS_ENV}: cannot load games from {module!r} ({exc})") from None
        for g in extra:
            if g.name in out:
                raise UserError(f"{PLUGINS_ENV}: {module} redefines game {g.name!r}")
            out[g.name] = g
    return out


def get(name: str) -> Game:
    """The game called ``name``; a one-line error naming the known ones otherwise."""
    known = games()
    if name not in known:
        raise UserError(f"unknown game {name!r}; choose from {', '.join(known)}")
    return known[name]


def names(predicate: Callable[[Game], bool] = lambda g: True) -> tuple[str, ...]:
    """The names of the games for which ``predicate`` holds, in registry order."""
    return tuple(g.name for g in games().values() if predicate(g))
