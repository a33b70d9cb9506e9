"""2-7 single draw (reduced form): ranking, exact bucket transitions, lossless buckets."""

import itertools

import numpy as np
import pytest

from solve.games import draw27 as D
from solve.games.tree import sequence_form
from solve.algorithms.treeplex import SequenceCFR, exploitability, solve_lp, value


def test_category_counts_of_the_1330_hands():
    assert D.category_counts() == {"high card": 720, "pair": 378, "trips": 7, "straight": 120,
                                   "flush": 90, "straight flush": 15}
    assert sum(D.category_counts().values()) == 1330


def test_ranking_order():
    S, R = 3, 7

    def v(*cards):  # cards as (rank 0..6 for 2..8, suit)
        return D.hand_values(np.array([[r * S + s for r, s in cards]]), S, R)[1][0]

    best = v((0, 0), (1, 1), (3, 2))          # 2-3-5 offsuit: the best hand
    assert best < v((0, 0), (1, 1), (4, 2))   # 2-3-5 < 2-3-6
    assert v((0, 0), (2, 1), (6, 2)) < v((0, 0), (0, 1), (1, 2))  # 8-high < pair of 2s
    assert v((6, 0), (6, 1), (5, 2)) < v((0, 0), (0, 1), (0, 2))  # pair < trips
    assert v((0, 0), (0, 1), (0, 2)) < v((0, 0), (1, 1), (2, 2))  # trips < straight
    assert v((4, 0), (5, 1), (6, 2)) < v((0, 0), (1, 0), (3, 0))  # straight < flush
    assert v((6, 0), (5, 0), (3, 0)) < v((0, 0), (1, 0), (2, 0))  # flush < straight flush
    assert v((0, 0), (0, 1), (5, 2)) < v((0, 0), (0, 1), (6, 2))  # pairs: kicker


