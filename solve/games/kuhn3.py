"""Three-player Kuhn poker (docs/design.md section 5; Szafron, Gibson & Sturtevant 2013).

Deck J, Q, K, A; ante 1 each; one bet of 1. Players act in order; before any bet a player
checks or bets; after a bet every later player in turn (wrapping round, up to the bettor)
calls or folds. The highest card among those still in wins the pot.

The game is tiny (24 deals), so it has its own representation: the public betting tree is
shared by all deals and every node holds vectors over the deals. CFR variants run with
alternating updates; the measure is NashConv = sum over players of (best-response value -
value), since exploitability of a single profile is not meaningful with three players.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from schema.errors import UserError
from schema.progress import progress_bar
from schema.strategy import STRATEGY_WEIGHT_SCHEMA, with_format
from solve.games.backend import CFR_FAMILY, Report, SolveRequest
from solve.loop import iterate_until
from solve.runs import store_kuhn3

N_PLAYERS = 3
CARDS = "JQKA"
ALGORITHMS = CFR_FAMILY


@dataclass
class Kuhn3:
    """Compiled 3-player Kuhn: nodes in topological order, vectors over the 24 deals."""

    deals: np.ndarray        # (G, 3) card of each player
    player: np.ndarray       # (N,) acting player, -1 at terminals
    children: list           # (N,) [child, child] or []
    history: list            # (N,) "cb..." letters (c check/fold, b bet/call)
    facing: np.ndarray       # (N,) True if the actor faces a bet (actions fold/call)
    utility: np.ndarray      # (N, G, 3) payoffs at terminals (0 elsewhere)

    @property
    def n_nodes(self) -> int:
        return len(self.player)


def build() -> Kuhn3:
    deals = np.array(list(itertools.permutations(range(4), 3)), dtype=np.int64)
    player, children, history, facing, util = [], [], [], [], []

    def node(hist, p, bettor, acted):
        i = len(player)
        player.append(p); children.append([]); history.append(hist)
        facing.append(bettor is not None); util.append(None)
        return i

    def terminal(hist, contrib, folded):
        i = len(player)
        player.append(-1); children.append([]); history.append(hist); facing.append(False)
        alive = [q for q in range(3) if q not in folded]
        cards = deals[:, alive]
        winner = np.array(alive)[np.argmax(cards, axis=1)]
        pot = sum(contrib)
        u = -np.tile(np.array(contrib, dtype=float), (len(deals), 1))
        u[np.arange(len(deals)), winner] += pot
        util.append(u)
        return i

    def rec(hist, p, bettor, contrib, folded, queue):
        # p: the player to act (None: the hand is over); queue: who acts after p once bet
        if p is None:
            return terminal(hist, contrib, folded)
        i = node(hist, p, bettor, None)
        if bettor is None:
            nxt = p + 1 if p < 2 else None
            kids = [rec(hist + "c", nxt, None, contrib, folded, None)]
            c2 = list(contrib); c2[p] += 1
            later = [(p + k) % 3 for k in (1, 2)]
            kids.append(rec(hist + "b", later[0], p, c2, folded, later[1:]))
        else:
            nxt = queue[0] if queue else None
            kids = [rec(hist + "c", nxt, bettor, contrib, folded | {p}, queue[1:])]
            c2 = list(contrib); c2[p] += 1
            kids.append(rec(hist + "b", nxt, bettor, c2, folded, queue[1:]))
        children[i] = kids
        return i

    def start():
        return rec("", 0, None, [1, 1, 1], frozenset(), None)

    start()
    N = len(player)
    U = np.zeros((N, len(deals), 3))
    for i, u in enumerate(util):
        if u is not None:
            U[i] = u
    return Kuhn3(deals, np.array(player), children, history, np.array(facing), U)


def _info_index(game: Kuhn3):
    """infoset id per (node, card): node * 4 + card; -1 at terminals."""
    return np.arange(game.n_nodes)[:, None] * 4 + np.arange(4)[None, :]


def _reach(game: Kuhn3, strat: np.ndarray) -> np.ndarray:
    """reach[n, p, g]: player p's own reach of node n in deal g. strat (N, 4, 2)."""
    G = len(game.deals)
    reach = np.ones((game.n_nodes, 3, G))
    for n in range(game.n_nodes):
        p = game.player[n]
        if p < 0:
            continue
        for a, c in enumerate(game.children[n]):
            reach[c] = reach[n]
            reach[c, p] = reach[n, p] * strat[n, game.deals[:, p], a]
    return reach


