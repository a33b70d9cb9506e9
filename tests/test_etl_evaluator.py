"""Hand evaluator and handval table: exact category counts, agreement with eval7 (oracle)."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest
from numba import njit

from etl import _eval_kernels as K
from etl.evaluator import (CARD_KEY, CARD_MASK, CATEGORY_START, N_CLASSES, eval5, eval6, eval7,
                           eval_hand, evaluate, hand_category, value_of_state7)
from etl.handval import (N_HANDS, SPEC, build_handval, compute, partition_keys,
                         partition_range)
from schema.equity import HANDVAL_SCHEMA

# docs/design.md section 3: categories of all 133,784,560 seven-card sets, high card .. straight flush
SEVEN_CARD_COUNTS = [23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644,
                     3_473_184, 224_848, 41_584]
FIVE_CARD_COUNTS = [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
FIVE_CARD_CLASSES = [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def cards_of(text: str) -> list[int]:
    return [4 * RANKS.index(t[0]) + SUITS.index(t[1]) for t in text.split()]


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n hands of k distinct cards, uniformly at random."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.int64)


def eval7_values(hands: np.ndarray) -> np.ndarray:
    import eval7  # test-only oracle

    deck = [eval7.Card(r + s) for r in RANKS for s in SUITS]
    ev = eval7.evaluate
    get = deck.__getitem__
    return np.fromiter((ev(list(map(get, row))) for row in hands.tolist()), np.int64,
                       count=hands.shape[0])


def colex_unrank(idx: int, k: int) -> list[int]:
    out = []
    for i in range(k, 0, -1):
        c = i - 1
        while comb(c + 1, i) <= idx:
            c += 1
        out.append(c)
        idx -= comb(c, i)
    return out[::-1]


@njit
def _count_categories(cats):
    counts = np.zeros(9, np.int64)
    for c in cats:
        counts[c] += 1
    return counts


@pytest.fixture(scope="module")
def handval() -> np.ndarray:
    return build_handval()


def test_seven_card_category_counts_exact(handval):
    assert handval.shape == (N_HANDS,) and handval.dtype == np.uint16
    assert _count_categories(hand_category(handval)).tolist() == SEVEN_CARD_COUNTS


def test_five_card_counts_and_classes():
    hands = np.array(list(combinations(range(52), 5)), dtype=np.int64)
    assert hands.shape[0] == 2_598_960
    values = evaluate(hands)
    assert np.bincount(hand_category(values), minlength=9).tolist() == FIVE_CARD_COUNTS
    distinct = np.unique(values)
    assert distinct.tolist() == list(range(N_CLASSES))  # all 7,462 classes, dense
    assert np.diff(np.append(CATEGORY_START, N_CLASSES)).tolist() == FIVE_CARD_CLASSES


def test_order_agrees_with_eval7_on_a_million_pairs():
    rng = np.random.default_rng(20261122)
    hands = random_hands(rng, 2_000_000, 7)
    ours = evaluate(hands).astype(np.int64)
    theirs = eval7_values(hands)
    a, b = slice(0, 1_000_000), slice(1_000_000, 2_000_000)
    np.testing.assert_array_equal(np.sign(ours[a] - ours[b]), np.sign(theirs[a] - theirs[b]))
    # stronger: over all 2M hands, ours is a strictly increasing function of eval7's value
    order = np.argsort(theirs, kind="stable")
    d_theirs, d_ours = np.diff(theirs[order]), np.diff(ours[order])
    np.testing.assert_array_equal(d_theirs > 0, d_ours > 0)
    assert (d_ours >= 0).all()


def test_five_and_six_card_order_agrees_with_eval7():
    rng = np.random.default_rng(5)
    for k in (5, 6):
        hands = random_hands(rng, 200_000, k)
        ours, theirs = evaluate(hands).astype(np.int64), eval7_values(hands)
        order = np.argsort(theirs, kind="stable")
        np.testing.assert_array_equal(np.diff(theirs[order]) > 0, np.diff(ours[order]) > 0)


@pytest.mark.parametrize("k", [6, 7])
def test_best_of_five_subsets(k):
    rng = np.random.default_rng(k)
    hands = random_hands(rng, 50_000, k)
    subsets = np.array(list(combinations(range(k), 5)))
    best = np.max(np.stack([evaluate(hands[:, s]) for s in subsets]), axis=0)
    np.testing.assert_array_equal(evaluate(hands), best)


def test_wheel_and_named_hands():
    v = {name: int(evaluate(np.array(cards_of(text)))) for name, text in {
        "wheel": "Ah 2c 3d 4s 5h",
        "six high straight": "2c 3d 4s 5h 6c",
        "steel wheel": "Ac 2c 3c 4c 5c",
        "royal": "Ts Js Qs Ks As",
        "worst": "2c 3d 4h 5s 7c",
        "ace high no straight": "Ah 2c 3d 4s 6h",
        "wheel in seven": "Ah 2c 3d 4s 5h 9c Kd",
        "six high in seven": "Ah 2c 3d 4s 5h 6c Kd",
    }.items()}
    assert v["wheel"] == CATEGORY_START[4]  # lowest straight
    assert v["six high straight"] == CATEGORY_START[4] + 1
    assert v["steel wheel"] == CATEGORY_START[8]
    assert v["royal"] == N_CLASSES - 1
    assert v["worst"] == 0
    assert hand_category(np.array([v["ace high no straight"]]))[0] == 0
    assert v["wheel in seven"] == v["wheel"]
    assert v["six high in seven"] == v["six high straight"]


@njit
def _kernel_uses_scalar_api(hands):
    out = np.empty((hands.shape[0], 3), np.int64)
    for i in range(hands.shape[0]):
        h = hands[i]
        out[i, 0] = eval7(h[0], h[1], h[2], h[3], h[4], h[5], h[6])
        key = CARD_KEY[h[0]] + CARD_KEY[h[1]] + CARD_KEY[h[2]] + CARD_KEY[h[3]] + CARD_KEY[h[4]]
        mask = CARD_MASK[h[0]] | CARD_MASK[h[1]] | CARD_MASK[h[2]] | CARD_MASK[h[3]] \
            | CARD_MASK[h[4]]
        out[i, 1] = value_of_state7(key + CARD_KEY[h[5]] + CARD_KEY[h[6]],
                                    mask | CARD_MASK[h[5]] | CARD_MASK[h[6]])
        out[i, 2] = max(eval6(h[0], h[1], h[2], h[3], h[4], h[5]),
                        eval5(h[0], h[1], h[2], h[3], h[6]), eval_hand(h))
    return out


def test_scalar_api_inside_numba():
    hands = random_hands(np.random.default_rng(7), 20_000, 7)
    out = _kernel_uses_scalar_api(hands)
    expected = evaluate(hands).astype(np.int64)
    for j in range(3):
        np.testing.assert_array_equal(out[:, j], expected)


def test_handval_rows_are_colex(handval):
    rng = np.random.default_rng(11)
    idx = np.concatenate([[0, 1, N_HANDS - 1], rng.integers(0, N_HANDS, 3000)])
    hands = np.array([colex_unrank(int(i), 7) for i in idx], dtype=np.int64)
    assert all(sum(comb(c, i + 1) for i, c in enumerate(h)) == j for h, j in zip(hands[:5], idx))
    np.testing.assert_array_equal(handval[idx], evaluate(hands))


def test_handval_partitions(handval):
    keys = partition_keys()
    assert SPEC.name == "handval" and SPEC.partitions() == keys and len(keys) == 16
    ranges = [partition_range(k) for k in keys]
    assert ranges[0][0] == 0 and ranges[-1][1] == N_HANDS
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    sizes = np.diff([r[0] for r in ranges] + [N_HANDS])
    assert sizes.max() < 1.05 * N_HANDS / 16
    lo, hi = ranges[-1]
    table = compute(keys[-1], None)
    assert table.schema == HANDVAL_SCHEMA and table.num_rows == hi - lo
    np.testing.assert_array_equal(table["idx"].to_numpy(), np.arange(lo, hi))
    np.testing.assert_array_equal(table["value"].to_numpy(), handval[lo:hi])
    np.testing.assert_array_equal(table["category"].to_numpy(), hand_category(handval[lo:hi]))
    with pytest.raises(ValueError, match="unknown handval partition"):
        partition_range("16")


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="repeated"):
        evaluate(np.array([[0, 1, 2, 3, 4, 5, 5]]))
    with pytest.raises(ValueError, match="outside"):
        evaluate(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="shape"):
        evaluate(np.zeros((3, 4), np.int64))
    with pytest.raises(ValueError, match="integers"):
        evaluate(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="values"):
        hand_category(np.array([N_CLASSES]))


def test_tables_rebuild_identically(tmp_path):
    """The shipped tables (``etl/eval_tables.npz``, read at import) are what the builders make
    from this source; after a change to the builders, ``python -c "from etl._eval_kernels
    import write_tables; write_tables()"`` writes them again (here into a scratch file)."""
    K.write_tables(tmp_path / "tables.npz")
    with np.load(tmp_path / "tables.npz") as z:
        rebuilt = {name: z[name] for name in z.files}
    assert sorted(rebuilt) == sorted(K._TABLE_NAMES)
    for name, table in rebuilt.items():
        shipped = getattr(K, name)
        assert shipped.dtype == table.dtype, name
        np.testing.assert_array_equal(shipped, table, err_msg=name)
