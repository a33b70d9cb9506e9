"""The options of an abstraction build, typed and validated before any work starts.

Every method of :data:`abstraction.methods.METHODS` declares its options as a frozen dataclass
(``Method.Options``): :class:`MethodOptions` here holds what every method takes; a method with
more (``intermediate``, ``opponent_clusters``, ``from_strategy``...) subclasses it beside its
own code. In the spirit of scikit-learn's parameter constraints, an options object checks
itself (:meth:`MethodOptions.check`, given the game) and its errors name the parameter::

    buckets: round 2 has 3 buckets, fewer than round 1 (5)

Each field's metadata (:func:`option`) also carries its help text and, for a field given as
text (``buckets="20,800,4800,28800"``), its parser: ``build-abstraction`` builds its command
line from the fields (``abstraction.commands``) and spells the parameters of an
:class:`OptionError` as its flags.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Callable

from abstraction import games as card_games
from abstraction.imperfect_recall import KIND_OF_METHOD
from etl.cluster import check_scheduler
from schema.errors import UserError

_NAMED = re.compile(r"\{([a-z_]+)\}")


class OptionError(UserError):
    """A bad option, naming the parameter(s) it is about.

    ``template`` writes each parameter of ``parameters`` as ``{name}``; ``str()`` spells it as
    the parameter's name, :meth:`spelled` as the caller likes (the command line: its flag).
    Other braces in ``template`` (a quoted value) are kept as they are.
    """

    def __init__(self, template: str, *parameters: str):
        self.template = template
        self.parameters = parameters
        super().__init__(self.spelled(lambda name: name))

    def spelled(self, spell: Callable[[str], str]) -> str:
        """The message with each parameter written as ``spell(name)``."""
        return _NAMED.sub(lambda m: spell(m[1]) if m[1] in self.parameters else m[0],
                          self.template)


def option(default, help: str | Callable[[], str], *, parse: Callable | None = None,
           type: Callable | None = None, metavar: str | None = None,
           choices: tuple | None = None, applies: str | None = None):
    """A dataclass field with what the command line needs: ``help`` (text, or a function
    giving it when the parser is built; ``{name}`` spells another parameter, as in
    :class:`OptionError`), ``parse`` (text -> the field's value; the command line passes the
    text), ``type`` (an argparse type), ``metavar``, ``choices``. A ``bool`` field is a flag
    that takes no value. ``applies``: the methods that take the option, in words, for the
    error when another method is given it (default: their names)."""
    return dataclasses.field(default=default, metadata={
        "help": help, "parse": parse, "type": type, "metavar": metavar, "choices": choices,
        "applies": applies})


def ints(name: str, what: str = "integers", blank: bool = False) -> Callable[[str], tuple]:
    """A parser of comma-separated integers for parameter ``name`` (``blank``: an empty item
    is None)."""

    def parse(text: str) -> tuple:
        try:
            return tuple(None if blank and not x.strip() else int(x) for x in text.split(","))
        except ValueError:
            raise OptionError(f"{{{name}}} must be comma-separated {what}, got {text!r}",
                              name) from None

    return parse


RECALLS = ("perfect", "imperfect")


def imperfect_alone() -> OptionError:
    """Imperfect recall clusters every round on its own, of every hand: no board, no
    bottom-up counts."""
    return OptionError("{recall} imperfect takes neither {public_board} nor {intermediate}",
                       "recall", "public_board", "intermediate")


@dataclass(frozen=True)
class MethodOptions:
    """What every abstraction method takes (see ``abstraction.methods``).

    A text value of a field with a parser (``buckets="13,25,125"``) is parsed on construction;
    :meth:`check` validates the options against a game.
    """

    #: a method that needs no bucket counts (``lossless``) sets this False
    buckets_required = True

    buckets: tuple[int, ...] | None = option(
        None, "bucket counts per round, totals, e.g. 20,800,4800,28800 (optional for lossless)",
        parse=ints("buckets"))
    seed: int = option(0, "random seed (default 0)", type=int)
    workers: int | None = option(
        None, "processes (default: the number of cores for holdem, 1 for rhode-island)",
        type=int)
    scheduler: str | None = option(
        None, "run the per-parent clustering on a Dask cluster (workers must see the data "
              "directory) or on N local worker processes; same result, bit for bit",
        metavar="tcp://HOST:PORT|local:N")
    n_init: int = option(4, "k-means restarts (default 4)", type=int)
    kmax: int | None = option(
        None, "most children per parent bucket considered (default: no cap)", type=int)
    kmax_factor: float | None = option(
        None, "cap children per parent at KMAX_FACTOR * (buckets / parents) (default: 3 for "
              "holdem, no cap for rhode-island)", type=float)
    recall: str = option(
        "perfect", "perfect (default): each round's buckets nested in the previous round's; "
        "imperfect: every round clustered on its own, the earlier buckets forgotten (eb = EHS, "
        "pa-emd = EMD over next-round buckets, ochs; holdem: the river by equity or OCHS, "
        "earlier rounds by EMD on next-round equity histograms). Solved by CFR (Rhode Island: "
        "on the type form with tied infosets, or the public tree); the LP needs perfect recall",
        choices=RECALLS)
    public_board: bool = option(
        False, "rhode-island: play the abstraction with the public cards visible, i.e. buckets "
               "refined by the board when solving (always on for lossless, whose 13,205,1774 "
               "classes are lossless only so)")

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value, parse = getattr(self, f.name), f.metadata.get("parse")
            if isinstance(value, str) and parse is not None:
                value = parse(value)
            elif isinstance(value, list):
                value = tuple(value)
            object.__setattr__(self, f.name, value)

    def check(self, game, method: str) -> None:
        """Validate the options for building ``method`` on ``game`` (an
        ``abstraction.games.CardGame``); :class:`OptionError` naming the parameter
        otherwise. Nothing is read or computed."""
        if self.public_board and not game.public_board:
            raise OptionError(f"{{public_board}} is available for "
                              f"{', '.join(_games_with('public_board'))} only", "public_board")
        if self.recall not in RECALLS:
            raise OptionError(f"{{recall}} must be perfect or imperfect, got {self.recall!r}",
                              "recall")
        self._check_recall(method)
        self._check_buckets(game, method)
        for name in ("n_init", "workers"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise OptionError(f"{{{name}}} must be at least 1, got {value}", name)
        if self.scheduler is not None:
            try:
                check_scheduler(self.scheduler)
            except UserError:
                raise OptionError(f"{{scheduler}} must be tcp://HOST:PORT or local:N, got "
                                  f"{self.scheduler!r}", "scheduler") from None

    def _check_recall(self, method: str) -> None:
        if self.recall != "imperfect":
            return
        if method not in KIND_OF_METHOD:
            raise OptionError(f"{{recall}} imperfect is built for {{method}} "
                              f"{', '.join(KIND_OF_METHOD)}, not {method}", "recall", "method")
        if self.public_board:
            raise imperfect_alone()

    def _check_buckets(self, game, method: str) -> None:
        counts = self.buckets
        if counts is None:
            if self.buckets_required:
                raise OptionError(f"{{buckets}} is required for method {method}", "buckets")
            return
        if len(counts) != game.rounds:
            raise OptionError(f"{{buckets}} needs {game.rounds} counts for {game.name} (one per "
                              f"round), got {len(counts)}", "buckets")
        nested = self.recall == "perfect"
        for r, k in enumerate(counts):
            if k < 1:
                raise OptionError(f"{{buckets}}: round {r} needs at least 1 bucket, got {k}",
                                  "buckets")
            if nested and r and k < counts[r - 1]:
                raise OptionError(f"{{buckets}}: round {r} has {k} buckets, fewer than round "
                                  f"{r - 1} ({counts[r - 1]})", "buckets")
            if k > game.hand_counts[r]:
                raise OptionError(f"{{buckets}}: round {r} has {k} buckets, more than the "
                                  f"{game.hand_counts[r]:,} hands of {game.name} round {r}",
                                  "buckets")

    def model_kwargs(self, workers: int, kmax_factor: float | None,
                     progress: bool = False) -> dict:
        """The keyword arguments of the method's constructor, given what the builder resolves
        for the game (``workers``, ``kmax_factor``) and ``progress``."""
        out = dict(random_state=self.seed, n_init=self.n_init, kmax=self.kmax,
                   kmax_factor=kmax_factor, workers=workers, progress=progress,
                   public_board=self.public_board, scheduler=self.scheduler)
        if self.recall == "imperfect":
            out["recall"] = self.recall
        return out

    def fingerprint(self) -> dict:
        """What identifies the build's result (its checkpoint key): every option that changes
        the buckets."""
        return {"buckets": self.buckets, "seed": self.seed, "n_init": self.n_init,
                "kmax": self.kmax, "public_board": self.public_board, "recall": self.recall}


def _games_with(attr: str) -> tuple[str, ...]:
    return card_games.names(lambda g: getattr(g, attr))
