"""CFR-family solving of an abstracted limit poker game on its type-level sequence form.

Same algorithms as :mod:`solve.algorithms.cfr` (CFR, CFR+, DCFR with alternating updates; here via
:class:`solve.algorithms.treeplex.SequenceCFR`) on the same abstract game, but over the matrix-free
sequence form of :mod:`solve.games.abstract_form`: one iteration is a few dense matrix
products over bucket types instead of a sweep of the public tree for every board, so an
abstract Rhode Island Hold'em game with 125 final buckets iterates in milliseconds.

:class:`AbstractFormSolver` has the interface :func:`solve.loop.iterate_until` and the CLI use
(``iteration_``, ``iterate``, ``save``/``load``, ``average_strategy``) plus
:meth:`AbstractFormSolver.abstract_exploitability`, exact in the abstract game and computed
on the sequence form. Strategies come back on the compiled abstract game, so storing and
evaluating them in the real game is unchanged.

Imperfect-recall abstractions are solved on the form too: it is then the game's
perfect-recall refinement with its infosets tied into the game's information sets (see
:mod:`solve.games.abstract_form`), and CFR with the ties is the public-tree solver's CFR on the
imperfect-recall game, iteration for iteration, at the form's cost. Their abstract
exploitability is the public tree's (:func:`solve.algorithms.evaluate.exploitability`, a best
response chosen level by level: a lower bound, as with the tree engine), so both engines stop
by the same measure.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schema.storage import AtomicFile
from solve.algorithms.cfr import CFRSolver
from solve.games.abstract_form import AbstractForm, abstract_form, to_strategy
from solve.games.compile import CompiledGame
from solve.strategy import Strategy
from solve.algorithms.evaluate import exploitability as tree_exploitability
from solve.algorithms.treeplex import SequenceCFR, exploitability, tied_plan, value

FORMAT = "abstract-form-1"
BLAS_THREADS_MIN_TYPES = 1000  # below this many final-round types, one BLAS thread


class AbstractFormSolver:
    """CFR-family solver on ``form`` (built for ``game``'s rules and abstraction).

    Args:
        form: :func:`solve.games.abstract_form.abstract_form` of the game.
        game: the same game compiled with the same abstraction (for the strategy it returns).
        algorithm: "cfr", "cfr+" or "dcfr" (DCFR alpha=1.5, beta=0, gamma=2).
    """

    def __init__(self, form: AbstractForm, game: CompiledGame, algorithm: str = "cfr+"):
        if game.abstraction != form.abstraction:
            raise ValueError("the form and the compiled game have different abstractions")
        self.form, self.game, self.algorithm = form, game, algorithm
        self._cfr = SequenceCFR(form.sf, algorithm, ties=form.ties)

    @property
    def iteration_(self) -> int:
        return self._cfr.iteration

    def iterate(self, iterations: int = 1) -> "AbstractFormSolver":
        from threadpoolctl import threadpool_limits

        # small matrix products: BLAS threads cost more than they save (and spin when the
        # machine is busy); large ones use the BLAS default
        limit = 1 if self.form.n_types[-1] < BLAS_THREADS_MIN_TYPES else None
        with threadpool_limits(limits=limit, user_api="blas"):
            self._cfr.iterate(int(iterations))
        return self

    def plans(self) -> tuple[np.ndarray, np.ndarray]:
        """Average realization plans (x, y); under imperfect recall, of the information sets'
        average strategies played in the refinement."""
        x, y = self._cfr.average()
        if self.form.ties is None:
            return x, y
        return tuple(tied_plan(self.form.sf, p, v, t)
                     for p, (v, t) in enumerate(zip((x, y), self.form.ties)))

    def abstract_exploitability(self) -> float:
        """Exploitability (chips) of the average strategy in the abstract game (imperfect
        recall: the public tree's level-by-level best response, a lower bound)."""
        if self.form.ties is not None:
            return tree_exploitability(self.game, self.average_strategy(), abstract=True)
        return exploitability(self.form.sf, *self.plans())

    def abstract_value(self) -> float:
        """Player 1's expected value of the average strategy profile."""
        return value(self.form.sf, *self.plans())

    def average_strategy(self) -> Strategy:
        return to_strategy(self.form, self.game, *self._cfr.average())

    def save(self, path: str | Path) -> None:
        """Checkpoint regrets, average plans and the iteration count (atomic rename)."""
        with AtomicFile(path, checksum=False) as f, open(f.tmp, "wb") as fh:
            np.savez(fh, format=FORMAT, algorithm=self.algorithm,
                     n_seq=np.array(self.form.sf.n_seq), **self._cfr.state())

    def load(self, path: str | Path) -> "AbstractFormSolver":
        """Restore a checkpoint written by :meth:`save` for the same game and algorithm.

        Raises:
            ValueError: a checkpoint of another solver, algorithm or game.
        """
        with np.load(path) as z:
            if "format" not in z.files or str(z["format"]) != FORMAT:
                raise ValueError("checkpoint was written by the public-tree solver, not this one")
            if str(z["algorithm"]) != self.algorithm:
                raise ValueError(f"checkpoint is for {z['algorithm']}, not {self.algorithm}")
            if tuple(int(v) for v in z["n_seq"]) != tuple(self.form.sf.n_seq):
                raise ValueError("checkpoint is for a different game or abstraction")
            self._cfr.restore(z)
        return self


def make_solver(game: CompiledGame, algorithm: str, abstraction=None, engine: str = "auto"):
    """The CFR-family solver for ``game``: :class:`AbstractFormSolver` when the game is
    abstracted by ``abstraction`` (the card abstraction object it was compiled with) and its
    form fits (:data:`solve.games.abstract_form.MAX_TYPES` final-round types,
    :data:`~solve.games.abstract_form.MAX_WORK` matrix entries), else the public-tree
    :class:`solve.algorithms.cfr.CFRSolver`. ``engine``: "auto", "form" (raise if it cannot
    be used) or "tree". Imperfect-recall abstractions too (the form ties its infosets)."""
    if engine not in ("auto", "form", "tree"):
        raise ValueError(f"engine must be auto, form or tree, got {engine!r}")
    if engine != "tree" and game.abstraction is not None and abstraction is not None:
        try:
            return AbstractFormSolver(abstract_form(game, abstraction), game, algorithm)
        except ValueError:
            if engine == "form":
                raise
    elif engine == "form":
        raise ValueError("the type-level form needs an abstracted game")
    return CFRSolver(game, algorithm)
