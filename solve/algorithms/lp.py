"""Sequence-form linear program (Koller, Megiddo & von Stengel 1996; von Stengel 1996).

For payoff matrix ``A`` (player 1 sequences x player 2 sequences, chance folded in) and
sequence constraints ``E x = e``, ``F y = f``, player 1 solves
``max f'q  s.t.  F'q <= A'x,  E x = e,  x >= 0`` (the dual of player 2's best response),
and player 2 the mirror problem. Solved with HiGHS through ``scipy.optimize.linprog``.
The matrices are built from the compiled game (optionally abstracted: then the result is
an equilibrium of the abstract game).
"""

from __future__ import annotations

import numpy as np

from solve.algorithms import _kernels as K
from solve.games.compile import CompiledGame
from solve.strategy import Strategy

REACH_TOL = 1e-12  # sequence weights at or below this are taken as 0 (also solve/tree_run.py)


def sequence_form(game: CompiledGame):
    """(A, E, F, seq_offset, parent_seq, n_seq) of the sequence form; see module docstring."""
    import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
    n_inf = game.n_infosets
    seq_offset = np.zeros(n_inf, dtype=np.int64)
    n_seq = [1, 1]
    for I in range(n_inf):
        p = game.info_player[I]
        seq_offset[I] = n_seq[p]
        n_seq[p] += int(game.info_nact[I])
    parent = np.full(n_inf, -1, dtype=np.int64)
    last = np.empty((len(game.ntype), 2, game.n_hands), dtype=np.int64)
    ok = K.last_sequences(game.ntype, game.nplayer, game.child_start, game.child_count, game.children,
                          game.dslot, game.info, seq_offset, last, parent)
    if not ok:
        raise ValueError("the abstraction does not have perfect recall; no sequence form")
    term = np.flatnonzero(game.ntype >= K.FOLD)
    hist = np.array(game.history, dtype=object)[term]
    _, group = np.unique(hist, return_inverse=True)
    srt = np.argsort(group, kind="stable")
    term = term[srt].astype(np.int64)
    group_start = np.searchsorted(group[srt], np.arange(group.max() + 2)).astype(np.int64)
    rows, cols, vals = K.payoff_entries(term, group_start, game.ntype, game.nboard, game.board_valid,
                                        game.hands, game.strength, game.cw, game.contrib,
                                        game.nplayer, last, n_seq[0], n_seq[1])
    A = sp.coo_matrix((vals, (rows, cols)), shape=(n_seq[0], n_seq[1])).tocsr()
    cons = []
    for p in (0, 1):
        mine = np.flatnonzero(game.info_player == p)
        r, c, v = [0], [0], [1.0]
        for j, I in enumerate(mine, start=1):
            r.append(j); c.append(parent[I]); v.append(-1.0)
            for a in range(game.info_nact[I]):
                r.append(j); c.append(seq_offset[I] + a); v.append(1.0)
        cons.append(sp.coo_matrix((v, (r, c)), shape=(len(mine) + 1, n_seq[p])).tocsr())
    return A, cons[0], cons[1], seq_offset, parent, n_seq


def _solve_side(M, own, opp, method: str = "highs", slack: bool = False):
    """max f'q s.t. opp'q - M'x <= 0, own x = e, x >= 0 ; returns (x, value), and the slack
    of each opponent-sequence constraint too when ``slack`` (``method="highs-ds"``, dual
    simplex, gives a vertex: ``solve.algorithms.lp_exact`` certifies from it)."""
    from scipy.optimize import linprog  # lazy: ~0.4 s at every CLI start-up
    import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
    n_own = own.shape[1]
    m_opp = opp.shape[0]
    c = np.zeros(n_own + m_opp)
    c[n_own] = -1.0
    A_ub = sp.hstack([-M.T, opp.T]).tocsr()
    A_eq = sp.hstack([own, sp.csr_matrix((own.shape[0], m_opp))]).tocsr()
    b_eq = np.zeros(own.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n_own + [(None, None)] * m_opp
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq, b_eq=b_eq, bounds=bounds,
                  method=method, options={"primal_feasibility_tolerance": 1e-10,
                                          "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed: {res.message}")
    if slack:
        return res.x[:n_own], -res.fun, -(A_ub @ res.x)
    return res.x[:n_own], -res.fun


#: Sequences (both players) above which ``solve_lp`` uses HiGHS's interior point method.
LARGE_LP = 20_000


def solve_lp(game: CompiledGame) -> tuple[Strategy, float]:
    """Exact equilibrium of ``game`` (abstract game if abstracted) and its value for player 1.

    Returns:
        (strategy profile, game value in chips for player 1). Infosets whose own sequence
        weight is 0 are flagged in ``Strategy.reached`` (their behaviour is the uniform default).
    """
    A, E, F, seq_offset, parent, n_seq = sequence_form(game)
    # HiGHS's default (simplex) ran over 25 minutes on one side of abstracted Rhode Island
    # Hold'em (45,491 sequences per player, 2.8 M nonzeros); its interior point method with
    # crossover solves each side in about 5 minutes, to the same value on both sides (1e-12).
    method = "highs-ipm" if A.shape[0] + A.shape[1] > LARGE_LP else "highs"
    x, v1 = _solve_side(A, E, F, method=method)
    y, v2 = _solve_side(-A.T.tocsr(), F, E, method=method)
    weights = np.zeros((game.n_infosets, 3))
    own = np.zeros(game.n_infosets)  # the acting player's own sequence weight into each infoset
    for I in range(game.n_infosets):
        seqs = x if game.info_player[I] == 0 else y
        own[I] = seqs[parent[I]]
        for a in range(game.info_nact[I]):
            weights[I, a] = max(seqs[seq_offset[I] + a], 0.0)
    # never reached by the player's own plan: behaviour undefined (flagged; uniform default)
    reached = own > REACH_TOL
    # the weight the behaviour was made from: the own reach of the plan (schema.strategy),
    # 0 where flagged (numerical dust below REACH_TOL is no training)
    return (Strategy.from_weights(game, weights, reached, np.where(reached, own, 0.0)),
            float(0.5 * (v1 - v2)))
