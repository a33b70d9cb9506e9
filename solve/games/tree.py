"""A generic two-player zero-sum extensive-form game as flat arrays, and its sequence form.

Used for the classic games whose betting :class:`solve.games.rules.LimitPokerRules` cannot
express (von Neumann betting, Kuhn with blinds, flop poker) and by the solvers that work on
the sequence form (:mod:`solve.algorithms.treeplex`, :mod:`solve.algorithms.egt`, :mod:`solve.algorithms.ga`,
:mod:`solve.algorithms.lp_exact`). Sequence form after Koller, Megiddo & von Stengel (1996) and von
Stengel (1996): realization plans ``x`` (player 1), ``y`` (player 2), payoff ``x' A y`` to
player 1 with chance folded into ``A``.

Chance probabilities and payoffs are kept as exact integer ratios (``num / den``) beside
their floats, so the exact LP can rebuild ``A`` in rational arithmetic.

Node ids are topological (parents first). Infosets are numbered in order of first
appearance, so a parent infoset (of the same player) precedes its children.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from fractions import Fraction

import numpy as np

from solve.algorithms._treeplex_kernels import chance_reach, last_sequences

if TYPE_CHECKING:
    import scipy.sparse as sp

DECISION, CHANCE, TERMINAL = 0, 1, 2


@dataclass
class Tree:
    """Flat extensive-form game tree (see module docstring)."""

    name: str
    kind: np.ndarray          # (N,) int8
    player: np.ndarray        # (N,) int8 actor, -1 for chance/terminal
    infoset: np.ndarray       # (N,) int32 global infoset id, -1 if not a decision
    child_start: np.ndarray   # (N,) int64
    child_count: np.ndarray   # (N,) int64
    children: np.ndarray      # (E,) int64
    edge_num: np.ndarray      # (E,) int64 chance probability numerator (decision edges: 1)
    edge_den: np.ndarray      # (E,) int64 chance probability denominator
    pay_num: np.ndarray       # (N,) int64 payoff to player 1 (terminals) numerator
    pay_den: np.ndarray       # (N,) int64
    info_player: np.ndarray   # (I,) int8
    info_nact: np.ndarray     # (I,) int64
    info_label: list          # (I,) str, e.g. "Q|r" (private information | public history)
    info_actions: list        # (I,) tuple of action names

    @property
    def n_nodes(self) -> int:
        return len(self.kind)

    @property
    def n_infosets(self) -> int:
        return len(self.info_player)

    @property
    def edge_prob(self) -> np.ndarray:
        return self.edge_num / self.edge_den

    @property
    def payoff(self) -> np.ndarray:
        return self.pay_num / self.pay_den


class TreeBuilder:
    """Builds a :class:`Tree` node by node (parents before children).

    Example::
        b = TreeBuilder("toy")
        root = b.chance()
        for card in ...:
            d = b.decision(0, f"{card}|", ("check", "bet"), parent=root, prob=(1, 3))
            b.terminal(+1, parent=d) ...
    """

    def __init__(self, name: str):
        self.name = name
        self.kind: list = []
        self.player: list = []
        self.infoset: list = []
        self.kids: list = []
        self.pay: list = []
        self.info_ids: dict = {}
        self.info_player: list = []
        self.info_actions: list = []
        self.info_label: list = []

    def _node(self, kind, player, infoset, pay, parent, prob) -> int:
        n = len(self.kind)
        self.kind.append(kind); self.player.append(player); self.infoset.append(infoset)
        self.kids.append([]); self.pay.append(pay)
        if parent is not None:
            self.kids[parent].append((n, prob))
        elif n != 0:
            raise ValueError("only the first node may have no parent")
        return n

    def chance(self, parent: int | None = None, prob=(1, 1)) -> int:
        return self._node(CHANCE, -1, -1, (0, 1), parent, prob)

    def decision(self, player: int, label: str, actions: tuple, parent: int | None = None,
                 prob=(1, 1)) -> int:
        """A decision node of ``player`` in the infoset named ``label`` (same label, same set)."""
        key = (player, label)
        I = self.info_ids.get(key)
        if I is None:
            I = self.info_ids[key] = len(self.info_player)
            self.info_player.append(player); self.info_actions.append(tuple(actions))
            self.info_label.append(label)
        elif self.info_actions[I] != tuple(actions):
            raise ValueError(f"infoset {label!r} has inconsistent actions")
        return self._node(DECISION, player, I, (0, 1), parent, prob)

    def terminal(self, payoff, parent: int, prob=(1, 1)) -> int:
        """A terminal with ``payoff`` (int, Fraction or (num, den)) to player 1."""
        if isinstance(payoff, tuple):
            f = Fraction(*payoff)
        else:
            f = Fraction(payoff)
        return self._node(TERMINAL, -1, -1, (f.numerator, f.denominator), parent, prob)

    def build(self) -> Tree:
        N = len(self.kind)
        count = np.array([len(k) for k in self.kids], dtype=np.int64)
        start = np.zeros(N, dtype=np.int64)
        start[1:] = np.cumsum(count)[:-1]
        flat = [e for k in self.kids for e in k]
        for n in range(N):
            if self.kind[n] == DECISION and count[n] != len(self.info_actions[self.infoset[n]]):
                raise ValueError(f"decision node {n} has {count[n]} children, infoset "
                                 f"{self.info_label[self.infoset[n]]!r} has "
                                 f"{len(self.info_actions[self.infoset[n]])} actions")
        num = np.array([Fraction(*p).numerator if isinstance(p, tuple) else Fraction(p).numerator
                        for _, p in flat], dtype=np.int64)
        den = np.array([Fraction(*p).denominator if isinstance(p, tuple) else Fraction(p).denominator
                        for _, p in flat], dtype=np.int64)
        return Tree(name=self.name, kind=np.array(self.kind, np.int8), player=np.array(self.player, np.int8),
                    infoset=np.array(self.infoset, np.int32), child_start=start, child_count=count,
                    children=np.array([c for c, _ in flat], dtype=np.int64).reshape(len(flat)),
                    edge_num=num, edge_den=den,
                    pay_num=np.array([p[0] for p in self.pay], np.int64),
                    pay_den=np.array([p[1] for p in self.pay], np.int64),
                    info_player=np.array(self.info_player, np.int8),
                    info_nact=np.array([len(a) for a in self.info_actions], np.int64),
                    info_label=list(self.info_label), info_actions=list(self.info_actions))


def type_game(name: str, counts: np.ndarray, labels1: list, labels2: list, template: list,
              payoffs: dict, pay_den, views: dict | None = None) -> Tree:
    """A game in which chance deals a private type to each player, then a public betting tree.

    Vectorised over deals (no per-node Python): the tree is a root chance node whose children
    are the deals ``(t1, t2)`` with ``counts[t1, t2] > 0`` (probability ``counts / counts.sum()``),
    each followed by a copy of ``template``.

    Args:
        counts: (T1, T2) non-negative integer weights of the deals.
        labels1, labels2: type names (infoset labels are ``"<type>|<history>"``).
        template: public tree in topological order; entries ``("d", player, history, actions,
            [child indices])`` or ``("t", history)``; entry 0 is the root.
        payoffs: template terminal index -> (T1, T2) int64 payoff numerators to player 1.
        pay_den: payoff denominator: an int, or a (T1, T2) int matrix per deal.
        views: optional ``{round: (map1, labels1, map2, labels2)}``: decision entries with a
            sixth element ``round`` see only ``map_p[type]`` (what the player knew in that
            round, e.g. the hand before a draw); must give perfect recall.
    """
    counts = np.asarray(counts, dtype=np.int64)
    t1, t2 = np.nonzero(counts > 0)
    K, S = len(t1), len(template)
    total = int(counts.sum())
    T = (len(labels1), len(labels2))
    kind_t = np.array([DECISION if e[0] == "d" else TERMINAL for e in template], np.int8)
    player_t = np.array([e[1] if e[0] == "d" else -1 for e in template], np.int8)
    ccount_t = np.array([len(e[4]) if e[0] == "d" else 0 for e in template], np.int64)
    # infosets: per template decision d, one per type of its actor
    info_base = np.full(S, -1, dtype=np.int64)
    info_player, info_nact, info_label, info_actions = [], [], [], []
    view_map = np.zeros((S, 2, max(T)), np.int64)
    for s, e in enumerate(template):
        if e[0] != "d":
            continue
        info_base[s] = len(info_player)
        rnd = e[5] if len(e) > 5 else None
        if rnd is not None and views is not None and rnd in views:
            m1, l1, m2, l2 = views[rnd]
            view_map[s, 0, :T[0]] = m1
            view_map[s, 1, :T[1]] = m2
            labs = l1 if e[1] == 0 else l2
        else:
            view_map[s, 0, :T[0]] = np.arange(T[0])
            view_map[s, 1, :T[1]] = np.arange(T[1])
            labs = labels1 if e[1] == 0 else labels2
        info_player += [e[1]] * len(labs)
        info_nact += [len(e[3])] * len(labs)
        info_label += [f"{lab}|{e[2]}" for lab in labs]
        info_actions += [tuple(e[3])] * len(labs)
    # nodes: 0 root, then deal k occupies 1 + k*S .. 1 + (k+1)*S - 1
    N = 1 + K * S
    kind = np.empty(N, np.int8); kind[0] = CHANCE; kind[1:] = np.tile(kind_t, K)
    player = np.empty(N, np.int8); player[0] = -1; player[1:] = np.tile(player_t, K)
    own = np.where(player_t == 0, 0, 1)
    types = np.stack([t1, t2], axis=1)  # (K, 2)
    seen = view_map[np.arange(S)[None, :], own[None, :], types[:, own]]  # (K, S)
    inf = np.where(info_base[None, :] >= 0, info_base[None, :] + seen, -1)
    infoset = np.concatenate([[-1], inf.reshape(-1)]).astype(np.int32)
    child_count = np.concatenate([[K], np.tile(ccount_t, K)]).astype(np.int64)
    child_start = np.zeros(N, np.int64)
    child_start[1:] = np.cumsum(child_count)[:-1]
    kids_t = np.array([c for e in template if e[0] == "d" for c in e[4]], np.int64)
    base = 1 + np.arange(K, dtype=np.int64) * S
    children = np.concatenate([base, (base[:, None] + kids_t[None, :]).reshape(-1)])
    E = len(children)
    g = np.gcd(counts[t1, t2], total)
    edge_num = np.ones(E, np.int64); edge_den = np.ones(E, np.int64)
    edge_num[:K] = counts[t1, t2] // g
    edge_den[:K] = total // g
    pay_num = np.zeros(N, np.int64)
    for s, U in payoffs.items():
        if kind_t[s] != TERMINAL:
            raise ValueError(f"template entry {s} is not a terminal")
        U = np.asarray(U, dtype=np.int64)
        if U.shape != T:
            raise ValueError(f"payoff matrix of terminal {s} has shape {U.shape}, expected {T}")
        pay_num[base + s] = U[t1, t2]
    if np.ndim(pay_den) == 0:
        pay_den = np.full(N, int(pay_den), np.int64)
    else:
        den = np.asarray(pay_den, dtype=np.int64)
        if den.shape != T or (den[t1, t2] <= 0).any():
            raise ValueError("pay_den must be positive with shape (T1, T2)")
        pay_den = np.ones(N, np.int64)
        pay_den[1:] = np.repeat(den[t1, t2], S)
    return Tree(name=name, kind=kind, player=player, infoset=infoset, child_start=child_start,
                child_count=child_count, children=children, edge_num=edge_num, edge_den=edge_den,
                pay_num=pay_num, pay_den=pay_den, info_player=np.array(info_player, np.int8),
                info_nact=np.array(info_nact, np.int64), info_label=info_label, info_actions=info_actions)


@dataclass
class SequenceForm:
    """Sequence form of a :class:`Tree`.

    Per player ``p``: sequence 0 is the empty sequence; infoset ``I`` (player-local index)
    owns sequences ``offset[p][I] .. offset[p][I] + nact[p][I] - 1`` and has parent
    sequence ``parent[p][I]``; local infosets are in topological order (parents first).
    ``A`` (n1 x n2, csr) holds player 1's payoff with chance folded in.
    """

    tree: Tree
    A: sp.csr_matrix
    n_seq: tuple
    parent: tuple      # (p) -> (I_p,) int64
    offset: tuple      # (p) -> (I_p,) int64
    nact: tuple        # (p) -> (I_p,) int64
    global_id: tuple   # (p) -> (I_p,) int64 tree infoset id of each local infoset
    term_seq: np.ndarray  # (Z, 2) sequences of each terminal
    term_node: np.ndarray  # (Z,) terminal node ids

    def constraints(self, p: int) -> sp.csr_matrix:
        """``E`` (player 1) or ``F`` (player 2): ``E x = e`` with ``e = (1, 0, ..., 0)``."""
        import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
        parent, offset, nact = self.parent[p], self.offset[p], self.nact[p]
        rows, cols, vals = [0], [0], [1.0]
        for j in range(len(parent)):
            rows.append(j + 1); cols.append(int(parent[j])); vals.append(-1.0)
            for a in range(int(nact[j])):
                rows.append(j + 1); cols.append(int(offset[j]) + a); vals.append(1.0)
        return sp.coo_matrix((vals, (rows, cols)), shape=(len(parent) + 1, self.n_seq[p])).tocsr()

    def exact_entries(self) -> dict:
        """``{(i, j): Fraction}`` entries of ``A`` in rational arithmetic."""
        t = self.tree
        reach = _reach_exact(t)
        out: dict = {}
        for z, (i, j) in zip(self.term_node, self.term_seq):
            v = reach[z] * Fraction(int(t.pay_num[z]), int(t.pay_den[z]))
            if v != 0:
                key = (int(i), int(j))
                out[key] = out.get(key, Fraction(0)) + v
        return {k: v for k, v in out.items() if v != 0}


def _reach_exact(t: Tree) -> dict:
    reach = {0: Fraction(1)}
    for n in range(t.n_nodes):
        r = reach.get(n)
        if r is None or r == 0:
            continue
        s, c = int(t.child_start[n]), int(t.child_count[n])
        for e in range(s, s + c):
            reach[int(t.children[e])] = r * Fraction(int(t.edge_num[e]), int(t.edge_den[e])) \
                if t.kind[n] == CHANCE else r
    return reach


def sequence_form(t: Tree) -> SequenceForm:
    """Sequence form of ``t``.

    Raises:
        ValueError: if the tree does not have perfect recall (an infoset reached with two
            different own last sequences).
    """
    import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
    I = t.n_infosets
    local = np.zeros(I, np.int64)
    offset_g = np.zeros(I, np.int64)
    n_seq = [1, 1]
    n_local = [0, 0]
    gid: list = [[], []]
    for g in range(I):  # ids are in order of first appearance (topological)
        p = int(t.info_player[g])
        local[g] = n_local[p]; n_local[p] += 1
        offset_g[g] = n_seq[p]; n_seq[p] += int(t.info_nact[g])
        gid[p].append(g)
    last = np.zeros((t.n_nodes, 2), np.int64)
    info_parent = np.full(I, -1, np.int64)

    ok = last_sequences(t.kind, t.infoset, t.player, t.child_start, t.child_count, t.children, offset_g,
                        last, info_parent)
    if not ok:
        raise ValueError(f"game {t.name!r} does not have perfect recall")
    missing = np.flatnonzero(info_parent < 0)
    if len(missing):
        raise ValueError(f"game {t.name!r}: information set {t.info_label[missing[0]]!r} has no node")
    reach = np.ones(t.n_nodes)

    chance_reach(t.kind, t.child_start, t.child_count, t.children, t.edge_num / t.edge_den, reach)
    term = np.flatnonzero(t.kind == TERMINAL)
    vals = reach[term] * t.payoff[term]
    A = sp.coo_matrix((vals, (last[term, 0], last[term, 1])), shape=tuple(n_seq)).tocsr()
    A.sum_duplicates()
    parent, offset, nact = [], [], []
    for p in (0, 1):
        g = np.array(gid[p], np.int64)
        parent.append(info_parent[g]); offset.append(offset_g[g]); nact.append(t.info_nact[g].astype(np.int64))
    return SequenceForm(tree=t, A=A, n_seq=tuple(n_seq), parent=tuple(parent), offset=tuple(offset),
                        nact=tuple(nact), global_id=tuple(np.array(x, np.int64) for x in gid),
                        term_seq=last[term], term_node=term)
