"""Excessive gap technique (Nesterov 2005, "Excessive gap technique in nonsmooth convex
minimization"; for sequential games Hoda, Gilpin, Pena & Sandholm 2010, "Smoothing
techniques for computing Nash equilibria of sequential games", Math. Oper. Res. 35(2)).

Player 1 maximises and player 2 minimises ``x'Ay`` over their treeplexes ``X``, ``Y``
(sequence form, :mod:`solve.games.tree`). With prox functions ``d1, d2`` (dilated entropy:
``d(x) = sum_I beta_I x_p(I) sum_a q_Ia log q_Ia`` with the behaviour ``q``, shifted so that
its minimum over the treeplex is 0) the smoothed functions are

    phi_mu1(y) = max_x  x'Ay - mu1 d1(x)     f_mu2(x) = min_y  x'Ay + mu2 d2(y)

and the *excessive gap condition* (EGC) is ``f_mu2(x) >= phi_mu1(y)``; it implies
``max_x x'Ay - min_y x'Ay <= mu1 D1 + mu2 D2``. Each step shrinks one ``mu`` by a factor
``1 - tau`` with the ``shrink`` update (Hoda et al. 2010, Algorithm "shrink") and keeps the
EGC. Both smoothed best responses and the Bregman prox step are closed form, bottom-up over
the treeplex (log-sum-exp per infoset).

Heuristics (the step-size and balancing heuristics of Hoda et al. 2010; Gilpin, Pena &
Sandholm 2008, "First-order algorithm with O(ln(1/eps)) convergence..." for the decrease idea):

- *decrease* (aggressive step size): start with a large ``tau`` and keep it while steps
  keep the EGC; when a step would violate it, halve ``tau`` and redo the step.
- *balancing*: shrink the larger of ``mu1`` and ``mu2`` (keeps ``mu1 ~ mu2``).

Initial ``mu1 = mu2`` is doubled until the EGC holds at the initial point (instead of the
bound ``||A|| / sqrt(sigma1 sigma2)``, which needs the strong convexity moduli).
"""

from __future__ import annotations

import numpy as np

from solve.algorithms import _treeplex_kernels as K
from solve.games.tree import SequenceForm


class _Prox:
    """Dilated entropy on one player's treeplex (unit infoset weights)."""

    def __init__(self, sf: SequenceForm, p: int):
        self.parent, self.offset, self.nact = sf.parent[p], sf.offset[p], sf.nact[p]
        n = sf.n_seq[p]
        self.n = n
        self.beta = np.ones(len(self.parent))
        self.beta_seq = np.zeros(n)
        self.child_beta = np.zeros(n)
        for I in range(len(self.parent)):
            self.beta_seq[self.offset[I]:self.offset[I] + self.nact[I]] = self.beta[I]
        np.add.at(self.child_beta, self.parent, self.beta)
        self.child_beta[0] = 0.0
        self.q = np.zeros(n)
        self.x = np.zeros(n)
        v0 = self.smoothed(np.zeros(n), 1.0)[2]
        self.d_min = -v0  # min of the unshifted d over the treeplex

    def smoothed(self, g: np.ndarray, mu: float):
        """(x, q, max_x g'x - mu d(x)) with the *unshifted* d."""
        q = np.zeros(self.n)
        x = np.zeros(self.n)
        v = K.smoothed_br(np.ascontiguousarray(g, dtype=np.float64), float(mu), self.beta, self.parent,
                          self.offset, self.nact, q, x)
        return x, q, v

    def smoothed_shifted(self, g: np.ndarray, mu: float):
        """(x, q, max_x g'x - mu (d(x) - d_min))."""
        x, q, v = self.smoothed(g, mu)
        return x, q, v + mu * self.d_min

    def gradient(self, q: np.ndarray) -> np.ndarray:
        """Gradient of d at the plan of behaviour ``q`` (interior; entry 0 unused)."""
        g = self.beta_seq * (np.log(np.maximum(q, 1e-300)) + 1.0) - self.child_beta
        g[0] = 0.0
        return g

    def prox(self, q_center: np.ndarray, g: np.ndarray):
        """argmax_x g'x - D(x, center) (Bregman divergence of d); returns (x, q)."""
        x, q, _ = self.smoothed(g + self.gradient(q_center), 1.0)
        return x, q


