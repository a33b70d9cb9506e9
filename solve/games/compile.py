"""Compile limit poker rules into flat arrays: a public tree vectorised over private hands.

The public tree holds decision nodes (betting history + public cards), chance nodes (the
next public cards) and terminals (fold, showdown). At every node each player's private
information is a vector over the ``H`` possible private hands, so one pass over the tree
handles all deals at once, as in vectorised CFR (Johanson et al. 2012, "Efficient Nash
equilibrium approximation through Monte Carlo counterfactual regret minimization", sec. 3;
Moravcik et al. 2017, DeepStack, public-tree formulation).

Suit isomorphism (Gilpin & Sandholm 2007; Waugh 2013): public cards are canonicalised
under the suit permutations that fix the cards already on the board. A chance node keeps
one child per orbit of outcomes; the child's chance weight is multiplied by the orbit
size, and going up the tree its value vector is averaged over the orbit's suit
permutations applied to the hand index. Strategies computed this way are suit-symmetric,
and values, best responses and equilibria equal those of the full game.

Node ids are topological (a parent's id is smaller than its children's), so solvers do a
forward sweep for reach probabilities and a backward sweep for counterfactual values.

Building: a round's betting tree depends only on the round and the contributions it starts
from, not on the board, so each is built once as a template; subtree sizes per (round,
contributions, board) give every node's depth-first id, and all copies of a template are
written at once with numpy offset arithmetic (ids are those of a plain depth-first recursion).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from solve.games import ranking
from solve.games.rules import LimitPokerRules

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
FOLD_A, CHECK_A, CALL_A, BET_A, RAISE_A = 0, 1, 2, 3, 4
ACTION_NAMES = ("fold", "check", "call", "bet", "raise")
ACTION_LETTERS = "fccrr"  # ACPC-style history letters


class CardAbstraction(Protocol):
    """A card abstraction: per round, a bucket for each private hand given the public cards.

    ``bucket(round, hands (H, k) int, board (m,) int) -> (H,) int`` must be invariant under
    suit permutations applied to hands and board together (checked when compiling with suit
    isomorphism, unless the object has ``suit_invariant = True``: invariant by construction,
    e.g. buckets looked up by canonical hand index). ``name`` identifies it in tables.
    Infosets of the abstracted game are (sequence of buckets so far, betting history): perfect
    recall, unless the object has ``perfect_recall = False``. An optional
    ``bucket_boards(round, hands (N, k), boards (N, m)) -> (N,)`` (row i: hand i on board i)
    gives many boards' buckets in one call, where a builder looks up every board.
    """

    name: str

    def bucket(self, round: int, hands: np.ndarray, board: np.ndarray) -> np.ndarray: ...


@dataclass
class CompiledGame:
    """Arrays of one compiled game. ``N`` nodes, ``D`` decision nodes, ``H`` hands, ``B`` boards."""

    rules: LimitPokerRules
    abstraction: str | None
    hands: np.ndarray            # (H, k) int32 card ids, sorted within a hand
    board_cards: list            # B tuples of canonical public cards (in deal order)
    board_valid: np.ndarray      # (B, H) bool: hand shares no card with the board
    ntype: np.ndarray            # (N,) int8
    nplayer: np.ndarray          # (N,) int8: actor (decision) or folder (fold)
    nround: np.ndarray           # (N,) int8
    nboard: np.ndarray           # (N,) int32
    child_start: np.ndarray      # (N,) int32 into children
    child_count: np.ndarray      # (N,) int32
    children: np.ndarray         # (E,) int32
    child_action: np.ndarray     # (E,) int8 action code for decision edges, -1 for chance
    edge_scale: np.ndarray       # (E,) float64: 1 / orbit size for chance edges
    edge_perm_start: np.ndarray  # (E,) int32 into perm_inv
    edge_perm_count: np.ndarray  # (E,) int32
    perm_inv: np.ndarray         # (P, H) int32: hand index map sigma^-1 for each orbit member
    cw: np.ndarray               # (N,) float64: chance weight incl. deal and orbit multiplicity
    contrib: np.ndarray          # (N, 2) int64 chips put in by each player
    history: list                # (N,) betting history strings, rounds separated by '/'
    dslot: np.ndarray            # (N,) int32 decision index or -1
    dnode: np.ndarray            # (D,) int32 node of each decision index
    strength: np.ndarray         # (B, H) int64 showdown strength (final-round boards)
    order_start: np.ndarray      # (B,) int32 into order
    order_len: np.ndarray        # (B,) int32
    order: np.ndarray            # valid hands of each final board sorted by strength
    info: np.ndarray             # (D, H) int32 infoset id, -1 for hands invalid on the board
    info_player: np.ndarray      # (I,) int8
    info_nact: np.ndarray        # (I,) int8
    info_round: np.ndarray       # (I,) int8
    info_d: np.ndarray           # (I,) int32 a decision index where the infoset occurs
    info_hand: np.ndarray        # (I,) int32 representative hand (real game) or -1 (abstract)
    bucket_labels: list | None   # (I,) bucket sequence strings "3.17.101" (abstract game)
    canon: dict = field(repr=False, default_factory=dict)  # (board id, outcome) -> (child board, suit perm)

    @property
    def n_hands(self) -> int:
        return len(self.hands)

    @property
    def n_infosets(self) -> int:
        return len(self.info_player)

    def infoset_histories(self) -> np.ndarray:
        """(I,) object array of betting histories."""
        hist = np.array(self.history, dtype=object)
        return hist[self.dnode[self.info_d]]

    def infoset_labels(self) -> np.ndarray:
        """(I,) object array: "Ks|Qh2c" (private | canonical public cards) or bucket sequence."""
        if self.bucket_labels is not None:
            return np.array(self.bucket_labels, dtype=object)
        hs = np.array([self.hand_str(h) for h in range(self.n_hands)], dtype=object)
        bs = np.array([("|" + self.board_str(b)) if self.board_cards[b] else ""
                       for b in range(len(self.board_cards))], dtype=object)
        return hs[self.info_hand] + bs[self.nboard[self.dnode[self.info_d]]]

    def hand_str(self, h: int) -> str:
        return "".join(self.rules.card_str(c) for c in self.hands[h])

    def board_str(self, b: int) -> str:
        return "".join(self.rules.card_str(c) for o in self.board_cards[b] for c in o)

    # ---- mapping real (unabstracted, uncanonicalised) situations to the compiled arrays ----
    def locate(self, history: str, board: list[int], hand: tuple[int, ...]) -> tuple[int, int]:
        """(decision index, hand index) of a real situation: betting history (letters and '/'),
        public cards dealt so far in deal order, the acting player's private cards."""
        outs = []
        pos = 0
        for r in range(self.rules.rounds):
            m = self.rules.public_cards[r]
            if m and pos + m <= len(board) and (r == 0 or history.count("/") >= r):
                outs.append(tuple(sorted(board[pos:pos + m])))
                pos += m
        b, perm = 0, tuple(range(self.rules.n_suits))
        for o in outs:
            inv = _invert(perm)
            o_can = tuple(sorted(_perm_card(c, inv, self.rules.n_suits) for c in o))
            b, g = self.canon[(b, o_can)]
            perm = tuple(perm[g[s]] for s in range(self.rules.n_suits))  # real = perm o g (canonical)
        inv = _invert(perm)
        h_can = tuple(sorted(_perm_card(c, inv, self.rules.n_suits) for c in hand))
        h = self._hand_index[h_can]
        d = self._node_index[(history, b)]
        return d, h


