"""Exact head-to-head of every pair of many strategies at the cost of a few passes each.

The expected value of a profile is bilinear: the public tree's ``MODE_EV`` pass
(``_kernels.backward``) is linear in the terminal values, which are linear in player 2's
reach, so player 1's expected value is ``EV(x, y) = <W_x, T_y>`` with ``W_x`` the weights the
pass gives each (terminal, hand) when player 1 plays ``x`` (its action probabilities, chance
scales and suit permutations; :func:`_pairwise_kernels.player0_weights`) and ``T_y`` the
terminal values against player 2 playing ``y``. The matrix ``EV[i, j]`` of n strategies then
costs n weight passes, n terminal passes and one matrix product, instead of the n(n-1) full
passes of :func:`solve.algorithms.evaluate.head_to_head` pair by pair (the sequence-form
payoff matrix ``x' A y`` of Koller, Megiddo & von Stengel 1996, applied over the public tree).
Exact: the same float64 arithmetic as the pairwise pass, in another order.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from solve.algorithms import _kernels as K
from solve.algorithms import _pairwise_kernels as PK
from solve.games.compile import CompiledGame

#: default memory for the terminal values held at once (bytes)
MEMORY_BYTES = 2 << 30


def _terminals(game: CompiledGame) -> np.ndarray:
    return np.flatnonzero((game.ntype == K.FOLD) | (game.ntype == K.SHOWDOWN)).astype(np.int64)


def _weights(game: CompiledGame, beh: np.ndarray, term: np.ndarray, full: np.ndarray) -> np.ndarray:
    PK.player0_weights(game.ntype, game.nplayer, game.child_start, game.child_count, game.children,
                       game.edge_scale, game.edge_perm_start, game.edge_perm_count, game.perm_inv,
                       game.dslot, beh, full)
    return full[term]


def _values(game: CompiledGame, beh: np.ndarray, term: np.ndarray, out: np.ndarray) -> None:
    reach = np.empty((len(game.ntype), 2, game.n_hands))
    K.forward(game.ntype, game.nplayer, game.nboard, game.child_start, game.child_count,
              game.children, game.dslot, game.board_valid, beh, beh, reach)
    PK.terminal_values(term, game.ntype, game.nplayer, game.nboard, game.contrib, game.cw, reach,
                       game.hands, game.board_valid, game.order, game.order_start, game.order_len,
                       game.strength, game.rules.n_cards, out)


def expected_value_matrix(game: CompiledGame, behaviour: Callable[[int], np.ndarray], n: int,
                          memory_bytes: int = MEMORY_BYTES,
                          progress=None) -> np.ndarray:
    """``EV[i, j]``: chips won by player 1 (index 0) playing ``behaviour(i)`` against player 2
    playing ``behaviour(j)``, exactly, for every i, j < n (the diagonal is each strategy's
    value, :func:`solve.algorithms.evaluate.expected_value`).

    Args:
        game: the compiled real game the (D, 3, H) behaviour arrays are for.
        behaviour: loads strategy i's behaviour array (called about n * (1 + blocks) times,
            so it should be cheap or cached by the caller).
        n: how many strategies.
        memory_bytes: the terminal values held at once: the columns go in blocks of that
            size, and each block costs one weight pass per row.
        progress: a tqdm-like bar: its ``total`` is set to the number of passes (one per
            column, one per row and block) and it is ``update``d after each.
    """
    if n < 0:
        raise ValueError("n must be at least 0")
    term = _terminals(game)
    H = game.n_hands
    per = max(1, len(term) * H * 8)
    block = max(1, min(n, int(memory_bytes) // per))
    ev = np.zeros((n, n))
    if progress is not None:
        progress.total = n + n * -(-n // block)
    full = np.empty((len(game.ntype), H))
    for j0 in range(0, n, block):
        cols = range(j0, min(n, j0 + block))
        values = np.empty((len(cols), len(term), H))
        for k, j in enumerate(cols):
            _values(game, behaviour(j), term, values[k])
            if progress is not None:
                progress.update(1)
        flat = values.reshape(len(cols), -1)
        for i in range(n):
            w = _weights(game, behaviour(i), term, full)
            ev[i, j0:j0 + len(cols)] = flat @ w.ravel()
            if progress is not None:
                progress.update(1)
    return ev


def head_to_head_matrix(ev: np.ndarray) -> np.ndarray:
    """``M[i, j]`` = :func:`solve.algorithms.evaluate.head_to_head` of i against j, chips per
    game with seats alternated: ``(EV[i, j] - EV[j, i]) / 2``."""
    ev = np.asarray(ev)
    return 0.5 * (ev - ev.T)


def head_to_head_all(game: CompiledGame, behaviours: Sequence[np.ndarray],
                     memory_bytes: int = MEMORY_BYTES) -> np.ndarray:
    """:func:`head_to_head_matrix` of in-memory behaviour arrays."""
    return head_to_head_matrix(expected_value_matrix(game, lambda i: behaviours[i],
                                                     len(behaviours), memory_bytes))
