"""Exact evaluation: expected value, best response, exploitability (docs/design.md section 6).

Best response fixes one player's behaviour strategy and solves the other's single-agent
problem bottom-up over the compiled public tree, vectorised over private hands with
sorted-strength terminal evaluation (Johanson et al. 2011, "Accelerating best response
calculation in large extensive games"). Exploitability is the mean of the two players'
best-response gains, in chips: ``(BR_1(y) + BR_2(x)) / 2`` for a zero-sum game, the same
quantity as OpenSpiel's ``exploitability`` (``nash_conv / 2``).

Strategies of an abstracted game are evaluated in the real game: the public tree is the
same, and the best responder chooses per real information set (node, hand).
"""

from __future__ import annotations

import numpy as np

from solve.algorithms import _kernels as K
from solve.games.compile import CompiledGame
from solve.strategy import Strategy


def _levels(game: CompiledGame) -> tuple[np.ndarray, np.ndarray]:
    cached = getattr(game, "_levels_cache", None)
    if cached is not None:
        return cached
    depth = _depths(game.child_start, game.child_count, game.children)
    order = np.argsort(depth, kind="stable").astype(np.int32)
    start = np.searchsorted(depth[order], np.arange(depth.max() + 2)).astype(np.int64)
    game._levels_cache = (order, start)
    return order, start


def _depths(child_start: np.ndarray, child_count: np.ndarray, children: np.ndarray) -> np.ndarray:
    """Depth of every node below the root (node 0), one level of the tree at a time."""
    count = np.asarray(child_count, dtype=np.int64)
    first = np.repeat(np.asarray(child_start, dtype=np.int64) - np.cumsum(count) + count, count)
    parent = np.zeros(len(count), dtype=np.int64)
    parent[children[first + np.arange(len(first))]] = np.repeat(np.arange(len(count)), count)
    depth = np.zeros(len(count), dtype=np.int64)
    level = np.zeros(len(count), dtype=bool)
    level[0] = True
    d = 0
    while level.any():  # the nodes whose parent is on the current level
        d += 1
        level = level[parent]
        level[0] = False
        depth[level] = d
    return depth


def _behaviour(game: CompiledGame, s) -> np.ndarray:
    if isinstance(s, Strategy):
        if not _same_tree(s.game, game):
            raise ValueError("strategy was computed for a different game")
        return s.behaviour()
    return np.asarray(s)


def _same_tree(a: CompiledGame, b: CompiledGame) -> bool:
    return a is b or (a.rules == b.rules and len(a.ntype) == len(b.ntype) and a.n_hands == b.n_hands
                      and len(a.board_cards) == len(b.board_cards))


def _reach(game: CompiledGame, beh0: np.ndarray, beh1: np.ndarray) -> np.ndarray:
    reach = np.empty((len(game.ntype), 2, game.n_hands))
    K.forward(game.ntype, game.nplayer, game.nboard, game.child_start, game.child_count,
              game.children, game.dslot, game.board_valid, beh0, beh1, reach)
    return reach


def _sweep(game: CompiledGame, mode: int, player: int, strat: np.ndarray, reach: np.ndarray,
           value: np.ndarray) -> float:
    """One bottom-up ``backward`` sweep without accumulating regrets (``MODE_BR``: ``player``
    best-responds per node and hand, ``strat`` unused; ``MODE_EV``: ``player`` plays
    ``strat``); ``player``'s value summed over hands at the root."""
    dummy = np.zeros((1, 3))
    return float(K.backward(
        mode, player, game.ntype, game.nplayer, game.nboard, game.child_start, game.child_count,
        game.children, game.edge_scale, game.edge_perm_start, game.edge_perm_count, game.perm_inv,
        game.cw, game.contrib, game.dslot, game.board_valid, game.hands, game.strength,
        game.order_start, game.order_len, game.order, game.info, strat, reach, value, dummy, dummy,
        game.rules.n_cards))


def best_response_value(game: CompiledGame, strategy, player: int, abstract: bool = False) -> float:
    """Value to ``player`` of a best response against the other player's part of ``strategy``.

    Args:
        game: compiled game (its public tree must match the strategy's).
        strategy: a :class:`Strategy` or a (D, 3, H) behaviour array.
        player: 0 or 1, the best responder.
        abstract: if True the responder is restricted to ``game``'s (abstract) infosets;
            otherwise it sees the real game.
    """
    if player not in (0, 1):
        raise ValueError("player must be 0 or 1")
    beh = _behaviour(game, strategy)
    return _best_response(game, _reach(game, beh, beh), player, abstract)


def _best_response(game: CompiledGame, reach: np.ndarray, player: int, abstract: bool,
                   value: np.ndarray | None = None) -> float:
    """:func:`best_response_value` from the strategy's reach (``_reach``); ``value``: scratch
    (nodes x hands), allocated if None."""
    if value is None:
        value = np.empty((len(game.ntype), game.n_hands))
    if not abstract:
        # one information set per (node, hand): the arg-max is taken per node and hand in a
        # plain bottom-up sweep (the same values as the levels below, 40% less time: no
        # per-infoset sums, nodes in memory order)
        return _sweep(game, K.MODE_BR, player, np.zeros((1, 3, 1)), reach, value)
    order, start = _levels(game)
    return float(K.best_response_levels(
        player, order, start, game.ntype, game.nplayer, game.nboard, game.child_start,
        game.child_count, game.children, game.edge_scale, game.edge_perm_start, game.edge_perm_count,
        game.perm_inv, game.cw, game.contrib, game.dslot, game.board_valid, game.hands,
        game.strength, game.order_start, game.order_len, game.order, game.info, game.n_infosets,
        reach, value, game.rules.n_cards))


def exploitability(game: CompiledGame, strategy, abstract: bool = False) -> float:
    """Mean of the two players' best-response gains, in chips (0 at an equilibrium)."""
    beh = _behaviour(game, strategy)
    reach = _reach(game, beh, beh)  # both seats' reach, shared by the two best responses
    value = np.empty((len(game.ntype), game.n_hands))
    return 0.5 * (_best_response(game, reach, 0, abstract, value)
                  + _best_response(game, reach, 1, abstract, value))


def expected_value(game: CompiledGame, strategy0, strategy1=None) -> float:
    """Expected chips won by player 1 (index 0) when it plays ``strategy0`` and player 2
    plays ``strategy1`` (default: ``strategy0``), exactly, over all deals."""
    beh0 = _behaviour(game, strategy0)
    beh1 = beh0 if strategy1 is None else _behaviour(game, strategy1)
    reach = _reach(game, beh0, beh1)
    return _sweep(game, K.MODE_EV, 0, beh0, reach, np.empty((len(game.ntype), game.n_hands)))


def head_to_head(game: CompiledGame, a, b) -> float:
    """Exact head-to-head of profile ``a`` against ``b`` (docs/design.md section 6), for ``a``:
    ``1/2 * x_a' A y_b - 1/2 * x_b' A y_a``, in chips per game."""
    return 0.5 * expected_value(game, a, b) - 0.5 * expected_value(game, b, a)
