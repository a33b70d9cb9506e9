"""Numba kernels of the colex index (``etl/colex.py``) and the suit-isomorphic canonical index
(``etl/isomorphism.py``); those modules hold the ideas, the table builders and the public API.

Scalar functions meant to be called from other ``@njit`` kernels (all ``@njit(cache=True)``,
no allocation, no Python objects):

- ``binom(n, k) -> int64``: C(n, k) for 0 <= n <= 64 (0 when k < 0 or k > n).
- ``colex_index_sorted(cards) -> int64``: colex index of an ascending 1-D array.
- ``colex_index_set(cards) -> int64``: the same for a set in any order (O(k^2), k small).
- ``colex_unindex_into(idx, k, n, out)``: writes the ascending k-subset of ``0..n-1`` with
  colex index ``idx`` into ``out[:k]``.
- ``index_hand(tables, cards) -> int64``: canonical index of one hand (-1 if invalid).
- ``unindex_hand(tables, idx, out) -> bool``: writes the canonical representative of ``idx``.
- ``index_hand_inline``, ``unindex_hand_inline``, ``canonical_code_inline``: the same functions
  inlined into the caller by numba; faster in a hot loop, but every caller compiles their whole
  body again (seconds each on a cold cache), so use them only where a benchmark shows it.
- ``canonical_form(groups, cards) -> (int64, int64, int64, int64)`` and
  ``canonical_code(groups, cards) -> int64``: complete suit-isomorphism invariants computed
  without the index (used to verify it); ``groups = tables[0]``.

``tables`` is the tuple ``HandIndexer(groups).tables``; pass it to your own ``@njit`` function as
one argument and hand it on unchanged (numba types it as a heterogeneous tuple of arrays).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

N_RANKS = 13
MAX_BINOM_N = 64
#: shift of the per-suit key in a per-suit sort value (key above, per-suit index below)
KEY_SHIFT = 40


def _binomial_table(nmax: int) -> np.ndarray:
    t = np.zeros((nmax + 1, nmax + 1), np.int64)
    for n in range(nmax + 1):
        t[n, 0] = 1
        for k in range(1, n + 1):
            t[n, k] = t[n - 1, k - 1] + t[n - 1, k]
    t.setflags(write=False)
    return t


#: BINOM[n, k] = C(n, k), 0 <= k <= n <= 64 (C(64, 32) < 2^63); zero above the diagonal.
BINOM = _binomial_table(MAX_BINOM_N)


def _rank_set_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Popcount and colex index of every 13-bit rank set, and the rank set of each colex index."""
    masks = np.arange(1 << N_RANKS, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(N_RANKS)) & 1
    popcount = bits.sum(axis=1).astype(np.int64)
    # colex of a rank set: sum over its members r (the i-th smallest, i from 1) of C(r, i)
    pos = np.cumsum(bits, axis=1)  # i of member r
    colex = (bits * BINOM[np.arange(N_RANKS)[None, :], pos]).sum(axis=1).astype(np.int64)
    of_colex = np.zeros((N_RANKS + 1, int(BINOM[N_RANKS, N_RANKS // 2])), np.int64)
    of_colex[popcount, colex] = masks
    for a in (popcount, colex, of_colex):
        a.setflags(write=False)
    return popcount, colex, of_colex


#: POPCOUNT[m], RANKSET_COLEX[m] for a 13-bit rank set m; RANKSET_OF_COLEX[n, i] is the n-set
#: with colex index i.
POPCOUNT, RANKSET_COLEX, RANKSET_OF_COLEX = _rank_set_tables()


def _nth_free_table() -> np.ndarray:
    """NTH_FREE[u, b]: the b-th rank (from 0) not in the 13-bit set u (13 when none)."""
    t = np.full((1 << N_RANKS, N_RANKS), N_RANKS, np.int64)
    for u in range(1 << N_RANKS):
        free = [r for r in range(N_RANKS) if not (u >> r) & 1]
        t[u, : len(free)] = free
    t.setflags(write=False)
    return t


NTH_FREE = _nth_free_table()


# ---------------------------------------------------------------------------------------------
# Colex index of k-subsets
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def binom(n: int, k: int) -> int:
    """C(n, k) for 0 <= n <= 64 from the table; 0 when k < 0 or k > n."""
    if k < 0 or k > n:
        return 0
    return BINOM[n, k]


@njit(cache=True)
def colex_index_sorted(cards) -> int:
    """Colex index ``sum_i C(c_i, i)`` (i from 1) of the ascending 1-D array ``cards``."""
    idx = 0
    for i in range(cards.shape[0]):
        idx += BINOM[np.int64(cards[i]), i + 1]
    return idx


@njit(cache=True)
def colex_index_set(cards) -> int:
    """Colex index of the set ``cards`` given in any order (position of c = #members below c)."""
    k = cards.shape[0]
    idx = 0
    for a in range(k):
        c = np.int64(cards[a])
        below = 0
        for b in range(k):
            if np.int64(cards[b]) < c:
                below += 1
        idx += BINOM[c, below + 1]
    return idx


@njit(cache=True)
def colex_unindex_into(idx: int, k: int, n: int, out) -> None:
    """Write the ascending k-subset of ``0..n-1`` whose colex index is ``idx`` into ``out[:k]``.

    Greedy from the largest member: ``c_k`` is the largest c with ``C(c, k) <= idx``.
    """
    rem = idx
    c = n - 1
    for i in range(k, 0, -1):
        while BINOM[c, i] > rem:
            c -= 1
        out[i - 1] = c
        rem -= BINOM[c, i]
        c -= 1


@njit(cache=True, parallel=True)
def colex_index_rows(cards: np.ndarray, n: int, out: np.ndarray) -> None:
    """``out[r] = colex index of the set cards[r]`` (any order within a row); -1 when a row
    has an element outside ``0..n-1`` or a repeated element."""
    for r in prange(cards.shape[0]):
        row = cards[r]
        seen = np.uint64(0)
        ok = True
        for t in range(row.shape[0]):
            c = np.int64(row[t])
            if c < 0 or c >= n:
                ok = False
                break
            bit = np.uint64(1) << np.uint64(c)
            if seen & bit:
                ok = False
                break
            seen |= bit
        out[r] = colex_index_set(row) if ok else -1


@njit(cache=True, parallel=True)
def colex_unindex_rows(idx: np.ndarray, k: int, n: int, out: np.ndarray) -> None:
    """``out[r] = ascending k-subset of 0..n-1 with colex index idx[r]``."""
    for r in prange(idx.shape[0]):
        colex_unindex_into(idx[r], k, n, out[r])


# ---------------------------------------------------------------------------------------------
# Canonical (suit-isomorphic) index, after K. Waugh, "A fast and optimal hand isomorphism
# algorithm" (AAAI workshop 2013).
#
# A suit's *configuration key* packs its card counts per round, 4 bits each, first round most
# significant; its *suit index* is the mixed-radix number whose digit for round j is the colex
# index of the suit's ranks dealt in round j among the 13 - (ranks used before) still free
# (ranks renumbered past the used ones), digit weight prod_{j'<j} C(13 - m_j', n_j').
# Suits are sorted by key descending, ties by suit index ascending; the sorted keys are the
# hand's configuration (looked up through the ordered count vector, ``perm_to_config``), whose
# hands occupy ``offset[cid] .. offset[cid + 1] - 1``. Within a configuration, each run of g
# suits with equal key holds a multiset of g suit indices < M, ranked as the colex index of
# {x_t + t} (size C(M + g - 1, g)); runs are digits of a mixed-radix number.
#
# tables = (groups, perm_weight, perm_to_config, offset, suit_size, keys)
#   groups        int64[R]      cards per round
#   perm_weight   int64[R, 3]   weight of the count of suit s < 3 in round j in the ordered
#                               count index (the count of suit 3 is implied)
#   perm_to_config int64[P]     configuration id of each ordered count vector (-1: impossible)
#   offset        int64[C + 1]  first index of each configuration, then the total size
#   suit_size     int64[C, 4]   M of each sorted suit position
#   keys          int64[C, 4]   configuration keys of the sorted positions (descending)
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _sort4(a, b, c, d):
    """Sort four integers ascending (a min/max network: no data-dependent branches)."""
    if a > b:
        a, b = b, a
    if c > d:
        c, d = d, c
    if a > c:
        a, c = c, a
    if b > d:
        b, d = d, b
    if b > c:
        b, c = c, b
    return a, b, c, d


@njit(cache=True, inline="always")
def _suit_step(shifted: int, m: int, u: int, x: int, mult: int):
    """Append one round's digit to a suit index: ``shifted`` is the suit's rank set ``m`` of
    the round renumbered past the ranks ``u`` it used before (digit weight ``mult``)."""
    n = POPCOUNT[m]
    return x + mult * RANKSET_COLEX[shifted], mult * BINOM[N_RANKS - POPCOUNT[u], n], n


@njit(cache=True, inline="always")
def _c2(n: int) -> int:
    return (n * (n - 1)) >> 1


@njit(cache=True, inline="always")
def _c3(n: int) -> int:
    return n * (n - 1) * (n - 2) // 6


@njit(cache=True, inline="always")
def _c4(n: int) -> int:
    return n * (n - 1) * (n - 2) * (n - 3) // 24


@njit(cache=True)
def index_hand(tables, cards) -> int:
    """Canonical index of one hand (numba-callable; see the module docstring).

    Args:
        tables: ``HandIndexer(groups).tables``.
        cards: 1-D integer array (any integer dtype) of ``sum(groups)`` card codes, the groups
            one after another; order within a group does not matter.

    Returns:
        the index in ``0 .. size - 1``, or -1 if a card is out of 0..51 or repeated.
    """
    groups, perm_weight, perm_to_config, offset, suit_size = (tables[0], tables[1], tables[2],
                                                              tables[3], tables[4])
    n_rounds = groups.shape[0]
    used = 0  # packed: bit 16 * suit + rank
    x0 = x1 = x2 = x3 = 0
    mu0 = mu1 = mu2 = mu3 = 1
    k0 = k1 = k2 = k3 = 0
    perm = 0
    t = 0
    for j in range(n_rounds):
        pm = 0  # this round's cards, packed: bit 16 * suit + rank
        sh = 0  # the same with each rank renumbered past the suit's used ranks
        for _ in range(groups[j]):
            c = np.int64(cards[t])
            t += 1
            if c < 0 or c >= 52:
                return -1
            r = c >> 2
            base = (c & 3) << 4
            bit = 1 << (base | r)
            if (pm | used) & bit:
                return -1
            pm |= bit
            sh |= 1 << (base | (r - POPCOUNT[(used >> base) & ((1 << r) - 1)]))
        x0, mu0, n0 = _suit_step(sh & 0x1FFF, pm & 0x1FFF, used & 0x1FFF, x0, mu0)
        x1, mu1, n1 = _suit_step((sh >> 16) & 0x1FFF, (pm >> 16) & 0x1FFF, (used >> 16) & 0x1FFF,
                                 x1, mu1)
        x2, mu2, n2 = _suit_step((sh >> 32) & 0x1FFF, (pm >> 32) & 0x1FFF, (used >> 32) & 0x1FFF,
                                 x2, mu2)
        x3, mu3, n3 = _suit_step(sh >> 48, pm >> 48, used >> 48, x3, mu3)
        k0 = (k0 << 4) | n0
        k1 = (k1 << 4) | n1
        k2 = (k2 << 4) | n2
        k3 = (k3 << 4) | n3
        perm += n0 * perm_weight[j, 0] + n1 * perm_weight[j, 1] + n2 * perm_weight[j, 2]
        used |= pm
    cid = perm_to_config[perm]
    kmax = (1 << (4 * n_rounds)) - 1
    v0, v1, v2, v3 = _sort4(((kmax - k0) << KEY_SHIFT) | x0, ((kmax - k1) << KEY_SHIFT) | x1,
                            ((kmax - k2) << KEY_SHIFT) | x2, ((kmax - k3) << KEY_SHIFT) | x3)
    xmask = (1 << KEY_SHIFT) - 1
    # runs of equal keys among the sorted positions; a run of g suits is a multiset digit
    e01 = (v0 >> KEY_SHIFT) == (v1 >> KEY_SHIFT)
    e12 = (v1 >> KEY_SHIFT) == (v2 >> KEY_SHIFT)
    e23 = (v2 >> KEY_SHIFT) == (v3 >> KEY_SHIFT)
    a0 = v0 & xmask
    a1 = v1 & xmask
    a2 = v2 & xmask
    a3 = v3 & xmask
    idx = offset[cid]
    if e01 and e12 and e23:
        return idx + a0 + _c2(a1 + 1) + _c3(a2 + 2) + _c4(a3 + 3)
    mult = 1
    if e01 and e12:  # (0 1 2) (3)
        idx += a0 + _c2(a1 + 1) + _c3(a2 + 2)
        return idx + _c3(suit_size[cid, 0] + 2) * a3
    if e12 and e23:  # (0) (1 2 3)
        return idx + a0 + suit_size[cid, 0] * (a1 + _c2(a2 + 1) + _c3(a3 + 2))
    if e01:  # (0 1) ...
        idx += a0 + _c2(a1 + 1)
        mult = _c2(suit_size[cid, 0] + 1)
    else:  # (0) ...
        idx += a0
        mult = suit_size[cid, 0]
        if e12:  # (0) (1 2) (3)
            idx += mult * (a1 + _c2(a2 + 1))
            return idx + mult * _c2(suit_size[cid, 1] + 1) * a3
        idx += mult * a1
        mult *= suit_size[cid, 1]
    # positions 2 and 3 remain, position 1 closed
    if e23:
        return idx + mult * (a2 + _c2(a3 + 1))
    return idx + mult * (a2 + suit_size[cid, 2] * a3)


#: ``index_hand`` pasted into the caller by numba (``inline="always"``): faster in a hot loop
#: (measured 2x in ``index_rows``, 20% in the Hold'em CFR pass: no call with ~50 exploded
#: array arguments) but each caller then compiles the whole body again (seconds per site), so
#: only the measured hot loops use it; ordinary callers take ``index_hand``.
index_hand_inline = njit(cache=True, inline="always")(index_hand.py_func)


@njit(cache=True, inline="always")
def _inv_choose(part: int, k: int) -> int:
    """Largest y with C(y, k) <= part, for k in 2..4 (float estimate, then exact fix-up)."""
    if k == 2:
        y = np.int64((1.0 + np.sqrt(1.0 + 8.0 * part)) * 0.5)
        while _c2(y) > part:
            y -= 1
        while _c2(y + 1) <= part:
            y += 1
    elif k == 3:
        y = np.int64(np.cbrt(6.0 * part)) + 1
        while _c3(y) > part:
            y -= 1
        while _c3(y + 1) <= part:
            y += 1
    else:
        y = np.int64((24.0 * part) ** 0.25) + 1
        while _c4(y) > part:
            y -= 1
        while _c4(y + 1) <= part:
            y += 1
    return y


@njit(cache=True, inline="always")
def _decode_digit(x: int, used: int, n: int, s: int):
    """Split the next round's digit off suit index ``x``: returns (rest of x, ranks used after
    this round, this round's cards of suit ``s`` as a 52-bit card mask)."""
    if n == 0:
        return x, used, 0
    radix = BINOM[N_RANKS - POPCOUNT[used], n]
    shifted = RANKSET_OF_COLEX[n, x % radix]
    mask = 0
    cards = 0
    while shifted:
        low = shifted & -shifted
        r = NTH_FREE[used, POPCOUNT[low - 1]]
        mask |= 1 << r
        cards |= 1 << (4 * r + s)
        shifted ^= low
    return x // radix, used | mask, cards


@njit(cache=True)
def unindex_hand(tables, idx: int, out) -> bool:
    """Write the canonical representative of index ``idx`` into ``out`` (numba-callable).

    The representative's suits are numbered in sorted configuration order and each group's
    cards are written in ascending order.

    Args:
        tables: ``HandIndexer(groups).tables``.
        idx: index in ``0 .. size - 1``.
        out: 1-D integer array of length >= ``sum(groups)``.

    Returns:
        False (``out`` untouched) when ``idx`` is out of range.
    """
    groups, offset, suit_size, keys = tables[0], tables[3], tables[4], tables[5]
    n_conf = offset.shape[0] - 1
    if idx < 0 or idx >= offset[n_conf]:
        return False
    # last configuration whose offset is <= idx (offset[0] = 0); branch-free steps
    lo = 0
    n = n_conf
    while n > 1:
        half = n >> 1
        lo = lo + half if offset[lo + half] <= idx else lo
        n -= half
    cid = lo
    rem = idx - offset[cid]
    n_rounds = groups.shape[0]
    x0 = 0
    x1 = 0
    x2 = 0
    x3 = 0
    i = 0
    while i < 4:
        j = i + 1
        while j < 4 and keys[cid, j] == keys[cid, i]:
            j += 1
        g = j - i
        m = suit_size[cid, i]
        if g == 1:
            part = rem % m
            rem //= m
            y = part
        else:
            size = _c2(m + 1) if g == 2 else (_c3(m + 2) if g == 3 else _c4(m + 3))
            part = rem % size
            rem //= size
        # multiset colex decode: y_t = x_t + t is the largest y with C(y, t + 1) <= part
        for t in range(g - 1, -1, -1):
            if t == 0:
                y = part
            else:
                y = _inv_choose(part, t + 1)
                part -= _c2(y) if t == 1 else (_c3(y) if t == 2 else _c4(y))
            p = i + t
            if p == 0:
                x0 = y - t
            elif p == 1:
                x1 = y - t
            elif p == 2:
                x2 = y - t
            else:
                x3 = y - t
        i = j
    k0 = keys[cid, 0]
    k1 = keys[cid, 1]
    k2 = keys[cid, 2]
    k3 = keys[cid, 3]
    u0 = u1 = u2 = u3 = 0
    start = 0
    for j in range(n_rounds):
        shift = 4 * (n_rounds - 1 - j)
        x0, u0, m0 = _decode_digit(x0, u0, (k0 >> shift) & 15, 0)
        x1, u1, m1 = _decode_digit(x1, u1, (k1 >> shift) & 15, 1)
        x2, u2, m2 = _decode_digit(x2, u2, (k2 >> shift) & 15, 2)
        x3, u3, m3 = _decode_digit(x3, u3, (k3 >> shift) & 15, 3)
        # the round's cards in ascending order
        m = np.uint64(m0 | m1 | m2 | m3)
        pos = start
        while m:
            out[pos] = trailing_zeros(m)
            pos += 1
            m &= m - np.uint64(1)
        start += groups[j]
    return True


#: ``unindex_hand`` inlined by numba (see ``index_hand_inline``), for hot loops only.
unindex_hand_inline = njit(cache=True, inline="always")(unindex_hand.py_func)


#: Rows per task of the parallel row kernels. Each task is one call of a serial kernel
#: (``_index_span``, ``_unindex_span``; likewise ``_verify_task`` and ``_roundtrip_chunk``), so the
#: big inlined index body is compiled in a plain function, not inside a ``prange`` body: numba
#: compiles this module cold in 20.9 CPU s instead of 36.7, and the kernels run as fast
#: (BENCHMARKS.md: the opening table's "numba compile time" row, measured in the section of
#: 2026-11-30 evening).
_ROWS_PER_TASK = 4096


@njit(cache=True)
def _index_span(tables, cards, out, a, b) -> None:
    for r in range(a, b):
        out[r] = index_hand_inline(tables, cards[r])


@njit(cache=True, parallel=True)
def index_rows(tables, cards: np.ndarray, out: np.ndarray) -> None:
    """``out[r] = index_hand(tables, cards[r])`` over the rows, in parallel."""
    n = cards.shape[0]
    for t in prange((n + _ROWS_PER_TASK - 1) // _ROWS_PER_TASK):
        a = t * _ROWS_PER_TASK
        _index_span(tables, cards, out, a, min(n, a + _ROWS_PER_TASK))


@njit(cache=True)
def _unindex_span(tables, idx, out, a, b) -> None:
    for r in range(a, b):
        unindex_hand_inline(tables, idx[r], out[r])


@njit(cache=True, parallel=True)
def unindex_rows(tables, idx: np.ndarray, out: np.ndarray) -> None:
    """``out[r]`` = canonical representative of ``idx[r]`` (caller checks the range)."""
    n = idx.shape[0]
    for t in prange((n + _ROWS_PER_TASK - 1) // _ROWS_PER_TASK):
        a = t * _ROWS_PER_TASK
        _unindex_span(tables, idx, out, a, min(n, a + _ROWS_PER_TASK))


# ---------------------------------------------------------------------------------------------
# Verification: an independent canonical form, and exhaustive enumeration of raw hands.
# ---------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _suit_masks(groups, cards):
    """Each suit's vector of rank sets per round (at most 4 rounds): bit ``13 * j + rank`` of
    the suit's mask is set when the hand holds that card in round ``j``. Returns (s0, s1, s2,
    s3), the masks of suits 0..3."""
    s0 = 0
    s1 = 0
    s2 = 0
    s3 = 0
    start = 0
    for j in range(groups.shape[0]):
        for t in range(start, start + groups[j]):
            c = np.int64(cards[t])
            bit = 1 << (13 * j + (c >> 2))
            s = c & 3
            s0 |= bit * (s == 0)  # branch-free: suits are unpredictable
            s1 |= bit * (s == 1)
            s2 |= bit * (s == 2)
            s3 |= bit * (s == 3)
        start += groups[j]
    return s0, s1, s2, s3


@njit(cache=True)
def canonical_form(groups, cards):
    """A complete invariant of a hand under suit renaming (at most 4 rounds).

    Each suit's vector of rank sets per round, packed 13 bits per round, sorted: two hands
    (groups as sets) are suit-isomorphic iff these 4-tuples are equal. Independent of the index
    construction, so it can check it.
    """
    s0, s1, s2, s3 = _suit_masks(groups, cards)
    return _sort4(s0, s1, s2, s3)


@njit(cache=True)
def canonical_code(groups, cards) -> int:
    """An exact integer code of a hand's isomorphism class, computed without the index.

    Suits are renamed in the order of their per-suit vectors of rank sets per round (as in
    ``canonical_form``; equal vectors make the order of ties irrelevant), and the renamed hand
    is coded as the mixed-radix number of its groups' colex indices among all 52 cards (radix
    C(52, n) per group). Two hands get the same code iff they are suit-isomorphic. At most 4
    rounds; the code fits in int64 when ``prod C(52, n_j)`` does.
    """
    s0, s1, s2, s3 = _suit_masks(groups, cards)
    # new name of suit s = number of suits with a smaller vector (ties by suit number)
    n0 = (s1 < s0) + (s2 < s0) + (s3 < s0)
    n1 = (s0 <= s1) + (s2 < s1) + (s3 < s1)
    n2 = (s0 <= s2) + (s1 <= s2) + (s3 < s2)
    n3 = (s0 <= s3) + (s1 <= s3) + (s2 <= s3)
    names = n0 | (n1 << 2) | (n2 << 4) | (n3 << 6)
    code = 0
    radix = 1
    start = 0
    for j in range(groups.shape[0]):
        m = np.uint64(0)
        for t in range(start, start + groups[j]):
            c = np.int64(cards[t])
            m |= np.uint64(1) << np.uint64((c & ~3) | ((names >> (2 * (c & 3))) & 3))
        col = 0
        i = 0
        while m:
            i += 1
            col += BINOM[trailing_zeros(m), i]
            m &= m - np.uint64(1)
        code += radix * col
        radix *= BINOM[52, groups[j]]
        start += groups[j]
    return code


canonical_code_inline = njit(cache=True, inline="always")(canonical_code.py_func)


@njit(cache=True, inline="always")
def _next_combination(pos, k: int, n: int) -> bool:
    """Advance ``pos[:k]`` (ascending positions in 0..n-1) to the next k-subset in lex order."""
    t = k - 1
    while t >= 0 and pos[t] == n - k + t:
        t -= 1
    if t < 0:
        return False
    pos[t] += 1
    for u in range(t + 1, k):
        pos[u] = pos[u - 1] + 1
    return True


@njit(cache=True)
def _start_group(groups, starts, g: int, cards, avail, pos) -> None:
    """Cards free after groups < g into ``avail[g]``; first combination of group g."""
    used = 0
    for t in range(starts[g]):
        used |= 1 << np.int64(cards[t])
    a = 0
    for c in range(52):
        if not (used >> c) & 1:
            avail[g, a] = c
            a += 1
    for t in range(groups[g]):
        pos[g, t] = t
        cards[starts[g] + t] = avail[g, t]


_BATCH = 256


@njit(cache=True)
def _verify_task(tables, first_row, codes, bitmap):
    """One task of ``verify_tasks``: (hands out of range, code mismatches, hands visited)."""
    groups = tables[0]
    size = tables[3][tables[3].shape[0] - 1]
    n_rounds = groups.shape[0]
    total = 0
    for j in range(n_rounds):
        total += groups[j]
    starts = np.zeros(n_rounds + 1, np.int64)
    for j in range(n_rounds):
        starts[j + 1] = starts[j] + groups[j]
    cards = np.zeros(total, np.uint8)
    avail = np.zeros((n_rounds, 52), np.int64)
    pos = np.zeros((n_rounds, 52), np.int64)
    for t in range(groups[0]):
        cards[t] = first_row[t]
    for g in range(1, n_rounds):
        _start_group(groups, starts, g, cards, avail, pos)
    e0 = 0
    e1 = 0
    n = 0
    # Hands are indexed in batches and the random-access checks done afterwards, so that
    # many cache misses on ``codes`` / ``bitmap`` are in flight at once.
    b_idx = np.empty(_BATCH, np.int64)
    b_code = np.empty(_BATCH, np.int64)
    nb = 0
    more = True
    while more:
        b_idx[nb] = index_hand_inline(tables, cards)
        b_code[nb] = canonical_code_inline(groups, cards)
        nb += 1
        g = n_rounds - 1
        while g >= 1:
            k = groups[g]
            if _next_combination(pos[g], k, 52 - starts[g]):
                for t in range(k):
                    cards[starts[g] + t] = avail[g, pos[g, t]]
                break
            g -= 1
        if g < 1:
            more = False
        else:
            for h in range(g + 1, n_rounds):
                _start_group(groups, starts, h, cards, avail, pos)
        if nb == _BATCH or not more:
            for q in range(nb):
                idx = b_idx[q]
                if idx < 0 or idx >= size:
                    e0 += 1
                else:
                    bitmap[idx] = 1
                    e1 += codes[idx] != b_code[q]
            n += nb
            nb = 0
    return e0, e1, n


@njit(cache=True, parallel=True)
def verify_tasks(tables, first: np.ndarray, codes: np.ndarray, bitmap: np.ndarray,
                 errors: np.ndarray, counts: np.ndarray) -> None:
    """Index every raw hand whose first group is ``first[i]`` (one task per row, in parallel).

    For each hand h with i = index(h): ``errors[t, 0]`` counts i out of range, ``errors[t, 1]``
    hands with ``codes[i] != canonical_code(h)`` (``codes[i]`` is the canonical code of
    ``unindex(i)``, so this checks that ``unindex(index(h))`` is isomorphic to h); marks
    ``bitmap[i] = 1``. ``counts[t]`` is the number of hands visited.
    """
    for task in prange(first.shape[0]):
        e0, e1, n = _verify_task(tables, first[task], codes, bitmap)
        errors[task, 0] = e0
        errors[task, 1] = e1
        counts[task] = n


@njit(cache=True)
def _roundtrip_chunk(tables, a, b, codes):
    """``roundtrip_range`` over indices ``a..b-1``: (index mismatches, invalid hands)."""
    groups = tables[0]
    total = 0
    for j in range(groups.shape[0]):
        total += groups[j]
    out = np.zeros(total, np.uint8)
    e0 = 0
    e1 = 0
    for i in range(a, b):
        if not unindex_hand_inline(tables, i, out):
            e1 += 1
            continue
        if index_hand_inline(tables, out) != i:
            e0 += 1
        codes[i] = canonical_code_inline(groups, out)
        start = 0
        for j in range(groups.shape[0]):
            for t in range(start + 1, start + groups[j]):
                if out[t - 1] >= out[t]:
                    e1 += 1
            start += groups[j]
    return e0, e1


@njit(cache=True, parallel=True)
def roundtrip_range(tables, lo: int, hi: int, codes: np.ndarray, errors: np.ndarray) -> None:
    """For every index i in ``lo..hi-1``: ``codes[i] = canonical_code(unindex(i))``;
    ``errors[0]`` counts ``index(unindex(i)) != i``, ``errors[1]`` representatives that are not
    valid hands with each group ascending.
    """
    n_chunks = 64
    step = (hi - lo + n_chunks - 1) // n_chunks
    e0 = np.zeros(n_chunks, np.int64)
    e1 = np.zeros(n_chunks, np.int64)
    for ch in prange(n_chunks):
        a = lo + ch * step
        e0[ch], e1[ch] = _roundtrip_chunk(tables, a, min(hi, a + step), codes)
    errors[0] += e0.sum()
    errors[1] += e1.sum()


@njit(cache=True, parallel=True)
def count_nonzero_u8(bitmap: np.ndarray) -> int:
    """Number of nonzero bytes (parallel)."""
    n_chunks = 256
    n = bitmap.shape[0]
    step = (n + n_chunks - 1) // n_chunks
    part = np.zeros(n_chunks, np.int64)
    for ch in prange(n_chunks):
        a = ch * step
        b = min(n, a + step)
        s = 0
        for i in range(a, b):
            s += bitmap[i] != 0
        part[ch] = s
    return part.sum()
