"""Distances between histograms for clustering: the earth mover's distance (EMD) and L2.

The earth mover's distance between two distributions ``p`` and ``q`` over the same support is
the least cost of moving ``p``'s mass onto ``q``'s, a unit of mass moved from bin ``a`` to bin
``b`` costing ``ground[a, b]`` (Rubner, Tomasi & Guibas, "The earth mover's distance as a metric
for image retrieval", IJCV 2000). Potential-aware abstraction with EMD (Ganzfried & Sandholm,
"Potential-aware imperfect-recall abstraction with earth mover's distance in imperfect-
information games", AAAI 2014) compares hands by their histograms over next-round clusters with
the distances between those clusters' centres as ground.

- ``EMDLine``: the support lies on a line (positions, e.g. equity bins or the showdown outcomes
  loss/tie/win at 0, 1/2, 1). Then EMD(p, q) = sum_b |P_b - Q_b| (x_(b+1) - x_b), P and Q the
  cumulative sums over the sorted support: exact, O(d), a numba kernel for all pairs.
- ``EMDGround``: any ground matrix (the distances between next-round cluster centres); each pair
  is a transport linear program solved exactly by POT's network simplex (``ot.emd2``; Flamary
  et al., "POT: Python Optimal Transport", JMLR 2021).
- ``Euclidean``: L2, the distance between centres of clusters built by ordinary k-means (the
  ground above a round clustered with L2, e.g. OCHS vectors).
- ``L1``: the Manhattan distance between strategy vectors (strategy-based abstraction).

A metric's ``pairwise(x, c)`` gives the (n, k) distances from the rows of ``x`` to those of
``c``; ``paired(x, y)`` the distance of each row of ``x`` to the same row of ``y``;
``ground(c)`` the (k, k) distances between centres, the ground of the round above. ``L1`` and
``EMDGround`` also compute only some pairs (``where(x, c, need, out)``), which k-means with
triangle-inequality bounds uses (``abstraction.metric_kmeans``); the others compute whole rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abstraction._emd_kernels import emd_line_pairwise
from abstraction._metric_kmeans_kernels import l1_paired, l1_where

#: ``ot.emd2``'s default bound on the network simplex's iterations
EMD_MAX_ITER = 100_000


@dataclass(frozen=True)
class EMDLine:
    """EMD over a support on a line at ``positions`` (any order)."""

    positions: np.ndarray

    def __post_init__(self):
        pos = np.asarray(self.positions, dtype=np.float64)
        if pos.ndim != 1 or len(pos) < 1:
            raise ValueError("positions must be a non-empty 1-D array")
        object.__setattr__(self, "positions", pos)

    @classmethod
    def equity_bins(cls, bins: int) -> "EMDLine":
        """``bins`` equal bins of the equity line [0, 1] at their centres (the equity tables'
        histograms)."""
        return cls((np.arange(bins) + 0.5) / bins)

    @property
    def gaps(self) -> np.ndarray:
        """Distances between consecutive sorted support points (the last one 0)."""
        return np.append(np.diff(np.sort(self.positions, kind="stable")), 0.0)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """Cumulative sums of the rows over the sorted support: EMD is then the L1 distance
        weighted by ``gaps``, and a mean of histograms the mean of their cumulative rows."""
        order = np.argsort(self.positions, kind="stable")
        return np.ascontiguousarray(np.cumsum(np.asarray(x, dtype=np.float64)[:, order], axis=1))

    def from_cdf(self, cx: np.ndarray) -> np.ndarray:
        """Histograms (support in the given order) of cumulative rows."""
        order = np.argsort(self.positions, kind="stable")
        out = np.empty_like(cx)
        out[:, order] = np.diff(cx, axis=1, prepend=0.0)
        return out

    def _cdf(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.cdf(x), self.gaps

    def pairwise(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        cx, gaps = self._cdf(np.atleast_2d(x))
        cc, _ = self._cdf(np.atleast_2d(c))
        return emd_line_pairwise(cx, cc, gaps)

    def paired(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        cx, gaps = self._cdf(np.atleast_2d(x))
        cy, _ = self._cdf(np.atleast_2d(y))
        return (np.abs(cx - cy) * gaps).sum(axis=1)

    def ground(self, c: np.ndarray) -> np.ndarray:
        return self.pairwise(c, c)


@dataclass(frozen=True)
class EMDGround:
    """EMD under a ground matrix ``ground`` (d, d): symmetric, non-negative, zero diagonal."""

    matrix: np.ndarray

    def __post_init__(self):
        m = np.asarray(self.matrix, dtype=np.float64)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise ValueError(f"the ground must be a square matrix, got shape {m.shape}")
        object.__setattr__(self, "matrix", np.ascontiguousarray(m))

    def _one(self, p: np.ndarray, q: np.ndarray) -> float:
        sp, sq = p > 0, q > 0
        a, b = p[sp], q[sq]
        # POT loads scikit-learn (seconds): imported by the builds that use a general ground,
        # not at every CLI start-up. Its network simplex is called directly, without
        # ``ot.emd2``'s checks and backend dispatch (80% of a call on histograms of 25 bins):
        # the same inputs as ``ot.emd2`` gives it, so the same cost to the last bit
        # (tests/test_abstraction_emd_ochs.py compares the two)
        from ot.lp.emd_wrap import check_result, emd_c

        a = a / a.sum()  # normalise away rounding so both sides carry exactly the same mass
        b = b / b.sum()
        b = b * a.sum(0) / b.sum(0, keepdims=True)  # as ot.emd2 does
        _, cost, _, _, code = emd_c(a, b, self.matrix[np.ix_(sp, sq)], EMD_MAX_ITER, 1, None,
                                    None)
        check_result(code)  # a warning if the simplex stopped before the optimum, as ot.emd2
        return float(cost)

    def pairwise(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        x, c = np.atleast_2d(x), np.atleast_2d(c)
        out = np.empty((len(x), len(c)))
        self.where(x, c, np.ones(out.shape, dtype=bool), out)
        return out

    def where(self, x: np.ndarray, c: np.ndarray, need: np.ndarray, out: np.ndarray) -> None:
        """``out[i, j]`` = the distance of ``x[i]`` to ``c[j]`` wherever ``need[i, j]``."""
        for i, j in zip(*np.nonzero(need)):
            out[i, j] = self._one(x[i], c[j])

    def paired(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.array([self._one(p, q) for p, q in zip(np.atleast_2d(x), np.atleast_2d(y))])

    def ground(self, c: np.ndarray) -> np.ndarray:
        g = self.pairwise(c, c)
        return np.maximum((g + g.T) / 2.0, 0.0) * (1.0 - np.eye(len(g)))


@dataclass(frozen=True)
class Euclidean:
    """L2 distance (the ground above a round clustered by ordinary k-means)."""

    def pairwise(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        x, c = np.atleast_2d(x), np.atleast_2d(c)
        d2 = (x * x).sum(1)[:, None] - 2.0 * x @ c.T + (c * c).sum(1)[None, :]
        return np.sqrt(np.maximum(d2, 0.0))

    def paired(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.sqrt(((np.atleast_2d(x) - np.atleast_2d(y)) ** 2).sum(axis=1))

    def ground(self, c: np.ndarray) -> np.ndarray:
        g = self.pairwise(c, c)
        np.fill_diagonal(g, 0.0)
        return g


@dataclass(frozen=True)
class L1:
    """Manhattan distance (strategy vectors: ``abstraction.strategy_features``)."""

    def pairwise(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        from scipy.spatial.distance import cdist  # lazy: ~0.4 s at every CLI start-up

        # scipy's C loop: no (rows x dimension) temporary per centre (18x at 70 x 70 rows of
        # 1,600 actions, a Rhode Island turn parent of a strategy build)
        return cdist(np.atleast_2d(x), np.atleast_2d(c), "cityblock")  # in double precision

    def where(self, x: np.ndarray, c: np.ndarray, need: np.ndarray, out: np.ndarray) -> None:
        """``out[i, j]`` = the distance of ``x[i]`` to ``c[j]`` wherever ``need[i, j]``."""
        l1_where(_f64(x), _f64(c), need, out)

    def paired(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return l1_paired(_f64(x), _f64(y))

    def ground(self, c: np.ndarray) -> np.ndarray:
        return self.pairwise(c, c)


def _f64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.atleast_2d(a), dtype=np.float64)


def emd(p: np.ndarray, q: np.ndarray, ground: np.ndarray) -> float:
    """EMD between two histograms under a ground matrix (a convenience for one pair)."""
    return float(EMDGround(ground).pairwise(p[None, :], q[None, :])[0, 0])
