"""Exact sequence-form LP in rational arithmetic (``fractions.Fraction``).

The LP is the sequence-form program of Koller, Megiddo & von Stengel (1996) (see
:mod:`solve.algorithms.lp`): player 1 solves ``max q_0  s.t.  F'q - A'x <= 0,  E x = e,  x >= 0``, player
2 the mirror program. Two exact routes:

1. ``simplex``: a dense two-phase tableau simplex over the rationals with Bland's rule
   (Bland 1977, guarantees termination under degeneracy). For games with a few hundred
   sequences (the tableau has about ``n1 + n2 + 2 m`` columns; von Neumann poker with
   M = 30, 122 sequences, takes about 2 s).
2. ``certify``: solve the LP in floating point (HiGHS), then build exact candidates: (a)
   take each player's float vertex (dual simplex) and solve exactly (sympy sparse row
   reduction over the rationals) the equations that define it: zero off its support and
   every constraint that is tight in floating point (the vertex is the unique solution, so
   degenerate solutions are fine: Leduc, 674 sequences, in 0.2 s); (b) the
   complementary-slackness equations on the supports of a float equilibrium; (c) every
   behaviour probability rounded to a fraction with a bounded denominator. A candidate is
   accepted only if exact best responses (rational, bottom-up) prove it is an equilibrium:
   player 1's guaranteed value equals player 2's. When no candidate passes it reports
   failure, never a guess.

Either way the result is certified by exact best responses. :func:`solve_exact` returns
the realization plans as lists of Fractions and the value as a Fraction.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from solve.games.tree import SequenceForm
from solve.algorithms.lp import _solve_side
from solve.algorithms.treeplex import solve_lp

SIMPLEX_MAX_SEQUENCES = 300


class ExactLPError(RuntimeError):
    """The exact LP could not produce a certified equilibrium."""


def simplex_max(c: list, A_ub: list, b_ub: list, A_eq: list, b_eq: list) -> tuple[list, Fraction]:
    """Maximise ``c'z`` s.t. ``A_ub z <= b_ub``, ``A_eq z = b_eq``, ``z >= 0`` exactly.

    Dense rows of Fractions; ``b_ub, b_eq >= 0`` required. Two-phase tableau simplex with
    Bland's rule. Returns (z, objective).

    Raises:
        ExactLPError: infeasible or unbounded.
    """
    n = len(c)
    m_ub, m_eq = len(A_ub), len(A_eq)
    if any(b < 0 for b in b_ub) or any(b < 0 for b in b_eq):
        raise ValueError("right-hand sides must be non-negative")
    T, basis = _tableau(n, A_ub, b_ub, A_eq, b_eq)
    if m_eq:
        _phase_one(T, basis, n, m_ub, m_eq)
    obj = _phase_two_objective(T, basis, c, m_ub, m_eq)
    _pivot_to_optimum(T, basis, obj, n + m_ub)
    z = [Fraction(0)] * n
    for i, bcol in enumerate(basis):
        if bcol < n:
            z[bcol] = T[i][-1]
    return z, obj[-1]


def _tableau(n: int, A_ub: list, b_ub: list, A_eq: list, b_eq: list) -> tuple[list, list]:
    """The starting tableau and its basis. Columns: z (n), slacks (one per ``<=`` row),
    artificials (one per ``=`` row), then the right-hand side; the basis is the slack or
    artificial variable of each row."""
    m_ub, m_eq = len(A_ub), len(A_eq)
    T = []
    basis = []
    for i, (row, b) in enumerate(zip(A_ub, b_ub)):
        r = [Fraction(v) for v in row] + [Fraction(0)] * (m_ub + m_eq) + [Fraction(b)]
        r[n + i] = Fraction(1)
        T.append(r); basis.append(n + i)
    for i, (row, b) in enumerate(zip(A_eq, b_eq)):
        r = [Fraction(v) for v in row] + [Fraction(0)] * (m_ub + m_eq) + [Fraction(b)]
        r[n + m_ub + i] = Fraction(1)
        T.append(r); basis.append(n + m_ub + i)
    return T, basis


def _pivot_to_optimum(T: list, basis: list, obj: list, allowed: int) -> None:
    """Pivot ``T`` (in place, with ``basis`` and the reduced-cost row ``obj``) until no
    reduced cost among the first ``allowed`` columns is negative. ``obj`` is the row for
    "maximise obj'z" stored negated; Bland's rule picks the entering column (the first
    negative) and breaks ratio ties by the smallest basic variable.

    Raises:
        ExactLPError: the LP is unbounded.
    """
    zero = Fraction(0)
    while True:
        enter = -1
        for j in range(allowed):
            if obj[j] < 0:
                enter = j
                break
        if enter < 0:
            return
        leave, best = -1, None
        for i, r in enumerate(T):
            a = r[enter]
            if a > 0:
                ratio = r[-1] / a
                if best is None or ratio < best or (ratio == best and basis[i] < basis[leave]):
                    leave, best = i, ratio
        if leave < 0:
            raise ExactLPError("the LP is unbounded")
        pr = T[leave]
        piv = pr[enter]
        if piv != 1:
            inv = 1 / piv
            pr = [v * inv if v else zero for v in pr]
            T[leave] = pr
        nz = [j for j, v in enumerate(pr) if v]
        for i, r in enumerate(T):
            if i != leave:
                f = r[enter]
                if f:
                    for j in nz:
                        r[j] -= f * pr[j]
        f = obj[enter]
        for j in nz:
            obj[j] -= f * pr[j]
        basis[leave] = enter


def _phase_one(T: list, basis: list, n: int, m_ub: int, m_eq: int) -> None:
    """Phase 1: maximise minus the sum of the artificial variables (the columns from
    ``n + m_ub``), then drive those left in the basis (degenerate rows) out of it.

    Raises:
        ExactLPError: the LP is infeasible.
    """
    zero = Fraction(0)
    ncol = n + m_ub + m_eq
    obj = [zero] * (ncol + 1)
    for j in range(n + m_ub, ncol):
        obj[j] = Fraction(1)
    for i in range(m_ub, m_ub + m_eq):
        for j in range(ncol + 1):
            obj[j] -= T[i][j]
    _pivot_to_optimum(T, basis, obj, ncol)
    if obj[-1] != 0:
        raise ExactLPError("the LP is infeasible")
    for i in range(len(T)):
        if basis[i] >= n + m_ub:
            _pivot_out_artificial(T, basis, i, n + m_ub)


def _pivot_out_artificial(T: list, basis: list, i: int, n_real: int) -> None:
    """Replace the artificial variable basic in row ``i`` by the first of the ``n_real``
    original and slack columns that is non-zero in that row (none: the row stays)."""
    for j in range(n_real):
        if T[i][j] != 0:
            pr = T[i]
            inv = 1 / pr[j]
            pr = [v * inv for v in pr]
            T[i] = pr
            for k, r in enumerate(T):
                if k != i and r[j]:
                    f = r[j]
                    T[k] = [a - f * b for a, b in zip(r, pr)]
            basis[i] = j
            return


def _phase_two_objective(T: list, basis: list, c: list, m_ub: int, m_eq: int) -> list:
    """The reduced-cost row of "maximise c'z" for the basis phase 1 left (phase 2 runs over
    the original and slack columns only).

    Raises:
        ExactLPError: an artificial variable is still basic at a non-zero value.
    """
    n = len(c)
    obj = [Fraction(0)] * (n + m_ub + m_eq + 1)
    for j in range(n):
        obj[j] = -Fraction(c[j])
    for i, bcol in enumerate(basis):
        if bcol < n and c[bcol]:
            f = obj[bcol]
            obj = [a - f * b for a, b in zip(obj, T[i])]
    for i, bcol in enumerate(basis):  # artificial columns stay out of phase 2
        if bcol >= n + m_ub and T[i][-1] != 0:
            raise ExactLPError("artificial variable left in the basis")
    return obj


def _side(entries: dict, n_own: int, n_opp: int, own_cons, opp_cons, sign: int):
    """Player LP: max q_0 s.t. opp'q - M'x <= 0, own x = e; M = A (sign 1) or -A' (sign -1)."""
    m_opp = opp_cons.shape[0]
    # variables: x (n_own), q+ (m_opp), q- (m_opp)
    nv = n_own + 2 * m_opp
    rows = [[Fraction(0)] * nv for _ in range(n_opp)]
    for (i, j), v in entries.items():
        r, col = (j, i) if sign == 1 else (i, j)  # constraint row is the opponent's sequence
        rows[r][col] -= v if sign == 1 else -v
    oc = opp_cons.tocoo()
    for r, s, v in zip(oc.row, oc.col, oc.data):  # (opp')q: row = opp sequence s, var q_r
        rows[s][n_own + r] += Fraction(int(v))
        rows[s][n_own + m_opp + r] -= Fraction(int(v))
    ec = own_cons.tocoo()
    eq = [[Fraction(0)] * nv for _ in range(own_cons.shape[0])]
    for r, s, v in zip(ec.row, ec.col, ec.data):
        eq[r][s] += Fraction(int(v))
    b_eq = [Fraction(1)] + [Fraction(0)] * (own_cons.shape[0] - 1)
    c = [Fraction(0)] * nv
    c[n_own] = Fraction(1)
    c[n_own + m_opp] = Fraction(-1)
    z, obj = simplex_max(c, rows, [Fraction(0)] * n_opp, eq, b_eq)
    return z[:n_own], obj


