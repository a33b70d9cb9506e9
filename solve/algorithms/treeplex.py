"""Solvers and evaluation on the sequence form of a generic game (solve.games.tree).

- :func:`best_response_values`, :func:`exploitability`: exact best responses bottom-up over
  each player's treeplex against ``A y`` / ``A' x``.
- :class:`SequenceCFR`: CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014) and DCFR (Brown &
  Sandholm 2019) with alternating updates, counterfactual values computed in sequence form
  (``g = A y`` holds opponent and chance reach, so a bottom-up pass over the treeplex gives
  every infoset's counterfactual action values).
- :func:`solve_lp`: the sequence-form LP with HiGHS (reuses :func:`solve.algorithms.lp._solve_side`).
- :func:`behaviour`: behaviour strategy of a realization plan, with never-reached infosets
  flagged (NaN rows), not silently filled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solve.algorithms import _treeplex_kernels as K
from solve.games.tree import SequenceForm
from solve.algorithms.lp import _solve_side


def best_response_values(sf: SequenceForm, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(max_x' x'A y, min_y' x'A y'): player 1's best-response value to ``y`` and the value
    player 2's best response holds player 1 to against ``x``."""
    c0 = np.empty(len(sf.parent[0]), np.int64)
    c1 = np.empty(len(sf.parent[1]), np.int64)
    v1 = K.best_response(sf.A @ y, sf.parent[0], sf.offset[0], sf.nact[0], c0)
    v2 = -K.best_response(-(sf.A.T @ x), sf.parent[1], sf.offset[1], sf.nact[1], c1)
    return float(v1), float(v2)


def exploitability(sf: SequenceForm, x: np.ndarray, y: np.ndarray) -> float:
    """Mean of both players' best-response gains, in chips (DESIGN.md section 6)."""
    v1, v2 = best_response_values(sf, x, y)
    return 0.5 * (v1 - v2)


def value(sf: SequenceForm, x: np.ndarray, y: np.ndarray) -> float:
    return float(x @ (sf.A @ y))


def uniform_plan(sf: SequenceForm, p: int) -> np.ndarray:
    q = np.zeros(sf.n_seq[p])
    for I in range(len(sf.parent[p])):
        q[sf.offset[p][I]:sf.offset[p][I] + sf.nact[p][I]] = 1.0 / sf.nact[p][I]
    x = np.zeros(sf.n_seq[p])
    K.plan_from_behaviour(q, sf.parent[p], sf.offset[p], sf.nact[p], x)
    return x


@dataclass
class Behaviour:
    """Behaviour strategy of one player: ``probs[I, a]`` per local infoset, NaN rows where the
    infoset is never reached by the player's own plan (``unreached[I]``)."""

    probs: np.ndarray
    unreached: np.ndarray
    labels: list
    actions: list


def behaviour(sf: SequenceForm, p: int, x, tol: float = 0.0) -> Behaviour:
    """Behaviour strategy of realization plan ``x`` (floats or Fractions) of player ``p``."""
    n = len(sf.parent[p])
    width = int(sf.nact[p].max()) if n else 0
    exact = len(x) and not isinstance(x[0], (float, np.floating))
    probs = np.full((n, width), np.nan, dtype=object if exact else np.float64)
    unreached = np.zeros(n, dtype=bool)
    for I in range(n):
        xp = x[int(sf.parent[p][I])]
        if xp <= tol:
            unreached[I] = True
            continue
        o = int(sf.offset[p][I])
        for a in range(int(sf.nact[p][I])):
            probs[I, a] = x[o + a] / xp
    t = sf.tree
    g = sf.global_id[p]
    return Behaviour(probs=probs, unreached=unreached, labels=[t.info_label[i] for i in g],
                     actions=[t.info_actions[i] for i in g])


