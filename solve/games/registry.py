"""The game registry: every game ``solve``, ``evaluate``, ``strategy`` and ``compare`` know,
in one table.

One :class:`Game` entry per game holds its backend (``solve.games.backends``: the game's
behaviour, one protocol for all, :class:`solve.games.backend.Backend`) and what applies to it:

- ``backend``: a :class:`~solve.games.backends.RulesBackend` of a
  :class:`solve.games.rules.LimitPokerRules` factory (compiled to arrays for the CFR family
  and the LP by :mod:`solve.games.compile`, and made into a generic tree for the
  sequence-form solvers by :mod:`solve.games.limit_tree`, so the game is defined once); a
  :class:`~solve.games.backends.TreeBackend` (a classic game built as a generic tree from
  its parameters); three-player Kuhn's; limit Texas Hold'em's on a built abstraction;
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
then solved by every algorithm, evaluated, looked up and compared, with no other list to
edit. A game can also join from outside the package: a module given to :func:`use_plugins`
that defines ``GAMES``, a list of :class:`Game` (see ``tests/test_game_registry.py``; the
command line passes the modules named in its ``POKER_GAME_PLUGINS`` environment variable).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from schema.errors import UserError
from solve.games import rules as limit_rules
from solve.games.backend import ALGORITHMS, CFR_FAMILY, TREE_ALGORITHMS, Backend
from solve.games.backends import (Draw27Backend, HoldemBackend, Kuhn3Backend, RulesBackend,
                                  TreeBackend, flop_poker_tree, von_neumann_notes)
from solve.games.classic import kuhn_blinds, von_neumann
from solve.games.rules import LimitPokerRules

__all__ = ["ALGORITHMS", "CFR_FAMILY", "TREE_ALGORITHMS", "Game", "builtin_games", "games",
           "get", "names", "for_table", "use_plugins", "plugins"]

#: The plug-in modules :func:`games` adds (:func:`use_plugins`).
_plugins: tuple[str, ...] = ()


def use_plugins(modules) -> None:
    """Make the games of the plug-in ``modules`` (names of modules that define ``GAMES``)
    join the registry, in place of any given before; ``()``: the built-in games only. Each
    is imported when :func:`games` is called, so a broken one is a one-line error there."""
    global _plugins
    _plugins = tuple(m.strip() for m in modules if m.strip())


def plugins() -> tuple[str, ...]:
    """The plug-in modules in use (what a worker process is given to see the same games)."""
    return _plugins


@dataclass(frozen=True)
class Game:
    """One game of the registry (module docstring)."""

    name: str
    summary: str
    backend: Backend
    algorithms: tuple[str, ...] = ALGORITHMS
    card_abstractions: bool = False
    compare: bool = False
    check_every: int = 50
    reference: str = "lp"

    def __post_init__(self) -> None:
        if not isinstance(self.backend, Backend):
            raise ValueError(f"game {self.name!r}: backend must be a solve.games.backend.Backend")
        if self.reference not in ("lp", "iterative"):
            raise ValueError(f"game {self.name!r}: reference must be 'lp' or 'iterative'")

    def make_rules(self) -> LimitPokerRules:
        if not self.backend.has_rules:
            raise ValueError(f"game {self.name!r} is not defined by limit poker rules")
        return self.backend.make_rules()

    @property
    def has_tree(self) -> bool:
        """Is the game solved on a generic tree by the sequence-form solvers (``egt``, ``ga``)
        and ``lp --exact``?"""
        return self.backend.has_tree and set(TREE_ALGORITHMS) <= set(self.algorithms)

    def check_algorithm(self, algorithm: str) -> None:
        """A one-line error unless ``algorithm`` solves this game."""
        if algorithm not in ALGORITHMS:
            raise UserError(f"unknown algorithm {algorithm!r}; choose from "
                            f"{', '.join(self.algorithms)}")
        if algorithm not in self.algorithms:
            raise UserError(f"{self.name} is solved with {', '.join(self.algorithms)}, "
                            f"not {algorithm}")

    def peers(self, predicate: Callable[["Game"], bool]) -> tuple[str, ...]:
        """The names of the registry's games for which ``predicate`` holds (for a backend's
        messages, which name the games that would do)."""
        return names(predicate)


def rules_game(name: str, summary: str, rules: Callable[[], LimitPokerRules], **kw) -> Game:
    """A game defined by limit poker rules: ``Game(name, summary, RulesBackend(rules), ...)``."""
    return Game(name, summary, RulesBackend(rules), **kw)


def builtin_games() -> list[Game]:
    """The games of this package, in the order ``--help`` lists them."""
    return [
        rules_game("kuhn", "Kuhn poker (Kuhn 1950)", limit_rules.kuhn, compare=True),
        Game("kuhn3", "three-player Kuhn poker", Kuhn3Backend(), algorithms=CFR_FAMILY),
        rules_game("leduc", "Leduc Hold'em (Southey et al. 2005)", limit_rules.leduc,
                   compare=True),
        rules_game("rhode-island", "Rhode Island Hold'em (Shi & Littman 2001)",
                   limit_rules.rhode_island, algorithms=("lp",) + CFR_FAMILY,
                   card_abstractions=True, compare=True, check_every=10, reference="iterative"),
        Game("kuhn-blinds", "Kuhn poker with blinds", TreeBackend(
            lambda p, data_dir: kuhn_blinds(p.small_blind, p.big_blind))),
        Game("von-neumann", "von Neumann poker (1944), discrete", TreeBackend(
            lambda p, data_dir: von_neumann(p.ante, p.bet, p.grid), notes=von_neumann_notes)),
        Game("flop-poker", "von Neumann betting on a Texas Hold'em flop",
             TreeBackend(flop_poker_tree)),
        Game("draw27", "2-7 triple draw, bucketed", Draw27Backend()),
        Game("holdem", "limit Texas Hold'em on a built abstraction", HoldemBackend(),
             algorithms=("cfr+", "dcfr"), card_abstractions=True, compare=True),
    ]


def games() -> dict[str, Game]:
    """Name -> :class:`Game`: the built-in games, then those of the plug-in modules
    (:func:`use_plugins`; imported on each call: nothing is cached between calls)."""
    out = {g.name: g for g in builtin_games()}
    for module in _plugins:
        try:
            extra = importlib.import_module(module).GAMES
        except (ImportError, AttributeError) as exc:
            raise UserError(f"game plug-in: cannot load games from {module!r} ({exc})") from None
        for g in extra:
            if g.name in out:
                raise UserError(f"game plug-in: {module} redefines game {g.name!r}")
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


def for_table(path, game_name: str, fmt: str) -> Game:
    """The game whose backend reads strategy table ``path`` of game ``game_name`` and format
    ``fmt`` (``solve.table.table_format``, ``solve.table.table_game``).

    Raises:
        UserError: no such game, or its backend does not read that format.
    """
    known = games()
    game = known.get(game_name)
    if game is None or fmt not in game.backend.table_formats:
        raise UserError(f"strategy {path} is for unknown game {game_name!r}")
    return game
