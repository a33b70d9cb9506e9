"""REFERENCE COPY (tests only) of solve/games/compile.py before the numpy builder: the per-item
builder kept to check the fast one gives byte-identical arrays (tests/test_compile_identical.py).

Compile limit poker rules into flat arrays: a public tree vectorised over private hands.

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
    isomorphism). ``name`` identifies it in tables. Infosets of the abstracted game are
    (sequence of buckets so far, betting history): perfect recall.
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


class _Builder:
    def __init__(self, rules: LimitPokerRules, suit_isomorphism: bool):
        self.r = rules
        S = rules.n_suits
        self.iso = suit_isomorphism
        self.hands = list(itertools.combinations(range(rules.n_cards), rules.private_cards))
        self.hand_index = {h: i for i, h in enumerate(self.hands)}
        self.all_perms = list(itertools.permutations(range(S))) if suit_isomorphism else [tuple(range(S))]
        self.hand_perm_cache: dict = {}
        # boards
        self.board_cards: list = [()]
        self.board_index = {(): 0}
        self.board_stab: list = [self.all_perms]
        self.canon: dict = {}
        # nodes
        self.ntype, self.nplayer, self.nround, self.nboard = [], [], [], []
        self.kids: list = []
        self.cw: list = []
        self.contrib: list = []
        self.history: list = []
        self.chance_edges: dict = {}  # node -> list of (scale, [perm ids])
        self.perms: list = []
        self.perm_index: dict = {}

    def hand_perm_inv(self, g: tuple) -> int:
        """Index of the hand map h -> sigma^-1(h) for suit permutation g."""
        inv = _invert(g)
        if inv in self.perm_index:
            return self.perm_index[inv]
        S = self.r.n_suits
        arr = np.array([self.hand_index[tuple(sorted(_perm_card(c, inv, S) for c in h))] for h in self.hands],
                       dtype=np.int32)
        self.perm_index[inv] = len(self.perms)
        self.perms.append(arr)
        return self.perm_index[inv]

    def new_node(self, t, player, rnd, board, cw, contrib, hist) -> int:
        self.ntype.append(t); self.nplayer.append(player); self.nround.append(rnd)
        self.nboard.append(board); self.kids.append([]); self.cw.append(cw)
        self.contrib.append(tuple(contrib)); self.history.append(hist)
        return len(self.ntype) - 1

    def board_child(self, b: int, outcome: tuple, stab: list) -> int:
        key = self.board_cards[b] + (outcome,)
        if key not in self.board_index:
            self.board_index[key] = len(self.board_cards)
            self.board_cards.append(key)
            self.board_stab.append(stab)
        return self.board_index[key]

    def start_round(self, rnd: int, contrib, board: int, cw: float, hist: str) -> int:
        r = self.r
        m = r.public_cards[rnd]
        if m == 0:
            bets = r.blind_bets if rnd == 0 else 0
            return self.decision(rnd, list(contrib), bets, r.first_to_act[rnd], (False, False), board, cw, hist)
        node = self.new_node(CHANCE, -1, rnd, board, cw, contrib, hist)
        S = r.n_suits
        used = {c for o in self.board_cards[board] for c in o}
        remaining = [c for c in range(r.n_cards) if c not in used]
        unseen = r.n_cards - 2 * r.private_cards - len(used)
        total = math.comb(unseen, m)
        G = self.board_stab[board]
        seen = set()
        edges = []
        for combo in itertools.combinations(remaining, m):
            if combo in seen:
                continue
            members: dict = {}
            for g in G:
                img = tuple(sorted(_perm_card(c, g, S) for c in combo))
                members.setdefault(img, g)
            seen.update(members)
            stab = [g for g in G if tuple(sorted(_perm_card(c, g, S) for c in combo)) == combo]
            child_board = self.board_child(board, combo, stab)
            for img, g in members.items():
                self.canon[(board, img)] = (child_board, g)
            bets = r.blind_bets if rnd == 0 else 0
            child = self.decision(rnd, list(contrib), bets, r.first_to_act[rnd], (False, False), child_board,
                                  cw * len(members) / total, hist)
            self.kids[node].append((child, -1))
            edges.append((1.0 / len(members), [self.hand_perm_inv(g) for g in members.values()]))
        self.chance_edges[node] = edges
        return node

    def end_round(self, rnd, contrib, board, cw, hist) -> int:
        if rnd == self.r.rounds - 1:
            return self.new_node(SHOWDOWN, -1, rnd, board, cw, contrib, hist)
        return self.start_round(rnd + 1, contrib, board, cw, hist + "/")

    def decision(self, rnd, contrib, bets, p, acted, board, cw, hist) -> int:
        r = self.r
        node = self.new_node(DECISION, p, rnd, board, cw, contrib, hist)
        o = 1 - p
        acted2 = tuple(True if i == p else acted[i] for i in range(2))
        if contrib[p] < contrib[o]:
            child = self.new_node(FOLD, p, rnd, board, cw, contrib, hist + "f")
            self.kids[node].append((child, FOLD_A))
            c2 = list(contrib); c2[p] = contrib[o]
            if all(acted2):
                child = self.end_round(rnd, c2, board, cw, hist + "c")
            else:
                child = self.decision(rnd, c2, bets, o, acted2, board, cw, hist + "c")
            self.kids[node].append((child, CALL_A))
            if bets < r.bet_caps[rnd]:
                c3 = list(contrib); c3[p] = contrib[o] + r.bet_sizes[rnd]
                child = self.decision(rnd, c3, bets + 1, o, acted2, board, cw, hist + "r")
                self.kids[node].append((child, RAISE_A))
        else:
            if all(acted2):
                child = self.end_round(rnd, contrib, board, cw, hist + "c")
            else:
                child = self.decision(rnd, list(contrib), bets, o, acted2, board, cw, hist + "c")
            self.kids[node].append((child, CHECK_A))
            if bets < r.bet_caps[rnd]:
                c3 = list(contrib); c3[p] = contrib[p] + r.bet_sizes[rnd]
                child = self.decision(rnd, c3, bets + 1, o, acted2, board, cw, hist + "r")
                self.kids[node].append((child, BET_A))
        return node


def compile_game(rules: LimitPokerRules, abstraction: CardAbstraction | None = None,
                 suit_isomorphism: bool = True) -> CompiledGame:
    """Compile ``rules`` (optionally with a card ``abstraction``) to a :class:`CompiledGame`.

    Raises:
        ValueError: if the abstraction is not suit-invariant while ``suit_isomorphism`` is on.
    """
    b = _Builder(rules, suit_isomorphism)
    k = rules.private_cards
    n = rules.n_cards
    root_cw = 1.0 / (math.comb(n, k) * math.comb(n - k, k))
    b.start_round(0, rules.contributions, 0, root_cw, "")

    H = len(b.hands)
    hands = np.array(b.hands, dtype=np.int32).reshape(H, k)
    board_valid = _board_valid(b.board_cards, hands)
    ntype = np.array(b.ntype, dtype=np.int8)
    child_count = np.array([len(x) for x in b.kids], dtype=np.int32)
    child_start = np.zeros(len(ntype), dtype=np.int32)
    child_start[1:] = np.cumsum(child_count)[:-1]
    edges = _edges(b, child_start, child_count)
    dnode = np.flatnonzero(ntype == DECISION).astype(np.int32)
    dslot = np.full(len(ntype), -1, dtype=np.int32)
    dslot[dnode] = np.arange(len(dnode), dtype=np.int32)
    nboard = np.array(b.nboard, dtype=np.int32)
    nround = np.array(b.nround, dtype=np.int8)
    nplayer = np.array(b.nplayer, dtype=np.int8)
    showdown = _showdown_order(rules, b.board_cards, hands, board_valid,
                               np.unique(nboard[ntype == SHOWDOWN]))
    if abstraction is None:
        info, info_player, info_round, nact, labels, info_d, info_hand = _real_infosets(
            b, board_valid, dnode, nboard, nround, nplayer, child_count)
        name = None
    else:
        info, info_player, info_round, nact, labels, info_d = _abstract_infosets(
            rules, abstraction, b, hands, board_valid, dnode, nboard, nround, nplayer, child_count,
            b.history, suit_isomorphism)
        name = abstraction.name
        info_hand = np.full(len(info_d), -1, dtype=np.int32)

    g = CompiledGame(
        rules=rules, abstraction=name, hands=hands, board_cards=b.board_cards, board_valid=board_valid,
        ntype=ntype, nplayer=nplayer, nround=nround, nboard=nboard, child_start=child_start,
        child_count=child_count, **edges,
        cw=np.array(b.cw), contrib=np.array(b.contrib, dtype=np.int64), history=b.history, dslot=dslot,
        dnode=dnode, **showdown,
        info=info, info_player=np.asarray(info_player, np.int8), info_nact=np.asarray(nact, np.int8),
        info_round=np.asarray(info_round, np.int8), info_d=np.asarray(info_d, np.int32),
        info_hand=info_hand, bucket_labels=labels,
        canon=b.canon)
    g._hand_index = b.hand_index
    g._node_index = {(b.history[dnode[d]], int(nboard[dnode[d]])): d for d in range(len(dnode))}
    return g


def _board_valid(board_cards: list, hands: np.ndarray) -> np.ndarray:
    """(B, H) bool: hand ``h`` shares no card with board ``b``."""
    board_valid = np.ones((len(board_cards), len(hands)), dtype=np.bool_)
    for bi, key in enumerate(board_cards):
        for o in key:
            for c in o:
                board_valid[bi] &= ~(hands == c).any(axis=1)
    return board_valid


def _edges(b: _Builder, child_start: np.ndarray, child_count: np.ndarray) -> dict:
    """The edge arrays of :class:`CompiledGame` (``children`` .. ``perm_inv``): each node's
    children in order and, for a chance edge, its orbit's scale and suit permutations."""
    H = len(b.hands)
    E = int(child_count.sum())
    children = np.array([c for x in b.kids for c, _ in x], dtype=np.int32).reshape(E)
    child_action = np.array([a for x in b.kids for _, a in x], dtype=np.int8).reshape(E)
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
    order_parts = []
    pos = 0
    for bi in final_boards:
        flat = np.array([c for o in board_cards[bi] for c in o], dtype=np.int64)
        valid = np.flatnonzero(board_valid[bi])
        strength[bi, valid] = rank_fn(hands[valid].astype(np.int64), flat, rules.n_suits)
        o = valid[np.argsort(strength[bi, valid], kind="stable")].astype(np.int32)
        order_start[bi] = pos
        order_len[bi] = len(o)
        order_parts.append(o)
        pos += len(o)
    order = np.concatenate(order_parts) if order_parts else np.zeros(0, np.int32)
    return {"strength": strength, "order_start": order_start, "order_len": order_len,
            "order": order}


