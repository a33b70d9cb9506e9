"""Card codes, colex index and the suit-isomorphic canonical index (docs/design.md section 2)."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from etl._index_kernels import (canonical_form, colex_index_set, colex_index_sorted,
                                colex_unindex_into, index_hand, unindex_hand)
from etl.cards import (Rank, Suit, cards_to_strings, format_card, format_cards, make_card,
                       parse_card, parse_cards, strings_to_cards)
from etl.colex import colex_index, colex_unindex, n_subsets
from etl.isomorphism import (KNOWN_SIZES, HandIndexer, burnside_count, raw_count,
                             verify_counts)

HYPO = settings(max_examples=150, deadline=None)
GROUPINGS = [(2, 4), (2, 5), (2, 3, 1), (2, 3, 1, 1)]

# ---------------------------------------------------------------------------------------------
# cards


def test_card_codes():
    assert parse_card("2c") == 0 and parse_card("As") == 51 and parse_card("Td") == 33
    assert make_card(Rank.ACE, Suit.SPADES) == 51
    assert [parse_card(format_card(c)) for c in range(52)] == list(range(52))
    assert format_cards(parse_cards("As Kd,2c")) == "As Kd 2c"
    assert parse_cards("AsKd").tolist() == [51, 45]
    assert cards_to_strings(np.array([[51, 0], [33, 1]])).tolist() == ["As2c", "Td2d"]
    assert strings_to_cards(["As2c", "Td2d"]).tolist() == [[51, 0], [33, 1]]


@pytest.mark.parametrize("bad", ["A", "1s", "Ax", "AsAs", "AsK"])
def test_card_errors(bad):
    with pytest.raises(ValueError):
        parse_cards(bad)


# ---------------------------------------------------------------------------------------------
# colex


@pytest.mark.parametrize("n,k", [(1, 1), (6, 0), (6, 3), (10, 4), (13, 5), (16, 8), (52, 2),
                                 (20, 20)])
def test_colex_exhaustive_bijection(n, k):
    sets = np.array(list(itertools.combinations(range(n), k)), np.int64).reshape(comb(n, k), k)
    idx = colex_index(sets, n)
    assert np.array_equal(np.sort(idx), np.arange(comb(n, k)))
    assert np.array_equal(colex_unindex(idx, k, n), sets)
    # rows reversed (any order within a row) index the same
    assert np.array_equal(colex_index(sets[:, ::-1], n), idx)


def test_colex_handval_range():
    assert n_subsets(52, 7) == 133_784_560
    assert colex_index(np.arange(45, 52)) == 133_784_559
    assert colex_index(np.arange(7)) == 0
    assert colex_unindex(133_784_559, 7).tolist() == list(range(45, 52))


@HYPO
@given(st.integers(1, 10).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(0, 51), min_size=k, max_size=k,
                                             unique=True))))
def test_colex_properties(arg):
    k, cards = arg
    i = colex_index(np.array(cards))
    assert 0 <= i < comb(52, k)
    assert i == sum(comb(c, j + 1) for j, c in enumerate(sorted(cards)))
    assert colex_unindex(i, k).tolist() == sorted(cards)


@njit
def _colex_scalars(sets):
    out = np.empty(sets.shape[0], np.int64)
    back = np.empty_like(sets)
    for r in range(sets.shape[0]):
        a = colex_index_sorted(sets[r])
        if colex_index_set(sets[r][::-1]) != a:
            return out, back, False
        out[r] = a
        colex_unindex_into(a, sets.shape[1], 52, back[r])
    return out, back, True


def test_colex_numba_scalars():
    sets = np.array(list(itertools.combinations(range(12), 4)), np.int64)
    out, back, ok = _colex_scalars(sets)
    assert ok and np.array_equal(out, colex_index(sets)) and np.array_equal(back, sets)


def test_colex_errors():
    with pytest.raises(ValueError):
        colex_index(np.array([[1, 1]]))
    with pytest.raises(ValueError):
        colex_index(np.array([[0, 52]]))
    with pytest.raises(ValueError):
        colex_unindex(comb(52, 2), 2)


# ---------------------------------------------------------------------------------------------
# canonical index: exact sizes and exhaustive proofs for [2] and [2,3]


def test_sizes_exact():
    for groups, size in KNOWN_SIZES.items():
        ix = HandIndexer(groups)
        assert ix.size == size
        assert burnside_count(groups) == size  # independent count of the classes
        assert ix.round_sizes == tuple(KNOWN_SIZES[groups[: r + 1]] for r in range(len(groups)))
    assert raw_count((2, 5)) == 2_809_475_760
    assert raw_count((2, 3, 1)) == 1_221_511_200


def test_preflop_classes():
    ix = HandIndexer((2,))
    hands = np.array(list(itertools.combinations(range(52), 2)), np.uint8)
    idx = ix.index(hands)
    assert np.array_equal(np.unique(idx), np.arange(169))
    # the classic classes: 13 pairs (6 combos), 78 suited (4), 78 offsuit (12)
    sizes = np.bincount(idx, minlength=169)
    assert sorted(np.unique(sizes, return_counts=True)[1].tolist()) == [13, 78, 78]
    assert sorted(sizes.tolist()) == sorted([6] * 13 + [4] * 78 + [12] * 78)
    reps = ix.unindex(np.arange(169))
    assert np.array_equal(ix.index(reps), np.arange(169))
    ranks = hands // 4
    suited = hands[:, 0] % 4 == hands[:, 1] % 4
    key = ranks[:, 0].astype(int) * 13 + ranks[:, 1] + 169 * suited
    for v in np.unique(idx):  # one class = one (ranks, suitedness)
        assert len(np.unique(key[idx == v])) == 1


@pytest.mark.parametrize("groups", [(2,), (2, 3)])
def test_exhaustive_bijection(groups):
    res = verify_counts(groups, progress=False)
    assert res["ok"], res
    assert res["visited"] == raw_count(groups)
    assert res["hits"] == res["size"] == res["burnside"] == KNOWN_SIZES[groups]
    assert res["not_isomorphic"] == res["out_of_range"] == res["roundtrip_errors"] == 0


# ---------------------------------------------------------------------------------------------
# canonical index: properties for the larger groupings


def _deal(perm, groups, suit_perm, shuffle_seed):
    """A hand from a permutation of the deck, its suits renamed and each group shuffled."""
    total = sum(groups)
    h = np.array(perm[:total], np.int64)
    sp = np.array(suit_perm, np.int64)
    g = (h & ~3) | sp[h & 3]
    rng = np.random.default_rng(shuffle_seed)
    start = 0
    for n in groups:
        g[start:start + n] = rng.permutation(g[start:start + n])
        start += n
    return h, g


@HYPO
@given(st.sampled_from(GROUPINGS), st.permutations(range(52)), st.permutations(range(4)),
       st.integers(0, 2**32 - 1))
def test_index_invariant_and_roundtrip(groups, perm, suit_perm, seed):
    ix = HandIndexer(groups)
    h, g = _deal(perm, groups, suit_perm, seed)
    i = ix.index(h)
    assert 0 <= i < ix.size
    assert ix.index(g) == i
    rep = ix.unindex(i)
    gr = np.array(groups, np.int64)
    assert canonical_form(gr, rep) == canonical_form(gr, h)
    assert ix.index(rep) == i


@HYPO
@given(st.sampled_from(GROUPINGS), st.data())
def test_unindex_index(groups, data):
    ix = HandIndexer(groups)
    i = data.draw(st.integers(0, ix.size - 1))
    rep = ix.unindex(i)
    assert len(set(rep.tolist())) == rep.size and rep.max() < 52
    start = 0
    for n in groups:  # each group ascending
        assert np.all(np.diff(rep[start:start + n].astype(int)) > 0)
        start += n
    assert ix.index(rep) == i


def test_index_distinguishes_classes():
    """Random [2,5] hands: equal index iff equal canonical form (checked on many collisions)."""
    ix = HandIndexer((2, 5))
    rng = np.random.default_rng(7)
    n = 200_000
    # few distinct ranks make collisions frequent
    base = np.argsort(rng.random((n, 20)), axis=1)[:, :7].astype(np.uint8)
    idx = ix.index(base)
    gr = np.array([2, 5], np.int64)
    forms = np.array([canonical_form(gr, h) for h in base[:20_000]], np.int64)
    _, inv_form = np.unique(forms, axis=0, return_inverse=True)
    _, inv_idx = np.unique(idx[:20_000], return_inverse=True)
    pairs = np.unique(np.stack([inv_form.ravel(), inv_idx.ravel()], 1), axis=0)
    assert len(pairs) == len(np.unique(inv_form)) == len(np.unique(inv_idx))
    assert len(pairs) < 20_000  # there were collisions to test


def test_batch_matches_scalar_and_errors():
    ix = HandIndexer((2, 3, 1))
    rng = np.random.default_rng(3)
    h = np.argsort(rng.random((1000, 52)), axis=1)[:, :6].astype(np.uint8)
    idx = ix.index(h)
    assert np.array_equal(ix.index(h.astype(np.int32)), idx)
    assert [ix.index(row) for row in h[:5]] == idx[:5].tolist()
    assert np.array_equal(ix.index(ix.unindex(idx)), idx)
    with pytest.raises(ValueError, match="invalid hand"):
        ix.index(np.array([[0, 1, 2, 3, 4, 4]]))
    with pytest.raises(ValueError):
        ix.index(np.array([[0, 1, 2, 3, 4, 52]]))
    with pytest.raises(ValueError, match="shape"):
        ix.index(np.zeros((3, 5), np.uint8))
    with pytest.raises(ValueError, match="out of range"):
        ix.unindex(ix.size)
    with pytest.raises(ValueError):
        HandIndexer((2, 0))
    with pytest.raises(ValueError):
        HandIndexer((30, 30))


@njit
def _river_indices(tables, board, out):
    """The documented use from another kernel: every hole pair on one 5-card board."""
    cards = np.empty(7, np.uint8)
    cards[2:] = board
    k = 0
    for a in range(52):
        for b in range(a + 1, 52):
            cards[0] = a
            cards[1] = b
            out[k] = index_hand(tables, cards)
            k += 1


@njit
def _unindex_all(tables, idx, out):
    ok = True
    for r in range(idx.shape[0]):
        ok &= unindex_hand(tables, idx[r], out[r])
    return ok


def test_numba_callable_api():
    ix = HandIndexer((2, 5))
    board = parse_cards("Ah Kh 7d 7c 2s")
    out = np.empty(1326, np.int64)
    _river_indices(ix.tables, board, out)
    pairs = np.array(list(itertools.combinations(range(52), 2)), np.uint8)
    live = ~np.isin(pairs, board).any(axis=1)
    assert live.sum() == 1081 and np.all(out[~live] == -1)
    hands = np.concatenate([pairs[live], np.repeat(board[None], 1081, 0)], axis=1)
    assert np.array_equal(out[live], ix.index(hands))
    reps = np.empty((1081, 7), np.uint8)
    assert _unindex_all(ix.tables, out[live], reps)
    assert np.array_equal(reps, ix.unindex(out[live]))