def _perm_card(c: int, g: tuple, S: int) -> int:
    return (c // S) * S + g[c % S]


def _invert(g: tuple) -> tuple:
    inv = [0] * len(g)
    for i, x in enumerate(g):
        inv[x] = i
    return tuple(inv)


_END = -1  # template node kind: the round ends here


class _Template:
    """One round's betting tree from given contributions, in DFS order: ``kind`` DECISION,
    FOLD or END (the round ends: the next round's subtree, or a showdown in the last round)."""

    def __init__(self, rules: LimitPokerRules, rnd: int, contrib: tuple):
        self.kind, self.player, self.contrib, self.suffix = [], [], [], []
        self.edges: list = []  # (parent, child, action) in the order the old builder appended
        self.rules, self.rnd = rules, rnd
        bets = rules.blind_bets if rnd == 0 else 0
        self._decision(list(contrib), bets, rules.first_to_act[rnd], (False, False), "")
        self.kind = np.array(self.kind, dtype=np.int8)
        self.player = np.array(self.player, dtype=np.int8)
        self.contrib_arr = np.array(self.contrib, dtype=np.int64).reshape(-1, 2)
        self.suffix_arr = np.array(self.suffix, dtype=object)
        e = np.array(self.edges, dtype=np.int64).reshape(-1, 3)
        self.e_par, self.e_child, self.e_act = e[:, 0], e[:, 1], e[:, 2].astype(np.int8)
        self.ends = np.flatnonzero(self.kind == _END)

    def _new(self, kind, player, contrib, suffix) -> int:
        self.kind.append(kind); self.player.append(player)
        self.contrib.append(tuple(contrib)); self.suffix.append(suffix)
        return len(self.kind) - 1

    def _next(self, contrib, bets, p, acted, suffix) -> int:
        if all(acted):
            return self._new(_END, -1, contrib, suffix)
        return self._decision(contrib, bets, p, acted, suffix)

    def _decision(self, contrib, bets, p, acted, hist) -> int:
        r, rnd = self.rules, self.rnd
        node = self._new(DECISION, p, contrib, hist)
        o = 1 - p
        acted2 = tuple(True if i == p else acted[i] for i in range(2))
        if contrib[p] < contrib[o]:
            self.edges.append((node, self._new(FOLD, p, contrib, hist + "f"), FOLD_A))
            c2 = list(contrib); c2[p] = contrib[o]
            self.edges.append((node, self._next(c2, bets, o, acted2, hist + "c"), CALL_A))
            if bets < r.bet_caps[rnd]:
                c3 = list(contrib); c3[p] = contrib[o] + r.bet_sizes[rnd]
                self.edges.append((node, self._decision(c3, bets + 1, o, acted2, hist + "r"), RAISE_A))
        else:
            self.edges.append((node, self._next(list(contrib), bets, o, acted2, hist + "c"), CHECK_A))
            if bets < r.bet_caps[rnd]:
                c3 = list(contrib); c3[p] = contrib[p] + r.bet_sizes[rnd]
                self.edges.append((node, self._decision(c3, bets + 1, o, acted2, hist + "r"), BET_A))
        return node


class _Builder:
    """The public tree, laid out in the old recursive builder's DFS order: one betting template
    per (round, contributions), subtree sizes per (round, contributions, board), then every
    instance of a template written at once with numpy offset arithmetic."""

    def __init__(self, rules: LimitPokerRules, suit_isomorphism: bool):
        self.r = rules
        S = rules.n_suits
        self.iso = suit_isomorphism
        self.hands = list(itertools.combinations(range(rules.n_cards), rules.private_cards))
        self.hand_index = {h: i for i, h in enumerate(self.hands)}
        self.all_perms = list(itertools.permutations(range(S))) if suit_isomorphism else [tuple(range(S))]
        self.board_cards: list = [()]
        self.board_index = {(): 0}
        self.board_stab: list = [self.all_perms]
        self.stab_of: dict = {(): self.all_perms}
        self.canon: dict = {}
        self.perms: list = []
        self.perm_index: dict = {}
        self.pid_of: dict = {}  # suit permutation -> perm id
        self.pid_memo: dict = {}  # (round, board, outcome) -> perm ids of the orbit
        self.templates: dict = {}
        self.outcome_memo: dict = {}
        self.size_memo: dict = {}
        self.layouts: dict = {}
        self.groups: dict = {}       # (rnd, contrib, layout key) -> [offsets, cw, boards, hists]
        self.chance: list = []       # (node, rnd, board, cw, contrib, hist)
        self.chance_kids: list = []  # (node, child)
        self.chance_edges: dict = {}  # node -> list of (scale, [perm ids]), post-order

    def hand_perm_inv(self, g: tuple) -> int:
        """Index of the hand map h -> sigma^-1(h) for suit permutation g."""
        if g in self.pid_of:
            return self.pid_of[g]
        inv = _invert(g)
        if inv in self.perm_index:
            return self.perm_index[inv]
        S = self.r.n_suits
        arr = np.array([self.hand_index[tuple(sorted(_perm_card(c, inv, S) for c in h))] for h in self.hands],
                       dtype=np.int32)
        self.perm_index[inv] = len(self.perms)
        self.perms.append(arr)
        self.pid_of[g] = self.perm_index[inv]
        return self.perm_index[inv]

    def template(self, rnd: int, contrib: tuple) -> _Template:
        key = (rnd, contrib)
        if key not in self.templates:
            self.templates[key] = _Template(self.r, rnd, contrib)
        return self.templates[key]

    def outcomes(self, rnd: int, key: tuple) -> list:
        """Orbits of the next public cards after board ``key``: (cards, {image: perm}, stabiliser)."""
        if key in self.outcome_memo:
            return self.outcome_memo[key]
        r, S = self.r, self.r.n_suits
        m = r.public_cards[rnd]
        used = {c for o in key for c in o}
        remaining = [c for c in range(r.n_cards) if c not in used]
        G = self.stab_of[key]
        seen: set = set()
        out = []
        for combo in itertools.combinations(remaining, m):
            if combo in seen:
                continue
            members: dict = {}
            for g in G:
                members.setdefault(tuple(sorted(_perm_card(c, g, S) for c in combo)), g)
            seen.update(members)
            stab = [g for g in G if tuple(sorted(_perm_card(c, g, S) for c in combo)) == combo]
            self.stab_of.setdefault(key + (combo,), stab)
            out.append((combo, members, stab))
        self.outcome_memo[key] = out
        return out

    def unit_size(self, rnd: int, contrib: tuple, key: tuple) -> int:
        """Nodes of ``start_round(rnd)``'s subtree (a showdown when ``rnd`` is past the end)."""
        if rnd == self.r.rounds:
            return 1
        if self.r.public_cards[rnd] == 0:
            return self.seg_size(rnd, contrib, key)
        return 1 + sum(self.seg_size(rnd, contrib, key + (c,)) for c, _, _ in self.outcomes(rnd, key))

    def seg_size(self, rnd: int, contrib: tuple, key: tuple) -> int:
        return int(self.layout(rnd, contrib, key)[-1])

    def layout(self, rnd: int, contrib: tuple, key: tuple) -> np.ndarray:
        """Offsets of the template's nodes inside its subtree on board ``key`` (END: the root
        of the next round's subtree), and the subtree's size last."""
        k = (rnd, contrib, key)
        if k not in self.layouts:
            t = self.template(rnd, contrib)
            w = np.ones(len(t.kind) + 1, dtype=np.int64)
            for i in t.ends:
                w[i] = self.unit_size(rnd + 1, t.contrib[i], key)
            w[-1] = 0
            self.layouts[k] = np.concatenate([[0], np.cumsum(w)[:-1]])
        return self.layouts[k]

    def board_child(self, b: int, outcome: tuple, stab: list) -> int:
        key = self.board_cards[b] + (outcome,)
        if key not in self.board_index:
            self.board_index[key] = len(self.board_cards)
            self.board_cards.append(key)
            self.board_stab.append(stab)
        return self.board_index[key]

    def start_round(self, rnd: int, contrib: tuple, board: int, cw: float, hist: str, at: int) -> None:
        """Lay out ``start_round``'s subtree at node id ``at`` (chance nodes now, betting
        templates queued for :meth:`emit`)."""
        r = self.r
        key = self.board_cards[board]
        if r.public_cards[rnd] == 0:
            return self.segment(rnd, contrib, board, cw, hist, at)
        self.chance.append((at, rnd, board, cw, contrib, hist))
        used = sum(len(o) for o in key)
        total = math.comb(r.n_cards - 2 * r.private_cards - used, r.public_cards[rnd])
        pos = at + 1
        edges = []
        for combo, members, stab in self.outcomes(rnd, key):
            child_board = self.board_child(board, combo, stab)
            for img, g in members.items():
                self.canon[(board, img)] = (child_board, g)
            self.segment(rnd, contrib, child_board, cw * len(members) / total, hist, pos)
            self.chance_kids.append((at, pos))
            pos += self.seg_size(rnd, contrib, key + (combo,))
            edges.append((1.0 / len(members), self.pids(rnd, key, combo, members)))
        self.chance_edges[at] = edges

    def pids(self, rnd: int, key: tuple, combo: tuple, members: dict) -> list:
        k = (rnd, key, combo)
        if k not in self.pid_memo:
            self.pid_memo[k] = [self.hand_perm_inv(g) for g in members.values()]
        return self.pid_memo[k]

    def segment(self, rnd: int, contrib: tuple, board: int, cw: float, hist: str, at: int) -> None:
        key = self.board_cards[board]
        lay = self.layout(rnd, contrib, key)
        group = self.groups.setdefault((rnd, contrib, lay.tobytes()), ([], [], [], [], lay))
        for lst, x in zip(group, (at, cw, board, hist)):
            lst.append(x)
        if rnd + 1 < self.r.rounds:
            t = self.template(rnd, contrib)
            for i in t.ends:
                self.start_round(rnd + 1, t.contrib[i], board, cw, hist + t.suffix[i] + "/",
                                 at + int(lay[i]))

    def build(self) -> dict:
        """Node and edge arrays of the whole tree (``history`` a list, edges by parent)."""
        r = self.r
        k, n = r.private_cards, r.n_cards
        root_cw = 1.0 / (math.comb(n, k) * math.comb(n - k, k))
        N = self.unit_size(0, r.contributions, ())
        self.start_round(0, r.contributions, 0, root_cw, "", 0)
        a = {"ntype": np.zeros(N, np.int8), "nplayer": np.zeros(N, np.int8),
             "nround": np.zeros(N, np.int8), "nboard": np.zeros(N, np.int32),
             "cw": np.zeros(N), "contrib": np.zeros((N, 2), np.int64),
             "history": np.empty(N, dtype=object)}
        par, kid, act = [], [], []
        for node, rnd, board, cw, contrib, hist in self.chance:
            for name, v in zip(("ntype", "nplayer", "nround", "nboard", "cw", "contrib", "history"),
                               (CHANCE, -1, rnd, board, cw, contrib, hist)):
                a[name][node] = v
        if self.chance_kids:
            ck = np.array(self.chance_kids, dtype=np.int64)
            par.append(ck[:, 0]); kid.append(ck[:, 1]); act.append(np.full(len(ck), -1, np.int8))
        for (rnd, contrib, _), (at, cw, board, hist, lay) in self.groups.items():
            self._emit(a, self.template(rnd, contrib), rnd, lay, at, cw, board, hist, (par, kid, act))
        par, kid, act = (np.concatenate(x) for x in (par, kid, act))
        order = np.argsort(par, kind="stable")
        a["child_count"] = np.bincount(par, minlength=N).astype(np.int32)
        a["children"], a["child_action"] = kid[order].astype(np.int32), act[order]
        a["history"] = a["history"].tolist()
        return a

    def _emit(self, a: dict, t: _Template, rnd: int, lay, at, cw, board, hist, edges) -> None:
        """Write every instance (offsets ``at``) of template ``t`` at once."""
        last = rnd == self.r.rounds - 1
        keep = np.flatnonzero(t.kind != _END) if not last else np.arange(len(t.kind))
        at = np.array(at, dtype=np.int64)[:, None]
        pos = at + lay[keep][None, :]
        a["ntype"][pos] = np.where(t.kind == _END, SHOWDOWN, t.kind)[keep]
        a["nplayer"][pos] = t.player[keep]
        a["nround"][pos] = rnd
        a["nboard"][pos] = np.array(board, dtype=np.int32)[:, None]
        a["cw"][pos] = np.array(cw)[:, None]
        a["contrib"][pos] = t.contrib_arr[keep]
        a["history"][pos] = np.array(hist, dtype=object)[:, None] + t.suffix_arr[keep][None, :]
        par, kid, act = edges
        par.append((at + lay[t.e_par][None, :]).ravel())
        kid.append((at + lay[t.e_child][None, :]).ravel())
        act.append(np.broadcast_to(t.e_act, (len(at), len(t.e_act))).ravel())


def compile_game(rules: LimitPokerRules, abstraction: CardAbstraction | None = None,
                 suit_isomorphism: bool = True) -> CompiledGame:
    """Compile ``rules`` (optionally with a card ``abstraction``) to a :class:`CompiledGame`.

    Raises:
        ValueError: if the abstraction is not suit-invariant while ``suit_isomorphism`` is on.
    """
    b = _Builder(rules, suit_isomorphism)
    tree = b.build()
    k = rules.private_cards
    H = len(b.hands)
    hands = np.array(b.hands, dtype=np.int32).reshape(H, k)
    board_valid = _board_valid(b.board_cards, hands)
    ntype = tree["ntype"]
    child_count = tree["child_count"]
    child_start = np.zeros(len(ntype), dtype=np.int32)
    child_start[1:] = np.cumsum(child_count)[:-1]
    edges = _edges(b, tree, child_start)
    dnode = np.flatnonzero(ntype == DECISION).astype(np.int32)
    dslot = np.full(len(ntype), -1, dtype=np.int32)
    dslot[dnode] = np.arange(len(dnode), dtype=np.int32)
    nboard, nround, nplayer = tree["nboard"], tree["nround"], tree["nplayer"]
    showdown = _showdown_order(rules, b.board_cards, hands, board_valid,
                               np.unique(nboard[ntype == SHOWDOWN]))
    if abstraction is None:
        info, info_player, info_round, nact, labels, info_d, info_hand = _real_infosets(
            b, board_valid, dnode, nboard, nround, nplayer, child_count)
        name = None
    else:
        info, info_player, info_round, nact, labels, info_d = _abstract_infosets(
            rules, abstraction, b, hands, board_valid, dnode, nboard, nround, nplayer, child_count,
            tree["history"], suit_isomorphism)
        name = abstraction.name
        info_hand = np.full(len(info_d), -1, dtype=np.int32)

    g = CompiledGame(
        rules=rules, abstraction=name, hands=hands, board_cards=b.board_cards, board_valid=board_valid,
        ntype=ntype, nplayer=nplayer, nround=nround, nboard=nboard, child_start=child_start,
        child_count=child_count, **edges,
        cw=tree["cw"], contrib=tree["contrib"], history=tree["history"], dslot=dslot,
        dnode=dnode, **showdown,
        info=info, info_player=np.asarray(info_player, np.int8), info_nact=np.asarray(nact, np.int8),
        info_round=np.asarray(info_round, np.int8), info_d=np.asarray(info_d, np.int32),
        info_hand=info_hand, bucket_labels=labels,
        canon=b.canon)
    g._hand_index = b.hand_index
    hist = tree["history"]
    g._node_index = {(hist[n], bd): d for d, (n, bd) in enumerate(zip(dnode.tolist(), nboard[dnode].tolist()))}
    return g


def _board_valid(board_cards: list, hands: np.ndarray) -> np.ndarray:
    """(B, H) bool: hand ``h`` shares no card with board ``b``."""
    board_valid = np.ones((len(board_cards), len(hands)), dtype=np.bool_)
    for bi, key in enumerate(board_cards):
        for o in key:
            for c in o:
                board_valid[bi] &= ~(hands == c).any(axis=1)
    return board_valid


def _edges(b: _Builder, tree: dict, child_start: np.ndarray) -> dict:
    """The edge arrays of :class:`CompiledGame` (``children`` .. ``perm_inv``): each node's
    children in order and, for a chance edge, its orbit's scale and suit permutations."""
    H = len(b.hands)
    children, child_action = tree["children"], tree["child_action"]
    E = len(children)
    edge_scale = np.ones(E)
    edge_perm_start = np.zeros(E, dtype=np.int32)
    edge_perm_count = np.zeros(E, dtype=np.int32)
    flat_perms: list = []
    for node, edges in b.chance_edges.items():
        for j, (scale, pids) in enumerate(edges):
            e = child_start[node] + j
            edge_scale[e] = scale
            edge_perm_start[e] = len(flat_perms)
            edge_perm_count[e] = len(pids)
            flat_perms.extend(pids)
    perms = np.array(b.perms, dtype=np.int32).reshape(len(b.perms), H)
    perm_inv = perms[np.array(flat_perms, dtype=np.int64)] if flat_perms else np.zeros((0, H), np.int32)
    return {"children": children, "child_action": child_action, "edge_scale": edge_scale,
            "edge_perm_start": edge_perm_start, "edge_perm_count": edge_perm_count,
            "perm_inv": perm_inv}


def _showdown_order(rules: LimitPokerRules, board_cards: list, hands: np.ndarray,
                    board_valid: np.ndarray, final_boards: np.ndarray) -> dict:
    """The showdown arrays of :class:`CompiledGame` (``strength`` .. ``order``): on every
    final board, each valid hand's strength and the valid hands sorted by it."""
    B, H = board_valid.shape
    rank_fn = ranking.RANKINGS[rules.ranking]
    strength = np.zeros((B, H), dtype=np.int64)
    order_start = np.zeros(B, dtype=np.int32)
    order_len = np.zeros(B, dtype=np.int32)
    final_boards = np.asarray(final_boards, dtype=np.int64)
    if len(final_boards) == 0:
        return {"strength": strength, "order_start": order_start, "order_len": order_len,
                "order": np.zeros(0, np.int32)}
    # every (final board, valid hand) in one ranking call, in board order then hand order
    flat = np.array([[c for o in board_cards[bi] for c in o] for bi in final_boards],
                    dtype=np.int64).reshape(len(final_boards), -1)
    fb, fh = np.nonzero(board_valid[final_boards])
    ranked = rank_fn(hands[fh].astype(np.int64), flat[fb], rules.n_suits)
    strength[final_boards[fb], fh] = ranked
    # per board, its valid hands by ascending strength, ties in hand order (a stable sort)
    o = np.lexsort((ranked, fb))
    order = fh[o].astype(np.int32)
    counts = np.bincount(fb, minlength=len(final_boards)).astype(np.int32)
    order_len[final_boards] = counts
    order_start[final_boards] = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int32)
    return {"strength": strength, "order_start": order_start, "order_len": order_len,
            "order": order}


