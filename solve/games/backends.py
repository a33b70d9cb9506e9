"""The game backends: the behaviour behind each entry of the game registry
(``solve.games.registry``), one class per kind of game, all answering
:class:`solve.games.backend.Backend`.

- :class:`RulesBackend`: a game defined by limit poker rules (Kuhn, Leduc, Rhode Island
  Hold'em, plug-ins): compiled to arrays for the LP and the CFR family (``solve.limit_run``),
  made into a generic tree for the sequence-form solvers (``solve.tree_run``), looked up at
  real cards, its card abstractions loaded into it;
- :class:`TreeBackend`: a classic game built as a generic tree from its parameters (Kuhn
  with blinds, von Neumann poker, flop poker, 2-7 draw), solved by ``solve.tree_run``;
- :class:`Kuhn3Backend`: three-player Kuhn (``solve.games.kuhn3``);
- :class:`HoldemBackend`: limit Texas Hold'em on a built abstraction (``solve.holdem.run``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable

import pyarrow.parquet as pq

from schema.errors import ParameterError, UserError
from schema.strategy import seat_name
from solve.games import classic, kuhn3
from solve.games.backend import (TREE_ALGORITHMS, Backend, EvaluateRequest, Report,
                                 SolveRequest, TreeParams)
from solve.games.draw27 import draw27, draw27_sequence_form
from solve.games.limit_tree import limit_tree
from solve.games.rules import LimitPokerRules
from solve.games.tree import sequence_form
from solve.holdem.assess import evaluate_run
from solve.holdem.run import HoldemSolveOptions, load_policy, solve_holdem
from solve.loop import check_stop_args
from solve.runs import NAME_PATTERN, check_catalog
from solve.table import read_strategy, table_head, table_training_counts, training_lines
from solve import limit_run, tree_run


class _TreeSolved(Backend):
    """What the backends with a generic tree share: solving it with any algorithm (the
    sequence-form solvers, ``lp --exact``) and reading its ``tree`` tables back."""

    has_tree = True

    def tree(self, params: TreeParams, data_dir: Path):
        """The game as a generic tree (``solve.games.tree``)."""
        raise NotImplementedError

    def sequence_form(self, params: TreeParams, data_dir: Path) -> tuple:
        """(tree, sequence form) of the game with ``params``."""
        try:
            tree = self.tree(params, data_dir)
        except ValueError as exc:  # may name the game's parameters (draw27's `buckets`)
            raise ParameterError(str(exc)) from None
        return tree, sequence_form(tree)

    def solve_tree(self, game, request: SolveRequest, params: TreeParams, data_dir: Path,
                   report: Report) -> Path:
        return tree_run.solve(game.name, self.sequence_form, request, params, data_dir, report)

    def load(self, game, path, fmt, data_dir):
        return tree_run.load_table(path, self.sequence_form, data_dir)

    def evaluate_tree(self, path: Path, data_dir: Path, report: Report) -> None:
        for text in training_lines(table_training_counts(path)):  # first: figures stay last
            report(text)
        tree_run.evaluate(path, self.sequence_form, data_dir, report)


def _not_on_tree(game, request: SolveRequest) -> UserError:
    """The error of a sequence-form solver (or ``lp --exact``) asked of a game without a tree."""
    return ParameterError(f"game {game.name!r} is not available with `algorithm` "
                          f"{request.algorithm}{' (`exact`)' if request.exact else ''}; choose "
                          f"from {', '.join(game.peers(lambda g: g.has_tree))}")


def _on_tree(request: SolveRequest) -> bool:
    """Does ``request`` ask for a solve on the generic tree?"""
    return request.algorithm in TREE_ALGORITHMS or request.exact


def _check_compiled_request(game, request: SolveRequest) -> str:
    """The checks of a solve on the compiled game (or three-player Kuhn's); the strategy's
    name."""
    game.check_algorithm(request.algorithm)
    check_stop_args(request)
    if request.abstraction is not None and not game.card_abstractions:
        games = game.peers(lambda g: g.card_abstractions and g.backend.has_rules)
        raise ParameterError(f"`abstraction` is supported for {', '.join(games)} only (and "
                             f"holdem), not {game.name}")
    name = request.name or f"{game.name}-{request.abstraction or 'full'}-{request.algorithm}"
    if not NAME_PATTERN.match(name):
        raise UserError(f"strategy name {name!r} must be letters, digits, '_', '.', '+', '-'")
    return name


class RulesBackend(_TreeSolved):
    """A two-player limit game defined by :class:`solve.games.rules.LimitPokerRules`."""

    table_formats = ("compiled", "tree")
    has_rules = True

    def __init__(self, rules: Callable[[], LimitPokerRules]):
        self.rules = rules

    def make_rules(self) -> LimitPokerRules:
        return self.rules()

    def tree(self, params: TreeParams, data_dir: Path):
        return limit_tree(self.make_rules())

    def solve(self, game, request, options, data_dir, report):
        if _on_tree(request):
            tree_run.check_request(game.name, request, tree_game=False)
            if not game.has_tree:
                raise _not_on_tree(game, request)
            return self.solve_tree(game, request, options, data_dir, report)
        name = _check_compiled_request(game, request)
        return limit_run.solve(game.name, self.make_rules(), replace(request, name=name),
                               game.check_every, data_dir, self.seat_name, report)

    def load(self, game, path, fmt, data_dir):
        if fmt == "tree":
            return super().load(game, path, fmt, data_dir)
        compiled, _ = limit_run.compile_with(self.make_rules(), game.name,
                                             _table_abstraction(path), data_dir)
        try:
            return read_strategy(path, compiled)
        except ValueError as exc:
            raise UserError(str(exc)) from None

    def evaluate(self, game, path, fmt, data_dir, request, report):
        if request.threshold is not None:
            raise ParameterError("`threshold` applies to holdem strategies")
        if fmt == "tree":
            return self.evaluate_tree(path, data_dir, report)
        limit_run.evaluate(game.name, self.make_rules(), path, _table_abstraction(path),
                           data_dir, report)


def _table_abstraction(path: Path) -> str | None:
    """The card abstraction a compiled table was solved on (None: the real game)."""
    return table_head(path)["abstraction"]


class TreeBackend(_TreeSolved):
    """A classic game built as a generic tree by ``build(params, data_dir)`` (which raises
    ValueError on bad parameters); ``notes(params)``: lines reported after a solve."""

    table_formats = ("tree",)

    def __init__(self, build: Callable[[TreeParams, Path], object],
                 notes: Callable[[TreeParams], list[str]] = lambda params: []):
        self.build = build
        self.notes = notes

    def tree(self, params, data_dir):
        return self.build(params, data_dir)

    def check(self, request: SolveRequest, params: TreeParams) -> None:
        """Game-specific checks of a request, before the game is built."""

    def solve(self, game, request, options, data_dir, report):
        tree_run.check_request(game.name, request, tree_game=True)
        self.check(request, options)
        path = self.solve_tree(game, request, options, data_dir, report)
        for line in self.notes(options):
            report(line)
        return path

    def evaluate(self, game, path, fmt, data_dir, request, report):
        if request.threshold is not None:
            raise ParameterError("`threshold` applies to holdem strategies")
        self.evaluate_tree(path, data_dir, report)


def von_neumann_notes(params: TreeParams) -> list[str]:
    cf = classic.von_neumann_closed_form(params.ante, params.bet)
    return ["continuous von Neumann poker (closed form): "
            f"bluff below alpha={cf['alpha']} ({float(cf['alpha']):.6g}), bet above "
            f"beta={cf['beta']} ({float(cf['beta']):.6g}), call above c={cf['c']} "
            f"({float(cf['c']):.6g}), value={cf['value']} ({float(cf['value']):.9g})"]


def flop_poker_tree(params: TreeParams, data_dir: Path):
    cache = Path(data_dir) / "cache" / "flop_poker_equity.npz"  # derived, exact; safe to delete
    return classic.flop_poker(params.ante, params.bet, cache_path=cache)


class Draw27Backend(TreeBackend):
    """2-7 triple draw, bucketed (``--buckets N``) or unabstracted up to suit isomorphism
    (``--buckets iso``: a matrix-free sequence form, the CFR family only)."""

    def __init__(self):
        super().__init__(lambda params, data_dir: draw27(self.buckets(params)))

    @staticmethod
    def buckets(params: TreeParams):
        b = params.buckets
        if b in ("iso", "raw"):
            return b
        try:
            return int(b)
        except ValueError:
            raise ParameterError(f"`buckets` must be an integer, 'iso' or 'raw', "
                                 f"got {b!r}") from None

    def check(self, request, params):
        if params.buckets == "iso" and (request.algorithm not in ("cfr", "cfr+", "dcfr")
                                        or request.exact):
            raise ParameterError("draw27 with `buckets` iso (unabstracted) is solved with cfr, "
                                 "cfr+ or dcfr")

    def sequence_form(self, params, data_dir):
        if params.buckets == "iso":  # the unabstracted (lossless) game: matrix-free
            sf = draw27_sequence_form("iso")
            return sf.tree, sf
        return super().sequence_form(params, data_dir)


class Kuhn3Backend(Backend):
    """Three-player Kuhn poker: its own vectorised representation (``solve.games.kuhn3``)."""

    table_formats = ("kuhn3",)

    def solve(self, game, request, options, data_dir, report):
        if _on_tree(request):
            tree_run.check_request(game.name, request, tree_game=False)
            raise _not_on_tree(game, request)
        name = _check_compiled_request(game, request)
        check_catalog(data_dir)
        return kuhn3.solve(request, name, data_dir, report)

    def load(self, game, path, fmt, data_dir):
        try:
            return kuhn3.from_table(pq.read_table(path), kuhn3.build())
        except ValueError as exc:
            raise UserError(str(exc)) from None

    def evaluate(self, game, path, fmt, data_dir, request, report):
        if request.threshold is not None:
            raise ParameterError("`threshold` applies to holdem strategies")
        for text in training_lines(table_training_counts(path)):  # first: figures stay last
            report(text)
        kuhn3.evaluate(path, report)


class HoldemBackend(Backend):
    """Limit Texas Hold'em on a built card abstraction (``solve.holdem``): its options are
    :class:`solve.holdem.run.HoldemSolveOptions`; seats are the blinds."""

    table_formats = ("holdem",)
    options = HoldemSolveOptions

    def seat_name(self, player: int) -> str:
        return seat_name(player, blinds=True)

    def solve(self, game, request, options, data_dir, report):
        solve_holdem(options, data_dir)  # reports on the console itself

    def load(self, game, path, fmt, data_dir):
        """(policy, betting tree) of the run whose table is ``path``."""
        return load_policy(Path(path).parent.name, Path(data_dir), {})

    def evaluate(self, game, path, fmt, data_dir, request: EvaluateRequest, report):
        evaluate_run(path, data_dir, request.lbr_boards, request.lbr_deals, request.h2h_deals,
                     request.threshold, report)
