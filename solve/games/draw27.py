"""2-7 single draw, reduced form (issue 7), as a generic tree with exact bucket transitions.

Deck: ranks 2..8 in three suits (21 cards; ``n_ranks``/``n_suits`` configurable for tests),
card id ``rank * n_suits + suit``. Ante 1 each, three cards each. Kuhn-style betting (bet 1,
no raises; player 1 checks or bets, player 2 checks/bets or folds/calls, player 1 folds or
calls a bet after checking) before and after one draw in which each player discards exactly
one card and draws one from the undealt cards. The discard is forced: a matched card if the
hand is paired (of the matched cards the one with the highest card id), else the highest
card. Lowest hand wins the showdown; ties split.

Three-card 2-7 (deuce-to-seven lowball) ranking: the usual poker order, lowest wins, no
aces, straights and flushes count against you. Categories from best to worst: high card,
pair, trips, straight, flush, straight flush; within a category ranks compare highest
first (pairs: pair rank, then kicker; straights by top card). Of the 1,330 hands of the
21-card deck: 720 high card, 378 pairs, 7 trips, 120 straights, 90 flushes, 15 straight
flushes.

A player's information is its hand before the draw (round 1) and (hand, drawn card) after
it (round 2). Abstractions replace these by buckets with perfect recall (round-2 bucket
sequence = (round-1 bucket, round-2 bucket)); the game over buckets has chance weights
``W[t1, t2]`` (number of deals) and showdown sums ``S[t1, t2]`` enumerated exactly over all
deals (hand 1, hand 2, drawn card 1, drawn card 2) -- no sampling:

- ``"raw"``: no abstraction (type = (hand, drawn card)); small decks only (at full size,
  :mod:`solve.games.draw27_raw` evaluates profiles of the unabstracted game over all deals without
  W/S: value and exact best responses, e.g. of a lifted iso or bucketed solution);
- ``"iso"``: the finest lossless bucketing, suit-isomorphism classes of (hand) and
  (hand, drawn card) (Gilpin & Sandholm 2007: lossless abstraction by isomorphism);
- an integer ``n``: ``n`` round-1 buckets by expected final-hand strength and ``n`` round-2
  buckets by final-hand strength (percentile buckets, equal numbers of hands / (hand,
  card) pairs).
"""

from __future__ import annotations

import itertools

import numpy as np

from solve.games._classic_kernels import draw_enumerate
from solve.games.tree import SequenceForm, Tree, type_game

MAX_NODES = 4_000_000
CATEGORIES = ("high card", "pair", "trips", "straight", "flush", "straight flush")