def _values(game: Kuhn3, strat: np.ndarray, reach: np.ndarray, i: int, best: bool = False):
    """Counterfactual values of player i at each node per deal (chance 1/24 folded in).

    With ``best`` the player best-responds per (node, card) instead of following strat."""
    G = len(game.deals)
    others = [q for q in range(3) if q != i]
    v = np.zeros((game.n_nodes, G))
    for n in range(game.n_nodes - 1, -1, -1):
        p = game.player[n]
        if p < 0:
            v[n] = game.utility[n, :, i] * reach[n, others[0]] * reach[n, others[1]] / G
            continue
        kids = game.children[n]
        if p != i:
            v[n] = v[kids[0]] + v[kids[1]]
        elif best:
            card = game.deals[:, i]
            q = np.stack([np.bincount(card, weights=v[c], minlength=4) for c in kids])  # (2, 4)
            choice = np.argmax(q, axis=0)[card]
            v[n] = np.where(choice == 0, v[kids[0]], v[kids[1]])
        else:
            s = strat[n, game.deals[:, i]]
            v[n] = s[:, 0] * v[kids[0]] + s[:, 1] * v[kids[1]]
    return v


def values(game: Kuhn3, strat: np.ndarray) -> np.ndarray:
    """Expected payoff of each player under profile strat (N, 4, 2)."""
    reach = _reach(game, strat)
    return np.array([_values(game, strat, reach, i)[0].sum() for i in range(3)])


def nash_conv(game: Kuhn3, strat: np.ndarray) -> float:
    """Sum over players of (best-response value - value under the profile), in chips."""
    reach = _reach(game, strat)
    total = 0.0
    for i in range(3):
        total += _values(game, strat, reach, i, best=True)[0].sum() - _values(game, strat, reach, i)[0].sum()
    return float(total)


class Kuhn3Solver:
    """CFR / CFR+ / DCFR (alpha 1.5, beta 0, gamma 2) with alternating updates on 3-player Kuhn."""

    def __init__(self, algorithm: str = "cfr"):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
        self.algorithm = algorithm
        self.game = build()
        N = self.game.n_nodes
        self.regrets_ = np.zeros((N, 4, 2))
        self.average_ = np.zeros((N, 4, 2))
        self.iteration_ = 0

    def _current(self) -> np.ndarray:
        pos = np.maximum(self.regrets_, 0.0)
        s = pos.sum(axis=2, keepdims=True)
        return np.where(s > 0, pos / np.where(s > 0, s, 1.0), 0.5)

    def iterate(self, iterations: int = 1) -> "Kuhn3Solver":
        g = self.game
        for _ in range(int(iterations)):
            t = self.iteration_ + 1
            for i in range(3):
                strat = self._current()
                reach = _reach(g, strat)
                v = _values(g, strat, reach, i)
                mine = np.flatnonzero(g.player == i)
                card = g.deals[:, i]
                inst = np.zeros((g.n_nodes, 4, 2))
                contrib = np.zeros((g.n_nodes, 4, 2))
                for n in mine:
                    for a, c in enumerate(g.children[n]):
                        inst[n, :, a] = np.bincount(card, weights=v[c] - v[n], minlength=4)
                        contrib[n, :, a] = np.bincount(card, weights=reach[n, i] * strat[n, card, a],
                                                       minlength=4)
                sel = (g.player == i)
                r = self.regrets_[sel] + inst[sel]
                if self.algorithm == "cfr":
                    self.average_[sel] += contrib[sel]
                elif self.algorithm == "cfr+":
                    r = np.maximum(r, 0.0)
                    self.average_[sel] += t * contrib[sel]
                else:
                    r = r * np.where(r > 0, t ** 1.5 / (t ** 1.5 + 1), 0.5)
                    self.average_[sel] = (self.average_[sel] + contrib[sel]) * (t / (t + 1)) ** 2
                self.regrets_[sel] = r
            self.iteration_ = t
        return self

    def average_strategy(self) -> np.ndarray:
        s = self.average_.sum(axis=2, keepdims=True)
        return np.where(s > 0, self.average_ / np.where(s > 0, s, 1.0), 0.5)