def exact_values(sf: SequenceForm, entries: dict, x: list, y: list) -> tuple[Fraction, Fraction]:
    """(max_x' x'Ay, min_y' x'Ay') exactly, by rational best responses."""
    g1 = [Fraction(0)] * sf.n_seq[0]
    g2 = [Fraction(0)] * sf.n_seq[1]
    for (i, j), v in entries.items():
        if y[j]:
            g1[i] += v * y[j]
        if x[i]:
            g2[j] -= v * x[i]
    return _br(g1, sf, 0), -_br(g2, sf, 1)


def _br(g: list, sf: SequenceForm, p: int) -> Fraction:
    V = list(g)
    parent, offset, nact = sf.parent[p], sf.offset[p], sf.nact[p]
    for I in range(len(parent) - 1, -1, -1):
        o = int(offset[I])
        V[int(parent[I])] += max(V[o:o + int(nact[I])])
    return V[0]


def _round_plan(sf: SequenceForm, p: int, x: np.ndarray, max_den: int) -> list:
    out = [Fraction(0)] * sf.n_seq[p]
    out[0] = Fraction(1)
    for I in range(len(sf.parent[p])):
        xp = out[int(sf.parent[p][I])]
        o, k = int(sf.offset[p][I]), int(sf.nact[p][I])
        fp = float(x[int(sf.parent[p][I])])
        if fp <= 1e-12:
            probs = [Fraction(1, k)] * k  # own plan never reaches I: any completion works
        else:
            probs = [Fraction(max(float(x[o + a]), 0.0) / fp).limit_denominator(max_den) for a in range(k)]
            s = sum(probs)
            if s == 0:
                probs = [Fraction(1, k)] * k
            else:
                probs = [v / s for v in probs]
        for a in range(k):
            out[o + a] = xp * probs[a]
    return out


