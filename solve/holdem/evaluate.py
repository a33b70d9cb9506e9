"""Evaluating limit Hold'em strategies (issue 6; docs/design.md section 6).

- ``best_response``: the exact best response in the abstract game whose chance node is a given
  set of weighted real deals (each player knows only its own bucket sequence). Exact for that
  chance distribution; the tests compare it with brute force over pure strategies.
- ``local_best_response``: a lower bound on the real game's exploitability by local best
  response (Lisy & Bowling, "Equilibrium approximation quality of current no-limit poker bots",
  2017), adapted to limit betting: at each decision LBR takes the best of fold / check-call /
  bet-raise given the opponent's range (Bayes-updated with the strategy's action
  probabilities), assuming check-call to the end. LBR is a real strategy, so its mean winnings
  over both seats are at most the exploitability (mean of both players' best-response gains).
- ``duplicate_match``: head-to-head in the real game, each sampled deal played twice with the
  seats swapped; per deal the exact expectation over both strategies' action probabilities.
- ``board_match``: the same duplicate head-to-head with a sampled board as the unit: per board
  the exact expectation over every deal of hole cards (1,081 x 990 hand pairs, vectorised,
  ``_vector_kernels.board_values``), which removes the variance of the private cards.

Results are in milli-big-blinds per game (mbb/g; big blind = 2 chips) with a 95% normal
interval over deals. Policies: a strategy's normalised average (``Policy.table``) or the
``always_call`` / ``always_raise`` baselines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solve.holdem import _kernels as K
from solve.holdem import _vector_kernels as VK
from solve.holdem.buckets import HoldemBuckets, indexer_tables
from solve.holdem.game import BettingTree

Z95 = 1.959963984540054


@dataclass
class Policy:
    """A player of the real game: kind (``K.KIND_*``), weights S (float32, per (infoset,
    action)), offsets of its abstraction, and that abstraction's bucket lookups."""

    name: str
    kind: int
    weights: np.ndarray
    offset: np.ndarray
    buckets: HoldemBuckets

    @classmethod
    def table(cls, name, tree: BettingTree, buckets: HoldemBuckets, weights: np.ndarray):
        off, size = tree.offsets(buckets.n_buckets)
        if len(weights) != size:
            raise ValueError(f"strategy {name!r} has {len(weights)} weights, the abstraction "
                             f"needs {size}")
        return cls(name, K.KIND_TABLE, np.ascontiguousarray(weights, np.float32), off, buckets)

    @classmethod
    def always_call(cls, tree: BettingTree, buckets: HoldemBuckets):
        return cls("always-call", K.KIND_CALL, np.zeros(1, np.float32),
                   np.zeros((tree.n_nodes, 2), np.int64), buckets)

    @classmethod
    def always_raise(cls, tree: BettingTree, buckets: HoldemBuckets):
        return cls("always-raise", K.KIND_RAISE, np.zeros(1, np.float32),
                   np.zeros((tree.n_nodes, 2), np.int64), buckets)

    def args(self):
        # always a read-only view (no copy): the kernels only read the weights, and one array
        # type (loaded strategies are read-only) means one compiled signature per kernel
        w = self.weights.view()
        w.flags.writeable = False
        return self.kind, w, self.offset, self.buckets.lookup


@dataclass
class Estimate:
    """Mean and 95% half-width in mbb/g over ``n`` deals."""

    mean: float
    half_width: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:+.1f} +- {self.half_width:.1f} mbb/g (n={self.n})"


def to_mbb(chips: np.ndarray, big_blind: float = 2.0) -> Estimate:
    x = np.asarray(chips, dtype=np.float64) * 1000.0 / big_blind
    n = len(x)
    hw = Z95 * x.std(ddof=1) / np.sqrt(n) if n > 1 else float("inf")
    return Estimate(float(x.mean()), float(hw), n)


