"""How many child buckets each parent bucket gets: the 0-1 integer program of Gilpin & Sandholm.

Gilpin & Sandholm, "A competitive Texas Hold'em poker player via automated abstraction and
real-time equilibrium computation", AAAI 2006, section 3 (and docs/design.md section 4): given, for
every parent bucket i and every child count k, the clustering error ``c[i,k]`` of splitting the
parent's hands into k clusters, choose one k per parent to

    minimise  sum_i p_i * sum_k c[i,k] * x[i,k]
    s.t.      sum_i sum_k k * x[i,k] <= K          (the round's bucket budget)
              sum_k x[i,k] = 1  for every parent i,  x[i,k] in {0,1}

solved with PuLP (CBC by default). ``equal_split`` is the naive allocation it is compared with.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pulp


@dataclass(frozen=True)
class Allocation:
    """Children per parent and the weighted error ``sum_i p_i * c[i, k_i]`` it achieves."""

    children: np.ndarray
    objective: float
    status: str


def _validate(costs: list[np.ndarray], weights: np.ndarray, budget: int) -> np.ndarray:
    weights = np.asarray(weights, dtype=np.float64)
    if len(costs) != len(weights):
        raise ValueError(f"costs has {len(costs)} parents but weights has {len(weights)}")
    if len(costs) == 0:
        raise ValueError("costs must have at least one parent")
    for i, c in enumerate(costs):
        if len(c) < 1:
            raise ValueError(f"costs[{i}] is empty: every parent needs c[i,1]")
    if budget < len(costs):
        raise ValueError(f"budget {budget} is smaller than the number of parents {len(costs)}: "
                         "every parent needs at least one child")
    return weights


def allocate(costs: list[np.ndarray], weights, budget: int, solver: pulp.LpSolver | None = None
             ) -> Allocation:
    """Solve the allocation IP.

    Args:
        costs: ``costs[i][k-1] = c[i,k]`` for k = 1 .. kmax_i (kmax_i may differ per parent).
        weights: p_i, the probability of each parent.
        budget: K, the most children in total.
        solver: a PuLP solver; default CBC with its log off.
    Returns:
        The optimal ``Allocation`` (children[i] = k_i).
    Raises:
        ValueError: mismatched lengths, an empty cost row, or a budget below the parent count.
        RuntimeError: the solver did not report an optimal solution.
    """
    weights = _validate(costs, weights, budget)
    kmax = np.array([len(c) for c in costs])
    if kmax.sum() <= budget:  # the budget does not bind: each parent takes its best k
        children = np.array([int(np.argmin(c)) + 1 for c in costs])
        return Allocation(children, _objective(costs, weights, children), "Optimal")
    prob = pulp.LpProblem("bucket_allocation", pulp.LpMinimize)
    x = {(i, k): prob.add_variable(f"x_{i}_{k}", cat="Binary")
         for i, c in enumerate(costs) for k in range(1, len(c) + 1)}
    # Scale so CBC's tolerances act on numbers of order one.
    scale = max(float(max(np.max(np.abs(c)) for c in costs) * weights.max()), 1e-300)
    prob += pulp.lpSum(float(weights[i] * costs[i][k - 1] / scale) * v for (i, k), v in x.items())
    prob += pulp.lpSum(k * v for (i, k), v in x.items()) <= budget
    for i, c in enumerate(costs):
        prob += pulp.lpSum(x[i, k] for k in range(1, len(c) + 1)) == 1
    prob.solve(solver or _bundled_cbc())
    status = pulp.LpStatus[prob.status]
    if status != "Optimal":
        raise RuntimeError(f"bucket allocation IP not solved: {status}")
    children = np.ones(len(costs), dtype=np.int64)
    for (i, k), v in x.items():
        if v.value() is not None and v.value() > 0.5:
            children[i] = k
    return Allocation(children, _objective(costs, weights, children), status)


def equal_split(costs: list[np.ndarray], weights, budget: int) -> Allocation:
    """The naive allocation: every parent gets ``budget // P`` children (the remainder to the
    most probable parents), capped at what the parent can have."""
    weights = _validate(costs, weights, budget)
    p = len(costs)
    kmax = np.array([len(c) for c in costs])
    children = np.full(p, budget // p, dtype=np.int64)
    children[np.argsort(-weights, kind="stable")[: budget % p]] += 1
    children = np.minimum(children, kmax)
    return Allocation(children, _objective(costs, weights, children), "EqualSplit")


def _bundled_cbc() -> pulp.LpSolver:
    # PuLP 3.3 ships CBC only as PULP_CBC_CMD, which warns that it will move to COIN_CMD in 4.0.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(msg=False)


def _objective(costs, weights, children) -> float:
    return float(sum(weights[i] * costs[i][k - 1] for i, k in enumerate(children)))