def _float_vertex(sf: SequenceForm, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Player ``p``'s LP (:func:`_side`'s program) in floating point by HiGHS dual simplex,
    so the solution is a vertex: (own plan, slack of each opponent-sequence constraint)."""
    M = sf.A if p == 0 else -sf.A.T.tocsr()
    try:
        x, _, slack = _solve_side(M, sf.constraints(p), sf.constraints(1 - p), method="highs-ds",
                                  slack=True)
    except RuntimeError as exc:
        raise ExactLPError(str(exc)) from None
    return x, slack


def _support_plan(sf: SequenceForm, ent: dict, p: int, S_own: np.ndarray, rows_opp: np.ndarray,
                  float_own: np.ndarray | None = None):
    """Player ``p``'s plan solving exactly (sympy sparse rref over QQ) the equations ``own x =
    e`` with ``x`` zero off the sequences ``S_own``, and the constraints of the opponent
    sequences ``rows_opp`` tight: ``(opp' q - M' x)_j = 0`` (``M = A`` for p = 0, ``-A'`` for
    p = 1; ``q`` free). Two choices of equations: the supports of a float equilibrium
    (complementary slackness), or the tight set of a float vertex (whose solution is then
    unique). Free variables are 0 or (``float_own``) the float values as small fractions.
    None if the equations are inconsistent. Candidates only: :func:`solve_exact` certifies."""
    from sympy import QQ
    from sympy.polys.matrices.sdm import SDM

    own_cons = sf.constraints(p); opp_cons = sf.constraints(1-p)
    col = {int(s): k for k, s in enumerate(S_own)}
    m_opp = opp_cons.shape[0]; nu = len(S_own) + m_opp
    r = 0
    ec = own_cons.tocoo()
    eq = {}
    for i, s, v in zip(ec.row, ec.col, ec.data):
        if int(s) in col: eq.setdefault(int(i), {})[col[int(s)]] = QQ(int(v))
    rhs = {}
    M = {}
    for i in range(own_cons.shape[0]):
        M[r] = eq.get(i, {}); rhs[r] = QQ(1) if i == 0 else QQ(0); r += 1
    jrow = {int(j): r + k for k, j in enumerate(rows_opp)}
    for j in rows_opp: M[jrow[int(j)]] = {}; rhs[jrow[int(j)]] = QQ(0)
    r += len(rows_opp)
    oc = opp_cons.tocoo()
    for i, s, v in zip(oc.row, oc.col, oc.data):
        if int(s) in jrow: M[jrow[int(s)]][len(S_own) + int(i)] = M[jrow[int(s)]].get(len(S_own)+int(i), QQ(0)) + QQ(int(v))
    for (i, j), v in ent.items():
        own_s, opp_s = (i, j) if p == 0 else (j, i)
        val = v if p == 0 else -v
        if own_s in col and opp_s in jrow:
            d = M[jrow[opp_s]]
            d[col[own_s]] = d.get(col[own_s], QQ(0)) - QQ(val.numerator, val.denominator)
    # augmented matrix
    aug = {k: dict(v) for k, v in M.items()}
    for k in aug:
        if rhs[k] != 0: aug[k][nu] = rhs[k]
    aug = {k: {c: v for c, v in row.items() if v != 0} for k, row in aug.items()}
    sdm = SDM({k: v for k, v in aug.items() if v}, (r, nu + 1), QQ)
    R, pivots = sdm.rref()
    if nu in pivots: return None
    sol = [Fraction(0)] * nu
    inv_col = {k: s for s, k in col.items()}
    piv = set(pivots)
    for f in range(nu):
        if float_own is not None and f not in piv and f in inv_col:
            sol[f] = Fraction(float(float_own[inv_col[f]])).limit_denominator(10 ** 6)
    for k, pc in enumerate(pivots):
        row = R.get(k, {})
        v = row.get(nu, QQ(0))
        val = Fraction(int(v.numerator), int(v.denominator))
        for f, coef in row.items():
            if f != nu and f != pc and sol[f]:
                val -= Fraction(int(coef.numerator), int(coef.denominator)) * sol[f]
        sol[pc] = val
    plan = [Fraction(0)] * sf.n_seq[p]
    for s, k in col.items(): plan[s] = sol[k]
    return plan


def solve_exact(sf: SequenceForm, method: str = "auto") -> tuple[list, list, Fraction, str]:
    """Exact equilibrium plans ``(x, y)`` (Fractions) and value of ``sf``; see module docstring.

    Args:
        method: "simplex", "certify" or "auto" (simplex if at most
            ``SIMPLEX_MAX_SEQUENCES`` sequences in all, otherwise certify).

    Returns:
        (x, y, value, method used).

    Raises:
        ExactLPError: no certified equilibrium (certify route with large denominators).
    """
    if method not in ("auto", "simplex", "certify"):
        raise ValueError(f"method must be auto, simplex or certify, got {method!r}")
    entries = sf.exact_entries()
    if method == "auto":
        method = "simplex" if sum(sf.n_seq) <= SIMPLEX_MAX_SEQUENCES else "certify"
    if method == "simplex":
        E, F = sf.constraints(0), sf.constraints(1)
        x, v1 = _side(entries, sf.n_seq[0], sf.n_seq[1], E, F, 1)
        y, v2 = _side(entries, sf.n_seq[1], sf.n_seq[0], F, E, -1)
        hi, lo = exact_values(sf, entries, x, y)
        if not (hi == lo == v1 == -v2):
            raise ExactLPError(f"simplex result failed certification ({hi} vs {lo})")
        return x, y, v1, method

    def certified(x, y):
        if x is None or y is None or min(x) < 0 or min(y) < 0:
            return None
        hi, lo = exact_values(sf, entries, x, y)
        return hi if hi == lo else None

    tol = 1e-9
    # (a) the equations defining each player's float vertex
    plans = []
    for p in (0, 1):
        plan, slack = _float_vertex(sf, p)
        plans.append(_support_plan(sf, entries, p, np.flatnonzero(plan > tol),
                                   np.flatnonzero(np.abs(slack) <= tol)))
    v = certified(*plans)
    if v is not None:
        return plans[0], plans[1], v, method
    # (b) complementary slackness on the supports of a float equilibrium
    xf, yf, _ = solve_lp(sf)
    for from_float in (False, True):
        x = _support_plan(sf, entries, 0, np.flatnonzero(xf > tol), np.flatnonzero(yf > tol),
                          xf if from_float else None)
        y = _support_plan(sf, entries, 1, np.flatnonzero(yf > tol), np.flatnonzero(xf > tol),
                          yf if from_float else None)
        v = certified(x, y)
        if v is not None:
            return x, y, v, method
    # (c) behaviour probabilities rounded to bounded denominators
    for max_den in (10, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6):
        x, y = _round_plan(sf, 0, xf, max_den), _round_plan(sf, 1, yf, max_den)
        v = certified(x, y)
        if v is not None:
            return x, y, v, method
    raise ExactLPError("no exact candidate from the HiGHS solution could be certified; the "
                       "exact LP (in rational arithmetic) needs a smaller game")