def to_table(name: str, game: Kuhn3, strat: np.ndarray, weight: np.ndarray | None = None
             ) -> pa.Table:
    """Rows in schema.strategy.STRATEGY_WEIGHT_SCHEMA for every (node, card, action);
    ``weight[n, c]``: the average-strategy weight of the information set (the solver's
    accumulator summed over its actions; None: unknown, NULL)."""
    rows = {k: [] for k in STRATEGY_WEIGHT_SCHEMA.names}
    pos = None if weight is None else weight[(game.player >= 0)[:, None] & (weight > 0)]
    mean = None if pos is None or not len(pos) else float(pos.mean())
    for n in np.flatnonzero(game.player >= 0):
        names = ("fold", "call") if game.facing[n] else ("check", "bet")
        for c in range(4):
            for a in range(2):
                rows["strategy"].append(name); rows["game"].append("kuhn3"); rows["abstraction"].append(None)
                rows["round"].append(0); rows["player"].append(int(game.player[n]))
                rows["cards"].append(CARDS[c]); rows["history"].append(game.history[n])
                rows["action"].append(names[a]); rows["probability"].append(float(strat[n, c, a]))
                w = None if weight is None else float(weight[n, c])
                rows["reached"].append(True if w is None else w > 0)
                rows["weight"].append(w)
                rows["round_mean_weight"].append(None if w is None else mean)
    return pa.Table.from_pydict(rows, schema=with_format(STRATEGY_WEIGHT_SCHEMA, "kuhn3"))


def from_table(table: pa.Table, game: Kuhn3) -> np.ndarray:
    strat = np.full((game.n_nodes, 4, 2), 0.5)
    index = {h: n for n, h in enumerate(game.history) if game.player[n] >= 0}
    d = table.to_pydict()
    for hist, card, action, p in zip(d["history"], d["cards"], d["action"], d["probability"]):
        if hist not in index or card not in CARDS:
            raise ValueError(f"row ({hist!r}, {card!r}) is not a 3-player Kuhn infoset")
        strat[index[hist], CARDS.index(card), 1 if action in ("bet", "call") else 0] = p
    return strat


def solve(request: SolveRequest, name: str, data_dir: Path, report: Report) -> Path:
    """Solve three-player Kuhn with ``request.algorithm`` (the CFR family) until its stopping
    options say so; store the table and its catalog row (``exploitability``: NashConv);
    report the summary; returns the table's path."""
    t0 = time.time()
    solver = Kuhn3Solver(request.algorithm)
    total = request.iterations or (None if (request.target_exploitability or request.time_limit)
                                   else 1000)
    bar = progress_bar(total=total, unit="it", desc=f"{request.algorithm} kuhn3")
    try:
        iterate_until(solver, None, request.check_every or 50, total=total,
                      target=request.target_exploitability, time_limit=request.time_limit,
                      started=t0, bar=bar, label="nash_conv",
                      measure_fn=lambda: nash_conv(solver.game, solver.average_strategy()))
    finally:
        bar.close()
    strat = solver.average_strategy()
    nc = nash_conv(solver.game, strat)
    v = values(solver.game, strat)
    wall = time.time() - t0
    path = store_kuhn3(data_dir, name, to_table(name, solver.game, strat,
                                                solver.average_.sum(axis=2)), request.algorithm,
                       solver.iteration_, wall, nc, float(v[0]))
    report(f"{name}: game=kuhn3 algorithm={request.algorithm} iterations={solver.iteration_} "
           f"wall={wall:.1f}s values={np.round(v, 6).tolist()} nash_conv={nc:.6g}\n{path}")
    return path


def evaluate(path: Path, report: Report) -> None:
    """Report each player's value and the NashConv of the stored table ``path``."""
    game = build()
    try:
        strat = from_table(pq.read_table(path), game)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    v = values(game, strat)
    report(f"game=kuhn3 values={np.round(v, 9).tolist()} nash_conv={nash_conv(game, strat):.9g}")
