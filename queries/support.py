"""What ``compare`` needs from a game (:class:`GameSupport`) and the records it passes
around: the options of missing solves, the resolved names, a loaded strategy; and the rule
that a stored strategy counts only for the current build of its abstraction."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from schema.errors import ParameterError, UserError
from solve.games.backend import CFR_FAMILY
from solve.loop import check_at_least, check_positive_finite


@dataclass
class Options:
    """How missing strategies are solved."""

    target: float = 1.0                 # chips, abstract game: a stored strategy below is reused
    time_limit: float | None = None     # seconds of iterating per solve (then stored as is)
    iterations: int | None = None       # most iterations per solve, in total
    reuse_solved: bool = False          # reuse any stored strategy of an abstraction
    report_only: bool = False           # no solving or evaluating: what is stored
    algorithm: str = "dcfr"
    check_every: int = 25
    equilibrium: str | None = None      # strategy name of the real game's equilibrium
    equilibrium_target: float = 1.0     # chips, for the reference equilibrium
    equilibrium_time_limit: float | None = None
    equilibrium_iterations: int | None = None
    progress: bool = True
    jobs: int = 1                       # solves and experiment builds side by side (queries.parallel_solve)

    def __post_init__(self):
        """One-line errors (``ParameterError``, naming the field) for values no solve can
        run with: an algorithm outside the CFR family, a target or limit not positive and
        finite, a count under 1."""
        if self.algorithm not in CFR_FAMILY:
            raise ParameterError(f"`algorithm`: unknown algorithm {self.algorithm!r}; choose from "
                                 f"{', '.join(CFR_FAMILY)}")
        check_positive_finite(target=self.target, equilibrium_target=self.equilibrium_target,
                              time_limit=self.time_limit,
                              equilibrium_time_limit=self.equilibrium_time_limit)
        check_at_least(1, check_every=self.check_every, jobs=self.jobs,
                       iterations=self.iterations,
                       equilibrium_iterations=self.equilibrium_iterations)

    def for_equilibrium(self) -> "Options":
        """These options with the reference equilibrium's target and limits."""
        return replace(self, target=self.equilibrium_target,
                       time_limit=self.equilibrium_time_limit,
                       iterations=self.equilibrium_iterations)


@dataclass
class Entry:
    """A name given to compare, resolved."""

    name: str
    strategy: str | None = None
    abstraction: str | None = None
    method: str | None = None
    buckets: str | None = None
    built: str | None = None


@dataclass
class Loaded:
    """A strategy reduced to what evaluation needs: per-infoset probabilities and the map
    from the real game's (decision node, hand) to them."""

    name: str
    sha: str
    info: np.ndarray
    probs: np.ndarray
    extra: dict = field(default_factory=dict)


class GameSupport:
    """What ``compare`` needs from a game. Values in chips per game.

    - ``resolve(names) -> [Entry]``: UserError (before anything is written) for an unknown name.
    - ``ensure_strategy(entry, options) -> name``: the strategy to evaluate, solving if needed.
    - ``equilibrium(options) -> name``: an (epsilon-)equilibrium of the real game.
    - ``sha(name)``, ``is_exact(name)``: the strategy table's SHA-256; exact equilibrium or not.
    - ``best_responses(name) -> (v1, v2, exact)``: value to the nemesis when ``name`` plays
      seat 1, 2; ``exact`` False where they are sampled lower bounds (the tables say so).
    - optionally ``exact_best_responses(name) -> (v1, v2) | None``: for a game whose best
      responses are sampled lower bounds, an exact figure computed since; stored rows that are
      not exact are then evaluated again (and the exact rows win in ``evaluation_results``).
    - ``value(name)``: ``x' A y`` of the strategy's own profile, for player 1.
    - ``head_to_head(a, b) -> (value, ci_low, ci_high, exact)``.
    - optionally ``head_to_head_many(names, progress) -> M``: exact head-to-head of every pair
      at once (``M[i, j]`` for names i against j), when that is cheaper than pair by pair.
    """

    game: str


def of_current_build(run: dict, abstraction: dict) -> bool:
    """Whether stored strategy ``run`` (with ``created``) was solved on the current build of
    its ``abstraction`` (catalog fields, ``created`` among them; {} if none): a rebuild with
    ``--replace`` renumbers the buckets, so strategies of earlier builds are not reused."""
    built = abstraction.get("created")
    return built is None or run["created"] >= built


def check_current_build(name: str, run: dict, abstraction: dict) -> None:
    """A one-line error if strategy ``name`` is of an earlier build (:func:`of_current_build`)."""
    if not of_current_build(run, abstraction):
        raise UserError(f"strategy {name!r} predates abstraction {run['abstraction']!r}, which "
                        "was rebuilt since: solve it again (or compare the abstraction's name)")
