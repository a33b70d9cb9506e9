"""The solve loop every iterative solver of ``cli.py solve`` and ``cli.py compare`` runs
through (CFR family on compiled games and on the type form, sequence-form CFR and EGT on
generic trees, three-player Kuhn): iterate in steps, checkpoint and measure after each, stop at
a target, a time limit or an iteration count. (The Texas Hold'em solver, whose stop rules add
wall-clock checkpoints and sampled evaluations, has its own in ``solve.holdem.run``.)"""

from __future__ import annotations

import math
import time

from schema.errors import ParameterError
from solve.algorithms.evaluate import exploitability


def check_stop_args(request) -> None:
    """One-line errors for the stopping options of a solve (``solve.games.backend.
    SolveRequest``: iterations, check_every, time limit, target exploitability)."""
    check_at_least(1, iterations=request.iterations, check_every=request.check_every)
    check_positive_finite(time_limit=request.time_limit,
                          target_exploitability=request.target_exploitability)


def check_at_least(least: int, **values) -> None:
    """A one-line error (``ParameterError``, naming the parameter) unless each given value
    (None = not given) is at least ``least``."""
    for name, v in values.items():
        if v is not None and v < least:
            raise ParameterError(f"`{name}` must be at least {least}, got {v}")


def check_positive_finite(**values) -> None:
    """A one-line error (``ParameterError``, naming the parameter) unless each given value
    (None = not given) is positive and finite; nan is refused too (a nan limit or target
    would never stop a run)."""
    for name, v in values.items():
        if v is not None and not 0 < v < math.inf:
            raise ParameterError(f"`{name}` must be positive and finite, got {v}")


def iterate_until(solver, game, every: int, *, total: int | None = None,
                  target: float | None = None, time_limit: float | None = None,
                  started: float | None = None, min_iteration: int | None = None,
                  expl: float = math.inf, checkpoint=None, bar=None,
                  measure_fn=None, label: str = "exploitability") -> float:
    """Run ``solver`` (``solve.algorithms.cfr.CFRSolver``, or ``solve.algorithms.abstract_cfr.AbstractFormSolver``, on
    ``game``) in steps of ``every`` iterations
    (the last one shorter so as to stop at ``total`` iterations in all, counting any resumed).

    After each step the solver is saved to ``checkpoint`` (a path; None: not saved) and its
    average strategy's exploitability measured (chips; in the abstract game if ``game`` is
    abstracted), shown on the tqdm ``bar`` if given. The loop stops before a step once the
    exploitability is below ``target`` (``expl`` is the one known at the start: inf for none),
    once ``time_limit`` seconds have passed since ``started`` (``time.time()``; default now)
    -- but the time limit never stops it before the solver is past ``min_iteration`` (default:
    the iteration it starts at, so at least one step is run) -- or when ``total`` is reached.

    ``measure_fn()``, if given, measures instead (``game`` may then be None), e.g. the
    exploitability on a sequence form or the NashConv of a three-player game; the bar shows it
    as ``label``. The solver counts its iterations in ``iteration_``.

    Returns the last exploitability measured (``expl`` if no step was run).
    """
    if measure_fn is None:
        abstract = game.abstraction is not None

        def measure_fn():
            return measure(solver, game, abstract)
    started = time.time() if started is None else started
    floor = solver.iteration_ if min_iteration is None else min_iteration
    while target is None or expl >= target:
        if (time_limit is not None and solver.iteration_ > floor
                and time.time() - started >= time_limit):
            break
        step = every if total is None else min(every, total - solver.iteration_)
        if step <= 0:
            break
        solver.iterate(step)
        if bar is not None:
            bar.update(step)
        if checkpoint is not None:
            solver.save(checkpoint)
        expl = measure_fn()
        if bar is not None:
            bar.set_postfix({label: f"{expl:.4g}"})
    return expl


def measure(solver, game, abstract: bool) -> float:
    """Exploitability of ``solver``'s average strategy in its own game (the abstract one if
    ``abstract``): on the solver's sequence form when it has one, else on ``game``."""
    if hasattr(solver, "abstract_exploitability"):
        return solver.abstract_exploitability()

    return exploitability(game, solver.average_strategy(), abstract=abstract)