def _real_infosets(b: _Builder, board_valid, dnode, nboard, nround, nplayer, child_count):
    """Infosets of the unabstracted game: one per orbit of (decision node, hand) under the
    suit permutations fixing the board, so strategies are suit-symmetric by construction
    (needed for the LP on canonical boards). Returns (info, player, round, number of
    actions, labels (None), a decision index and the representative hand of each)."""
    B, H = board_valid.shape
    D = len(dnode)
    valid_d = board_valid[nboard[dnode]]  # (D, H)
    rep = np.tile(np.arange(H, dtype=np.int64), (B, 1))
    for bi in range(B):
        for gperm in b.board_stab[bi]:
            rep[bi] = np.minimum(rep[bi], b.perms[b.hand_perm_inv(gperm)])
    dd, hh = np.nonzero(valid_d)
    keys = dd.astype(np.int64) * H + rep[nboard[dnode[dd]], hh]
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    info = np.full((D, H), -1, dtype=np.int32)
    info[dd, hh] = inv.astype(np.int32)
    d_u, h_u = dd[first], rep[nboard[dnode[dd[first]]], hh[first]]
    info_player = nplayer[dnode[d_u]]
    info_round = nround[dnode[d_u]]
    nact = child_count[dnode[d_u]].astype(np.int8)
    return info, info_player, info_round, nact, None, d_u.astype(np.int32), h_u.astype(np.int32)


