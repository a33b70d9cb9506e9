"""Suit-isomorphic canonical index of poker hands, after K. Waugh, "A fast and optimal hand
isomorphism algorithm" (AAAI-13 Workshop on Computer Poker and Imperfect Information, 2013).

A hand is dealt in groups (rounds), e.g. ``(2, 3)`` = two hole cards then a three-card flop;
cards within a group form a set. Two hands that differ only by a renaming of suits are
isomorphic. ``HandIndexer(groups)`` maps each hand to an index in ``0 .. size - 1`` that is a
bijection between isomorphism classes and that range (docs/design.md section 2 gives the sizes).

The construction (Waugh, sections 3-4): each suit has a *configuration* (its card count per
round) and a *suit index* (a mixed-radix number of the colex indices of its ranks per round,
each round's ranks renumbered past the ranks the suit already used). Renaming suits only
permutes the four (configuration, suit index) pairs, so sorting them gives a canonical form.
Hands are grouped by their sorted configuration; within one, each run of suits sharing a
configuration contributes a multiset of suit indices (ranked as a k-multiset in colex order),
and the runs are the digits of a mixed-radix number. The tables are tiny (hundreds of
configurations), so indexing is a few dozen integer operations per hand.

Numba-callable use from another kernel (``tables`` is one argument, a tuple of arrays)::

    from numba import njit
    from etl._index_kernels import index_hand, unindex_hand
    from etl.isomorphism import HandIndexer

    river = HandIndexer((2, 5))

    @njit
    def my_kernel(tables, board, out):      # board: 5 canonical board cards
        cards = np.empty(7, np.uint8)
        cards[2:] = board
        k = 0
        for a in range(52):
            for b in range(a + 1, 52):
                cards[0] = a; cards[1] = b
                out[k] = index_hand(tables, cards)   # -1 if a or b is on the board
                k += 1

    my_kernel(river.tables, board, out)

``index_hand(tables, cards) -> int64``: ``cards`` 1-D, any integer dtype, ``sum(groups)`` long,
groups one after the other in any order within a group; -1 for an invalid hand.
``unindex_hand(tables, idx, out) -> bool`` writes the canonical representative (suits in sorted
order, each group ascending) into ``out[:sum(groups)]``; False if ``idx`` is out of range.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from etl._index_kernels import (KEY_SHIFT, count_nonzero_u8, index_rows, roundtrip_range,
                                unindex_rows, verify_tasks)
from schema.progress import progress_bar

N_SUITS = 4
N_RANKS = 13
MAX_ROUNDS = 4

#: Exact canonical counts (Waugh 2013, table 1; docs/design.md section 2).
KNOWN_SIZES = {
    (2,): 169,
    (2, 3): 1_286_792,
    (2, 4): 13_960_050,
    (2, 5): 123_156_254,
    (2, 3, 1): 55_190_538,
    (2, 3, 1, 1): 2_428_287_420,
}


def _validate_groups(groups) -> tuple[int, ...]:
    try:
        g = tuple(int(x) for x in groups)
    except TypeError as exc:
        raise ValueError(f"groups must be a sequence of card counts, got {groups!r}") from exc
    if not 1 <= len(g) <= MAX_ROUNDS:
        raise ValueError(f"groups must have 1..{MAX_ROUNDS} rounds, got {len(g)}")
    if any(x < 1 for x in g):
        raise ValueError(f"every group must hold at least one card, got {g}")
    if sum(g) > 52:
        raise ValueError(f"groups hold {sum(g)} cards, more than 52")
    return g


def _compositions(n: int) -> list[tuple[int, int, int, int]]:
    """The ways to split n cards of one round among the 4 suits (at most 13 per suit)."""
    out = []
    for a, b, c in itertools.product(range(min(n, N_RANKS) + 1), repeat=3):
        d = n - a - b - c
        if 0 <= d <= N_RANKS:
            out.append((a, b, c, d))
    return out


@lru_cache(maxsize=16)
def _build_tables(groups: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """The index tables of a grouping (see ``etl/_index_kernels.py`` for their layout)."""
    n_rounds = len(groups)
    # ordered count index: digit (count of suit s < 3 in round j), radix groups[j] + 1
    weight = np.zeros((n_rounds, 3), np.int64)
    w = 1
    for j in range(n_rounds):
        for s in range(3):
            weight[j, s] = w
            w *= groups[j] + 1
    n_perm = w
    if n_perm > 50_000_000:
        raise ValueError(f"groups {groups} need a {n_perm}-entry table; too many cards per round")

    def key_of(counts_by_round: tuple[tuple[int, ...], ...], s: int) -> int:
        k = 0
        for cnt in counts_by_round:
            k = (k << 4) | cnt[s]
        return k

    ordered: list[tuple[int, tuple[int, ...]]] = []  # (ordered count index, sorted keys)
    for combo in itertools.product(*(_compositions(n) for n in groups)):
        if any(sum(c[s] for c in combo) > N_RANKS for s in range(N_SUITS)):
            continue
        p = sum(combo[j][s] * int(weight[j, s]) for j in range(n_rounds) for s in range(3))
        keys = tuple(sorted((key_of(combo, s) for s in range(N_SUITS)), reverse=True))
        ordered.append((p, keys))
    configs = sorted({k for _, k in ordered}, reverse=True)
    cid_of = {k: i for i, k in enumerate(configs)}
    perm_to_config = np.full(n_perm, -1, np.int64)
    for p, k in ordered:
        perm_to_config[p] = cid_of[k]

    n_conf = len(configs)
    offset = np.zeros(n_conf + 1, np.int64)
    suit_size = np.zeros((n_conf, N_SUITS), np.int64)
    keys_arr = np.zeros((n_conf, N_SUITS), np.int64)
    total = 0
    for c, keys in enumerate(configs):
        sizes = []
        for i, key in enumerate(keys):
            m, used = 1, 0
            for j in range(n_rounds):
                n = (key >> (4 * (n_rounds - 1 - j))) & 15
                m *= math.comb(N_RANKS - used, n)
                used += n
            sizes.append(m)
            keys_arr[c, i] = key
            suit_size[c, i] = m
            if m >= 1 << KEY_SHIFT:
                raise ValueError(f"groups {groups}: a suit index does not fit in {KEY_SHIFT} bits")
        conf_size, i = 1, 0
        while i < N_SUITS:
            j = i + 1
            while j < N_SUITS and keys[j] == keys[i]:
                j += 1
            g = j - i
            if g > 1 and (sizes[i] + g) ** g >= 1 << 62:
                raise ValueError(f"groups {groups}: multiset rank of {g} suits would overflow")
            conf_size *= math.comb(sizes[i] + g - 1, g)
            i = j
        offset[c] = total
        total += conf_size
    offset[n_conf] = total
    if total >= 1 << 62:
        raise ValueError(f"groups {groups}: {total} hands do not fit in int64")
    tables = (np.array(groups, np.int64), weight, perm_to_config, offset, suit_size, keys_arr)
    for a in tables:
        a.setflags(write=False)
    return tables


def raw_count(groups) -> int:
    """Number of raw (unreduced) hands: ``prod_j C(52 - cards before j, groups[j])``."""
    g = _validate_groups(groups)
    out, used = 1, 0
    for n in g:
        out *= math.comb(52 - used, n)
        used += n
    return out


def burnside_count(groups) -> int:
    """Number of suit-isomorphism classes by Burnside's lemma (independent of the index).

    ``(1/24) sum_sigma #hands fixed by sigma``. A hand is fixed by a suit permutation sigma iff
    each group is a union of sigma's orbits on cards; a cycle of length L of sigma gives 13
    orbits of size L. Count, per sigma, the ways to assign orbits to rounds with the right sizes.
    """
    g = _validate_groups(groups)
    total = 0
    for sigma in itertools.permutations(range(N_SUITS)):
        lengths = []
        seen = set()
        for s in range(N_SUITS):
            if s in seen:
                continue
            length, t = 0, s
            while t not in seen:
                seen.add(t)
                t = sigma[t]
                length += 1
            lengths.append(length)
        orbit_count: dict[int, int] = {}
        for length in lengths:
            orbit_count[length] = orbit_count.get(length, 0) + N_RANKS
        total += _fixed_hands(tuple(sorted(orbit_count.items())), g)
    assert total % 24 == 0
    return total // 24


def _fixed_hands(orbits: tuple[tuple[int, int], ...], need: tuple[int, ...]) -> int:
    """Ways to pick, for each round, disjoint orbits of total size ``need[j]``."""
    if not orbits:
        return 1 if all(n == 0 for n in need) else 0
    (length, count), rest = orbits[0], orbits[1:]
    total = 0

    def split(j: int, left: int, need_left: list[int], ways: int) -> None:
        nonlocal total
        if j == len(need):
            total += ways * _fixed_hands(rest, tuple(need_left))
            return
        for a in range(0, min(left, need_left[j] // length) + 1):
            need_left[j] -= a * length
            split(j + 1, left - a, need_left, ways * math.comb(left, a))
            need_left[j] += a * length

    split(0, count, list(need), 1)
    return total


class HandIndexer:
    """Canonical index of hands dealt in ``groups`` (Waugh 2013).

    >>> ix = HandIndexer((2,))
    >>> ix.size
    169
    >>> int(ix.index([[51, 47]])[0]) == int(ix.index([[50, 46]])[0])   # AsKs ~ AhKh
    True

    Attributes:
        groups: cards per round.
        size: number of canonical hands (indices are ``0 .. size - 1``).
        round_sizes: sizes of the prefixes ``groups[:1]``, ``groups[:2]``, ... (the last is size).
        tables: the tuple of arrays the numba functions ``index_hand`` / ``unindex_hand`` take.
    """

    def __init__(self, groups=(2, 3)):
        self.groups = _validate_groups(groups)
        self.tables = _build_tables(self.groups)
        self.size = int(self.tables[3][-1])
        self.round_sizes = tuple(int(_build_tables(self.groups[: r + 1])[3][-1])
                                 for r in range(len(self.groups)))
        self.n_cards = sum(self.groups)

    def __repr__(self) -> str:
        return f"HandIndexer(groups={self.groups}, size={self.size:,})"

    def index(self, cards) -> np.ndarray:
        """Canonical index of each hand.

        Args:
            cards: ``(N, sum(groups))`` integer array (or one 1-D hand), the groups one after
                another, any order within a group.

        Returns:
            ``int64`` array of N indices (an int for one 1-D hand).

        Raises:
            ValueError: bad shape, a card out of 0..51, or a card repeated within a hand.
        """
        arr = np.asarray(cards)
        single = arr.ndim == 1
        if single:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != self.n_cards:
            raise ValueError(f"cards must have shape (N, {self.n_cards}) for groups "
                             f"{self.groups}, got {np.asarray(cards).shape}")
        if not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"cards must be integers, got dtype {arr.dtype}")
        if arr.dtype not in (np.uint8, np.int64):
            if arr.size and (arr.min() < 0 or arr.max() > 51):
                raise ValueError("card codes must be in 0..51")
            arr = arr.astype(np.int64)
        arr = np.ascontiguousarray(arr)
        out = np.empty(arr.shape[0], np.int64)
        index_rows(self.tables, arr, out)
        bad = np.flatnonzero(out < 0)
        if bad.size:
            raise ValueError(f"invalid hand in row {int(bad[0])}: cards must be distinct codes "
                             f"in 0..51, got {arr[bad[0]].tolist()}")
        return int(out[0]) if single else out

    def unindex(self, idx) -> np.ndarray:
        """Canonical representative of each index (suits in canonical order, groups ascending).

        Args:
            idx: int or 1-D integer array of indices in ``0 .. size - 1``.

        Returns:
            ``uint8`` array ``(N, sum(groups))`` (1-D for a scalar index).

        Raises:
            ValueError: an index out of range.
        """
        arr = np.asarray(idx)
        single = arr.ndim == 0
        arr = np.atleast_1d(arr)
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError("idx must be an int or a 1-D integer array")
        if arr.size and (arr.min() < 0 or arr.max() >= self.size):
            raise ValueError(f"index out of range 0..{self.size - 1} for groups {self.groups}")
        arr = np.ascontiguousarray(arr, dtype=np.int64)
        out = np.empty((arr.shape[0], self.n_cards), np.uint8)
        unindex_rows(self.tables, arr, out)
        return out[0] if single else out


@dataclass
class VerifyResult:
    """Outcome of ``verify_counts`` (see there)."""

    groups: tuple[int, ...]
    raw: int
    visited: int
    size: int
    burnside: int
    hits: int
    out_of_range: int
    not_isomorphic: int
    roundtrip_errors: int
    bad_representatives: int
    seconds_unindex: float
    seconds_enumerate: float

    @property
    def ok(self) -> bool:
        return (self.visited == self.raw and self.size == self.burnside == self.hits
                and self.out_of_range == self.not_isomorphic == self.roundtrip_errors
                == self.bad_representatives == 0
                and (self.groups not in KNOWN_SIZES or KNOWN_SIZES[self.groups] == self.size))


def verify_counts(groups, progress: bool = True, chunk: int = 16) -> dict:
    """Prove exhaustively that the canonical index of ``groups`` is a bijection.

    1. For every index i: ``u = unindex(i)`` is a valid hand (groups ascending) with
       ``index(u) == i``; its class code ``canonical_code(u)`` (an exact code of the
       isomorphism class computed without the index) is stored.
    2. Every raw hand h is enumerated (in parallel over the first group) and indexed: the
       index is in range, ``code[index(h)] == canonical_code(h)`` -- i.e. ``unindex(index(h))``
       is isomorphic to h -- and the index is marked in a bitmap.
    3. The bitmap covers all of ``0 .. size - 1``, and size equals the number of classes by
       Burnside's lemma (and Waugh's published count when known).

    By (2) hands with equal indices are isomorphic; with (3) the ``size`` classes map onto
    ``size`` indices, so the index is a function of the class and a bijection.

    Memory: the codes (4 or 8 bytes per index) and the bitmap (1 byte per index).

    Returns:
        dict with ``ok`` and the fields of ``VerifyResult`` (counts; timings in seconds).
    """
    g = _validate_groups(groups)
    ix = HandIndexer(g)
    code_bound = math.prod(math.comb(52, n) for n in g)
    if code_bound >= 1 << 63:
        raise ValueError(f"groups {g}: class codes do not fit in 64 bits")
    codes = np.empty(ix.size, np.uint32 if code_bound < 1 << 32 else np.int64)
    raw = raw_count(g)
    bars = None
    if progress:
        bars = (progress_bar(total=ix.size, desc=f"unindex {list(g)}", unit="idx", unit_scale=True),
                progress_bar(total=raw, desc=f"index {list(g)}", unit="hand", unit_scale=True))
    t0 = time.perf_counter()
    rt = np.zeros(2, np.int64)
    step = max(1, (ix.size + 31) // 32)
    for lo in range(0, ix.size, step):
        hi = min(ix.size, lo + step)
        roundtrip_range(ix.tables, lo, hi, codes, rt)
        if bars is not None:
            bars[0].update(hi - lo)
    t1 = time.perf_counter()
    n0 = g[0]
    first = np.array(list(itertools.combinations(range(52), n0)), np.uint8).reshape(-1, n0)
    bitmap = np.zeros(ix.size, np.uint8)
    errors = np.zeros((first.shape[0], 2), np.int64)
    counts = np.zeros(first.shape[0], np.int64)
    for lo in range(0, first.shape[0], chunk):
        hi = min(first.shape[0], lo + chunk)
        verify_tasks(ix.tables, first[lo:hi], codes, bitmap, errors[lo:hi], counts[lo:hi])
        if bars is not None:
            bars[1].update(int(counts[lo:hi].sum()))
    hits = int(count_nonzero_u8(bitmap))
    t2 = time.perf_counter()
    if bars is not None:
        for b in bars:
            b.close()
    res = VerifyResult(
        groups=g, raw=raw, visited=int(counts.sum()), size=ix.size, burnside=burnside_count(g),
        hits=hits, out_of_range=int(errors[:, 0].sum()), not_isomorphic=int(errors[:, 1].sum()),
        roundtrip_errors=int(rt[0]), bad_representatives=int(rt[1]),
        seconds_unindex=round(t1 - t0, 3), seconds_enumerate=round(t2 - t1, 3))
    out = dict(res.__dict__)
    out["groups"] = list(g)
    out["ok"] = res.ok
    return out
