"""Solvers and evaluation on the sequence form of a generic game (solve.games.tree).

- :func:`best_response_values`, :func:`exploitability`: exact best responses bottom-up over
  each player's treeplex against ``A y`` / ``A' x``.
- :class:`SequenceCFR`: CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014) and DCFR (Brown &
  Sandholm 2019) with alternating updates, counterfactual values computed in sequence form
  (``g = A y`` holds opponent and chance reach, so a bottom-up pass over the treeplex gives
  every infoset's counterfactual action values). With ``ties`` it runs CFR on an
  imperfect-recall game given by a perfect-recall refinement: infosets of the treeplex tied
  into one information set of the coarser game share one strategy and one regret, the sum of
  theirs (the regret of an imperfect-recall information set is the sum over its histories;
  Waugh et al., "A practical use of imperfect recall", SARA 2009; Lanctot et al., "No-regret
  learning in extensive-form games with imperfect recall", ICML 2012).
- :class:`Ties` and :func:`tied_behaviour`: the tying, and the average strategy of the coarser
  game (each tied group's sequences summed over its members).
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
    """Mean of both players' best-response gains, in chips (docs/design.md section 6)."""
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


@dataclass(frozen=True)
class Ties:
    """One player's infosets tied into the information sets of an imperfect-recall game:
    ``group[I]`` is local infoset ``I``'s information set (0 .. n_groups - 1); the members of
    a group have as many actions. ``owner`` is each sequence's infoset (-1 for the empty
    sequence 0), ``seq`` each sequence but the empty one (1 .. n_seq - 1) its group's
    sequence, which ``group_offset``/``group_nact`` lay out.
    ``weight[I]``: the chance probability of reaching member ``I`` (its private type), which
    weighs it in the group's average strategy (:func:`tied_behaviour`), as chance does the
    histories of an information set in the game tree."""

    group: np.ndarray
    group_offset: np.ndarray
    group_nact: np.ndarray
    owner: np.ndarray
    seq: np.ndarray
    weight: np.ndarray

    @classmethod
    def of(cls, sf: SequenceForm, p: int, group, weight=None) -> "Ties":
        group = np.asarray(group, dtype=np.int64)
        nact = sf.nact[p]
        if group.shape != nact.shape or (len(group) and group.min() < 0):
            raise ValueError("ties need one non-negative group per infoset")
        weight = np.ones(len(group)) if weight is None else np.asarray(weight, np.float64)
        if weight.shape != group.shape or (weight < 0).any():
            raise ValueError("ties need one non-negative weight per infoset")
        n_groups = int(group.max()) + 1 if len(group) else 0
        gnact = np.zeros(n_groups, np.int64)
        gnact[group] = nact
        if not np.array_equal(gnact[group], nact):
            raise ValueError("tied infosets must have the same number of actions")
        goff = np.concatenate([[0], np.cumsum(gnact)[:-1]]).astype(np.int64)
        owner = np.full(sf.n_seq[p], -1, np.int64)
        for a in range(int(nact.max()) if len(nact) else 0):
            has = nact > a
            owner[sf.offset[p][has] + a] = np.flatnonzero(has)
        if (owner[1:] < 0).any():
            raise ValueError("the treeplex's sequences are not all owned by an infoset")
        seq = np.full(sf.n_seq[p], -1, np.int64)
        s = np.arange(1, sf.n_seq[p])
        seq[1:] = goff[group[owner[1:]]] + s - sf.offset[p][owner[1:]]
        return cls(group, goff, gnact, owner, seq, weight)

    @property
    def n_group_seq(self) -> int:
        return int(self.group_nact.sum())


def tied_behaviour(sf: SequenceForm, p: int, x: np.ndarray, ties: Ties) -> np.ndarray:
    """Behaviour per group sequence of realization plan ``x`` summed over each group's members,
    each weighted by its chance probability (``Ties.weight``): the coarse game's strategy
    that plays as ``x`` does on average over the histories of each information set; NaN
    where no member is reached."""
    num = np.bincount(ties.seq[1:], weights=ties.weight[ties.owner[1:]] * x[1:],
                      minlength=ties.n_group_seq)
    den = np.bincount(ties.group, weights=ties.weight * x[sf.parent[p]],
                      minlength=len(ties.group_nact))
    d = np.repeat(den, ties.group_nact)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d > 0, num / np.where(d > 0, d, 1.0), np.nan)


