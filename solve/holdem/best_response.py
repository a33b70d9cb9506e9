"""The exact best response to a Hold'em strategy in the real game (issue 51).

Each seat's best response against a strategy on an abstraction, in the real game: the
responder sees its real cards and the board (no abstraction), the strategy plays through its
buckets. Johanson, Waugh, Bowling & Zinkevich, "Accelerating best response calculation in large
extensive games", IJCAI 2011: one walk of the public tree per board with vectors over the
1,326 private hands, the opponent's reach carried as a vector (multiplied at its nodes by its
action probabilities, hand by hand through its buckets), the responder's maximum taken per hand
at its own nodes, showdowns in O(hands) from the hands sorted by strength and folds by
inclusion-exclusion over the two cards of a hand (``_vector_kernels.fold_sums`` /
``showdown_sums``). Chance is exact: given both hands and the seen board every next card is
equally likely (one of ``D - 4 - seen``), so a chance node's value is the mean of its children,
each with the hands holding the new card left out (``_br_kernels``).

Work is split by flop. The preflop is a few vectors (:func:`preflop_reach`,
:func:`preflop_values`); a *flop entry* is a node the preflop leads to (a first flop decision,
or a preflop showdown when the game has one round). For one flop, :func:`flop_values` gives,
per seat and entry, the responder's value vector at the entry (best response, and for seat 0
the strategy's own, for the game value: the game is zero-sum) given the opponent's preflop
reach. A strategy on a card abstraction is
suit-symmetric (buckets are looked up by canonical index), so a flop's vectors give those of
every flop in its suit-isomorphism class by renaming suits: only the canonical flops
(:func:`canonical_flops`; 1,755 of the full deck) are walked, and below a flop one turn and
one river card per orbit of its remaining symmetry (:func:`board_orbits`: 2,554,656 river
boards per seat instead of 4,127,760). Each canonical flop is a unit of work whose result
:class:`FlopStore` writes atomically as it completes, so a killed run resumes where it stopped
(one run per store at a time: an exclusive lock); the flops summed in order so far are kept as
one small *prefix*, keyed by the strategy's content, that carries a run to another machine
(``solve.holdem.exact_store``).

The value of seat s's best response is the mean over every deal of its chips; the strategy's
exploitability is the mean of the two seats' values (in mbb/g, as ``evaluate`` reports LBR),
and the game value it implies is seat 0's chips when it plays itself.

A reduced deck (``deck``: any set of card codes, e.g. two suits of five ranks) makes games small
enough to check against brute force; its flops are canonical under the suit renamings that map
the deck onto itself.
"""

from __future__ import annotations

import itertools
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
import multiprocessing
import time
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from etl.cluster import dask_client
from schema.progress import progress_bar
from solve.holdem import _br_kernels as B
from solve.holdem._kernels import DECISION, FOLD_END, SHOWDOWN
from solve.holdem.buckets import indexer_tables
from solve.holdem.evaluate import Policy
from solve.holdem.exact_store import FlopStore, content_digest
from solve.holdem.figures import FigureStore
from solve.holdem.game import BettingTree
from solve.holdem.run import load_policy, spec_parts, strategy_identity

FULL_DECK = np.arange(52, dtype=np.int64)
#: at most one prefix write (``FlopStore.put_prefix``, a few hundred KB) per this many seconds
PREFIX_SECONDS = 60.0


def pair_index(a, b):
    """The pair index of cards a != b (``_kernels._pair_index``), vectorised."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return hi * (hi - 1) // 2 + lo


def deck_pairs(deck: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first card, second card, pair index) of every pair of ``deck``'s cards."""
    d = np.sort(np.asarray(deck, np.int64))
    a, b = np.triu_indices(len(d), 1)
    idx = pair_index(d[a], d[b])
    o = np.argsort(idx)  # ascending pair index: neighbours in the kernels' tables
    return d[a][o], d[b][o], idx[o]


