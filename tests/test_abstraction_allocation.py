"""The bucket-allocation IP (abstraction/allocation.py) against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from abstraction.allocation import allocate, equal_split


def brute_force(costs, weights, budget):
    best = np.inf
    for ks in itertools.product(*[range(1, len(c) + 1) for c in costs]):
        if sum(ks) <= budget:
            best = min(best, sum(w * c[k - 1] for w, c, k in zip(weights, costs, ks)))
    return best


def random_instance(rng):
    p = int(rng.integers(1, 5))
    costs = []
    for _ in range(p):
        kmax = int(rng.integers(1, 6))
        # decreasing error curves, as k-means gives, plus some non-monotone ones
        c = np.sort(rng.random(kmax))[::-1] * rng.random() * 10
        if rng.random() < 0.3:
            c = rng.random(kmax)
        costs.append(c)
    weights = rng.dirichlet(np.ones(p))
    budget = int(rng.integers(p, sum(len(c) for c in costs) + 2))
    return costs, weights, budget


def test_matches_brute_force():
    rng = np.random.default_rng(1)
    for _ in range(60):
        costs, weights, budget = random_instance(rng)
        a = allocate(costs, weights, budget)
        assert a.children.sum() <= budget
        assert np.all((a.children >= 1) & (a.children <= [len(c) for c in costs]))
        assert a.objective == pytest.approx(brute_force(costs, weights, budget), rel=1e-7,
                                            abs=1e-12)
        naive = equal_split(costs, weights, budget)
        assert naive.children.sum() <= budget
        assert a.objective <= naive.objective + 1e-12


def test_validation():
    with pytest.raises(ValueError, match="budget"):
        allocate([np.ones(3), np.ones(3)], [0.5, 0.5], 1)
    with pytest.raises(ValueError, match="weights"):
        allocate([np.ones(3)], [0.5, 0.5], 3)
    with pytest.raises(ValueError, match="empty"):
        allocate([np.ones(0)], [1.0], 3)
