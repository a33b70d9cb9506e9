"""Leduc card abstractions shared by the tests (a helper module, not a test file).

Bucket functions ``(round, hands, board) -> bucket`` for ``solve.abstractions.FunctionAbstraction``
(Leduc cards: ``card // 2`` is the rank J, Q, K) and the game value of Leduc Hold'em.
"""

import numpy as np

LEDUC_VALUE = -0.0856064240780


def leduc_lossless(r, hands, board):
    """Rank, then rank and board rank: the real game's information."""
    rank = hands[:, 0] // 2
    return rank if r == 0 else rank * 3 + board[0] // 2


def leduc_coarse(r, hands, board):
    """J | Q or K, then refined by "paired"."""
    rank = hands[:, 0] // 2
    if r == 0:
        return np.minimum(rank, 1)
    return np.minimum(rank, 1) * 2 + (rank == board[0] // 2)