def suit_symmetries(deck: np.ndarray) -> list[np.ndarray]:
    """The renamings of suits that map ``deck`` onto itself, each as a card map (52,)."""
    cards = np.arange(52)
    out = []
    dset = set(int(c) for c in deck)
    for perm in itertools.permutations(range(4)):
        m = (cards // 4) * 4 + np.asarray(perm)[cards % 4]
        if set(int(m[c]) for c in deck) == dset:
            out.append(m)
    return out


@dataclass
class CanonicalFlop:
    """A flop (ascending cards) standing for its class: ``maps`` renames a pair index of this
    flop's vectors into that of each flop of the class (one per flop)."""

    cards: tuple[int, int, int]
    maps: np.ndarray  # (class size, 1326) int64

    @property
    def weight(self) -> int:
        return len(self.maps)


def canonical_flops(deck: np.ndarray = FULL_DECK, isomorphism: bool = True
                    ) -> list[CanonicalFlop]:
    """The flops of ``deck`` by class (every flop its own class without ``isomorphism``), in
    ascending order of the class's least flop."""
    deck = np.sort(np.asarray(deck, np.int64))
    syms = suit_symmetries(deck) if isomorphism else [np.arange(52)]
    pa = np.concatenate([np.arange(b) for b in range(52)])
    pb = np.concatenate([np.full(b, b) for b in range(52)])
    classes: dict[tuple, dict[tuple, np.ndarray]] = {}
    for f in itertools.combinations(deck.tolist(), 3):
        images = {tuple(sorted(int(m[c]) for c in f)): m for m in syms}
        rep = min(images)
        if rep not in classes:
            # maps from the representative: each distinct image of rep, with one renaming
            classes[rep] = {}
            for m in syms:
                img = tuple(sorted(int(m[c]) for c in rep))
                classes[rep].setdefault(img, m)
    out = []
    for rep in sorted(classes):
        maps = np.stack([pair_index(m[pa], m[pb]) for m in classes[rep].values()])
        out.append(CanonicalFlop(rep, maps))
    return out


def flop_entries(tree: BettingTree) -> np.ndarray:
    """The nodes the preflop leads to that need a flop: round-1 decisions, or showdowns of a
    one-round game (pre-order)."""
    n = np.arange(1, tree.n_nodes)
    par = tree.parent[1:]
    first = (tree.round[par] == 0) & (
        ((tree.ntype[1:] == DECISION) & (tree.round[1:] == 1)) | (tree.ntype[1:] == SHOWDOWN))
    return n[first]


def values_shape(tree: BettingTree) -> tuple[int, int, int, int]:
    """The shape of a flop's result (:func:`flop_values`) and of their sum: (seat, best
    response / own value, flop entry, hand)."""
    return (2, 2, len(flop_entries(tree)), 1326)


def _round0_nodes(tree: BettingTree) -> list[int]:
    """The preflop's nodes in pre-order (entries included, nothing below them)."""
    out, n = [], 0
    while n < tree.n_nodes:
        out.append(n)
        if tree.round[n] == 0 and tree.ntype[n] == DECISION:
            n += 1
        else:
            n += int(tree.size[n])
    return out


def _action_probs(tree: BettingTree, policy: Policy, n: int, buckets: np.ndarray,
                  dpi: np.ndarray) -> np.ndarray:
    out = np.zeros((3, 1326))
    kind, S, off, _ = policy.args()
    B.policy_matrix(kind, S, off, n, tree.nact, tree.code, buckets, dpi, out)
    return out


def preflop_buckets(policy: Policy, deck: np.ndarray) -> np.ndarray:
    """The preflop bucket per pair index (deck pairs)."""
    dpa, dpb, dpi = deck_pairs(deck)
    ob = np.zeros((4, 1326), np.int64)
    B.round_buckets(0, np.zeros(5, np.int64), 0, dpa, dpb, dpi, len(dpi),
                    policy.buckets.lookup, indexer_tables(), ob)
    return ob[0]


def preflop_reach(tree: BettingTree, policy: Policy, deck: np.ndarray = FULL_DECK
                  ) -> np.ndarray:
    """(2, entries, 1326): per responder seat, the opponent's reach at every flop entry (the
    product of its preflop action probabilities, per opponent hand)."""
    dpa, dpb, dpi = deck_pairs(deck)
    b0 = preflop_buckets(policy, deck)
    entries = flop_entries(tree)
    out = np.zeros((2, len(entries), 1326))
    for p in range(2):
        reach = {0: np.zeros(1326)}
        reach[0][dpi] = 1.0
        for n in _round0_nodes(tree):
            if n not in reach or tree.ntype[n] != DECISION or tree.round[n] != 0:
                continue
            probs = (_action_probs(tree, policy, n, b0, dpi) if tree.player[n] != p else None)
            for a in range(tree.nact[n]):
                c = int(tree.child[n, a])
                reach[c] = reach[n] * probs[a] if probs is not None else reach[n]
        for e, n in enumerate(entries):
            out[p, e] = reach[int(n)]
    return out


def board_orbits(flop, deck: np.ndarray = FULL_DECK, isomorphism: bool = True) -> tuple:
    """The turn and river cards ``_br_kernels.flop_values`` deals on ``flop``: one per orbit of
    the suit symmetries that map the deck and the flop onto themselves (the river's under those
    that also fix the turn card), each with the symmetries mapping it onto its orbit's cards.

    Returns ``(gmap, tcard, tstart, tmem, rturn, rcard, rstart, rmem)``: ``gmap[g]`` the pair
    index of every pair's image under symmetry g (g = 0 the identity); turn card j is
    ``tcard[j]``, its orbit the images under ``tmem[tstart[j]:tstart[j + 1]]``; its river cards
    ``rcard[rturn[j]:rturn[j + 1]]``, river card m's orbit under ``rmem[rstart[m]:rstart[m + 1]]``.
    Each orbit is represented by its least card and lists each of its cards once (the
    representative first, by the identity). Without ``isomorphism``: every card, alone."""
    deck = np.sort(np.asarray(deck, np.int64))
    f = set(int(c) for c in flop)
    group, seen = [], set()
    for m in (suit_symmetries(deck) if isomorphism else [np.arange(52)]):
        image = tuple(int(x) for x in m[deck])
        if set(int(m[c]) for c in f) == f and image not in seen:  # the identity comes first
            seen.add(image)
            group.append(m)
    pa = np.concatenate([np.arange(b) for b in range(52)])
    pb = np.concatenate([np.full(b, b) for b in range(52)])
    gmap = np.stack([pair_index(m[pa], m[pb]) for m in group]).astype(np.int64)
    rest = [int(c) for c in deck if int(c) not in f]

    def orbits(cards, syms):
        """(representative, [symmetry of each image]) of each orbit of ``cards``."""
        out, done = [], set()
        for c in cards:
            if c in done:
                continue
            images: dict[int, int] = {}
            for g in syms:
                images.setdefault(int(group[g][c]), g)
            done.update(images)
            out.append((c, list(images.values())))
        return out

    tcard, tmem, tstart = [], [], [0]
    rcard, rmem, rstart, rturn = [], [], [0], [0]
    for c, mem in orbits(rest, range(len(group))):
        tcard.append(c)
        tmem += mem
        tstart.append(len(tmem))
        stab = [g for g in range(len(group)) if group[g][c] == c]
        for d, rm in orbits([d for d in rest if d != c], stab):
            rcard.append(d)
            rmem += rm
            rstart.append(len(rmem))
        rturn.append(len(rcard))
    arr = lambda x: np.asarray(x, np.int64)  # noqa: E731
    return (gmap, arr(tcard), arr(tstart), arr(tmem), arr(rturn), arr(rcard), arr(rstart),
            arr(rmem))


def river_boards_per_flop(flops: list[CanonicalFlop], deck: np.ndarray = FULL_DECK,
                          isomorphism: bool = True) -> np.ndarray:
    """River boards walked per seat under each of ``flops`` (:func:`board_orbits`: one per
    turn orbit and river orbit under it; 675 to 2,352 on the full deck, 2,554,656 in all): the
    work of a flop, by which a run's progress and ETA are counted. On the full deck the count
    depends only on the flop's pattern of equal ranks and suits, so one flop per pattern is
    walked (about 2 s for the 1,755 flops)."""
    deck = np.sort(np.asarray(deck, np.int64))
    full = len(deck) == 52 and isomorphism
    out, memo = [], {}
    for f in flops:
        ranks = {r: i for i, r in enumerate(dict.fromkeys(c // 4 for c in f.cards))}
        suits = {u: i for i, u in enumerate(dict.fromkeys(c % 4 for c in f.cards))}
        key = (tuple((ranks[c // 4], suits[c % 4]) for c in f.cards) if full
               else tuple(f.cards))
        if key not in memo:
            memo[key] = len(board_orbits(f.cards, deck, isomorphism)[5])
        out.append(memo[key])
    return np.array(out, np.int64)


def flop_values(tree: BettingTree, policy: Policy, flop, reach: np.ndarray,
                deck: np.ndarray = FULL_DECK, isomorphism: bool = True) -> np.ndarray:
    """(2 seats, 2, entries, 1326): per responder seat, its best-response values ([.., 0, ..])
    and the strategy's own ([0, 1, ..], seat 0's only; [1, 1] is 0: zero-sum, so seat 1's own
    value is the negative of seat 0's) at every flop entry on ``flop``, per responder hand
    (0 for hands holding a flop card), given ``reach`` (:func:`preflop_reach`). The turn and
    river are dealt one card per orbit of the flop's remaining suit symmetry
    (:func:`board_orbits`; every card without ``isomorphism``)."""
    deck = np.sort(np.asarray(deck, np.int64))
    dpa, dpb, dpi = deck_pairs(deck)
    entries = flop_entries(tree)
    T = (tree.ntype, tree.player, tree.round, tree.nact, tree.code, tree.child, tree.size,
         tree.spent)
    kind, S, off, bk = policy.args()
    out = np.zeros(values_shape(tree))
    f = np.asarray(flop, np.int64)
    B.flop_values(f, entries, np.ascontiguousarray(reach), deck, dpa, dpb, dpi, T, kind, S,
                  off, bk, indexer_tables(), *probability_rows(tree), *segment_sizes(tree),
                  *board_orbits(f, deck, isomorphism), out)
    hit = np.isin(dpa, f) | np.isin(dpb, f)
    out[..., dpi[hit]] = 0.0
    mask = np.ones(1326, bool)
    mask[dpi] = False
    out[..., mask] = 0.0
    return out


def probability_rows(tree: BettingTree):
    """(decision nodes of rounds 1, 2, 3; each node's first row in its round's table of
    action probabilities; rows per round) for ``_br_kernels.fill_probs``."""
    dec = tree.ntype == DECISION
    nodes = [np.flatnonzero(dec & (tree.round == r)).astype(np.int64) for r in range(4)]
    prow = np.zeros(tree.n_nodes, np.int64)
    rows = np.ones(4, np.int64)
    for r in range(4):
        k = tree.nact[nodes[r]]
        prow[nodes[r]] = np.concatenate(([0], np.cumsum(k)[:-1])) if len(k) else []
        rows[r] = max(int(k.sum()), 1)
    return nodes[1], nodes[2], nodes[3], prow, rows


def segment_sizes(tree: BettingTree) -> tuple[int, int]:
    """(the most nodes of one round's segment, its transitions included; the round-2 roots)."""
    first = [n for n in range(1, tree.n_nodes)
             if tree.round[n] != tree.round[tree.parent[n]]]
    L = 0
    for root in [0, *first]:
        r, n, cnt = tree.round[root], root, 0
        end = root + tree.size[root]
        while n < end:
            cnt += 1
            n += 1 if tree.round[n] == r else int(tree.size[n])
        L = max(L, cnt)
    turn = sum(1 for n in first if tree.round[n] == 2 and tree.ntype[n] == DECISION)
    return L, max(turn, 1)


def accumulate(total: np.ndarray, flop: CanonicalFlop, values: np.ndarray) -> None:
    """Add one canonical flop's vectors (:func:`flop_values`) for every flop of its class."""
    for m in flop.maps:
        total[..., m] += values


def preflop_values(tree: BettingTree, policy: Policy, seat: int, entry_values: np.ndarray,
                   deck: np.ndarray = FULL_DECK) -> tuple[np.ndarray, np.ndarray]:
    """Seat ``seat``'s (best-response, on-policy) values per hand at the root, from the flop
    entries' values (their mean over the flops, (2, entries, 1326)); the on-policy values
    mean something for seat 0 only (:func:`flop_values` leaves seat 1's at 0)."""
    dpa, dpb, dpi = deck_pairs(deck)
    b0 = preflop_buckets(policy, deck)
    reach = {0: np.zeros(1326)}
    reach[0][dpi] = 1.0
    entries = [int(e) for e in flop_entries(tree)]
    nodes = _round0_nodes(tree)
    for n in nodes:  # the opponent's reach
        if n not in reach or tree.ntype[n] != DECISION or tree.round[n] != 0:
            continue
        probs = _action_probs(tree, policy, n, b0, dpi) if tree.player[n] != seat else None
        for a in range(tree.nact[n]):
            c = int(tree.child[n, a])
            reach[c] = reach[n] * probs[a] if probs is not None else reach[n]
    V, VP = {}, {}
    for n in reversed(nodes):
        if n in entries:
            V[n], VP[n] = entry_values[0, entries.index(n)], entry_values[1, entries.index(n)]
        elif tree.ntype[n] == FOLD_END:
            r = reach[n]
            card = np.bincount(dpa, r[dpi], 52) + np.bincount(dpb, r[dpi], 52)
            compat = np.zeros(1326)
            compat[dpi] = r.sum() - card[dpa] - card[dpb] + r[dpi]
            pay = -tree.spent[n, seat] if tree.player[n] == seat else tree.spent[n, 1 - seat]
            V[n] = VP[n] = pay * compat
        else:
            kids = [int(tree.child[n, a]) for a in range(tree.nact[n])]
            if tree.player[n] == seat:
                V[n] = np.max([V[c] for c in kids], axis=0)
                probs = _action_probs(tree, policy, n, b0, dpi)
                VP[n] = sum(probs[a] * VP[c] for a, c in enumerate(kids))
            else:
                V[n] = sum(V[c] for c in kids)
                VP[n] = sum(VP[c] for c in kids)
    return V[0], VP[0]


@dataclass
class ExactResult:
    """Chips per game: ``br[s]`` seat s's best response against the strategy in the other seat,
    ``own[s]`` seat s's chips when the strategy plays itself (``own[1] = -own[0]``: the game is
    zero-sum, so the walk values the strategy's own play for seat 0 alone)."""

    br: tuple[float, float]
    own: tuple[float, float]
    big_blind: float
    flops: int

    @property
    def exploitability_mbb(self) -> float:
        """The mean of the two seats' best-response values, mbb/g."""
        return 0.5 * (self.br[0] + self.br[1]) * 1000.0 / self.big_blind

    @property
    def value_mbb(self) -> float:
        """Seat 0's value of the strategy against itself, mbb/g."""
        return self.own[0] * 1000.0 / self.big_blind

    def as_dict(self) -> dict:
        return {"method": "exact", "br_seat0_chips": self.br[0], "br_seat1_chips": self.br[1],
                "own_seat0_chips": self.own[0], "own_seat1_chips": self.own[1],
                "exploitability_mbb": self.exploitability_mbb, "value_mbb": self.value_mbb,
                "br_seat0_mbb": self.br[0] * 1000.0 / self.big_blind,
                "br_seat1_mbb": self.br[1] * 1000.0 / self.big_blind, "flops": self.flops}


def finish(tree: BettingTree, policy: Policy, total: np.ndarray, deck: np.ndarray,
           n_flops: int) -> ExactResult:
    """The result from the flop entries' values summed over every flop (2, 2, entries, 1326)."""
    D = len(deck)
    mean = total / comb(D - 4, 3)
    deals = comb(D, 2) * comb(D - 2, 2)
    br, own = [], 0.0
    for s in range(2):
        v, vp = preflop_values(tree, policy, s, mean[s], deck)
        br.append(float(v.sum() / deals))
        if s == 0:  # seat 1's on-policy vectors are not computed (``_br_kernels.flop_values``)
            own = float(vp.sum() / deals)
    return ExactResult(tuple(br), (own, -own), float(tree.rules.big_blind), n_flops)


def exact_best_response(tree: BettingTree, policy: Policy, deck: np.ndarray = FULL_DECK,
                        isomorphism: bool = True, store: "FlopStore | None" = None,
                        mapper: "Callable | None" = None, progress: bool = False
                        ) -> ExactResult:
    """Both seats' exact best responses to ``policy`` (see the module docstring).

    ``store``: where finished flops are kept (a run resumes from it); ``mapper(flops,
    reach)``: yields ``(i, values, cpu_seconds)`` for the flops not done (default: this
    process, in order, :func:`flop_task`; the seconds, None if not measured, are kept with the
    flop: :meth:`FlopStore.seconds`).
    """
    deck = np.sort(np.asarray(deck, np.int64))
    if len(deck) < 9:
        raise ValueError(f"a deal needs 9 cards; the deck has {len(deck)}")
    flops = canonical_flops(deck, isomorphism)
    reach = preflop_reach(tree, policy, deck)
    shape = values_shape(tree)
    n = len(flops)
    k, total, secs = 0, np.zeros(shape), np.full(n, np.nan)
    if store is not None:
        pre = store.prefix(shape)
        if pre is not None and pre[0] <= n:
            k, total = pre[0], pre[1].copy()
        for i, t in store.seconds().items():
            if i < n:
                secs[i] = t
    done: dict[int, np.ndarray] = {} if store is None else store.load(n, shape, start=k)
    todo = [i for i in range(k, n) if i not in done]
    if mapper is None:
        def mapper(items, rch):
            for i, f in items:
                yield i, *flop_task((tree, policy), f.cards, rch, deck, isomorphism)
    # counted in river boards, a flop's work (675 to 2,352 on the full deck): an honest ETA
    work = river_boards_per_flop(flops, deck, isomorphism) if progress else np.ones(n, np.int64)
    finished = k + len(done)
    bar = progress_bar(total=int(work.sum()),
                       initial=int(work[:k].sum()) + int(sum(work[i] for i in done)),
                       desc="exact best response", unit="river board", disable=not progress,
                       postfix={"flops": f"{finished:,}/{n:,}"})
    kept = k

    def advance() -> None:  # the flops are added in one order, whatever order they finish in
        nonlocal k
        while k < n and k in done:
            accumulate(total, flops[k], done.pop(k))
            k += 1

    def keep_prefix(every: float) -> None:
        nonlocal kept, last
        if store is not None and k > kept and time.monotonic() - last >= every:
            store.put_prefix(k, n, total, secs)
            kept, last = k, time.monotonic()

    last = time.monotonic()
    try:
        with bar:  # its last line says "stopped" when the run is interrupted
            advance()
            for i, values, cpu in mapper([(i, flops[i]) for i in todo], reach):
                if store is not None:
                    store.put(i, values, cpu)
                done[i] = values
                if cpu is not None:
                    secs[i] = cpu
                advance()
                keep_prefix(PREFIX_SECONDS)
                finished += 1
                bar.set_postfix(flops=f"{finished:,}/{n:,}")
                bar.update(int(work[i]))
    finally:
        keep_prefix(0.0)  # also when interrupted: the prefix reached so far
    return finish(tree, policy, total, deck, len(flops))


# ---------------------------------------------------------------------------------------------
# Running the flops: in this process, in local worker processes, or on a Dask cluster
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StoredStrategy:
    """A strategy a worker loads itself (``load_policy`` of ``spec`` in ``data_dir``; the
    weights are memory-mapped, so workers on one machine share them), instead of receiving
    gigabytes of weights with every flop."""

    data_dir: str
    spec: str


_LOADED: dict = {}
_INSTALLED: list = []


def _install(source) -> None:
    """A worker process's initializer: the source its flop tasks use when given None."""
    _INSTALLED[:] = [source]


def _resolve(source):
    """(tree, policy) of a :class:`StoredStrategy` (loaded once per process) or the pair;
    None: the one :func:`_install` set."""
    if source is None:
        source = _INSTALLED[0]
    if isinstance(source, StoredStrategy):
        if source not in _LOADED:
            pol, tree = load_policy(source.spec, Path(source.data_dir), {})
            _LOADED.clear()
            _LOADED[source] = (tree, pol)
        return _LOADED[source]
    return source


def flop_task(source, cards, reach: np.ndarray, deck: np.ndarray, isomorphism: bool = True
              ) -> tuple[np.ndarray, float]:
    """One unit of work: :func:`flop_values` of one flop (in this process or a worker) and the
    CPU seconds it took there."""
    tree, pol = _resolve(source)
    t = time.process_time()
    values = flop_values(tree, pol, cards, reach, deck, isomorphism)
    return values, time.process_time() - t


def executor_mapper(executor, source, deck: np.ndarray, inflight: int) -> Callable:
    """A ``mapper`` for :func:`exact_best_response` on a ``concurrent.futures`` executor (local
    processes, or a Dask client's ``get_executor()``): results as they finish, at most
    ``inflight`` flops submitted and not yet collected."""
    def mapper(items, reach):
        pending, it = {}, iter(items)
        while True:
            while len(pending) < inflight:
                nxt = next(it, None)
                if nxt is None:
                    break
                i, f = nxt
                pending[executor.submit(flop_task, source, f.cards, reach, deck)] = i
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=pending.get):
                values, cpu = fut.result()
                yield pending.pop(fut), values, cpu
    return mapper


@contextmanager
def flop_mapper(source, deck: np.ndarray, workers: int = 0, scheduler: str | None = None
                ) -> Iterator[Callable | None]:
    """The mapper of ``workers`` local processes (None for this process alone, 0 or 1) or of
    a Dask ``scheduler`` (``local:N`` or ``tcp://HOST:PORT``, ``etl.cluster``)."""
    if scheduler:
        with dask_client(scheduler) as client:
            n = max(len(client.scheduler_info().get("workers", {})), 1)
            if not isinstance(source, StoredStrategy):  # sent to every worker once
                source = client.scatter(source, broadcast=True)
            yield executor_mapper(client.get_executor(pure=False), source, deck, 2 * n)
    elif workers > 1:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_install,
                                 initargs=(source,)) as ex:
            yield executor_mapper(ex, None, deck, 2 * workers)
    else:
        yield None


def store_key(ddir: Path, spec: str, tree: BettingTree, deck: np.ndarray) -> dict:
    """What the flop results of strategy ``spec`` depend on."""
    r = tree.rules
    return {"kind": "exact-br", "spec": spec, "strategy": strategy_identity(ddir, spec),
            "rules": [r.n_rounds, list(r.blinds), list(r.bets), r.max_bets],
            "deck": [int(c) for c in deck]}


def stored_exact(ddir: Path, spec: str, tree: BettingTree) -> dict | None:
    """The full-deck exact best response :func:`run_exact` stored for strategy ``spec`` as it
    is stored now (``ExactResult.as_dict``), or None: never computed, not finished, or of an
    earlier solve of the name (the key holds the strategy's identity)."""
    key = store_key(Path(ddir), spec, tree, FULL_DECK)
    name = spec_parts(spec)[0]
    return FigureStore(Path(ddir) / "strategies" / name / "evaluations").get(
        {**key, "kind": "exact-best-response"})


def run_exact(ddir: Path, spec: str, workers: int = 0, scheduler: str | None = None,
              progress: bool = True, deck: np.ndarray | None = None,
              progress_file: Path | None = None,
              report: Callable[[str], None] | None = None) -> ExactResult:
    """``evaluate SPEC --best-response exact``: both seats' exact best responses to the stored
    strategy ``spec``, the flops kept in ``strategies/NAME/evaluations/exact-br-*/`` as they
    finish (a run resumes there; a second one at the same time is refused), the result stored
    as an evaluation (``FigureStore``, kind ``exact-best-response``, method ``exact``).
    ``workers``: local processes (0: this one); ``scheduler``: ``local:N`` or
    ``tcp://HOST:PORT`` (Dask); ``progress_file``: a prefix (``solve.holdem.exact_store``) to
    start from if it exists and covers more flops than the store's own (refused if it is of
    another strategy's content), and where every prefix the run keeps is copied: a few hundred
    KB that carry the run to another machine. ``report``: gets one line before the flops
    (the content digest and the flops already done)."""
    ddir = Path(ddir)
    pol, tree = load_policy(spec, ddir, {})
    name = spec_parts(spec)[0]
    deck = np.sort(np.asarray(FULL_DECK if deck is None else deck, np.int64))
    key = store_key(ddir, spec, tree, deck)
    figures = FigureStore(ddir / "strategies" / name / "evaluations")
    content = content_digest(pol.weights, pol.buckets.lookup, tree.rules, deck)
    store = FlopStore(FlopStore.folder(ddir / "strategies" / name / "evaluations", key), key,
                      content=content, mirror=progress_file)
    source = StoredStrategy(str(ddir), spec)
    with store.locked():
        store.check_mirror()
        shape = values_shape(tree)
        if progress_file is not None and Path(progress_file).exists():
            store.adopt(Path(progress_file), shape)
        if report is not None:
            pre = store.prefix(shape)
            report(f"{spec}: content sha256 {content[:16]} (weights, bucket look-ups, rules, "
                   f"deck); {pre[0] if pre else 0:,} flops summed in the prefix, "
                   f"{len(list(store.dir.glob('flop*.npy'))):,} flop files kept")
        with flop_mapper(source, deck, workers, scheduler) as mapper:
            res = exact_best_response(tree, pol, deck, store=store, mapper=mapper,
                                      progress=progress)
        figures.put({**key, "kind": "exact-best-response"}, res.as_dict())
    return res
