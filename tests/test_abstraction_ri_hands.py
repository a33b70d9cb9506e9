"""Rhode Island Hold'em hand ranking, equities and hand tree (etl/rhode_island.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from etl.rhode_island import (OUTCOMES, all_three_card_sets, canonicalize, category3,
                              hand_rank3, hand_tree, rank_table)


def card(rank: int, suit: int) -> int:
    return rank * 4 + suit


def test_category_counts():
    counts = np.bincount(category3(all_three_card_sets()), minlength=6)
    # high card, pair, flush, straight, trips, straight flush (docs/design.md section 5)
    assert counts.tolist() == [16440, 3744, 1096, 720, 52, 48]


def test_straight_order():
    a23 = [card(12, 0), card(0, 1), card(1, 2)]
    _234 = [card(0, 0), card(1, 1), card(2, 2)]
    qka = [card(10, 0), card(11, 1), card(12, 2)]
    ka2 = [card(11, 0), card(12, 1), card(0, 2)]  # not a straight
    r = hand_rank3([a23, _234, qka, ka2])
    assert r[0] < r[1] < r[2]
    assert category3([ka2])[0] == 0
    tops = {int(v) for v, c in zip(rank_table(), category3(all_three_card_sets())) if c == 3}
    assert len(tops) == 12


def test_ties_and_kickers():
    pair_k = [card(5, 0), card(5, 1), card(11, 0)]
    pair_k2 = [card(5, 2), card(5, 3), card(11, 1)]
    pair_q = [card(5, 0), card(5, 1), card(10, 0)]
    higher_pair = [card(6, 0), card(6, 1), card(0, 0)]
    r = hand_rank3([pair_k, pair_k2, pair_q, higher_pair])
    assert r[0] == r[1] and r[2] < r[0] < r[3]
    hi1 = [card(12, 0), card(5, 1), card(3, 2)]
    hi2 = [card(12, 1), card(5, 2), card(4, 3)]
    fl = [card(12, 0), card(5, 0), card(3, 0)]
    r = hand_rank3([hi1, hi2, fl])
    assert r[0] < r[1] < r[2]


def test_bad_input():
    with pytest.raises(ValueError):
        hand_rank3([[0, 0, 1]])
    with pytest.raises(ValueError):
        hand_rank3([[0, 1, 52]])
    with pytest.raises(ValueError):
        hand_rank3([[0, 1]])


def _brute_wtl(hand: tuple[int, ...]) -> tuple[int, int, int]:
    rest = [c for c in range(52) if c not in hand]
    w = t = l = 0
    table = rank_table()

    def rk(cs):
        a, b, c = sorted(cs)
        return table[a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6]

    for o in rest:
        left = [c for c in rest if c != o]
        for extra in itertools.combinations(left, 3 - len(hand)):
            board = list(hand[1:]) + list(extra)
            me, op = rk([hand[0]] + board), rk([o] + board)
            w, t, l = w + (me > op), t + (me == op), l + (me < op)
    return w, t, l


def test_equities_brute_force():
    tree = hand_tree()
    rng = np.random.default_rng(0)
    for r in (1, 2):
        for i in rng.choice(len(tree[r].weight), 3, replace=False):
            h = tree[r]
            assert (h.wins[i], h.ties[i], h.losses[i]) == _brute_wtl(tuple(h.cards[i].tolist()))
    h = tree[0]
    assert (h.wins[12], h.ties[12], h.losses[12]) == _brute_wtl((51,))


def test_tree_shape_and_zero_sum():
    tree = hand_tree()
    assert [len(h.weight) for h in tree] == [13, 325, 9997]
    for r, h in enumerate(tree):
        assert np.isclose(h.weight.sum(), 1.0)
        assert np.all(h.wins + h.ties + h.losses == OUTCOMES[r])
        # against a random opponent, the average hand wins as often as it loses
        assert np.isclose(np.dot(h.weight, h.wins), np.dot(h.weight, h.losses))
        if r:
            assert np.array_equal(tree[r - 1].cards[h.parent], h.cards[:, :r])
            assert np.allclose(np.bincount(h.parent, weights=h.transition), 1.0)
            # a parent's equity is the average of its children's
            avg = np.bincount(h.parent, weights=h.weight * h.equity) / tree[r - 1].weight
            assert np.allclose(avg, tree[r - 1].equity)


def test_canonical_matches_raw():
    canon, raw = hand_tree(True), hand_tree(False)
    for r in range(3):
        idx = canon[r].index_of(raw[r].cards)
        assert np.array_equal(canon[r].wins[idx], raw[r].wins)
        assert np.array_equal(canon[r].ties[idx], raw[r].ties)
        assert np.allclose(np.bincount(idx, weights=raw[r].weight), canon[r].weight)
        assert np.array_equal(canonicalize(canon[r].cards), canon[r].cards)
