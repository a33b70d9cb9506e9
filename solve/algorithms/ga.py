"""Genetic algorithm for two-player zero-sum games in sequence form (co-evolution).

One population of pure strategies per seat (one action per information set). Each
generation:

1. *fitness from played hands*: every individual plays ``hands`` hands against opponents
   drawn uniformly from the other seat's population, chance sampled (numba play-out over the
   game tree, :func:`solve.algorithms._treeplex_kernels.play_hands`); fitness = mean chips won;
2. *elitist selection*: the ``survivors`` fittest individuals of each seat are kept;
3. *fitness-proportional crossover*: the rest of the population is refilled with children of
   two survivors drawn with probability proportional to fitness (shifted to be positive),
   genes (infoset actions) taken uniformly from either parent;
4. *mutation*: each gene of a child is redrawn uniformly with probability ``mutation``.

The output strategy of a seat is the mean of its survivors: the average of their
realization plans (a mixed strategy, realization-equivalent to playing a random survivor).
Exploitability of that output is recorded after every generation, so the GA can be
compared with CFR on the same game. In the spirit of co-evolutionary poker GAs (e.g.
Barone & While 1999; Noble & Watson 2001); all randomness from one seeded generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solve.algorithms import _treeplex_kernels as K
from solve.games.tree import CHANCE, SequenceForm
from solve.algorithms.treeplex import exploitability


@dataclass
class GAParams:
    population: int = 40
    generations: int = 50
    hands: int = 200          # hands played per individual per generation
    survivors: int = 10
    mutation: float = 0.02
    seed: int = 0

    def validate(self) -> None:
        if self.population < 2:
            raise ValueError("population must be at least 2")
        if not 1 <= self.survivors <= self.population:
            raise ValueError("survivors must be between 1 and the population size")
        if self.generations < 1 or self.hands < 1:
            raise ValueError("generations and hands must be at least 1")
        if not 0.0 <= self.mutation <= 1.0:
            raise ValueError("mutation must be in [0, 1]")


@dataclass
class GAResult:
    x: np.ndarray
    y: np.ndarray
    exploitability: list = field(default_factory=list)  # after each generation


class GeneticSolver:
    """Co-evolutionary GA (module docstring) on ``sf`` (with its tree)."""

    def __init__(self, sf: SequenceForm, params: GAParams):
        params.validate()
        self.sf, self.p = sf, params
        t = sf.tree
        self.rng = np.random.default_rng(params.seed)
        self.local_of = np.zeros(t.n_infosets, np.int64)
        self.local_of[sf.global_id[0]] = np.arange(len(sf.global_id[0]))
        self.local_of[sf.global_id[1]] = -np.arange(len(sf.global_id[1])) - 1
        # cumulative chance probabilities per chance node's edges
        cum = np.zeros(len(t.children))
        prob = t.edge_prob
        for n in np.flatnonzero(t.kind == CHANCE):
            s, c = t.child_start[n], t.child_count[n]
            cum[s:s + c] = np.cumsum(prob[s:s + c])
        self.edge_cum = cum
        self.payoff = t.payoff
        self.depth = _max_chance_depth(t)
        self.nact = [sf.nact[0], sf.nact[1]]
        self.pop = [self._random(0, params.population), self._random(1, params.population)]
        self.generation = 0
        self.history: list = []
        self.x = self.y = None

    def _random(self, p: int, n: int) -> np.ndarray:
        return (self.rng.random((n, len(self.nact[p]))) * self.nact[p][None, :]).astype(np.int64)

    def _play(self, i_idx, j_idx) -> np.ndarray:
        t = self.sf.tree
        u = self.rng.random((len(i_idx), max(self.depth, 1)))
        return K.play_hands(t.kind, t.infoset, t.child_start, t.child_count, t.children, self.edge_cum,
                            self.payoff, self.local_of, self.pop[0], self.pop[1], i_idx, j_idx, u)

    def _fitness(self) -> list:
        P, H = self.p.population, self.p.hands
        mine = np.repeat(np.arange(P), H)
        opp = self.rng.integers(0, P, size=P * H)
        f0 = self._play(mine, opp).reshape(P, H).mean(axis=1)
        f1 = -self._play(opp, mine).reshape(P, H).mean(axis=1)
        return [f0, f1]

    def _plan(self, p: int, choices: np.ndarray) -> np.ndarray:
        sf = self.sf
        x = np.zeros(sf.n_seq[p])
        K.pure_plan(choices, sf.parent[p], sf.offset[p], sf.nact[p], x)
        return x

    def step(self) -> float:
        """One generation; returns the exploitability of the survivors' mean."""
        P, S = self.p.population, self.p.survivors
        fit = self._fitness()
        means = []
        for p in (0, 1):
            order = np.argsort(-fit[p], kind="stable")
            elite = self.pop[p][order[:S]]
            ef = fit[p][order[:S]]
            w = ef - ef.min() + 1e-9 * (1.0 + abs(ef).max())
            w = w / w.sum()
            n_child = P - S
            pa = self.rng.choice(S, size=n_child, p=w)
            pb = self.rng.choice(S, size=n_child, p=w)
            mask = self.rng.random((n_child, elite.shape[1])) < 0.5
            kids = np.where(mask, elite[pa], elite[pb])
            mut = self.rng.random(kids.shape) < self.p.mutation
            if mut.any():
                kids = np.where(mut, self._random(p, n_child), kids)
            self.pop[p] = np.concatenate([elite, kids])
            means.append(np.mean([self._plan(p, c) for c in elite], axis=0))
        self.x, self.y = means
        self.generation += 1
        e = exploitability(self.sf, self.x, self.y)
        self.history.append(e)
        return e

    def run(self, generations: int | None = None) -> GAResult:
        for _ in range(self.p.generations if generations is None else int(generations)):
            self.step()
        return GAResult(self.x, self.y, list(self.history))

    def average(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x, self.y


def _max_chance_depth(t) -> int:
    depth = np.zeros(t.n_nodes, np.int64)
    for n in range(t.n_nodes):  # parents first
        s, c = t.child_start[n], t.child_count[n]
        depth[t.children[s:s + c]] = depth[n] + (1 if t.kind[n] == CHANCE else 0)
    return int(depth.max())