class SequenceCFR:
    """CFR-family solver on a sequence form. ``algorithm`` in ``cfr``, ``cfr+``, ``dcfr``."""

    def __init__(self, sf: SequenceForm, algorithm: str = "cfr+", alpha: float = 1.5,
                 beta: float = 0.0, gamma: float = 2.0):
        if algorithm not in ("cfr", "cfr+", "dcfr"):
            raise ValueError(f"algorithm must be cfr, cfr+ or dcfr, got {algorithm!r}")
        self.sf, self.algorithm = sf, algorithm
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.regret = [np.zeros(n) for n in sf.n_seq]
        self.q = [np.zeros(n) for n in sf.n_seq]
        self.plan = [np.zeros(n) for n in sf.n_seq]
        self.avg = [np.zeros(n) for n in sf.n_seq]
        self.weight = [0.0, 0.0]
        self.iteration = 0
        for p in (0, 1):
            self._match(p)

    def _match(self, p):
        sf = self.sf
        K.regret_matching(self.regret[p], sf.parent[p], sf.offset[p], sf.nact[p], self.q[p])
        K.plan_from_behaviour(self.q[p], sf.parent[p], sf.offset[p], sf.nact[p], self.plan[p])

    @property
    def iteration_(self) -> int:
        """Iterations run, under the name every solver of ``solve.loop`` uses."""
        return self.iteration

    def iterate(self, n: int = 1) -> "SequenceCFR":
        sf = self.sf
        for _ in range(int(n)):
            t = self.iteration + 1
            if self.algorithm == "dcfr":  # discount what iterations 1..t-1 accumulated
                s = t - 1
                dp = s ** self.alpha / (s ** self.alpha + 1.0) if s > 0 else 1.0
                dn = s ** self.beta / (s ** self.beta + 1.0) if s > 0 else 1.0
                d, w = ((t - 1) / t) ** self.gamma, 1.0
            else:
                dp = dn = 1.0
                d, w = 1.0, (float(t) if self.algorithm == "cfr+" else 1.0)  # linear / uniform
            for p in (0, 1):
                g = sf.A @ self.plan[1] if p == 0 else -(sf.A.T @ self.plan[0])
                K.regret_update(g, self.q[p], self.regret[p], sf.parent[p], sf.offset[p], sf.nact[p],
                                self.algorithm == "cfr+", dp, dn)
                # average of realization plans (weights t for CFR+, t^gamma for DCFR, 1 for CFR)
                self.avg[p] = d * self.avg[p] + w * self.plan[p]
                self.weight[p] = d * self.weight[p] + w
                self._match(p)
            self.iteration = t
        return self

    def state(self) -> dict:
        """What a checkpoint needs (arrays and numbers); :meth:`restore` takes it back."""
        return {"regret0": self.regret[0], "regret1": self.regret[1], "avg0": self.avg[0],
                "avg1": self.avg[1], "weight": np.array(self.weight), "iteration": self.iteration}

    def restore(self, state) -> "SequenceCFR":
        """Continue from :meth:`state` (a mapping, e.g. a loaded ``.npz``) exactly."""
        self.regret = [np.array(state["regret0"], dtype=np.float64),
                       np.array(state["regret1"], dtype=np.float64)]
        self.avg = [np.array(state["avg0"], dtype=np.float64), np.array(state["avg1"], dtype=np.float64)]
        self.weight = [float(w) for w in state["weight"]]
        self.iteration = int(state["iteration"])
        for p in (0, 1):
            self._match(p)
        return self

    def average(self) -> tuple[np.ndarray, np.ndarray]:
        if self.iteration == 0:
            return uniform_plan(self.sf, 0), uniform_plan(self.sf, 1)
        return self.avg[0] / self.weight[0], self.avg[1] / self.weight[1]


def solve_lp(sf: SequenceForm) -> tuple[np.ndarray, np.ndarray, float]:
    """Equilibrium plans (x, y) and the value for player 1, by the sequence-form LP (HiGHS)."""
    E, F = sf.constraints(0), sf.constraints(1)
    x, v1 = _solve_side(sf.A, E, F)
    y, v2 = _solve_side(-sf.A.T.tocsr(), F, E)
    return np.maximum(x, 0.0), np.maximum(y, 0.0), float(0.5 * (v1 - v2))
