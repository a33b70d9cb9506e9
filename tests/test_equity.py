"""Equity tables (etl/equity.py) against brute-force enumeration.

The brute force here is independent of the table kernels: it evaluates both hands of every
(opponent, board) deal with the 7-card evaluator and compares, no sorting, no card-removal
algebra, no isomorphism.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from numba import njit, prange

from etl import equity
from etl._equity_kernels import (completion_rows, flop_from_turn, pair_slots, preflop_sums,
                                 suit_permutations)
from etl._eval_kernels import eval7
from etl._index_kernels import index_hand
from etl.isomorphism import KNOWN_SIZES, HandIndexer, raw_count


@njit(cache=True)
def _brute_river(c1, c2, board):
    """(wins, ties, losses) of hole c1, c2 on a 5-card board against every opponent hand."""
    me = eval7(c1, c2, board[0], board[1], board[2], board[3], board[4])
    used = np.zeros(52, np.bool_)
    used[c1] = used[c2] = True
    for x in board:
        used[x] = True
    w = t = l = 0
    for a in range(52):
        for b in range(a + 1, 52):
            if used[a] or used[b]:
                continue
            o = eval7(a, b, board[0], board[1], board[2], board[3], board[4])
            if me > o:
                w += 1
            elif me == o:
                t += 1
            else:
                l += 1
    return w, t, l


@njit(cache=True)
def _brute_completions(c1, c2, board, n_board):
    """Counts of hole c1, c2 on a 3- or 4-card board, summed over every completion."""
    used = np.zeros(52, np.bool_)
    used[c1] = used[c2] = True
    for i in range(n_board):
        used[board[i]] = True
    full = np.empty(5, np.int64)
    full[:n_board] = board[:n_board]
    w = t = l = 0
    if n_board == 4:
        for r in range(52):
            if not used[r]:
                full[4] = r
                a, b, c = _brute_river(c1, c2, full)
                w += a
                t += b
                l += c
    else:
        for x in range(52):
            for y in range(x + 1, 52):
                if not used[x] and not used[y]:
                    full[3] = x
                    full[4] = y
                    a, b, c = _brute_river(c1, c2, full)
                    w += a
                    t += b
                    l += c
    return w, t, l


@njit(cache=True, parallel=True)
def _brute_preflop(holes):
    """(wins, ties, losses) of each hole pair ``holes[h]`` over all C(50,5) boards x 990
    opponent hands. Every board of the whole deck is enumerated once; on it each of the 1,081
    hole pairs off the board is evaluated with ``eval7`` once, and that value (the same seven
    cards) serves as the opponent's value for every named hand it is disjoint from, compared
    deal by deal. (Rows of ``holes`` share boards instead of each re-evaluating its own
    2.1 M boards x 990 opponents; the counts are the same.)"""
    m = holes.shape[0]
    hmask = np.zeros(m, np.int64)
    for h in range(m):
        hmask[h] = (np.int64(1) << holes[h, 0]) | (np.int64(1) << holes[h, 1])
    pairs = np.empty((1326, 2), np.int64)  # (first, second) board card: the work items
    n = 0
    for i in range(52):
        for j in range(i + 1, 52):
            pairs[n, 0] = i
            pairs[n, 1] = j
            n += 1
    nt = 64  # interleaved: boards with low first cards are the most numerous
    out = np.zeros((nt, m, 3), np.int64)
    for t in prange(nt):
        val = np.empty(1081, np.int64)  # the live opponent hands of a board: value, cards
        cards = np.empty(1081, np.int64)
        for w in range(t, 1326, nt):
            i = pairs[w, 0]
            j = pairs[w, 1]
            for k in range(j + 1, 52):
                for p in range(k + 1, 52):
                    for q in range(p + 1, 52):
                        board = ((np.int64(1) << i) | (np.int64(1) << j) | (np.int64(1) << k)
                                 | (np.int64(1) << p) | (np.int64(1) << q))
                        n = 0
                        for a in range(52):
                            if (board >> a) & 1:
                                continue
                            for b in range(a + 1, 52):
                                if not (board >> b) & 1:
                                    val[n] = eval7(a, b, i, j, k, p, q)
                                    cards[n] = (np.int64(1) << a) | (np.int64(1) << b)
                                    n += 1
                        for h in range(m):
                            hm = hmask[h]
                            if board & hm:
                                continue
                            me = eval7(holes[h, 0], holes[h, 1], i, j, k, p, q)
                            wins = ties = losses = 0
                            for x in range(n):  # branch-free: skip opponents holding h's cards
                                live = (cards[x] & hm) == 0
                                o = val[x]
                                wins += live & (me > o)
                                ties += live & (me == o)
                                losses += live & (me < o)
                            out[t, h, 0] += wins
                            out[t, h, 1] += ties
                            out[t, h, 2] += losses
    return out.sum(axis=0)


def _kernel_rows(n_board, lo, hi, n_bins=0):
    return equity._rows(n_board, lo, hi, n_bins)


def test_river_rows_equal_brute_force_on_sampled_boards():
    rng = np.random.default_rng(7)
    for b in rng.choice(equity.N_BOARDS[5], 6, replace=False):
        lo, hi = int(b), int(b) + 1
        idx, wins, ties, hole, weight, _ = _kernel_rows(5, lo, hi)
        board = equity._boards(5, lo, hi)[0].astype(np.int64)
        for k in range(equity.HANDS_PER_BOARD[5]):  # every hand of the board
            w, t, l = _brute_river(int(hole[k, 0]), int(hole[k, 1]), board)
            assert (wins[k], ties[k], 990 - wins[k] - ties[k]) == (w, t, l)


def test_river_table_columns_decode_to_the_index():
    table = equity.compute_river("03", None)
    assert table.schema == equity.EQUITY_RIVER_SCHEMA
    sample = table.take(np.random.default_rng(3).choice(table.num_rows, 2000, replace=False))
    cards = np.stack([sample.column(c).to_numpy() for c in
                      ("hole1", "hole2", "board1", "board2", "board3", "board4", "board5")], 1)
    np.testing.assert_array_equal(HandIndexer((2, 5)).index(cards), sample.column("idx"))
    np.testing.assert_array_equal(HandIndexer((2,)).index(cards[:, :2]),
                                  sample.column("preflop"))
    w, t, l = (sample.column(c).to_numpy().astype(int) for c in ("wins", "ties", "losses"))
    assert ((w + t + l) == 990).all()
    np.testing.assert_allclose(sample.column("equity"), (w + t / 2) / 990)
    assert len(set(table.column("idx").to_numpy())) == table.num_rows  # no class twice


def test_turn_and_flop_rows_equal_brute_force():
    rng = np.random.default_rng(11)
    for n_board in (4, 3):
        b = int(rng.integers(equity.N_BOARDS[n_board]))
        idx, wins, ties, hole, weight, hist = _kernel_rows(n_board, b, b + 1, n_bins=10)
        board = equity._boards(n_board, b, b + 1)[0].astype(np.int64)
        total = equity.TOTALS[n_board]
        for k in rng.choice(len(idx), 4 if n_board == 4 else 2, replace=False):
            w, t, l = _brute_completions(int(hole[k, 0]), int(hole[k, 1]), board, n_board)
            assert (wins[k], ties[k], total - wins[k] - ties[k]) == (w, t, l)
        completions = 46 if n_board == 4 else 1081
        assert (hist.sum(axis=1) == completions).all()


def test_histogram_bins_river_equity_of_each_completion():
    b = 1234
    idx, wins, ties, hole, weight, hist = _kernel_rows(4, b, b + 1, n_bins=7)
    board = equity._boards(4, b, b + 1)[0].astype(np.int64)
    k = 100
    full = np.empty(5, np.int64)
    full[:4] = board
    expect = np.zeros(7, int)
    for r in range(52):
        if r in board or r in hole[k]:
            continue
        full[4] = r
        w, t, _ = _brute_river(int(hole[k, 0]), int(hole[k, 1]), full)
        expect[min(int((w + t / 2) / 990 * 7), 6)] += 1
    np.testing.assert_array_equal(hist[k], expect)


@pytest.mark.parametrize("n_board", [3, 4])
def test_weights_and_dedup_cover_each_class_once(n_board):
    """Rows kept over all canonical boards: every canonical index exactly once, and the class
    sizes add up to the raw count (run on the whole of [2,3]; on [2,4] a board sample's
    indexes are distinct and their classes are the orbits of the hands)."""
    if n_board == 3:
        from etl._equity_kernels import board_hands
        n = equity.N_BOARDS[3] * 1176
        idx = np.empty(n, np.int64)
        hole = np.empty((n, 2), np.uint8)
        weight = np.empty(n, np.uint8)
        board_hands(equity._tables((3,)), equity._tables((2, 3)), suit_permutations(), 3, 0,
                    equity.N_BOARDS[3], idx, hole, weight)
        keep = weight > 0
        assert keep.sum() == KNOWN_SIZES[(2, 3)]
        assert np.array_equal(np.sort(idx[keep]), np.arange(KNOWN_SIZES[(2, 3)]))
        assert weight[keep].astype(np.int64).sum() == raw_count((2, 3))
        # a dropped row's class is a kept row's (same index)
        assert np.isin(idx[~keep], idx[keep]).all()
    else:
        idx, _, _, hole, weight, _ = _kernel_rows(4, 0, 40)
        keep = weight > 0
        assert len(np.unique(idx[keep])) == keep.sum()
        assert np.isin(idx[~keep], idx[keep]).all()


def test_flop_from_turn_sums_turn_rows_over_turn_cards():
    """The lookup kernel on synthetic turn rows: each flop hand gets the half-sum of the rows of
    its 47 turn continuations (checked against a Python loop)."""
    rng = np.random.default_rng(5)
    size = KNOWN_SIZES[(2, 4)]
    turn = rng.integers(0, 100, (size, 3)) * 2
    lo, hi = 17, 19
    n = (hi - lo) * 1176
    out = np.empty((n, 3), np.int64)
    flop_from_turn(equity._tables((3,)), equity._tables((2, 4)), lo, hi, turn, out)
    idx, hole, weight = equity._flop_hands(lo, hi)
    boards = equity._boards(3, lo, hi)
    t24 = equity._tables((2, 4))
    for row in rng.choice(n, 5, replace=False):
        board = boards[row // 1176]
        c1, c2 = hole[row]
        expect = np.zeros(3, np.int64)
        for t in range(52):
            if t in board or t in (c1, c2):
                continue
            expect += turn[index_hand(t24, np.array([c1, c2, *board, t], np.int64))]
        np.testing.assert_array_equal(out[row], expect // 2)


@pytest.fixture(scope="module")
def turn_counts():
    """(wins, ties) of every canonical [2,4] hand by the turn kernel, dense by index: the
    production path of equity_turn."""
    size = KNOWN_SIZES[(2, 4)]
    idx, wins, ties, hole, weight, _ = _kernel_rows(4, 0, equity.N_BOARDS[4])
    keep = weight > 0
    assert keep.sum() == size
    out = np.zeros((size, 2), np.int64)
    out[idx[keep], 0] = wins[keep]
    out[idx[keep], 1] = ties[keep]
    return out


@pytest.fixture(scope="module")
def flop_counts(turn_counts):
    """(wins, ties) of every canonical [2,3] hand summed from the turn rows (the production
    path of equity_flop), dense by index."""
    size = KNOWN_SIZES[(2, 3)]
    n = equity.N_BOARDS[3] * 1176
    out = np.empty((n, 2), np.int64)
    flop_from_turn(equity._tables((3,)), equity._tables((2, 4)), 0, equity.N_BOARDS[3],
                   turn_counts, out)
    idx, hole, weight = equity._flop_hands(0, equity.N_BOARDS[3])
    keep = weight > 0
    dense = np.zeros((size, 2), np.int64)
    dense[idx[keep]] = out[keep]
    return dense[:, 0], dense[:, 1]


def test_flop_from_turn_rows_equal_the_direct_flop_kernel(flop_counts):
    """Summing turn rows (production) and enumerating the flop's completions directly give the
    same counts."""
    fw, ft = flop_counts
    for b in (0, 777, 1754):
        idx, wins, ties, hole, weight, _ = _kernel_rows(3, b, b + 1)
        np.testing.assert_array_equal(fw[idx], wins)
        np.testing.assert_array_equal(ft[idx], ties)


def test_preflop_equity_of_named_hands_equals_brute_force(flop_counts):
    fw, ft = flop_counts
    out = np.empty((169, 2), np.int64)
    preflop_sums(equity._tables((2,)), equity._tables((2, 3)), fw, ft, out)
    total = 2_118_760 * 990
    ix = HandIndexer((2,))
    hands = {"AA": (51, 50), "KK": (47, 46), "72o": (20, 1), "AKs": (51, 47)}
    brute = _brute_preflop(np.array(list(hands.values()), np.int64))
    for (name, (c1, c2)), (w, t, l) in zip(hands.items(), brute):
        p = int(ix.index(np.array([[c1, c2]]))[0])
        assert equity.hand_name(c1, c2) == name
        assert w + t + l == total
        assert (out[p, 0], out[p, 1], total - out[p, 0] - out[p, 1]) == (w, t, l), name


def test_preflop_table_from_flop_table(tmp_path, flop_counts, monkeypatch):
    """compute_preflop reads the flop table of the data dir: 169 rows, names, weights."""
    fw, ft = flop_counts
    monkeypatch.setattr(equity, "_dense", lambda *a, **k: np.stack([fw, ft], axis=1))
    table = equity.compute_preflop("00", tmp_path)
    assert table.num_rows == 169
    assert table.schema == equity.EQUITY_PREFLOP_SCHEMA
    assert sorted(table.column("weight").to_pylist()).count(12) == 78
    assert sum(table.column("weight").to_pylist()) == 1326
    d = dict(zip(table.column("hand").to_pylist(), table.column("equity").to_pylist()))
    assert len(d) == 169 and d["AA"] > d["KK"] > d["AKs"] > d["72o"]


def test_bad_options_and_keys_are_rejected():
    with pytest.raises(ValueError, match="bins"):
        equity.tables({"bins": "x"})
    with pytest.raises(ValueError, match="bins"):
        equity.tables({"bins": 0})
    with pytest.raises(ValueError, match="unknown partition"):
        equity.board_range(5, 16, "16")
    names = [s.name for s in equity.tables({"bins": 20})]
    assert names == ["equity_river", "equity_turn", "hist_turn", "equity_flop", "hist_flop",
                     "equity_preflop"]