def sample_deals(n: int, seed: int = 0) -> np.ndarray:
    """``n`` uniformly random deals (9 distinct cards: two hole pairs, then the board)."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52))
    return np.argsort(keys, axis=1)[:, :9].astype(np.uint8)


def _tree_args(tree: BettingTree):
    return (tree.ntype, tree.player, tree.round, tree.nact, tree.child, tree.code, tree.size,
            tree.spent)


def duplicate_match(tree: BettingTree, a: Policy, b: Policy, n_deals: int, seed: int = 0,
                    deals: np.ndarray | None = None) -> Estimate:
    """A's winnings against B in mbb/g by duplicate matches over ``n_deals`` sampled deals
    (each policy sees its own abstraction's buckets)."""
    deals = sample_deals(n_deals, seed) if deals is None else deals
    out = np.empty(len(deals))
    K.duplicate_values(*_tree_args(tree), tree.rules.n_rounds, *indexer_tables(),
                       *a.args(), *b.args(), deals, out)
    return to_mbb(out, tree.rules.big_blind)


def sample_boards(n: int, seed: int = 0) -> np.ndarray:
    """``n`` uniformly random boards (5 distinct cards)."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :5].astype(np.uint8)


def tree_levels(tree: BettingTree) -> tuple[np.ndarray, np.ndarray]:
    """Per node: the index of its action at its parent, and (N, 2) the number of decisions of
    each player above it (the reach levels of ``_vector_kernels._play_board``)."""
    pact = np.zeros(tree.n_nodes, np.int64)
    lev = np.zeros((tree.n_nodes, 2), np.int64)
    for n in range(1, tree.n_nodes):  # pre-order: parents first
        par = tree.parent[n]
        pact[n] = int(np.flatnonzero(tree.child[par] == n)[0])
        lev[n] = lev[par]
        lev[n, tree.player[par]] += 1
    return pact, lev


def board_seat_values(tree: BettingTree, seat0: Policy, seat1: Policy,
                      boards: np.ndarray) -> np.ndarray:
    """Seat 0's expected chips per board, exact over all deals of hole cards given it."""
    pact, lev = tree_levels(tree)
    out = np.empty(len(boards))
    VK.board_values(*_tree_args(tree), tree.parent, pact, lev, tree.rules.n_rounds,
                    *indexer_tables(), *seat0.args(), *seat1.args(),
                    np.ascontiguousarray(boards, np.uint8), out)
    return out


def board_match(tree: BettingTree, a: Policy, b: Policy, n_boards: int, seed: int = 0,
                boards: np.ndarray | None = None) -> Estimate:
    """A's winnings against B in mbb/g, duplicate, over ``n_boards`` sampled boards, each the
    exact mean over every deal of hole cards (the interval is over boards)."""
    boards = sample_boards(n_boards, seed) if boards is None else boards
    ab = board_seat_values(tree, a, b, boards)
    ba = board_seat_values(tree, b, a, boards)
    return to_mbb(0.5 * (ab - ba), tree.rules.big_blind)


def seat_value(tree: BettingTree, seat0: Policy, seat1: Policy, deals: np.ndarray,
               weights: np.ndarray | None = None) -> float:
    """Seat 0's expected chips over ``deals`` (weighted; uniform by default)."""
    out = np.empty(len(deals))
    K.seat_values(*_tree_args(tree), tree.rules.n_rounds, *indexer_tables(),
                  *seat0.args(), *seat1.args(), deals, out)
    w = np.full(len(deals), 1.0 / len(deals)) if weights is None else weights
    return float(out @ w)


def lbr_estimates(values: np.ndarray, big_blind: float) -> tuple[Estimate, Estimate, Estimate]:
    """(mean over seats, LBR as seat 0, LBR as seat 1) in mbb/g from LBR's chips per unit
    (deal or board) and seat, ``values`` of shape (units, 2)."""
    return (to_mbb(values.mean(axis=1), big_blind), to_mbb(values[:, 0], big_blind),
            to_mbb(values[:, 1], big_blind))


def local_best_response(tree: BettingTree, policy: Policy, n_deals: int, seed: int = 0,
                        runouts: int = 32) -> tuple[Estimate, Estimate, Estimate]:
    """LBR against ``policy`` over ``n_deals`` deals, LBR in each seat of every deal.

    Returns (mean over seats, LBR as seat 0, LBR as seat 1), mbb/g. ``runouts``: sampled board
    completions for LBR's equity on the preflop and flop (exact on the turn and river)."""
    deals = sample_deals(n_deals, seed)
    out = np.empty((n_deals, 2))
    r = tree.rules
    K.lbr_values(tree.ntype, tree.player, tree.round, tree.nact, tree.child, tree.code,
                 tree.spent, np.asarray(r.bets, np.float64), r.n_rounds, *indexer_tables(),
                 *policy.args(), deals, int(runouts), int(seed), out)
    return lbr_estimates(out, r.big_blind)


def board_lbr(tree: BettingTree, policy: Policy, n_boards: int, seed: int = 0,
              runouts: int = 32, boards: np.ndarray | None = None
              ) -> tuple[Estimate, Estimate, Estimate]:
    """LBR against ``policy`` with a sampled board as the unit: per board, LBR in each seat
    exactly over every deal of hole cards and every action of the policy
    (``_vector_kernels.lbr_board``; the rule of :func:`local_best_response`).

    Returns (mean over seats, LBR as seat 0, LBR as seat 1), mbb/g, intervals over boards.
    ``runouts``: completions of the board for LBR's equity on the preflop and flop."""
    boards = sample_boards(n_boards, seed) if boards is None else boards
    out = board_lbr_values(tree, policy, boards, lbr_runouts(len(boards), seed, runouts))
    return lbr_estimates(out, tree.rules.big_blind)


def lbr_runouts(n_boards: int, seed: int, runouts: int = 32) -> np.ndarray:
    """(boards, runouts, 52): the deck orders from which :func:`board_lbr` with ``seed`` draws
    LBR's board completions on the preflop and flop (so other callers can pair with it)."""
    return np.argsort(np.random.default_rng(seed + 1).random((n_boards, runouts, 52)),
                      axis=2).astype(np.int64)


def board_lbr_values(tree: BettingTree, policy: Policy, boards: np.ndarray,
                     perms: np.ndarray, deck: np.ndarray | None = None) -> np.ndarray:
    """(boards, 2): LBR's expected chips per board and seat (see :func:`board_lbr`).

    ``deck``: the cards dealt (default all 52); with a reduced deck, every hand, board and
    runout is drawn from it (the small games on which the tests check LBR against the exact
    best response, :mod:`solve.holdem.best_response`)."""
    pact, lev = tree_levels(tree)
    r = tree.rules
    dead = np.ones(52, np.bool_)
    dead[np.arange(52) if deck is None else np.asarray(deck, np.int64)] = False
    live = int((~dead).sum())
    if live < 9:
        raise ValueError(f"a deal needs 9 cards; the deck has {live}")
    boards = np.ascontiguousarray(boards, np.uint8)
    if dead[boards].any():
        raise ValueError("a board holds a card that is not in the deck")
    out = np.empty((len(boards), 2))
    VK.lbr_boards(*_tree_args(tree), tree.parent, pact, lev, np.asarray(r.bets, np.float64),
                  r.n_rounds, *indexer_tables(), *policy.args(), boards,
                  np.ascontiguousarray(perms, np.int64), dead, out)
    return out


def node_offsets(tree: BettingTree, n_buckets) -> tuple[np.ndarray, int]:
    """Offsets of (node, bucket of the node's round) over all nodes."""
    k = np.asarray(n_buckets, dtype=np.int64)[tree.round]
    off = np.concatenate(([0], np.cumsum(k)))
    return off[:-1].astype(np.int64), int(off[-1])


def best_response(tree: BettingTree, policy: Policy, p: int, deals: np.ndarray,
                  weights: np.ndarray | None = None, responder: HoldemBuckets | None = None):
    """Exact best response of player ``p`` to ``policy`` in the abstract game whose chance
    node is ``deals`` (weighted, uniform by default); the responder sees its buckets under
    ``responder`` (default: the policy's abstraction).

    Returns (value in chips for p, the best response as a pure-strategy weight array in the
    responder's (infoset, action) layout).
    """
    resp = responder or policy.buckets
    w = np.full(len(deals), 1.0 / len(deals)) if weights is None else np.asarray(weights, float)
    node_off, size = node_offsets(tree, resp.n_buckets)
    U = np.zeros(size)
    K.br_terminal_sums(tree.ntype, tree.player, tree.round, tree.nact, tree.child, tree.code,
                       tree.size, tree.spent, tree.rules.n_rounds, indexer_tables(),
                       int(p), *policy.args(), resp.lookup, node_off, deals, w, U)
    V = np.zeros(size)
    choice = np.zeros(size, dtype=np.int64)
    kb = np.zeros(4, np.int64)
    kb[:resp.n_rounds] = resp.n_buckets
    K.br_backup(tree.ntype, tree.player, tree.round, tree.nact, tree.child, int(p), node_off, kb,
                resp.child_ranges(), U, V, choice)
    value = float(V[node_off[0]:node_off[0] + resp.n_buckets[0]].sum())
    off, n = tree.offsets(resp.n_buckets)
    strat = np.zeros(n, dtype=np.float32)
    for node in tree.decision_nodes():
        if tree.player[node] != p:
            continue
        kbn = resp.n_buckets[tree.round[node]]
        ch = choice[node_off[node]:node_off[node] + kbn]
        strat[off[node, 0] + np.arange(kbn) * off[node, 1] + ch] = 1.0
    return value, strat