def hand_values(cards: np.ndarray, n_suits: int, n_ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """(category, value) of three-card hands (N, 3); lower value is the better 2-7 hand."""
    c = np.asarray(cards, dtype=np.int64)
    r = np.sort(c // n_suits, axis=1)[:, ::-1]  # descending
    s = c % n_suits
    r0, r1, r2 = r[:, 0], r[:, 1], r[:, 2]
    trips = r0 == r2
    pair = ~trips & ((r0 == r1) | (r1 == r2))
    distinct = ~trips & ~pair
    straight = distinct & (r0 - r2 == 2)
    flush = distinct & (s[:, 0] == s[:, 1]) & (s[:, 1] == s[:, 2])
    cat = np.zeros(len(c), np.int64)
    cat[pair] = 1
    cat[trips] = 2
    cat[straight & ~flush] = 3
    cat[flush & ~straight] = 4
    cat[straight & flush] = 5
    R = n_ranks
    pair_rank = np.where(r0 == r1, r0, r2)
    kicker = np.where(r0 == r1, r2, r0)
    within = np.select([cat == 1, cat == 2, (cat == 3) | (cat == 5)],
                       [pair_rank * R + kicker, r0, r0], (r0 * R + r1) * R + r2)
    return cat, cat * R ** 3 + within


def category_counts(n_ranks: int = 7, n_suits: int = 3) -> dict:
    hands = np.array(list(itertools.combinations(range(n_ranks * n_suits), 3)), dtype=np.int64)
    cat, _ = hand_values(hands, n_suits, n_ranks)
    return {name: int((cat == k).sum()) for k, name in enumerate(CATEGORIES)}


def forced_discard(hands: np.ndarray, n_suits: int) -> np.ndarray:
    """Position (0..2) of the discarded card: a matched card if paired, else the highest card.

    Of two matched cards, the one sharing its suit with the kicker is discarded (the kept
    cards then cannot make a flush); otherwise the choice does not matter and the highest
    card id goes. The rule commutes with suit permutations, which keeps the game
    suit-symmetric (needed for the lossless isomorphism buckets)."""
    h = np.asarray(hands, dtype=np.int64)
    r = h // n_suits
    s = h % n_suits
    out = np.empty(len(h), np.int64)
    for i in range(len(h)):
        ri = r[i]
        matched = [k for k in range(3) if (ri == ri[k]).sum() >= 2]
        if not matched:
            out[i] = int(np.argmax(ri))
            continue
        kick = [k for k in range(3) if k not in matched]
        if kick:
            same = [k for k in matched if s[i, k] == s[i, kick[0]]]
            if same:
                out[i] = same[0]
                continue
        out[i] = max(matched, key=lambda k: h[i, k])
    return out


class _Deck:
    def __init__(self, n_ranks: int, n_suits: int):
        if n_ranks < 2 or n_suits < 1 or n_ranks * n_suits < 8:
            raise ValueError("the deck needs at least 8 cards (3 + 3 dealt, 1 + 1 drawn)")
        self.R, self.S, self.n = n_ranks, n_suits, n_ranks * n_suits
        self.hands = np.array(list(itertools.combinations(range(self.n), 3)), dtype=np.int64)
        H = len(self.hands)
        disc = forced_discard(self.hands, n_suits)
        keep = np.array([[k for k in range(3) if k != d] for d in disc])
        kept = np.take_along_axis(self.hands, keep, axis=1)
        self.final_val = np.full((H, self.n), np.iinfo(np.int64).max // 4, np.int64)
        self.drawable = np.ones((H, self.n), bool)
        self.drawable[np.arange(H)[:, None], self.hands] = False
        hh, cc = np.nonzero(self.drawable)
        fin = np.column_stack([kept[hh], cc])
        self.final_val[hh, cc] = hand_values(fin, n_suits, n_ranks)[1]
        mask = np.zeros((H, self.n), bool)
        mask[np.arange(H)[:, None], self.hands] = True
        self.hand_ok = ~(mask.astype(np.int64) @ mask.T.astype(np.int64)).astype(bool)

    def card_str(self, c: int) -> str:
        return "2345678"[c // self.S] if self.R <= 7 else str(c // self.S)

    def label(self, h: int, c: int | None = None) -> str:
        s = "".join(f"{'2345678'[x // self.S]}{'shd'[x % self.S]}" for x in self.hands[h])
        return s if c is None else f"{s}+{'2345678'[c // self.S]}{'shd'[c % self.S]}"


def _iso_classes(deck: _Deck):
    """Canonical class ids of hands and of (hand, drawn card) under suit permutations."""
    S = deck.S
    H = len(deck.hands)
    perms = list(itertools.permutations(range(S)))
    hand_index = {tuple(h): i for i, h in enumerate(deck.hands.tolist())}
    best_h = np.full(H, np.iinfo(np.int64).max, np.int64)
    best_hc = np.full((H, deck.n), np.iinfo(np.int64).max, np.int64)
    for g in perms:
        g = np.array(g)
        img = np.sort((deck.hands // S) * S + g[deck.hands % S], axis=1)
        hid = np.array([hand_index[tuple(x)] for x in img.tolist()], np.int64)
        best_h = np.minimum(best_h, hid)
        cimg = (np.arange(deck.n) // S) * S + g[np.arange(deck.n) % S]
        code = hid[:, None] * deck.n + cimg[None, :]
        best_hc = np.minimum(best_hc, code)
    return best_h, best_hc


def _percentile_buckets(strength: np.ndarray, n: int) -> np.ndarray:
    """Buckets 0..n-1 by ascending strength, equal counts, ties kept together."""
    order = np.argsort(strength, kind="stable")
    ranks = np.empty(len(strength), np.int64)
    ranks[order] = np.arange(len(strength))
    # ties: use the rank of the first equal element
    _, first = np.unique(strength[order], return_index=True)
    inv = np.searchsorted(strength[order][first], strength)
    tie_rank = first[inv]
    return np.minimum(tie_rank * n // len(strength), n - 1)


def draw27(buckets="iso", n_ranks: int = 7, n_suits: int = 3) -> Tree:
    """The 2-7 single draw game over ``buckets`` ("raw", "iso" or an int >= 1); see module."""
    name, W, S, labels2, view1, labels1 = _types(buckets, n_ranks, n_suits, tree=True)
    return _build(name, W, S, labels2, view1, labels1)


def _type_maps(buckets, deck: _Deck):
    """(name, type key of each drawable (hand, card) in ``np.nonzero(deck.drawable)`` order,
    round-1 key of the same, {type key: label}, {round-1 key: label}) of ``buckets``."""
    H, n = len(deck.hands), deck.n
    hh, cc = np.nonzero(deck.drawable)
    if buckets == "raw":
        if H * (n - 3) > 6000:
            raise ValueError("the unabstracted ('raw') game is only built for small decks; use 'iso' "
                             "(lossless) or a bucket count")
        t_full = hh * n + cc
        r1_full = hh
        lab2 = {int(h * n + c): deck.label(h, c) for h, c in zip(hh, cc)}
        lab1 = {int(h): deck.label(h) for h in range(H)}
        name = "draw27"
    elif buckets == "iso":
        best_h, best_hc = _iso_classes(deck)
        t_full = best_hc[hh, cc]
        r1_full = best_h[hh]
        lab2 = {int(k): deck.label(int(k) // n, int(k) % n) for k in np.unique(t_full)}
        lab1 = {int(k): deck.label(int(k)) for k in np.unique(r1_full)}
        name = "draw27-iso"
    else:
        nb = int(buckets)
        if nb < 1:
            raise ValueError("`buckets` must be at least 1")
        fv = deck.final_val[hh, cc].astype(np.float64)
        b2 = _percentile_buckets(fv, nb)
        mean = np.zeros(H)
        np.add.at(mean, hh, fv)
        mean /= (n - 3)
        b1 = _percentile_buckets(mean, nb)
        r1_full = b1[hh]
        t_full = r1_full * nb + b2
        lab2 = {int(k): f"{int(k) // nb}.{int(k) % nb}" for k in np.unique(t_full)}
        lab1 = {int(k): str(int(k)) for k in np.unique(r1_full)}
        name = f"draw27-b{nb}"
    return name, t_full, r1_full, lab2, lab1


def _types(buckets, n_ranks: int, n_suits: int, tree: bool):
    """(name, W, S, type labels, round-1 view of each type, round-1 labels)."""
    deck = _Deck(n_ranks, n_suits)
    H, n = len(deck.hands), deck.n
    hh, cc = np.nonzero(deck.drawable)
    name, t_full, r1_full, lab2, lab1 = _type_maps(buckets, deck)
    # dense type ids (only types that occur), and the round-1 view of each type
    uniq_t, t_dense = np.unique(t_full, return_inverse=True)
    T = len(uniq_t)
    type_of = np.zeros((H, n), np.int64)
    type_of[hh, cc] = t_dense
    uniq_1, r1_dense = np.unique(r1_full, return_inverse=True)
    view1 = np.zeros(T, np.int64)
    view1[t_dense] = r1_dense
    if not np.array_equal(view1[t_dense], r1_dense):
        raise ValueError("abstraction without perfect recall")
    if tree and T * T * 35 > 50 * MAX_NODES:
        raise ValueError(f"{name}: {T} information types per player is too large for the generic tree; "
                         "use fewer `buckets` (or the matrix-free draw27_sequence_form with CFR)")
    W, S = draw_enumerate(deck.hands, deck.hand_ok, deck.final_val, type_of, n, T, T)
    labels2 = [lab2[int(k)] for k in uniq_t]
    labels1 = [lab1[int(k)] for k in uniq_1]
    return name, W, S, labels2, view1, labels1


def _template():
    """Public tree (topological) and, per terminal, ("W", +-pot) for a fold or ("S", pot)
    for a showdown: its payoff is +-pot, or pot * S / W averaged over the deals."""
    template: list = []

    def add(entry):
        template.append(entry)
        return len(template) - 1

    payoffs: dict = {}

    def fold(loser_contrib_sign, amount, hist):
        k = add(("t", hist))
        payoffs[k] = ("W", loser_contrib_sign * amount)
        return k

    def showdown(amount, hist):
        k = add(("t", hist))
        payoffs[k] = ("S", amount)
        return k

    def kuhn_round(prefix, pot, rnd, cont):
        """Kuhn-style betting; ``cont(hist, pot)`` builds what follows a round that ends."""
        root = add(None)
        p2c = add(None)
        p2b = add(None)
        template[root] = ("d", 0, prefix, ("check", "bet"), [p2c, p2b], rnd)
        cc = cont(prefix + "c" + "c", pot)
        p1cb = add(None)
        template[p2c] = ("d", 1, prefix + "c", ("check", "bet"), [cc, p1cb], rnd)
        f1 = fold(+1, pot, prefix + "rf")           # player 2 folds: player 1 wins pot
        c1 = cont(prefix + "rc", pot + 1)
        template[p2b] = ("d", 1, prefix + "r", ("fold", "call"), [f1, c1], rnd)
        f2 = fold(-1, pot, prefix + "crf")          # player 1 folds
        c2 = cont(prefix + "crc", pot + 1)
        template[p1cb] = ("d", 0, prefix + "cr", ("fold", "call"), [f2, c2], rnd)
        return root

    def second(hist, pot):
        return kuhn_round(hist + "/", pot, 1, lambda h, p: showdown(p, h))

    kuhn_round("", 1, 0, second)
    # template indices must be topological (parents first): renumber by DFS order
    order = []

    def visit(i):
        order.append(i)
        e = template[i]
        if e[0] == "d":
            for c in e[4]:
                visit(c)

    visit(0)
    new = {old: k for k, old in enumerate(order)}
    tmpl = []
    for old in order:
        e = template[old]
        tmpl.append(("d", e[1], e[2], e[3], [new[c] for c in e[4]], e[5]) if e[0] == "d" else e)
    return tmpl, {new[k]: v for k, v in payoffs.items()}


def _build(name, W, S, labels2, view1, labels1) -> Tree:
    tmpl, kinds = _template()
    den = np.maximum(W, 1)
    pays = {k: (m * den if kind == "W" else m * S) for k, (kind, m) in kinds.items()}
    nodes = int((W > 0).sum()) * len(tmpl)
    if nodes > MAX_NODES:
        raise ValueError(f"{name}: {int((W > 0).sum())} type pairs x {len(tmpl)} public nodes = {nodes} "
                         f"tree nodes exceed {MAX_NODES}; use fewer `buckets` (the unabstracted "
                         "21-card "
                         "game is too large for the generic tree)")
    views = {0: (view1, labels1, view1, labels1)}
    return type_game(name, W, labels2, labels2, tmpl, pays, den, views=views)


def draw27_sequence_form(buckets="iso", n_ranks: int = 7, n_suits: int = 3):
    """Matrix-free sequence form of the same game, for type spaces too large for a tree
    (the unabstracted 21-card game: 4,207 lossless types per player).

    ``A`` is a :class:`scipy.sparse.linalg.LinearOperator`: ``A @ y`` is, per terminal
    history ``z``, ``c_z M_z y_z`` scattered onto player 1's sequences, with ``M_z`` the dense
    deal-count matrix ``W`` (folds) or showdown-sum matrix ``S`` (batched into one matrix
    product per matrix). Sequences are numbered exactly as in :func:`draw27`'s tree, so
    :mod:`solve.algorithms.treeplex` (best response, CFR family) runs on it unchanged. No exact LP.
    """
    from scipy.sparse.linalg import LinearOperator

    name, W, S, labels2, view1, labels1 = _types(buckets, n_ranks, n_suits, tree=False)
    tmpl, kinds = _template()
    T = W.shape[0]
    total = float(W.sum())
    classes = {0: (view1, len(labels1), labels1), 1: (np.arange(T), T, labels2)}
    parent: list = [[], []]
    offset: list = [[], []]
    nact: list = [[], []]
    gid: list = [[], []]
    info_player, info_nact, info_label, info_actions = [], [], [], []
    n_seq = [1, 1]
    last = {0: (np.zeros(T, np.int64), np.zeros(T, np.int64))}  # template node -> per-type last seqs
    for k, e in enumerate(tmpl):
        if e[0] != "d":
            continue
        p, rnd = e[1], e[5]
        view, n_cls, labs = classes[rnd]
        base_seq = n_seq[p]
        nA = len(e[3])
        par = last[k][p]
        for c in range(n_cls):
            members = np.flatnonzero(view == c)
            ps = np.unique(par[members])
            if len(ps) != 1:
                raise ValueError("imperfect recall")
            parent[p].append(int(ps[0])); offset[p].append(base_seq + c * nA); nact[p].append(nA)
            gid[p].append(len(info_player))
            info_player.append(p); info_nact.append(nA); info_label.append(f"{labs[c]}|{e[2]}")
            info_actions.append(tuple(e[3]))
        n_seq[p] += n_cls * nA
        for a, child in enumerate(e[4]):
            mine = base_seq + view * nA + a
            last[child] = (mine, last[k][1]) if p == 0 else (last[k][0], mine)
    terms = [(k, kinds[k][0], float(kinds[k][1]), last[k][0], last[k][1]) for k in kinds]
    Wf = W.astype(np.float64) / total
    Sf = S.astype(np.float64) / total
    n1, n2 = n_seq

    def matvec(y):
        y = np.ravel(y)
        out = np.zeros(n1)
        for key, M in (("W", Wf), ("S", Sf)):
            zs = [t for t in terms if t[1] == key]
            R = M @ np.stack([t[2] * y[t[4]] for t in zs], axis=1)
            for col, t in enumerate(zs):
                np.add.at(out, t[3], R[:, col])
        return out

    def rmatvec(x):
        x = np.ravel(x)
        out = np.zeros(n2)
        for key, M in (("W", Wf), ("S", Sf)):
            zs = [t for t in terms if t[1] == key]
            R = M.T @ np.stack([t[2] * x[t[3]] for t in zs], axis=1)
            for col, t in enumerate(zs):
                np.add.at(out, t[4], R[:, col])
        return out

    A = LinearOperator((n1, n2), matvec=matvec, rmatvec=rmatvec, dtype=np.float64)
    stub = Tree(name=name, kind=np.zeros(0, np.int8), player=np.zeros(0, np.int8),
                infoset=np.zeros(0, np.int32), child_start=np.zeros(0, np.int64),
                child_count=np.zeros(0, np.int64), children=np.zeros(0, np.int64),
                edge_num=np.zeros(0, np.int64), edge_den=np.zeros(0, np.int64),
                pay_num=np.zeros(0, np.int64), pay_den=np.zeros(0, np.int64),
                info_player=np.array(info_player, np.int8), info_nact=np.array(info_nact, np.int64),
                info_label=info_label, info_actions=info_actions)
    return SequenceForm(tree=stub, A=A, n_seq=(n1, n2), parent=tuple(np.array(v, np.int64) for v in parent),
                        offset=tuple(np.array(v, np.int64) for v in offset),
                        nact=tuple(np.array(v, np.int64) for v in nact),
                        global_id=tuple(np.array(v, np.int64) for v in gid),
                        term_seq=np.zeros((0, 2), np.int64), term_node=np.zeros(0, np.int64))