def _abstract_infosets(rules, abstraction, b, hands, board_valid, dnode, nboard, nround, nplayer,
                       child_count, hist_arr, iso):
    """Infosets = (betting history, bucket sequence), numbered densely over valid hands; with
    an imperfect-recall abstraction (``perfect_recall`` False) the sequence keeps only the
    round's own bucket (label "-.-.101")."""
    S = rules.n_suits
    H = len(hands)
    forget = not getattr(abstraction, "perfect_recall", True)
    codes: dict = {}     # (round, board) -> (H,) int64 bucket-sequence id (-1: hand blocked)
    seq_ids: dict = {}   # bucket sequence tuple -> id
    seq_list: list = []

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
        if iso:
            for g in b.all_perms[1:]:
                ph = np.sort(np.vectorize(lambda c: _perm_card(int(c), g, S))(hands[valid]), axis=1)
                pb = np.array([_perm_card(int(c), g, S) for c in board], dtype=np.int64)
                if not np.array_equal(np.asarray(abstraction.bucket(rnd, ph, pb)), bk):
                    raise ValueError(f"abstraction {abstraction.name!r} is not suit-invariant; "
                                     "compile with suit_isomorphism=False")
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
    cs = np.stack([code_of(int(nround[n]), int(nboard[n])) for n in dnode])  # (D, H)
    dd, hh = np.nonzero(cs >= 0)
    keys = hid[dd] * (len(seq_list) + 1) + cs[dd, hh]
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    info = np.full((D, H), -1, dtype=np.int32)
    info[dd, hh] = inv.astype(np.int32)
    d_u = dd[first]
    labels = [".".join("-" if x is None else str(x) for x in seq_list[c])
              for c in cs[d_u, hh[first]]]
    n_u = dnode[d_u]
    return (info, nplayer[n_u], nround[n_u], child_count[n_u].astype(np.int8), labels,
            d_u.astype(np.int32))
