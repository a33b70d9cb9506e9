"""Texas Hold'em adapter kernels (abstraction/holdem.py) on small ranges of hands."""

from __future__ import annotations

import numpy as np
import pytest

isomorphism = pytest.importorskip("etl.isomorphism")

from abstraction.holdem import round_index_arrays  # noqa: E402


def raw_class_size(cards, groups):
    """Brute force: distinct images of the hand under the 24 suit permutations."""
    import itertools

    bounds = np.cumsum((0,) + groups)
    images = set()
    for perm in itertools.permutations(range(4)):
        mapped = [(c // 4) * 4 + perm[c % 4] for c in cards]
        images.add(tuple(frozenset(mapped[bounds[g]:bounds[g + 1]])
                         for g in range(len(groups))))
    return len(images)


def test_preflop_weights():
    parent, eq, w = round_index_arrays((2,), None, (2,))
    assert np.all(parent == -1) and np.array_equal(eq, np.arange(169))
    assert np.isclose(w.sum(), 1.0)
    assert sorted(set(np.round(w * 1326).astype(int))) == [4, 6, 12]


@pytest.mark.parametrize("groups, parent_groups, eq_groups", [
    ((2, 3), (2,), (2, 3)),
    ((2, 3, 1), (2, 3), (2, 4)),
])
def test_turn_and_flop_links(groups, parent_groups, eq_groups):
    ix = isomorphism.HandIndexer(groups)
    start = 123_456 % ix.size
    parent, eq, w = round_index_arrays(groups, parent_groups, eq_groups, start, start + 2000)
    cards = ix.unindex(np.arange(start, start + 2000))
    k = sum(parent_groups)
    assert np.array_equal(parent, isomorphism.HandIndexer(parent_groups).index(cards[:, :k]))
    assert np.array_equal(eq, isomorphism.HandIndexer(eq_groups).index(cards))
    raw = isomorphism.raw_count(groups)
    for i in range(0, 2000, 97):
        assert round(w[i] * raw) == raw_class_size(cards[i].tolist(), groups)


def test_flop_weights_sum_to_one():
    _, _, w = round_index_arrays((2, 3), (2,), (2, 3))
    assert np.isclose(w.sum(), 1.0)


def test_river_histograms_small():
    from abstraction._holdem_kernels import RIVER_KEYS, river_histograms

    turn = isomorphism.HandIndexer((2, 3, 1))
    river = isomorphism.HandIndexer((2, 5))
    key = (np.arange(river.size, dtype=np.uint32) % RIVER_KEYS).astype(np.uint16)
    n = 40
    bucket = np.arange(n, dtype=np.int64) % 3
    weight = np.linspace(1.0, 2.0, n)
    hist = river_histograms(turn.tables, river.tables, bucket, weight, key, 3)
    expect = np.zeros_like(hist)
    for i, cards in enumerate(turn.unindex(np.arange(n))):
        rest = [c for c in range(52) if c not in cards.tolist()]
        seven = np.array([list(cards) + [c] for c in rest])
        np.add.at(expect[bucket[i]], key[river.index(seven)], weight[i] / 46)
    assert np.allclose(hist, expect)
    assert np.isclose(hist.sum(), weight.sum())


def test_hist_rows_and_preflop_mixture():
    """Histogram rows are looked up lazily by equity index and normalised; a preflop hand's
    histogram is the probability-weighted mixture of its flop hands' rows."""
    from abstraction.hands import HandRound
    from abstraction.holdem import _HistRows, _preflop_histograms

    counts = np.array([[2, 0, 0], [0, 1, 1], [1, 1, 2]], dtype=np.uint8)
    rows = _HistRows(counts, np.array([2, 0, 1, 2]))
    assert rows.shape == (4, 3) and len(rows) == 4
    np.testing.assert_allclose(rows[np.array([0, 1])], [[0.25, 0.25, 0.5], [1, 0, 0]])
    flop = HandRound(weight=np.array([0.1, 0.3, 0.2, 0.4]), parent=np.array([0, 0, 1, 1]),
                     equity=np.zeros(4), histogram=rows)
    pre = _preflop_histograms(flop, 2)
    np.testing.assert_allclose(pre[0], (0.1 * np.array([0.25, 0.25, 0.5]) + 0.3 * np.array(
        [1, 0, 0])) / 0.4)
    np.testing.assert_allclose(pre[1], (0.2 * np.array([0, 0.5, 0.5]) + 0.4 * np.array(
        [0.25, 0.25, 0.5])) / 0.6)


def test_ensure_tables_completes_a_partial_table(tmp_path, monkeypatch):
    """A table with some partitions (an interrupted build) is completed, not taken as built."""
    from abstraction.holdem import ensure_tables
    from etl import records, runner, storage

    from etl import tables as registry
    monkeypatch.setattr(registry, "_override", "test_etl_runner:toy_tables")
    tables = registry.all_tables()
    runner.run(tmp_path, tables, ["toy"], workers=1, progress=False)
    files = storage.partition_files(tmp_path, "toy")
    for key in list(files)[:2]:
        files[key].unlink()  # as if the run had been killed before these
    ensure_tables(tmp_path, 1, False, ["toy_sum"])
    assert all(st.complete for st in records.status(tmp_path, tables, ["toy", "toy_sum"],
                                                   checksum=False))
    ensure_tables(tmp_path, 1, False, ["toy_sum"])  # nothing to do