def _real_infosets(b: _Builder, board_valid, dnode, nboard, nround, nplayer, child_count):
    """Infosets of the unabstracted game: one per orbit of (decision node, hand) under the
    suit permutations fixing the board, so strategies are suit-symmetric by construction
    (needed for the LP on canonical boards). Returns (info, player, round, number of
    actions, labels (None), a decision index and the representative hand of each)."""
    B, H = board_valid.shape
    D = len(dnode)
    rep = np.tile(np.arange(H, dtype=np.int64), (B, 1))
    for bi in range(B):
        for gperm in b.board_stab[bi]:
            rep[bi] = np.minimum(rep[bi], b.perms[b.hand_perm_inv(gperm)])
    # infoset ids in the order of (decision index, representative hand): per board, the
    # sorted distinct representatives of its valid hands, numbered on from each decision's base
    idx = np.full((B, H), -1, dtype=np.int64)
    reps = []
    for bi in range(B):
        v = board_valid[bi]
        reps.append(np.unique(rep[bi, v]))
        idx[bi, v] = np.searchsorted(reps[-1], rep[bi, v])
    n_rep = np.array([len(u) for u in reps], dtype=np.int64)
    rep_start = np.concatenate([[0], np.cumsum(n_rep)[:-1]]).astype(np.int64)
    bd = nboard[dnode]
    cnt = n_rep[bd]
    base = np.concatenate([[0], np.cumsum(cnt)[:-1]]).astype(np.int64)
    info = np.where(board_valid[bd], base[:, None] + idx[bd], -1).astype(np.int32)
    d_u = np.repeat(np.arange(D, dtype=np.int64), cnt)
    j = np.arange(len(d_u), dtype=np.int64) - base[d_u]
    h_u = np.concatenate(reps)[rep_start[bd[d_u]] + j] if len(d_u) else np.zeros(0, np.int64)
    info_player = nplayer[dnode[d_u]]
    info_round = nround[dnode[d_u]]
    nact = child_count[dnode[d_u]].astype(np.int8)
    return info, info_player, info_round, nact, None, d_u.astype(np.int32), h_u.astype(np.int32)


