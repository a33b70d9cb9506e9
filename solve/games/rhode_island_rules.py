"""Rhode Island Hold'em rule variants: the game value and the sequence-form LP size of each.

Gilpin & Sandholm ("Optimal Rhode Island Hold'em poker", AAAI 2005; "Lossless abstraction of
imperfect information games", JACM 2007) solved the game by an LP on the GameShrink
abstraction: 1,237,238 rows and 50,428,638 nonzeros, value -64.1987 chips for player 1 (issue
14). The published rules leave details open (:data:`solve.games.rules.RHODE_ISLAND_VARIANTS`);
for each variant this module computes two witnesses:

- **the LP size** of the sequence-form LP of the lossless abstraction as GameShrink plays it,
  the ordered-game classes of :func:`abstraction.methods.outcome_partition` (13, 205, 1,774
  for the published rules) with the board hidden behind the class: rows
  ``infosets_1 + 1 + sequences_2``, columns ``sequences_1 + infosets_2 + 1``, nonzeros
  ``nnz(E) + nnz(F) + nnz(A)`` -- the program ``max f'q s.t. F'q <= A'x, Ex = e, x >= 0`` of
  :mod:`solve.algorithms.lp` (Koller, Megiddo & von Stengel 1996);
- **the game value**, bracketed: a CFR-family profile ``(x, y)`` of a game gives
  ``min_v x'Av <= value <= max_u u'Ay`` (both best responses computed exactly on the sequence
  form), solved until the bracket is narrower than twice the target exploitability.

Each variant is solved in two settings: ``real`` (the lossless classes refined by the public
board, which is the unabstracted game: abstract and real best responses agree) and
``hidden`` (the same classes, board hidden: the game the published LP size describes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from abstraction.games import rhode_island as rhode_island_hands
from abstraction.methods import Lossless
from solve.algorithms.abstract_cfr import AbstractFormSolver
from solve.abstractions import RhodeIslandTableAbstraction
from solve.games.abstract_form import AbstractForm, abstract_form
from solve.games.compile import compile_game
from solve.games.ranking import rhode_island_variant
from solve.games.rules import RHODE_ISLAND_VARIANTS, rhode_island
from solve.algorithms.treeplex import best_response_values

#: The published figures (Gilpin & Sandholm 2005/2007) the variants are held against.
PUBLISHED = {"value": -64.1987, "lp_rows": 1_237_238, "lp_nonzeros": 50_428_638,
             "lp_rows_unabstracted": 91_224_226}
SETTINGS = ("real", "hidden")


@dataclass
class LPSize:
    """Size of the sequence-form LP ``max f'q s.t. F'q <= A'x, Ex = e, x >= 0``."""

    classes: tuple          # information classes per round per player
    infosets: tuple         # per player
    sequences: tuple        # per player (the empty sequence included)
    rows: int
    columns: int
    nonzeros: int
    payoff_nonzeros: int


def lp_size(form: AbstractForm) -> LPSize:
    """The LP size of a type-level sequence form (see module docstring)."""
    sf = form.sf
    inf = tuple(len(p) for p in sf.parent)
    seq = tuple(int(n) for n in sf.n_seq)
    constraint_nnz = [1 + inf[p] + int(np.sum(sf.nact[p])) for p in (0, 1)]
    return LPSize(classes=tuple(int(n) for n in form.n_types), infosets=inf, sequences=seq,
                  rows=inf[0] + 1 + seq[1], columns=seq[0] + inf[1] + 1,
                  nonzeros=sum(constraint_nnz) + form.payoff_nnz,
                  payoff_nonzeros=form.payoff_nnz)


#: Information states of one player per round in the unabstracted game: its private card, then
#: the public cards too, every card seen and no isomorphism applied.
RAW_SIGNALS = (52, 52 * 51, 52 * 51 * 50)