def tied_plan(sf: SequenceForm, p: int, x: np.ndarray, ties: Ties) -> np.ndarray:
    """The realization plan of the coarse game's average strategy (:func:`tied_behaviour`),
    groups no member of which is reached played uniformly."""
    qg = tied_behaviour(sf, p, x, ties)
    qg = np.where(np.isnan(qg), 1.0 / np.repeat(ties.group_nact, ties.group_nact), qg)
    q = np.zeros(sf.n_seq[p])
    q[1:] = qg[ties.seq[1:]]
    out = np.zeros(sf.n_seq[p])
    K.plan_from_behaviour(q, sf.parent[p], sf.offset[p], sf.nact[p], out)
    return out


class SequenceCFR:
    """CFR-family solver on a sequence form. ``algorithm`` in ``cfr``, ``cfr+``, ``dcfr``.

    ``ties``: optional per-player :class:`Ties` (None for a player without them): CFR on the
    imperfect-recall game they define (regrets per group, summed over its members; every
    member plays its group's strategy). Averages stay per sequence of the treeplex;
    :func:`tied_behaviour` gives the coarse game's average strategy from them."""

    def __init__(self, sf: SequenceForm, algorithm: str = "cfr+", alpha: float = 1.5,
                 beta: float = 0.0, gamma: float = 2.0, ties=None):
        if algorithm not in ("cfr", "cfr+", "dcfr"):
            raise ValueError(f"algorithm must be cfr, cfr+ or dcfr, got {algorithm!r}")
        self.sf, self.algorithm = sf, algorithm
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.ties = tuple(ties) if ties is not None else (None, None)
        self.regret = [np.zeros(n if t is None else t.n_group_seq)
                       for n, t in zip(sf.n_seq, self.ties)]
        self.q = [np.zeros(n) for n in sf.n_seq]
        self.plan = [np.zeros(n) for n in sf.n_seq]
        self.avg = [np.zeros(n) for n in sf.n_seq]
        self.weight = [0.0, 0.0]
        self.iteration = 0
        for p in (0, 1):
            self._match(p)

    def _match(self, p):
        sf, t = self.sf, self.ties[p]
        if t is None:
            K.regret_matching(self.regret[p], sf.parent[p], sf.offset[p], sf.nact[p], self.q[p])
        else:
            qg = np.zeros(t.n_group_seq)
            K.regret_matching(self.regret[p], t.group_nact, t.group_offset, t.group_nact, qg)
            self.q[p][1:] = qg[t.seq[1:]]
        K.plan_from_behaviour(self.q[p], sf.parent[p], sf.offset[p], sf.nact[p], self.plan[p])

    def _update(self, p, g, dp, dn):
        sf, t = self.sf, self.ties[p]
        plus = self.algorithm == "cfr+"
        if t is None:
            K.regret_update(g, self.q[p], self.regret[p], sf.parent[p], sf.offset[p],
                            sf.nact[p], plus, dp, dn)
            return
        inst = np.zeros(sf.n_seq[p])  # this iteration's regrets per sequence, then per group
        K.regret_update(g, self.q[p], inst, sf.parent[p], sf.offset[p], sf.nact[p], False,
                        1.0, 1.0)
        r = self.regret[p]
        r *= np.where(r > 0.0, dp, dn)
        r += np.bincount(t.seq[1:], weights=inst[1:], minlength=t.n_group_seq)
        if plus:
            np.maximum(r, 0.0, out=r)

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
                self._update(p, g, dp, dn)
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
        """Continue from :meth:`state` (a mapping, e.g. a loaded ``.npz``) exactly.

        Raises:
            ValueError: regrets of another shape (another game, or tied otherwise).
        """
        regret = [np.array(state["regret0"], dtype=np.float64),
                  np.array(state["regret1"], dtype=np.float64)]
        if [r.shape for r in regret] != [r.shape for r in self.regret]:
            raise ValueError("the state's regrets are of another game or tying")
        self.regret = regret
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
