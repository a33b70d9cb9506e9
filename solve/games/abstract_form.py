"""Matrix-free sequence form of a limit poker game under a perfect-recall card abstraction.

In an abstracted game a player knows only its bucket sequence and the betting, and limit
betting does not depend on the cards. So the game is: chance deals each player a *type* (its
bucket sequence up to the last round, drawn jointly, card removal included), then the
betting tree is played once. Its sequence-form payoff matrix (Koller, Megiddo & von Stengel
1996) is, per terminal betting history ``z`` in round ``r``,

    A_z = c_z * M_z     with  M_z = W_r (folds)  or  S (showdowns),

where ``W_r[t1, t2]`` is the probability that the players' round-``r`` types are ``t1`` and
``t2`` and ``S[t1, t2]`` the probability-weighted showdown sign (+1 win, -1 loss, 0 tie) of
player 1 for final types ``t1, t2``; ``c_z`` is the chips at stake. ``W`` and ``S`` are
enumerated exactly over every deal (private cards of both players and every board), not
sampled. ``A @ y`` is then one dense matrix product per matrix (all terminals of a kind
batched), instead of a pass over the public tree for every board: the abstract game of
Rhode Island Hold'em at 13,25,125 buckets costs milliseconds an iteration instead of a
second (the game is the same one :func:`solve.games.compile.compile_game` builds with the
abstraction; tests check values and best responses agree).

The sequence form has no chance nodes of its own, so :mod:`solve.algorithms.treeplex` (best response,
CFR, CFR+, DCFR) runs on it unchanged; :func:`to_strategy` maps a solution to the compiled
abstract game's infosets (label ``"b0.b1.b2"``, betting history), where the rest of the
project evaluates it in the real game.

Imperfect recall (an abstraction with ``perfect_recall`` False: a round's buckets are not
nested in the earlier ones, and the player forgets them): the types are still the bucket
sequences, so the form is the game's perfect-recall refinement, and ``ties`` groups its
infosets into the game's information sets (betting history, the round's own bucket; label
``"-.-.b2"`` as the compiler writes it). CFR with the ties
(:class:`solve.algorithms.treeplex.SequenceCFR`) is CFR on the imperfect-recall game, and
:func:`to_strategy` returns the strategy of those information sets.

Matrices that are mostly zeros (lossless types: only
types on the same board meet) are kept sparse, the others dense; the form is built for up to
``MAX_TYPES`` final-round types and ``MAX_WORK`` matrix entries (beyond that the public-tree
solver is the faster one).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from solve.games import _abstract_form_kernels as K
from solve.games import ranking
from solve.games.compile import CHANCE, DECISION, FOLD, SHOWDOWN, CardAbstraction, CompiledGame
from solve.games.rules import LimitPokerRules
from solve.games.tree import SequenceForm, Tree
from solve.strategy import Strategy
from solve.algorithms.treeplex import Ties, behaviour, tied_behaviour

MAX_TYPES = 10_000  # final-round types per player (enumerated into dense n x n counts)
MAX_WORK = 32_000_000  # nonzero entries of the final-round matrices (two dense 4000 x 4000)
SPARSE_BELOW = 0.1  # matrices with a smaller fraction of nonzero entries are kept sparse


def _compact(m):
    """``m`` as a CSR matrix if it is mostly zeros (e.g. lossless types, which meet only
    types on the same board), else dense."""
    import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
    if sp.issparse(m):
        return m if m.nnz < SPARSE_BELOW * m.shape[0] * m.shape[1] else m.toarray()
    nnz = np.count_nonzero(m)
    return sp.csr_matrix(m) if nnz < SPARSE_BELOW * m.size else m


def _nnz(m) -> int:
    import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
    return int(m.nnz) if sp.issparse(m) else int(m.size)


def _count_nonzero(m) -> int:
    """Entries of ``m`` that are not zero (explicit zeros of a sparse matrix not counted)."""
    import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
    return int(m.count_nonzero()) if sp.issparse(m) else int(np.count_nonzero(m))


@dataclass
class AbstractForm:
    """The sequence form (``sf``, a :class:`solve.games.tree.SequenceForm` with a matrix-free
    ``A``) and what maps it back: per player, local infoset -> (betting history, type label)."""

    sf: object
    rules: LimitPokerRules
    abstraction: str
    n_types: tuple          # types per round
    keys: tuple             # (p) -> list of (history, label) per local infoset
    seconds: float = 0.0    # enumeration time
    payoff_nnz: int = 0     # nonzero entries of the explicit payoff matrix A (sum over terminals)
    ties: tuple | None = None  # imperfect recall: (p) -> treeplex.Ties of the information sets
    group_keys: tuple | None = None  # imperfect recall: (p) -> (history, label) per group

    @property
    def perfect_recall(self) -> bool:
        return self.ties is None

    def information_sets(self, p: int) -> list:
        """(history, label) of player ``p``'s information sets in the game: its infosets,
        under imperfect recall the tied groups."""
        return list(self.keys[p]) if self.ties is None else list(self.group_keys[p])


def forgotten_label(label: str) -> str:
    """A bucket-sequence label with the earlier rounds forgotten ("3.17.101" -> "-.-.101"),
    the label the compiler gives an imperfect-recall information set."""
    parts = label.split(".")
    return ".".join(["-"] * (len(parts) - 1) + parts[-1:])


def _boards(rules: LimitPokerRules):
    """Per round: (boards (B_r, m_r) int64 cards dealt so far, parent board index in round r-1)."""
    out = []
    prev = np.zeros((1, 0), np.int64)
    for r, m in enumerate(rules.public_cards):
        if r == 0 and m == 0:
            out.append((prev, np.zeros(1, np.int64)))
            continue
        rows, par = [], []
        for i, b in enumerate(prev):
            rest = [c for c in range(rules.n_cards) if c not in set(b.tolist())]
            for combo in itertools.combinations(rest, m):
                rows.append(list(b) + list(combo))
                par.append(i)
        prev = np.array(rows, np.int64).reshape(len(rows), prev.shape[1] + m)
        out.append((prev, np.array(par, np.int64)))
    return out


def _types(abstraction: CardAbstraction, hands: np.ndarray, boards):
    """Per round: type id (B_r, H) (-1 where the board blocks the hand), parent type (n_r,),
    labels (n_r,)."""
    H = len(hands)
    out = []
    many = getattr(abstraction, "bucket_boards", None)  # every (board, hand) in one call

    def checked(r: int, got, n: int) -> np.ndarray:
        got = np.asarray(got, dtype=np.int64)
        if got.shape != (n,):
            raise ValueError(f"abstraction {abstraction.name!r} returned shape {got.shape} "
                             f"for round {r}")
        if (got < 0).any():
            raise ValueError(f"abstraction {abstraction.name!r} returned a negative bucket")
        return got

    for r, (bd, par) in enumerate(boards):
        bk = np.full((len(bd), H), -1, np.int64)
        # valid[i, h]: hand h shares no card with board i
        valid = ~(hands[None, :, :, None] == bd[:, None, None, :]).any(axis=(2, 3))
        if many is not None:
            bi, hi = np.nonzero(valid)
            bk[bi, hi] = checked(r, many(r, hands[hi], bd[bi]), len(hi))
        else:
            for i, b in enumerate(bd):
                bk[i, valid[i]] = checked(r, abstraction.bucket(r, hands[valid[i]], b),
                                          int(valid[i].sum()))
        prev = out[-1][0][par] if r > 0 else np.zeros_like(bk)
        ok = bk >= 0
        key = np.where(ok, prev * (int(bk.max()) + 1) + bk, -1)
        uniq, inv = np.unique(key[ok], return_inverse=True)
        t = np.full(bk.shape, -1, np.int64)
        t[ok] = inv
        first = np.zeros(len(uniq), np.int64)
        first[inv[::-1]] = np.arange(len(inv))[::-1]
        flat_prev = prev[ok][first]
        flat_bk = bk[ok][first]
        if r == 0:
            parent = np.zeros(len(uniq), np.int64)
            labels = [str(int(x)) for x in flat_bk]
        else:
            parent = flat_prev
            plab = out[-1][2]
            labels = [f"{plab[int(a)]}.{int(x)}" for a, x in zip(flat_prev, flat_bk)]
        out.append((t, parent, labels))
    return out


def _betting(game: CompiledGame):
    """The betting tree of the compiled ``game`` along one board (a chance node is replaced by
    its first child: limit betting is the same below every board), children in the compiled
    order, parents before children: list of nodes (kind, player, round, history, contrib,
    children) with kind DECISION, FOLD or SHOWDOWN of :mod:`solve.games.compile`."""
    nodes: list = []

    def visit(n: int) -> int:
        while game.ntype[n] == CHANCE:
            n = int(game.children[game.child_start[n]])
        k = len(nodes)
        nodes.append([int(game.ntype[n]), int(game.nplayer[n]), int(game.nround[n]),
                      game.history[n], tuple(int(c) for c in game.contrib[n]), []])
        if game.ntype[n] == DECISION:
            s = game.child_start[n]
            for e in range(s, s + game.child_count[n]):
                nodes[k][5].append(visit(int(game.children[e])))
        return k

    visit(0)
    return nodes


def abstract_form(game: CompiledGame, abstraction: CardAbstraction,
                  max_types: int = MAX_TYPES, max_work: int = MAX_WORK) -> AbstractForm:
    """Build the matrix-free sequence form of ``game`` (rules compiled with ``abstraction``;
    its public tree gives the betting, the deals are enumerated here from its rules).

    Raises:
        ValueError: more than ``max_types`` final-round types, final-round matrices with more
            than ``max_work`` entries (dense, or nonzero if sparse: then the public-tree
            solver is faster), or a malformed abstraction.
    """
    if game.abstraction != abstraction.name:
        raise ValueError(f"the game is compiled with {game.abstraction!r}, not {abstraction.name!r}")
    rules = game.rules
    t0 = time.time()
    types, S, Wr = _deal_matrices(rules, abstraction, max_types, max_work)
    n_types = tuple(len(lab) for _, _, lab in types)
    seq = _sequences(game, types, n_types)
    groups: dict = {}
    for key, coef, a1, a2 in seq.terms:
        groups.setdefault(key, []).append((coef, a1, a2))
    mats = {key: (S if key[0] == "S" else Wr[key[1]]) for key in groups}
    sf = _sequence_form(seq, _payoff_operator(groups, mats, seq.n_seq),
                        f"{rules.name}/{abstraction.name}")
    payoff_nnz = sum(len(gs) * _count_nonzero(mats[key]) for key, gs in groups.items())
    ties = group_keys = None
    if not getattr(abstraction, "perfect_recall", True):
        ties, group_keys = _ties(sf, seq, Wr)
    return AbstractForm(sf=sf, rules=rules, abstraction=abstraction.name, n_types=n_types,
                        keys=(seq.keys[0], seq.keys[1]), seconds=time.time() - t0,
                        payoff_nnz=payoff_nnz, ties=ties, group_keys=group_keys)


def _deal_matrices(rules: LimitPokerRules, abstraction: CardAbstraction, max_types: int,
                   max_work: int):
    """(the types of every round, ``S``, ``W_r`` per round): every deal enumerated once, on the
    final boards, into counts and showdown sign sums per pair of final types, then the fold
    matrices aggregated to each round's types (see the module docstring)."""
    import scipy.sparse as sp  # lazy: ~0.4 s at every CLI start-up
    hands = np.array(list(itertools.combinations(range(rules.n_cards), rules.private_cards)),
                     np.int64)
    boards = _boards(rules)
    types = _types(abstraction, hands, boards)
    n_types = tuple(len(lab) for _, _, lab in types)
    R = rules.rounds
    nT = n_types[-1]
    if nT > max_types:
        raise ValueError(f"{nT} final-round types per player exceed {max_types}")

    final_boards, _ = boards[-1]
    t_final = types[-1][0]
    rank_fn = ranking.RANKINGS[rules.ranking]
    strength = np.zeros((len(final_boards), len(hands)), np.int64)
    fb, fh = np.nonzero(t_final >= 0)  # every (final board, valid hand) in one ranking call
    strength[fb, fh] = rank_fn(hands[fh], final_boards[fb], rules.n_suits)
    conflict = (hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
    Wc = np.zeros((nT, nT))
    Sc = np.zeros((nT, nT))
    K.deal_counts(t_final, strength, conflict, Wc, Sc)
    total = Wc.sum()  # every deal (hands of both players, board) once, all equally likely
    n, k = rules.n_cards, rules.private_cards
    expect = math.comb(n, k) * math.comb(n - k, k)
    left = n - 2 * k
    for m in rules.public_cards:
        expect *= math.comb(left, m)
        left -= m
    if total != expect:
        raise ValueError(f"enumerated {total:.0f} deals, expected {expect}")
    S = _compact(Sc / total)
    Wf = _compact(Wc / total)
    del Sc, Wc
    # fold matrices per round: the final joint probabilities aggregated to round-r types
    anc = [np.arange(nT)]
    for r in range(R - 1, 0, -1):
        anc.insert(0, types[r][1][anc[0]])
    Wr = []
    for r in range(R):
        if r == R - 1:
            Wr.append(Wf)
            continue
        M = sp.csr_matrix((np.ones(nT), (anc[r], np.arange(nT))), shape=(n_types[r], nT))
        Wr.append(_compact(M @ (M @ Wf).T))  # Wf is symmetric
    nnz = sum(_nnz(m) for m in (S, Wf))
    if nnz > max_work:
        raise ValueError(f"{nnz:,} final-round matrix entries exceed {max_work:,}")
    return types, S, Wr


@dataclass
class _Sequences:
    """Each player's sequences over the betting tree (per player: the parent sequence, first
    sequence and action count of every infoset, its key and label, the round of each block of
    infosets, one per type) and the terminals, ``(matrix key, coefficient, last sequence of
    player 1, of player 2)``."""

    parent: list
    offset: list
    nact: list
    keys: list
    labels: list
    block_round: list
    n_seq: list
    terms: list


def _sequences(game: CompiledGame, types, n_types: tuple[int, ...]) -> _Sequences:
    nodes = _betting(game)
    last: dict = {0: (np.zeros(n_types[0], np.int64), np.zeros(n_types[0], np.int64))}
    seq = _Sequences(*([[], []] for _ in range(6)), n_seq=[1, 1], terms=[])
    for k, (kind, p, rnd, hist, contrib, kids) in enumerate(nodes):
        l1, l2 = last.pop(k)
        if kind == FOLD:
            u = -contrib[0] if p == 0 else contrib[1]
            seq.terms.append((("W", rnd), float(u), l1, l2))
            continue
        if kind == SHOWDOWN:
            seq.terms.append((("S", rnd), float(contrib[0]), l1, l2))
            continue
        n = n_types[rnd]
        nA = len(kids)
        base = seq.n_seq[p]
        own = l1 if p == 0 else l2
        seq.parent[p].extend(own.tolist())
        seq.offset[p].extend((base + np.arange(n) * nA).tolist())
        seq.nact[p].extend([nA] * n)
        lab = types[rnd][2]
        seq.keys[p].extend((hist, lab[t]) for t in range(n))
        seq.block_round[p].append(rnd)
        seq.labels[p].extend(f"{lab[t]}|{hist}" for t in range(n))
        seq.n_seq[p] += n * nA
        for a, c in enumerate(kids):
            mine = base + np.arange(n) * nA + a
            c1, c2 = (mine, l2) if p == 0 else (l1, mine)
            crnd = nodes[c][2]
            if crnd != rnd:  # the action ended the round: expand to next-round types
                par = types[crnd][1]
                c1, c2 = c1[par], c2[par]
            last[c] = (c1, c2)
    return seq


def _payoff_operator(groups: dict, mats: dict, n_seq):
    """``A`` as a ``LinearOperator``: per matrix, its terminals batched into one product."""
    from scipy.sparse.linalg import LinearOperator

    n1, n2 = n_seq
    packed = {key: (np.array([g[0] for g in gs]), np.stack([g[1] for g in gs]),
                    np.stack([g[2] for g in gs])) for key, gs in groups.items()}

    def matvec(y):
        y = np.ravel(y)
        out = np.zeros(n1)
        for key, (coef, i1, i2) in packed.items():
            Y = (y[i2] * coef[:, None]).T          # (n_r, T_z)
            Rm = mats[key] @ Y                     # (n_r, T_z)
            out += np.bincount(i1.ravel(), weights=Rm.T.ravel(), minlength=n1)
        return out

    def rmatvec(x):
        x = np.ravel(x)
        out = np.zeros(n2)
        for key, (coef, i1, i2) in packed.items():
            X = (x[i1] * coef[:, None]).T
            Rm = mats[key].T @ X
            out += np.bincount(i2.ravel(), weights=Rm.T.ravel(), minlength=n2)
        return out

    return LinearOperator((n1, n2), matvec=matvec, rmatvec=rmatvec, dtype=np.float64)


def _sequence_form(seq: _Sequences, A, name: str) -> SequenceForm:
    """The ``SequenceForm`` of operator ``A``, on a stub tree that carries only the infosets."""
    parent, nact, labels = seq.parent, seq.nact, seq.labels
    info_player = [0] * len(parent[0]) + [1] * len(parent[1])
    info_nact = nact[0] + nact[1]
    stub = Tree(name=name, kind=np.zeros(0, np.int8),
                player=np.zeros(0, np.int8), infoset=np.zeros(0, np.int32),
                child_start=np.zeros(0, np.int64), child_count=np.zeros(0, np.int64),
                children=np.zeros(0, np.int64), edge_num=np.zeros(0, np.int64),
                edge_den=np.zeros(0, np.int64), pay_num=np.zeros(0, np.int64),
                pay_den=np.zeros(0, np.int64), info_player=np.array(info_player, np.int8),
                info_nact=np.array(info_nact, np.int64), info_label=labels[0] + labels[1],
                info_actions=[()] * len(info_player))
    gid = (np.arange(len(parent[0]), dtype=np.int64),
           len(parent[0]) + np.arange(len(parent[1]), dtype=np.int64))
    return SequenceForm(tree=stub, A=A, n_seq=tuple(seq.n_seq),
                        parent=tuple(np.array(v, np.int64) for v in parent),
                        offset=tuple(np.array(v, np.int64) for v in seq.offset),
                        nact=tuple(np.array(v, np.int64) for v in nact), global_id=gid,
                        term_seq=np.zeros((0, 2), np.int64), term_node=np.zeros(0, np.int64))


def _ties(sf: SequenceForm, seq: _Sequences, Wr):
    """Imperfect recall: per player, the ``Ties`` of its infosets into the game's information
    sets (betting history, the round's own bucket) and the keys of those sets."""
    ties, group_keys = [], []
    # a type's chance probability (the joint round-r matrices are symmetric)
    marg = [np.asarray(w.sum(axis=1)).ravel() for w in Wr]
    for p in (0, 1):
        ids: dict = {}
        group = np.array([ids.setdefault((h, forgotten_label(lab)), len(ids))
                          for h, lab in seq.keys[p]], np.int64)
        weight = np.concatenate([marg[r] for r in seq.block_round[p]]) if seq.block_round[p] \
            else np.zeros(0)
        ties.append(Ties.of(sf, p, group, weight))
        group_keys.append(list(ids))
    return tuple(ties), tuple(group_keys)


def to_strategy(form: AbstractForm, game: CompiledGame, x: np.ndarray, y: np.ndarray):
    """The behaviour strategy of plans ``(x, y)`` on ``game`` (the same rules compiled with the
    same abstraction), as a :class:`solve.strategy.Strategy`; infosets a player's own plan
    never reaches are flagged unreached (uniform placeholder). Under imperfect recall an
    information set's behaviour is its tied infosets' sequences summed (reach-weighted)."""
    if game.abstraction != form.abstraction or game.bucket_labels is None:
        raise ValueError("the compiled game is not this abstraction's game")
    hist = game.infoset_histories()
    lab = game.bucket_labels
    probs = np.zeros((game.n_infosets, 3))
    reached = np.ones(game.n_infosets, dtype=bool)
    weight = np.zeros(game.n_infosets)
    index = {}
    for p in (0, 1):
        for j, key in enumerate(form.information_sets(p)):
            index[(p,) + key] = j
    behs = []
    for p, plan in ((0, x), (1, y)):
        if form.ties is None:
            b = behaviour(form.sf, p, plan)
            # the information set's weight: the plan's own reach of it (schema.strategy)
            behs.append((b.probs, b.unreached,
                         np.asarray(plan, dtype=np.float64)[np.asarray(form.sf.parent[p])]))
            continue
        t = form.ties[p]
        pr = np.full((len(t.group_nact), int(t.group_nact.max())), np.nan)
        gs = np.repeat(np.arange(len(t.group_nact)), t.group_nact)  # group of each sequence
        pr[gs, np.arange(len(gs)) - t.group_offset[gs]] = tied_behaviour(form.sf, p, plan, t)
        reach = np.bincount(t.group, weights=t.weight * np.asarray(plan, np.float64)[
            np.asarray(form.sf.parent[p])], minlength=len(t.group_nact))
        behs.append((pr, np.isnan(pr[:, 0]), reach))
    rows = np.empty(game.n_infosets, np.int64)
    for I in range(game.n_infosets):
        p = int(game.info_player[I])
        j = index.get((p, hist[I], lab[I]))
        if j is None:
            raise ValueError(f"infoset {lab[I]}|{hist[I]} of the compiled game is not in the form")
        rows[I] = j
    for p in (0, 1):
        mine = np.flatnonzero(game.info_player == p)
        bprobs, bun, breach = behs[p]
        weight[mine] = breach[rows[mine]]
        pr = bprobs[rows[mine]]
        na = game.info_nact[mine].astype(np.int64)
        un = bun[rows[mine]]
        width = pr.shape[1]
        block = np.zeros((len(mine), 3))
        block[:, :width] = np.nan_to_num(pr, nan=0.0)
        uniform = (np.arange(3)[None, :] < na[:, None]) / na[:, None]
        block[un] = uniform[un]
        probs[mine] = block
        reached[mine] = ~un
        weight[mine] = np.where(un, 0.0, weight[mine])
    return Strategy(game, probs, reached, weight)
