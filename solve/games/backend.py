"""The protocol of a game backend: what every game of the registry does, behind one interface.

A :class:`Backend` is the behaviour of one kind of game (``solve.games.backends``): it builds
the game, solves it with an algorithm and stores the strategy table (:meth:`Backend.solve`),
evaluates a stored table (:meth:`Backend.evaluate`), says which table format it writes and
reads (:attr:`Backend.table_formats`), names its seats, and gives what the look-up at real
cards (``solve.lookup``) and ``compare`` (``queries.compare``) need. The command line only
turns its flags into the typed requests below and prints the lines a backend reports; it
never asks which kind of game it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from schema.errors import ParameterError, UserError

#: The algorithms of the CFR family (the compiled game; also every iterative solver's loop).
CFR_FAMILY = ("cfr", "cfr+", "dcfr")
#: Sequence-form solvers that run on a generic tree.
TREE_ALGORITHMS = ("egt", "ga")
#: Every algorithm ``solve`` knows.
ALGORITHMS = ("lp",) + CFR_FAMILY + TREE_ALGORITHMS

#: Where a backend's console lines go (the CLI passes ``print``).
Report = Callable[[str], None]


@dataclass(frozen=True)
class SolveRequest:
    """What every solve takes: the algorithm and when to stop, the strategy's name, the card
    abstraction (for the games that take one)."""

    algorithm: str = "cfr+"
    iterations: int | None = None
    target_exploitability: float | None = None
    time_limit: float | None = None
    check_every: int | None = None
    name: str | None = None
    resume: bool = False
    abstraction: str | None = None
    engine: str = "auto"
    exact: bool = False


@dataclass(frozen=True)
class TreeParams:
    """The parameters of a game built as a generic tree (the classic games; a rules game's
    tree takes none) and of the genetic solver, as ``solve`` takes them."""

    small_blind: str = "1"
    big_blind: str = "1"
    ante: str = "1"
    bet: str = "2"
    grid: int = 100
    buckets: str = "10"
    population: int = 40
    generations: int = 50
    hands: int = 200
    survivors: int = 10
    mutation: float = 0.02
    seed: int = 0


@dataclass(frozen=True)
class EvaluateRequest:
    """What ``evaluate`` of a stored table takes (the sampled games' numbers of deals; a
    threshold for the games whose tables are thresholded)."""

    lbr_boards: int | None = None
    lbr_deals: int | None = None
    h2h_deals: int | None = None
    threshold: str | None = None


class Backend:
    """One kind of game: the methods every registry entry answers (module docstring).

    Subclasses set :attr:`table_formats` and override what applies to them; what does not
    apply is a one-line :class:`UserError` (or ``None``/``False`` for a question).
    """

    #: The strategy-table formats (``schema.strategy.FORMATS``) this backend writes and reads;
    #: the first is the one its own solvers write.
    table_formats: tuple[str, ...] = ()
    #: The type of the game-specific options :meth:`solve` takes (a dataclass; its field names
    #: are the ``solve`` options' names).
    options: type = TreeParams
    #: True if the game is defined by limit poker rules (:meth:`make_rules`): compiled to
    #: arrays, looked up at real cards, its card abstractions loaded into it.
    has_rules: bool = False
    #: True if the game has a generic tree (the sequence-form solvers and ``lp --exact``).
    has_tree: bool = False

    def make_rules(self):
        raise ValueError("this game is not defined by limit poker rules")

    def seat_name(self, player: int) -> str:
        """The name of 0-based seat ``player``: "player N" (from 1)."""
        return f"player {int(player) + 1}"

    def solve(self, game, request: SolveRequest, options, data_dir: Path,
              report: Report) -> Path | None:
        """Solve ``game`` (its registry entry) as ``request`` asks, with the game-specific
        ``options`` (an :attr:`options` instance); store the strategy table and its catalog
        row in ``data_dir``; report the summary lines; returns the table's path (None: the
        backend reports it)."""
        raise UserError(f"{game.name} cannot be solved")

    def load(self, game, path: Path, fmt: str, data_dir: Path):
        """The strategy stored in table ``path`` (of format ``fmt``), in the backend's own
        representation (a ``solve.strategy.Strategy`` of the compiled game; the tree, its
        sequence form and both realization plans; three-player Kuhn's profile array; a
        Texas Hold'em policy and its betting tree)."""
        raise UserError(f"strategy {path}: {game.name} strategies cannot be loaded")

    def evaluate(self, game, path: Path, fmt: str, data_dir: Path, request: EvaluateRequest,
                 report: Report) -> None:
        """Report the figures of the stored strategy table ``path`` (of format ``fmt``)."""
        if request.threshold is not None:
            raise ParameterError("`threshold` applies to holdem strategies")
        raise UserError(f"strategy {path}: {game.name} strategies cannot be evaluated")