class EGTSolver:
    """Excessive gap technique on a sequence form (see module docstring).

    Attributes: ``x``, ``y`` (realization plans), ``mu`` ([mu1, mu2]), ``tau``, ``iteration``
    (accepted steps), ``rejected`` (steps redone with a smaller tau).
    """

    def __init__(self, sf: SequenceForm, tau0: float = 0.5, mu0: float | None = None,
                 balancing: bool = True, decrease: bool = True):
        if not 0.0 < tau0 < 1.0:
            raise ValueError("tau0 must be in (0, 1)")
        self.sf = sf
        self.A, self.At = sf.A, sf.A.T.tocsr()
        self.P = (_Prox(sf, 0), _Prox(sf, 1))
        self.balancing, self.decrease = balancing, decrease
        self.tau = tau0
        self.iteration = 0
        self.rejected = 0
        mu = float(mu0) if mu0 is not None else max(float(abs(sf.A).max()) if sf.A.nnz else 1.0, 1e-12)
        for _ in range(200):
            self.mu = [mu, mu]
            self._initial()
            if self.excessive_gap() >= -self._tol():
                break
            mu *= 2.0
        else:
            raise RuntimeError("could not satisfy the excessive gap condition initially")

    def _tol(self) -> float:
        return 1e-9 * max(1.0, abs(self.mu[0]) + abs(self.mu[1]))

    def _initial(self) -> None:
        P1, P2 = self.P
        xc, qc, _ = P1.smoothed(np.zeros(P1.n), 1.0)  # prox centre of d1
        # y0 = argmin_y xc'Ay + mu2 d2(y) ; x0 = prox from xc with step A y0 / mu1
        self.y, self.qy, _ = P2.smoothed(-(self.At @ xc), self.mu[1])
        self.x, self.qx = P1.prox(qc, (self.A @ self.y) / self.mu[0])

    # ---- the two smoothed functions
    def phi(self, y=None) -> float:
        """phi_mu1(y) = max_x x'Ay - mu1 d1(x) (d1 shifted to minimum 0)."""
        y = self.y if y is None else y
        return self.P[0].smoothed_shifted(self.A @ y, self.mu[0])[2]

    def f(self, x=None) -> float:
        """f_mu2(x) = min_y x'Ay + mu2 d2(y)."""
        x = self.x if x is None else x
        return -self.P[1].smoothed_shifted(-(self.At @ x), self.mu[1])[2]

    def excessive_gap(self) -> float:
        """f_mu2(x) - phi_mu1(y): non-negative while the EGC holds."""
        return self.f() - self.phi()

    # ---- one step
    def _shrink(self, who: int, tau: float):
        """Hoda et al. (2010) shrink for player ``who``'s mu; returns (x, qx, y, qy, mu)."""
        P1, P2 = self.P
        mu1, mu2 = self.mu
        if who == 0:
            xb, qb, _ = P1.smoothed(self.A @ self.y, mu1)                  # x breve
            xh = (1 - tau) * self.x + tau * xb                              # x hat
            yh, qyh, _ = P2.smoothed(-(self.At @ xh), mu2)                 # y hat = BR_mu2(x hat)
            xt, _ = P1.prox(qb, (tau / ((1 - tau) * mu1)) * (self.A @ yh))  # x tilde
            x = (1 - tau) * self.x + tau * xt
            y = (1 - tau) * self.y + tau * yh
            return x, y, [(1 - tau) * mu1, mu2]
        yb, qb, _ = P2.smoothed(-(self.At @ self.x), mu2)
        yh_ = (1 - tau) * self.y + tau * yb
        xh, _, _ = P1.smoothed(self.A @ yh_, mu1)
        yt, _ = P2.prox(qb, -(tau / ((1 - tau) * mu2)) * (self.At @ xh))
        y = (1 - tau) * self.y + tau * yt
        x = (1 - tau) * self.x + tau * xh
        return x, y, [mu1, (1 - tau) * mu2]

    def step(self) -> "EGTSolver":
        """One accepted step (EGC verified; with *decrease*, tau halves until it holds)."""
        if self.balancing:
            who = 0 if self.mu[0] >= self.mu[1] else 1
        else:
            who = self.iteration % 2
        tau = self.tau if self.decrease else 2.0 / (self.iteration + 3)
        old = (self.x, self.y, list(self.mu))
        for _ in range(60):
            x, y, mu = self._shrink(who, tau)
            self.x, self.y, self.mu = x, y, mu
            if self.excessive_gap() >= -self._tol():
                break
            self.x, self.y, self.mu = old[0], old[1], list(old[2])
            self.rejected += 1
            tau *= 0.5
        else:
            raise RuntimeError("EGT step could not keep the excessive gap condition")
        if self.decrease:
            self.tau = tau
        self.iteration += 1
        return self

    @property
    def iteration_(self) -> int:
        """Iterations run, under the name every solver of ``solve.loop`` uses."""
        return self.iteration

    def iterate(self, n: int = 1) -> "EGTSolver":
        for _ in range(int(n)):
            self.step()
        return self

    def average(self) -> tuple[np.ndarray, np.ndarray]:
        """The current iterates (EGT's output is (x, y) itself, not an average)."""
        return self.x, self.y
