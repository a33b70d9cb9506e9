"""Counterfactual regret minimisation on a compiled game, vectorised over private hands.

Algorithms (all with alternating updates, Burch et al. 2019, "Revisiting CFR+ and
alternating updates"):

- ``cfr``: vanilla CFR (Zinkevich et al. 2007), regret matching, uniform averaging.
- ``cfr+``: CFR+ (Tammelin 2014; Tammelin et al. 2015), regret matching+, average weighted
  by the iteration number (linear averaging).
- ``dcfr``: discounted CFR (Brown & Sandholm 2019) with alpha=1.5, beta=0, gamma=2.

Each iteration is, per traverser, one forward sweep (reach vectors) and one backward sweep
(counterfactual values, instantaneous regrets) in numba over the flat arrays of
:mod:`solve.games.compile`. State (regrets, average-strategy sums, iteration) round-trips
through :meth:`CFRSolver.save` / :meth:`CFRSolver.load`, so a resumed run is bit-identical
to an uninterrupted one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schema.storage import AtomicFile
from solve.algorithms import _kernels as K
from solve.games.compile import CompiledGame
from solve.strategy import Strategy

PARALLEL_MIN_NODES = 50_000
ALGORITHMS = {"cfr": K.ALG_CFR, "cfr+": K.ALG_CFRPLUS, "dcfr": K.ALG_DCFR}


def subtree_segments(game: CompiledGame):
    """(seg_lo, seg_hi, top): node ranges of the subtrees below the first chance nodes with
    more than one child, and the remaining nodes; None if the game has no such chance node."""
    N = len(game.ntype)
    size = np.ones(N, dtype=np.int64)
    for n in range(N - 1, -1, -1):
        s, c = game.child_start[n], game.child_count[n]
        size[n] += size[game.children[s:s + c]].sum()
    chance = np.flatnonzero(game.ntype == 1)
    if len(chance) == 0:
        return None
    depth_round = game.nround[chance].min()
    lo = []
    for n in chance[game.nround[chance] == depth_round]:
        s, c = game.child_start[n], game.child_count[n]
        lo.extend(game.children[s:s + c])
    lo = np.array(sorted(lo), dtype=np.int64)
    hi = lo + size[lo]
    inside = np.zeros(N, dtype=bool)
    for a, b in zip(lo, hi):
        inside[a:b] = True
    return lo, hi, np.flatnonzero(~inside).astype(np.int64)


class CFRSolver:
    """CFR-family solver.

    Args:
        game: compiled (optionally abstracted) game.
        algorithm: "cfr", "cfr+" or "dcfr".
        alpha, beta, gamma: DCFR discount parameters.
        parallel: run disjoint subtrees on several threads (real-game infosets only).

    Learned state: ``regrets_`` and ``average_`` (I, 3), ``iteration_``.
    """

    def __init__(self, game: CompiledGame, algorithm: str = "cfr+", alpha: float = 1.5,
                 beta: float = 0.0, gamma: float = 2.0, parallel: bool = True):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {sorted(ALGORITHMS)}, got {algorithm!r}")
        self.game = game
        self.algorithm = algorithm
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        n = game.n_infosets
        self.regrets_ = np.zeros((n, 3))
        self.average_ = np.zeros((n, 3))
        self.iteration_ = 0
        self._inst_r = np.zeros((n, 3))
        self._inst_s = np.zeros((n, 3))
        D, H = game.info.shape
        self._strat = np.zeros((D, 3, H))
        self._reach = np.zeros((len(game.ntype), 2, H))
        self._value = np.zeros((len(game.ntype), H))
        # subtrees below the first public card are independent when infosets do not span them
        # (thread start-up costs more than it saves on small trees)
        big = len(game.ntype) >= PARALLEL_MIN_NODES
        self._segments = subtree_segments(game) if (parallel and big and game.abstraction is None) else None

    def iterate(self, iterations: int = 1) -> "CFRSolver":
        """Run ``iterations`` more iterations (each updates player 1, then player 2)."""
        g = self.game
        alg = ALGORITHMS[self.algorithm]
        if self._segments is None:  # whole loop in one compiled call
            K.cfr_iterations(int(iterations), self.iteration_, alg, self.alpha, self.beta, self.gamma,
                             g.ntype, g.nplayer, g.nboard, g.child_start, g.child_count, g.children,
                             g.edge_scale, g.edge_perm_start, g.edge_perm_count, g.perm_inv, g.cw,
                             g.contrib, g.dslot, g.dnode, g.board_valid, g.hands, g.strength,
                             g.order_start, g.order_len, g.order, g.info, g.info_player, g.info_nact,
                             self.regrets_, self.average_, self._inst_r, self._inst_s, self._strat,
                             self._reach, self._value, g.rules.n_cards)
            self.iteration_ += int(iterations)
            return self
        for _ in range(int(iterations)):
            t = self.iteration_ + 1
            for trav in (0, 1):
                K.regret_matching(g.info, self.regrets_, g.dnode, g.child_count, self._strat)
                K.forward(g.ntype, g.nplayer, g.nboard, g.child_start, g.child_count, g.children,
                          g.dslot, g.board_valid, self._strat, self._strat, self._reach)
                self._backward(trav)
                K.apply_update(alg, trav, float(t), self.alpha, self.beta, self.gamma, g.info_player,
                               g.info_nact, self.regrets_, self.average_, self._inst_r, self._inst_s)
            self.iteration_ = t
        return self

    def _backward(self, trav: int) -> None:
        g = self.game
        args = (g.ntype, g.nplayer, g.nboard, g.child_start, g.child_count, g.children, g.edge_scale,
                g.edge_perm_start, g.edge_perm_count, g.perm_inv, g.cw, g.contrib, g.dslot,
                g.board_valid, g.hands, g.strength, g.order_start, g.order_len, g.order, g.info,
                self._strat, self._reach, self._value, self._inst_r, self._inst_s, g.rules.n_cards)
        if self._segments is not None:
            K.backward_parallel(K.MODE_CFR, trav, *self._segments, *args)
        else:
            K.backward(K.MODE_CFR, trav, *args)

    def _history_chance_weight(self) -> np.ndarray:
        """Per infoset, the mean chance weight of its histories (what an old checkpoint's
        average sums lack); ValueError under imperfect recall."""
        g = self.game
        labels = g.bucket_labels or []
        if any(str(lab).startswith("-.") for lab in labels):
            raise ValueError("checkpoint predates chance-weighted averages and the game has "
                             "imperfect recall: solve it again from the start (not resumed)")
        d, h = np.nonzero(g.info >= 0)
        I = g.info[d, h]
        total = np.bincount(I, weights=g.cw[g.dnode[d]], minlength=g.n_infosets)
        count = np.bincount(I, minlength=g.n_infosets)
        return total / np.maximum(count, 1)

    def average_strategy(self) -> Strategy:
        """Normalised average; an infoset whose summed average weight (the iterations' own
        reach) is 0 is flagged as never reached (``Strategy.reached``)."""
        return Strategy.from_weights(self.game, self.average_, self.average_.sum(axis=1) > 0.0)

    def current_strategy(self) -> Strategy:
        return Strategy.from_weights(self.game, np.maximum(self.regrets_, 0.0))

    def save(self, path: str | Path) -> None:
        """Checkpoint regrets, averages and the iteration count (atomic rename)."""
        with AtomicFile(path, checksum=False) as f, open(f.tmp, "wb") as fh:
            np.savez(fh, regrets=self.regrets_, average=self.average_, iteration=self.iteration_,
                     algorithm=self.algorithm, params=np.array([self.alpha, self.beta, self.gamma]),
                     n_infosets=self.game.n_infosets, average_weight="chance")

    def load(self, path: str | Path) -> "CFRSolver":
        """Restore a checkpoint written by :meth:`save` for the same game and algorithm.

        A checkpoint from before the average strategy's sums were chance-weighted (no
        ``average_weight``) is converted exactly under perfect recall (every history of an
        infoset added the same amount, now scaled by its chance weight); under imperfect
        recall it cannot be, and is refused."""
        with np.load(path) as z:
            if str(z["algorithm"]) != self.algorithm:
                raise ValueError(f"checkpoint is for {z['algorithm']}, not {self.algorithm}")
            if int(z["n_infosets"]) != self.game.n_infosets:
                raise ValueError("checkpoint is for a different game or abstraction")
            self.regrets_ = z["regrets"].copy()
            self.average_ = z["average"].copy()
            if "average_weight" not in z.files:
                self.average_ *= self._history_chance_weight()[:, None]
            self.iteration_ = int(z["iteration"])
            self.alpha, self.beta, self.gamma = (float(x) for x in z["params"])
        return self