def _check_suit_invariant(abstraction, rnd: int, hands: np.ndarray, board: np.ndarray,
                          bk: np.ndarray, cperms: list) -> None:
    """Raise ValueError unless ``abstraction`` gives ``bk`` again for ``hands`` and ``board``
    under every card permutation in ``cperms`` (one call per distinct permuted board)."""
    by_board: dict = {}
    for cperm in cperms:
        pb = cperm[board].astype(np.int64)
        by_board.setdefault(pb.tobytes(), (pb, []))[1].append(np.sort(cperm[hands], axis=1))
    for pb, phs in by_board.values():
        got = np.asarray(abstraction.bucket(rnd, np.concatenate(phs), pb))
        if not np.array_equal(got, np.tile(bk, len(phs))):
            raise ValueError(f"abstraction {abstraction.name!r} is not suit-invariant; "
                             "compile with suit_isomorphism=False")


def _abstract_infosets(rules, abstraction, b, hands, board_valid, dnode, nboard, nround, nplayer,
                       child_count, hist_arr, iso):
    """Infosets = (betting history, bucket sequence), numbered densely over valid hands; with
    an imperfect-recall abstraction (``perfect_recall`` False) the sequence keeps only the
    round's own bucket (label "-.-.101"). The buckets are checked for suit invariance under
    ``iso`` unless the abstraction says it is so by construction (``suit_invariant``: buckets
    looked up by canonical hand index)."""
    S = rules.n_suits
    H = len(hands)
    forget = not getattr(abstraction, "perfect_recall", True)
    check = iso and not getattr(abstraction, "suit_invariant", False)
    codes: dict = {}     # (round, board) -> (H,) int64 bucket-sequence id (-1: hand blocked)
    seq_ids: dict = {}   # bucket sequence tuple -> id
    seq_list: list = []

    cperms = {g: np.array([_perm_card(c, g, S) for c in range(rules.n_cards)], dtype=np.int64)
              for g in b.all_perms}

    def flat(bi):
        return np.array([c for o in b.board_cards[bi] for c in o], dtype=np.int64)

    def board_at(bi, rnd):
        n_out = sum(1 for r in range(rnd + 1) if rules.public_cards[r] > 0)
        return b.board_index[b.board_cards[bi][:n_out]]

    def buckets(rnd, bi):
        valid = np.flatnonzero(board_valid[bi])
        board = flat(bi)
        bk = np.asarray(abstraction.bucket(rnd, hands[valid], board), dtype=np.int64)
        if bk.shape != (len(valid),):
            raise ValueError(f"abstraction {abstraction.name!r} returned shape {bk.shape} for round {rnd}")
        if check:
            _check_suit_invariant(abstraction, rnd, hands[valid], board, bk,
                                  [cperms[g] for g in b.all_perms[1:]])
        out = np.full(H, -1, dtype=np.int64)
        out[valid] = bk
        return out

    def code_of(rnd, bi):
        key = (rnd, bi)
        if key not in codes:
            bk = buckets(rnd, bi)
            prev = code_of(rnd - 1, board_at(bi, rnd - 1)) if rnd > 0 else np.zeros(H, np.int64)
            out = np.full(H, -1, dtype=np.int64)
            for h in np.flatnonzero(bk >= 0):
                if forget:  # imperfect recall: the earlier buckets are forgotten
                    seq = (None,) * rnd + (int(bk[h]),)
                else:
                    seq = (seq_list[prev[h]] if rnd > 0 else ()) + (int(bk[h]),)
                if seq not in seq_ids:
                    seq_ids[seq] = len(seq_list)
                    seq_list.append(seq)
                out[h] = seq_ids[seq]
            codes[key] = out
        return codes[key]

    D = len(dnode)
    hist_id: dict = {}
    hid = np.array([hist_id.setdefault(hist_arr[n], len(hist_id)) for n in dnode], dtype=np.int64)
    B = len(b.board_cards)
    pair = nround[dnode].astype(np.int64) * B + nboard[dnode]
    upair, first_d, pinv = np.unique(pair, return_index=True, return_inverse=True)
    rows = np.zeros((len(upair), H), dtype=np.int64)
    for i in np.argsort(first_d, kind="stable"):  # sequence ids in order of first use
        rows[i] = code_of(int(upair[i] // B), int(upair[i] % B))
    # each decision's distinct codes (far fewer than its hands): the keys (history, code)
    # in the order of (decision, code), as the (decision, hand) order gives them first
    pinv = pinv.reshape(-1)
    ucodes, row_idx = [], np.full(rows.shape, -1, dtype=np.int64)
    for i, row in enumerate(rows):
        v = np.flatnonzero(row >= 0)
        u, ui = np.unique(row[v], return_inverse=True)
        ucodes.append(u)
        row_idx[i, v] = ui.reshape(-1)
    n_code = np.array([len(u) for u in ucodes], dtype=np.int64)
    code_start = np.concatenate([[0], np.cumsum(n_code)[:-1]]).astype(np.int64)
    cnt = n_code[pinv]
    base = np.concatenate([[0], np.cumsum(cnt)[:-1]]).astype(np.int64)
    d_rep = np.repeat(np.arange(D, dtype=np.int64), cnt)
    code = np.concatenate(ucodes)[code_start[pinv[d_rep]] + np.arange(len(d_rep)) - base[d_rep]]
    keys = hid[d_rep] * (len(seq_list) + 1) + code
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    inv = inv.reshape(-1).astype(np.int32)
    ri = row_idx[pinv]
    info = np.where(ri >= 0, inv[np.maximum(base[:, None] + ri, 0)], -1).astype(np.int32)
    d_u = d_rep[first]
    # one string per bucket sequence (many infosets share one: every betting history of a
    # round repeats the round's sequences), then one reference per infoset
    seq_labels = [".".join("-" if x is None else str(x) for x in seq) for seq in seq_list]
    labels = [seq_labels[c] for c in code[first].tolist()]
    n_u = dnode[d_u]
    return (info, nplayer[n_u], nround[n_u], child_count[n_u].astype(np.int8), labels,
            d_u.astype(np.int32))