def per_type_counts(form: AbstractForm) -> list[dict]:
    """Per round, per player: decision nodes and actions per type (its bucket sequence), i.e.
    over all betting histories reaching the round -- read off the compiled game's sequence
    form, so the betting is the one :func:`solve.games.compile.compile_game` builds."""
    out = []
    for r, n in enumerate(form.n_types):
        nodes, actions = [0, 0], [0, 0]
        for p in (0, 1):
            for (_, label), na in zip(form.keys[p], form.sf.nact[p]):
                if label.count(".") == r:
                    nodes[p] += 1
                    actions[p] += int(na)
        out.append({"nodes": [x // n for x in nodes], "actions": [x // n for x in actions]})
    return out


def unabstracted_lp_rows(form: AbstractForm) -> int:
    """Rows of the LP of the unabstracted game with ``form``'s rules: ``infosets_1 + 1 +
    sequences_2``, the per-type betting counts times :data:`RAW_SIGNALS` per round."""
    counts = per_type_counts(form)
    infosets = sum(s * c["nodes"][0] for s, c in zip(RAW_SIGNALS, counts))
    sequences = 1 + sum(s * c["actions"][1] for s, c in zip(RAW_SIGNALS, counts))
    return infosets + 1 + sequences


def lossless_classes(variant: str) -> list[np.ndarray]:
    """GameShrink's ordered-game classes of the variant's canonical hands (per round, nested)."""
    ranking = rhode_island_variant(rhode_island(variant).ranking)
    fit = Lossless().fit(rhode_island_hands(ranking))
    return [np.asarray(r.bucket, dtype=np.int64) for r in fit.rounds_]


@dataclass
class VariantGame:
    """One variant in one setting: its rules, card abstraction, compiled game and form."""

    variant: str
    setting: str
    abstraction: RhodeIslandTableAbstraction
    form: AbstractForm
    solver: AbstractFormSolver


def variant_game(variant: str, setting: str, classes: list[np.ndarray] | None = None,
                 algorithm: str = "dcfr") -> VariantGame:
    """The variant's lossless game in ``setting`` ("real": board visible, "hidden")."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
    rules = rhode_island(variant)
    classes = lossless_classes(variant) if classes is None else classes
    ab = RhodeIslandTableAbstraction(f"lossless-{setting}", classes,
                                     public_board=setting == "real")
    game = compile_game(rules, ab)
    form = abstract_form(game, ab)
    return VariantGame(variant, setting, ab, form, AbstractFormSolver(form, game, algorithm))


@dataclass
class Bracket:
    """A solve's result: ``lower <= value <= upper`` (best-response values of the average
    profile), the profile's own value, exploitability ``(upper - lower) / 2``."""

    lower: float
    upper: float
    value: float
    exploitability: float
    iterations: int
    cpu_seconds: float


def bracket(solver: AbstractFormSolver, cpu_seconds: float) -> Bracket:
    x, y = solver.plans()
    upper, lower = best_response_values(solver.form.sf, x, y)
    return Bracket(lower=lower, upper=upper, value=solver.abstract_value(),
                   exploitability=0.5 * (upper - lower), iterations=solver.iteration_,
                   cpu_seconds=cpu_seconds)


def solve_to(vg: VariantGame, target: float, every: int = 50, checkpoint: Path | None = None,
             cpu_before: float = 0.0, on_step: Callable[[Bracket], None] | None = None,
             max_iterations: int | None = None) -> Bracket:
    """Iterate ``vg.solver`` in steps of ``every`` until its exploitability is below
    ``target`` (or ``max_iterations``), saving ``checkpoint`` after every step (resumed from
    it if it exists). ``cpu_before``: CPU seconds spent by earlier runs of the same solve."""
    s = vg.solver
    if checkpoint is not None and checkpoint.exists():
        s.load(checkpoint)
    t0 = time.process_time()
    got = bracket(s, cpu_before) if s.iteration_ else None
    while got is None or got.exploitability >= target:
        step = every if max_iterations is None else min(every, max_iterations - s.iteration_)
        if step <= 0:
            break
        s.iterate(step)
        cpu = cpu_before + time.process_time() - t0
        if checkpoint is not None:
            s.save(checkpoint)
        got = bracket(s, cpu)
        if on_step is not None:
            on_step(got)
    return got


def variants() -> dict:
    """Variant name -> description."""
    return {k: v[0] for k, v in RHODE_ISLAND_VARIANTS.items()}
