"""Strategy thresholding and purification (Ganzfried, Sandholm & Waugh, "Strategy purification
and thresholding: effective non-equilibrium approaches for playing large games", AAMAS 2012).

An abstract equilibrium computed by sampled CFR carries small probabilities, partly noise of
the sampling and partly mixing that fits the abstraction rather than the real game.
Thresholding sets every action probability below ``tau`` to zero and renormalises (the most
probable action is always kept); ``tau >= 1`` is purification, the most probable action only.
The paper found such strategies stronger head-to-head but not always less exploitable; on
Texas Hold'em here they win against the unthresholded strategy and have higher LBR bounds
(BENCHMARKS.md). The result is another weight array of the same layout, so every evaluator and
table writer takes it as it takes the average strategy.
"""

from __future__ import annotations

import numpy as np

from solve.holdem import _threshold_kernels as TK
from solve.holdem.game import BettingTree


def threshold(tree: BettingTree, n_buckets, weights: np.ndarray, tau: float) -> np.ndarray:
    """The thresholded strategy (float32, the layout of ``tree.offsets(n_buckets)``).

    Args:
        tree: the betting tree of the strategy.
        n_buckets: buckets per round of its abstraction.
        weights: its average-strategy weights (any positive scale per information set).
        tau: probabilities below it are dropped; ``tau >= 1``: purification.

    Raises:
        ValueError: ``tau`` not in (0, 1] or ``weights`` of the wrong length.
    """
    if not 0.0 < tau <= 1.0:
        raise ValueError(f"tau must be in (0, 1], got {tau!r}")
    off, size = tree.offsets(n_buckets)
    if len(weights) != size:
        raise ValueError(f"weights has {len(weights)} entries, the abstraction needs {size}")
    out = np.empty(size, np.float32)
    TK.threshold_weights(weights, tree.ntype, tree.round, tree.nact, off,
                         np.asarray(n_buckets, np.int64), float(tau), out)
    return out