def test_forced_discard_commutes_with_suit_permutations():
    n_suits = 3
    hands = np.array(list(itertools.combinations(range(21), 3)))
    d = D.forced_discard(hands, n_suits)
    disc = hands[np.arange(len(hands)), d]
    index = {tuple(h): i for i, h in enumerate(hands.tolist())}
    for g in itertools.permutations(range(3)):
        g = np.array(g)
        img = np.sort((hands // 3) * 3 + g[hands % 3], axis=1)
        j = np.array([index[tuple(x)] for x in img.tolist()])
        kept = np.array([[c for c in h if c != x] for h, x in zip(hands, disc)])
        kept_img = np.sort((kept // 3) * 3 + g[kept % 3], axis=1)
        kept_j = np.array([[c for c in hands[k] if c != hands[k][d[k]]] for k in j])
        # kept cards of the permuted hand = permuted kept cards, up to a rank-preserving
        # choice that cannot matter (no flush either way)
        same = (kept_img == np.sort(kept_j, axis=1)).all(axis=1)
        flushable = (kept_img % 3)[:, 0] == (kept_img % 3)[:, 1]
        assert (same | ~flushable).all()
    # unpaired: the highest card goes; paired: a matched card goes
    r = hands // 3
    paired = (r[:, 0] == r[:, 1]) | (r[:, 1] == r[:, 2]) | (r[:, 0] == r[:, 2])
    assert (r[np.arange(len(r)), d][~paired] == r.max(axis=1)[~paired]).all()
    dr = r[np.arange(len(r)), d]
    assert all((r[i] == dr[i]).sum() >= 2 for i in np.flatnonzero(paired))


def test_transition_counts_are_exact():
    # 4 ranks x 2 suits: every deal (56 x 10 hand pairs, 2 x 1 draws) counted once
    tr = D.draw27("iso", 4, 2)
    root = 0
    s, c = tr.child_start[root], tr.child_count[root]
    probs = tr.edge_num[s:s + c] / tr.edge_den[s:s + c]
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    deck = D._Deck(4, 2)
    assert deck.hand_ok.sum() == 56 * 10


@pytest.mark.parametrize("ranks,suits", [(4, 2), (3, 3)])
def test_unabstracted_and_finest_bucketing_agree(ranks, suits):
    raw = sequence_form(D.draw27("raw", ranks, suits))
    iso = sequence_form(D.draw27("iso", ranks, suits))
    assert sum(iso.n_seq) < sum(raw.n_seq)
    if (ranks, suits) == (3, 3):  # LP on the raw 9-card game is ~25 s: compare with CFR+ instead
        s = SequenceCFR(raw, "cfr+").iterate(300)
        _, _, v_iso = solve_lp(iso)
        assert exploitability(raw, *s.average()) < 2e-3
        assert value(raw, *s.average()) == pytest.approx(v_iso, abs=2e-3)
        return
    _, _, v_raw = solve_lp(raw)
    _, _, v_iso = solve_lp(iso)
    assert v_raw == pytest.approx(v_iso, abs=1e-9)
    coarse = sequence_form(D.draw27(2, ranks, suits))
    assert abs(solve_lp(coarse)[2] - v_raw) > 1e-6  # a real abstraction changes the value


def test_bucketed_full_game_solves():
    sf = sequence_form(D.draw27(4))
    x, y, v = solve_lp(sf)
    assert exploitability(sf, x, y) < 1e-9
    assert -0.2 < v < 0.0  # player 2 acts last after the draw


def test_too_large_is_refused():
    with pytest.raises(ValueError, match="too large"):
        D.draw27("iso")


@pytest.mark.parametrize("buckets,ranks,suits", [("iso", 4, 2), ("raw", 4, 2), (3, 7, 3)])
def test_matrix_free_sequence_form_equals_tree(buckets, ranks, suits):
    sf = sequence_form(D.draw27(buckets, ranks, suits))
    op = D.draw27_sequence_form(buckets, ranks, suits)
    assert sf.n_seq == op.n_seq
    for p in (0, 1):
        np.testing.assert_array_equal(sf.parent[p], op.parent[p])
        np.testing.assert_array_equal(sf.offset[p], op.offset[p])
    rng = np.random.default_rng(0)
    x, y = rng.random(sf.n_seq[0]), rng.random(sf.n_seq[1])
    np.testing.assert_allclose(op.A @ y, sf.A @ y, atol=1e-15)
    np.testing.assert_allclose(op.A.T @ x, sf.A.T @ x, atol=1e-15)


# -- the unabstracted game evaluated over all deals (solve.games.draw27_raw) -----------------------

def _random_plans(sf, seed):
    from solve.algorithms import _treeplex_kernels as K

    rng = np.random.default_rng(seed)
    plans = []
    for p in (0, 1):
        q = rng.random(sf.n_seq[p])
        for o, k in zip(sf.offset[p], sf.nact[p]):
            q[o:o + k] /= q[o:o + k].sum()
        x = np.zeros(sf.n_seq[p])
        K.plan_from_behaviour(q, sf.parent[p], sf.offset[p], sf.nact[p], x)
        plans.append(x)
    return plans


@pytest.mark.parametrize("ranks,suits", [(4, 2), (3, 3)])
def test_raw_pair_sums_merge_equals_plain_loop(ranks, suits):
    from solve.games._draw27_raw_kernels import pair_sums, pair_sums_direct
    from solve.games.draw27_raw import RawDraw27

    g = RawDraw27(ranks, suits)
    rng = np.random.default_rng(1)
    Qf, Qs = rng.random((g.H, g.n, 6)), rng.random((g.H, g.n, 9))
    out = [np.zeros((g.H, g.n, 6)), np.zeros((g.H, g.n, 9))]
    ref = [np.zeros((g.H, g.n, 6)), np.zeros((g.H, g.n, 9))]
    pair_sums(g.hand_mask, g.hand_ok, g.final_val, g.order, Qf, Qs, *out)
    pair_sums_direct(g.hand_mask, g.hand_ok, g.final_val, Qf, Qs, *ref)
    np.testing.assert_allclose(out[0], ref[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(out[1], ref[1], rtol=0, atol=1e-12)


@pytest.mark.parametrize("ranks,suits", [(4, 2), (3, 3)])
def test_raw_evaluator_equals_dense_raw_game(ranks, suits):
    from solve.games.draw27_raw import RawDraw27

    sf = sequence_form(D.draw27("raw", ranks, suits))
    g = RawDraw27(ranks, suits)
    assert g.deals == int(D._types("raw", ranks, suits, tree=False)[1].sum())
    for seed in range(3):
        x, y = _random_plans(sf, seed)
        r = g.evaluate(g.lift(sf, x, y, "raw"))
        _assert_same_evaluation(r, sf, x, y)
        assert r.exploitability == pytest.approx(exploitability(sf, x, y), abs=1e-12)


@pytest.mark.parametrize("ranks,suits", [(4, 2), (3, 3)])
def test_lifted_iso_profile_is_lossless_in_the_raw_game(ranks, suits):
    from solve.games.draw27_raw import RawDraw27
    from solve.algorithms.treeplex import best_response_values

    iso = sequence_form(D.draw27("iso", ranks, suits))
    g = RawDraw27(ranks, suits)
    # equilibrium (LP) and a far-from-equilibrium profile (few CFR+ iterations): lifting a
    # lossless abstraction's profile keeps the value and both best-response values
    x, y, v = solve_lp(iso)
    profiles = [(x, y), SequenceCFR(iso, "cfr+").iterate(5).average()]
    for x, y in profiles:
        r = g.evaluate(g.lift(iso, x, y, "iso"))
        b1, b2 = best_response_values(iso, x, y)
        assert r.value == pytest.approx(value(iso, x, y), abs=1e-12)
        assert r.br1 == pytest.approx(b1, abs=1e-12)
        assert r.br2 == pytest.approx(b2, abs=1e-12)
    assert r.exploitability > 1e-3  # the second profile is far from equilibrium
    r = g.evaluate(g.lift(iso, *profiles[0], "iso"))
    assert r.value == pytest.approx(v, abs=1e-9)
    assert abs(r.exploitability) < 1e-9


def test_lifted_bucketed_profile_keeps_its_value_but_not_its_exploitability():
    from solve.games.draw27_raw import RawDraw27
    from solve.algorithms.treeplex import best_response_values

    sf = sequence_form(D.draw27(2, 4, 2))
    g = RawDraw27(4, 2)
    x, y, v = solve_lp(sf)
    r = g.evaluate(g.lift(sf, x, y, 2))
    b1, b2 = best_response_values(sf, x, y)
    assert r.value == pytest.approx(v, abs=1e-9)  # exact transitions: same value
    assert r.br1 >= b1 - 1e-12 and r.br2 <= b2 + 1e-12  # finer information: better responses
    assert r.exploitability > 1e-3


def test_full_deck_lifted_iso_profile_is_lossless():
    # 21 cards: the raw game (23,940 (hand, card) per player) is evaluated over all
    # 227,908,800 deals; a (far from equilibrium) iso CFR+ profile keeps its iso value and
    # both best-response values when every raw information set plays its class's strategy
    from solve.games.draw27_raw import RawDraw27
    from solve.games.draw27 import draw27_sequence_form

    iso = draw27_sequence_form("iso")
    x, y = SequenceCFR(iso, "cfr+").iterate(3).average()
    g = RawDraw27()
    assert g.deals == 1330 * 816 * 15 * 14
    r = g.evaluate(g.lift(iso, x, y, "iso"))
    _assert_same_evaluation(r, iso, x, y)
    assert r.exploitability > 1e-2


def _assert_same_evaluation(r, sf, x, y):
    """The raw evaluation ``r`` equals the sequence form's value and best responses."""
    from solve.algorithms.treeplex import best_response_values

    b1, b2 = best_response_values(sf, x, y)
    assert r.value == pytest.approx(value(sf, x, y), abs=1e-12)
    assert r.value_check == pytest.approx(r.value, abs=1e-12)
    assert r.br1 == pytest.approx(b1, abs=1e-12)
    assert r.br2 == pytest.approx(b2, abs=1e-12)
