"""Texas Hold'em OCHS (issue 20; Johanson, Burch, Valenzano & Bowling, AAMAS 2013) on small
inputs: the river kernel against enumerating the opponent's hole cards, suit isomorphism, the
opponent clusters, the table cache, the sample k-means, the turn buckets' river codes against
enumeration, the method wired into both recalls, and the parameter checks. The 123 million-row
table is never built here (the kernel runs on a few boards)."""

from __future__ import annotations

import datetime as dt
import itertools
import json

import numpy as np
import pytest

import cli
from abstraction import ochs, ochs_river, store
from abstraction.clustering import Points
from abstraction.emd import EMDLine
from abstraction.hands import GameHands, HandRound, LeafRound
from abstraction.holdem import round_index_arrays
from abstraction.methods import OpponentClusterHandStrength
from abstraction.games import check_opponent_clusters
from abstraction.ochs import (HoldemOCHS, cached_holdem_ochs,
                              holdem_board_rows, holdem_ochs_table, holdem_opponent_clusters,
                              pair_clusters)
from abstraction.ochs_river import OCHSRiver, sample_kmeans
from etl.evaluator import evaluate
from etl.isomorphism import HandIndexer
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.errors import UserError
from solve.holdem._river_kernels import nearest_child_lut
from solve.holdem.buckets import load_buckets

RIVER = HandIndexer((2, 5))


def random_clusters(rng, k):
    cls = rng.integers(0, k, 169)
    cls[:k] = np.arange(k)  # every cluster used
    return cls


def brute_force(hole, board, cop, k):
    """Wins, ties and live opponent hands per cluster, every opponent hand evaluated."""
    known = set(int(c) for c in hole) | set(int(c) for c in board)
    opp = np.array(list(itertools.combinations([c for c in range(52) if c not in known], 2)))
    mine = int(evaluate(np.array([*hole, *board]))[()])
    theirs = evaluate(np.column_stack([opp, np.tile(board, (len(opp), 1))]).astype(np.uint8))
    c = cop[opp[:, 0], opp[:, 1]]
    return (np.bincount(c, weights=mine > theirs, minlength=k),
            np.bincount(c, weights=mine == theirs, minlength=k), np.bincount(c, minlength=k))


def test_river_counts_equal_enumeration_over_the_opponent_hole_cards():
    rng = np.random.default_rng(20)
    k = 5
    cls = random_clusters(rng, k)
    cop = pair_clusters(cls)
    pre = HandIndexer((2,))
    a, b = 7, 40
    assert cop[a, b] == cop[b, a] == cls[pre.index(np.array([a, b], np.uint8))]
    boards = np.array([rng.choice(52, 5, replace=False) for _ in range(3)])
    rows = holdem_board_rows(boards, cls)
    assert rows.wins.shape == (3 * 1081, k)
    for r in rng.choice(len(rows.idx), 300, replace=False):
        board, hole = boards[r // 1081], rows.hole[r]
        w, t, live = brute_force(hole, board, cop, k)
        assert np.array_equal(rows.wins[r], w) and np.array_equal(rows.ties[r], t)
        assert np.array_equal(rows.live[r], live) and live.sum() == 990
        eq = np.where(live > 0, (w + t / 2) / np.maximum(live, 1), 0.5)
        np.testing.assert_allclose(rows.equity[r], eq, atol=1e-12)
        assert rows.idx[r] == RIVER.index(np.array([*hole, *board], np.uint8))
    # weighted by the live hands of each cluster, the vector is the plain river equity
    eq = (rows.equity * rows.live).sum(1) / 990
    np.testing.assert_allclose(eq, (rows.wins.sum(1) + rows.ties.sum(1) / 2) / 990)


def test_a_cluster_with_no_live_hand_is_an_even_half():
    cls = np.zeros(169, np.int64)
    aces = HandIndexer((2,)).index(np.array([48, 49], np.uint8))
    cls[aces] = 1  # cluster 1 = pocket aces only
    board = np.array([[50, 0, 5, 10, 15]])  # one ace on the board
    rows = holdem_board_rows(board, cls)
    mine = np.flatnonzero((rows.hole == 51).any(1) & (rows.hole >= 48).all(1))  # A + A
    assert len(mine) and (rows.live[mine, 1] == 0).all()
    assert (rows.equity[mine, 1] == 0.5).all()


def test_suit_isomorphic_hands_get_the_same_row(tmp_path):
    rng = np.random.default_rng(21)
    k = 3
    cls = random_clusters(rng, k)
    t5 = HandIndexer((5,))
    symmetric = t5.index(np.array([[0, 1, 2, 3, 12], [0, 1, 4, 5, 10]], np.uint8))  # stabilised
    chosen = np.unique(np.concatenate([rng.choice(t5.size, 3, replace=False), symmetric]))
    n = RIVER.size  # sparse files: only the pages of these boards' hands are written
    out = tuple(np.lib.format.open_memmap(tmp_path / f"{name}.npy", mode="w+", dtype=dt, shape=s)
                for name, dt, s in (("v", np.float32, (n, k)), ("k", np.uint16, (n,)),
                                    ("s", np.uint8, (n,))))
    table = holdem_ochs_table(cls, out=out, boards=chosen)
    canonical = t5.unindex(chosen).astype(np.int64)
    for perm in (rng.permutation(4) for _ in range(3)):
        boards = (canonical & ~3) | perm[canonical & 3]  # the same boards, suits renamed
        rows = holdem_board_rows(boards, cls)
        assert (table.size[rows.idx] > 0).all()  # every class written by the canonical board
        np.testing.assert_allclose(table.vectors[rows.idx], rows.equity, atol=1e-6)
        key = 2 * rows.wins.sum(1) + rows.ties.sum(1)
        assert np.array_equal(table.key[rows.idx], key)
    # the class sizes of a board's hands count once every raw hand whose board is isomorphic
    raw = holdem_board_rows(canonical, cls)
    orbit = np.array([24 // sum(1 for p in itertools.permutations(range(4))
                                if set((c & ~3) | p[c & 3] for c in b) == set(b.tolist()))
                      for b in canonical])
    assert sorted(set(orbit.tolist())) == [4, 12, 24]
    assert np.array_equal(raw.size.reshape(len(chosen), 1081).sum(1), orbit * 1081)


def synthetic_preflop(rng):
    """169 river-equity histograms (50 bins) of spread means, and the classes' weights."""
    _, _, weight = round_index_arrays((2,), None, (2,))
    centre = np.linspace(0.3, 0.85, 169)[rng.permutation(169)]
    line = (np.arange(50) + 0.5) / 50
    hist = np.exp(-((line[None, :] - centre[:, None]) / 0.15) ** 2) + 0.01 * rng.random((169, 50))
    return hist / hist.sum(1, keepdims=True), weight


def test_opponent_clusters_are_seeded_and_numbered_by_mean_equity():
    hist, weight = synthetic_preflop(np.random.default_rng(22))
    line = (np.arange(50) + 0.5) / 50
    for k in (1, 4, 8):
        cls = holdem_opponent_clusters(hist, weight, k, random_state=3, n_init=2)
        assert cls.shape == (169,) and sorted(set(cls.tolist())) == list(range(k))
        assert np.array_equal(cls, holdem_opponent_clusters(hist, weight, k, 3, 2))
        mean = [weight[cls == c] @ hist[cls == c] @ line / weight[cls == c].sum()
                for c in range(k)]
        assert np.all(np.diff(mean) > 0)
    assert np.array_equal(holdem_opponent_clusters(hist, weight, 169, 0, 1),
                          np.argsort(np.argsort(hist @ line, kind="stable"), kind="stable"))


def test_the_table_cache_is_reused_and_rebuilt_for_other_clusters(tmp_path, monkeypatch):
    built = []

    def fake_table(cluster_of_class, progress=False, out=None, boards=None):
        vectors, key, size = out
        vectors[:5] = 0.25
        key[:5] = 7
        size[:5] = 24
        built.append(1)
        return HoldemOCHS(cluster_of_class, vectors, key, size)

    monkeypatch.setattr(ochs, "holdem_ochs_table", fake_table)
    cls = np.arange(169) % 2
    t = cached_holdem_ochs(tmp_path, cls, seed=4)
    folder = ochs.cache_dir(tmp_path, 2, 4)
    assert folder.is_dir() and len(built) == 1 and t.vectors.shape == (RIVER.size, 2)
    assert float(t.vectors[3, 1]) == 0.25 and int(t.key[4]) == 7 and not t.vectors.flags.writeable
    assert json.loads((folder / "meta.json").read_text())["clusters"] == cls.tolist()
    assert [p.name for p in folder.parent.iterdir() if p.name.endswith(".tmp")] == []
    cached_holdem_ochs(tmp_path, cls, seed=4)
    assert len(built) == 1  # read back, not rebuilt
    cached_holdem_ochs(tmp_path, 1 - cls, seed=4)  # same count, other clusters
    assert len(built) == 2


def blobs(rng, n=3000, k=6, d=4):
    """Well-separated clusters: k corners of the cube {0, 10}^d, a little noise."""
    corners = np.array(list(itertools.product((0.0, 10.0), repeat=d)))
    centre = corners[rng.choice(len(corners), k, replace=False)]
    lab = rng.integers(0, k, n)
    return (centre[lab] + 0.05 * rng.standard_normal((n, d))).astype(np.float32), lab


def test_distinct_rows_are_exact_even_when_every_hash_collides():
    rng = np.random.default_rng(28)
    x = rng.integers(0, 4, (500, 3)).astype(np.float32) / 4  # many repeated rows
    size = rng.integers(1, 25, len(x)).astype(np.uint8)
    for hashes in (ochs_river.row_hashes, lambda bits: np.zeros(len(bits), np.uint64)):
        inverse, first, w = ochs_river.distinct_rows(x, size, hashes)
        uniq = np.unique(x, axis=0)
        assert len(first) == len(uniq) and np.array_equal(x[first][inverse], x)
        np.testing.assert_allclose(w, np.bincount(inverse, weights=size))


def test_sample_kmeans_assigns_every_row_and_reports_its_error():
    rng = np.random.default_rng(23)
    x, truth = blobs(rng)
    x[1000:1500] = x[:500]  # repeated rows are merged first
    truth[1000:1500] = truth[:500]
    size = rng.integers(1, 25, len(x)).astype(np.uint8)
    labels, centres, err, distinct = sample_kmeans(x, size, 6, seed=5, sample=1500)
    assert distinct == 2500 and len(centres) == 6
    pairs = np.unique(np.stack([labels, truth], 1), axis=0)
    assert len(pairs) == 6  # the blobs recovered
    w = size.astype(np.float64)
    d2 = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    assert np.array_equal(labels, d2.argmin(1))  # every row at its nearest centre, exactly
    assert err == pytest.approx(w @ d2.min(1) / w.sum(), rel=1e-6)
    again = sample_kmeans(x, size, 6, seed=5, sample=1500)
    assert np.array_equal(again[0], labels)
    few = sample_kmeans(x[:10], size[:10], 20, seed=1)  # fewer distinct rows than clusters
    assert len(few[1]) == 10 and few[2] == pytest.approx(0.0, abs=1e-9)


def test_cached_codes_are_read_back(tmp_path):
    rng = np.random.default_rng(24)
    x, _ = blobs(rng, n=800)
    table = HoldemOCHS(np.zeros(169, np.int64), x, np.zeros(len(x), np.uint16),
                       np.ones(len(x), np.uint8))
    codes, book, err = ochs_river._cached_codes(tmp_path / "c", table, seed=2)
    assert codes.dtype == np.uint16 and len(codes) == len(x)
    np.testing.assert_allclose(book[codes], x, atol=1e-6)  # fewer rows than codes: exact
    again = ochs_river._cached_codes(tmp_path / "c", table, seed=2)
    assert np.array_equal(again[0], codes) and np.array_equal(again[1], book)
    other = tmp_path / "other"  # a folder now holding the table of other clusters
    other.mkdir()
    (other / "meta.json").write_text(json.dumps({"clusters": [1] * 169}))
    ochs_river._cached_codes(other, table, seed=2)
    assert sorted(p.name for p in other.iterdir()) == ["meta.json"]  # not stored there


def test_turn_bucket_code_points_equal_enumeration():
    turn = HandIndexer((2, 3, 1))
    n = 40
    code = (np.arange(RIVER.size, dtype=np.int64) % 1981).astype(np.uint16)  # also the key
    weight = np.linspace(1.0, 2.0, n) / 100
    bucket = np.arange(n) % 3
    table = HoldemOCHS(np.zeros(169, np.int64), None, code, None)
    river = OCHSRiver(table, weight, codes=code, codebook=np.zeros((1981, 2)))
    pts, p = river.points(bucket)
    want = [dict() for _ in range(3)]
    for i, cards in enumerate(turn.unindex(np.arange(n))):
        rest = [c for c in range(52) if c not in cards.tolist()]
        for q in code[RIVER.index(np.array([list(cards) + [c] for c in rest], np.uint8))]:
            want[bucket[i]][int(q)] = want[bucket[i]].get(int(q), 0.0) + weight[i] / 46
    for b in range(3):
        got = dict(zip(pts[b].x[:, 1].astype(int).tolist(), (pts[b].w * p[b]).tolist()))
        assert got.keys() == want[b].keys()
        np.testing.assert_allclose([got[q] for q in want[b]], list(want[b].values()))
        np.testing.assert_allclose(pts[b].x[:, 0], pts[b].x[:, 1] / 1980)  # key = code here
    assert p.sum() == pytest.approx(weight.sum())


class FakeRiver:
    """A stand-in for ``OCHSRiver.points``: each turn hand reaches 5 river codes."""

    def __init__(self, rng, n_turn, n_codes=60, k=3, n_river=500):
        self.reach = rng.integers(0, n_codes, (n_turn, 5))
        self.codes = rng.integers(0, n_codes, n_river).astype(np.uint16)  # per river hand
        self.eq = rng.random(n_codes)
        self.codebook = np.sort(rng.random((n_codes, k)), axis=0)
        self.table = HoldemOCHS(np.arange(169) % k, None, None, None)
        self.code_error = 0.001

    def points(self, turn_bucket):
        out, p = [], []
        for b in range(int(turn_bucket.max()) + 1):
            codes = self.reach[turn_bucket == b].ravel()
            q, w = np.unique(codes, return_counts=True)
            out.append(Points(np.column_stack([self.eq[q], q]), w / w.sum(), np.arange(len(q))))
            p.append(len(codes))
        return out, np.array(p, float) / sum(p)

    def report(self):
        return {"opponent_clusters": 3, "river_codes": len(self.codebook), "code_error": 0.001}


def small_holdem(rng, sizes=(10, 30, 90)):
    rounds = []
    for r, n in enumerate(sizes):
        parent = np.full(n, -1) if r == 0 else np.concatenate(
            [np.arange(sizes[r - 1]), rng.integers(0, sizes[r - 1], n - sizes[r - 1])])
        hist = rng.random((n, 6)) ** 3
        rounds.append(HandRound(weight=np.full(n, 1.0 / n), parent=parent, equity=rng.random(n),
                                histogram=hist / hist.sum(1, keepdims=True)))
    return GameHands("holdem", tuple(rounds), LeafRound(500, None))


def test_holdem_ochs_perfect_recall_clusters_the_river_per_turn_bucket(monkeypatch):
    rng = np.random.default_rng(25)
    game = small_holdem(rng)
    fake = FakeRiver(rng, 90)
    monkeypatch.setattr("abstraction.methods.holdem_river", lambda *a, **k: fake)
    model = OpponentClusterHandStrength((3, 6, 12, 30), n_init=1, opponent_clusters=3).fit(game)
    assert model.buckets_ == (3, 6, 12, 30)
    river = model.rounds_[3]
    assert river.parent.min() >= 0 and np.all(np.diff(river.parent) >= 0)  # nested, grouped
    assert all(len(c) == 3 for c in river.centroids)  # OCHS centres
    assert river.report["river_codes"] == 60 and "code_error" in river.report
    for r in (1, 2):
        prev = model.rounds_[r - 1].bucket[game.rounds[r].parent]
        pairs = np.unique(np.stack([model.rounds_[r].bucket, prev], 1), axis=0)
        assert len(pairs) == model.rounds_[r].n_buckets  # one parent per bucket
    assert model.params()["opponent_cluster_of_class"] == (np.arange(169) % 3).tolist()


def test_holdem_ochs_imperfect_recall_clusters_all_river_hands(monkeypatch):
    rng = np.random.default_rng(26)
    game = small_holdem(rng)
    x, _ = blobs(rng, n=2000, k=8, d=3)
    x = (x - x.min()) / (x.max() - x.min())
    key = np.round(x.mean(1) * 1980).astype(np.uint16)
    size = rng.integers(1, 25, len(x)).astype(np.uint8)
    river = OCHSRiver(HoldemOCHS(np.arange(169) % 3, x, key, size), np.ones(90))
    monkeypatch.setattr("abstraction.methods.holdem_river", lambda *a, **k: river)
    model = OpponentClusterHandStrength((4, 9, 9, 8), n_init=1, opponent_clusters=3,
                                        recall="imperfect").fit(game)
    res = model.rounds_[3]
    assert res.n_buckets == 8 and res.bucket.shape == (2000,) and (res.parent == -1).all()
    assert np.all(np.diff(res.mean_equity) >= 0)  # weak -> strong
    eq = key / 1980.0
    w = size.astype(float)
    for b in (0, 7):
        assert res.mean_equity[b] == pytest.approx(w[res.bucket == b] @ eq[res.bucket == b]
                                                   / w[res.bucket == b].sum())
    # the earlier rounds by EMD on their next-round histograms (IR-KE-KO), each on its own
    assert [rep["feature"] for rep in model.report_] == ["emd", "emd", "emd", "ochs"]
    line = EMDLine.equity_bins(6)
    for r in range(3):
        res = model.rounds_[r]
        assert (res.parent == -1).all()
        d = line.pairwise(game.rounds[r].histogram, np.asarray(res.centroids))
        np.testing.assert_allclose(d[np.arange(len(d)), res.bucket], d.min(axis=1), atol=1e-9)


@pytest.mark.parametrize("clusters, message", [
    (0, "must be in 1..169"), (170, "must be in 1..169"), (17, "at most 16"),
    (2.5, "must be an integer"),
])
def test_opponent_cluster_checks(clusters, message):
    with pytest.raises(ValueError, match=message):
        check_opponent_clusters("holdem", clusters)
    assert check_opponent_clusters("holdem", 16) == 16
    with pytest.raises(ValueError, match="1..13"):
        check_opponent_clusters("rhode-island", 14)
    with pytest.raises(ValueError, match="implemented for holdem and rhode-island"):
        check_opponent_clusters("leduc", 3)


def test_method_checks_clusters_and_needs_the_holdem_hands(monkeypatch):
    rng = np.random.default_rng(27)
    game = small_holdem(rng)
    monkeypatch.setattr("abstraction.methods.holdem_river", lambda *a, **k: 1 / 0)
    with pytest.raises(ValueError, match="1..169"):
        OpponentClusterHandStrength((3, 6, 12, 30), opponent_clusters=170).fit(game)
    bare = GameHands("holdem", game.rounds)
    with pytest.raises(ValueError, match="holdem_hands"):
        OpponentClusterHandStrength((3, 6, 12)).fit(bare)


@pytest.mark.parametrize("argv, message", [
    (["--opponent-clusters", "170"], "--opponent-clusters: opponent_clusters must be in 1..169"),
    (["--opponent-clusters", "40"], "at most 16 are supported"),
    (["--opponent-clusters", "0", "--recall", "imperfect"], "must be in 1..169"),
])
def test_cli_checks_opponent_clusters_before_loading(tmp_path, capsys, argv, message):
    rc = cli.main(["--data-dir", str(tmp_path), "build-abstraction", "--game", "holdem",
                   "--method", "ochs", "--buckets", "20,800,4800,28800"] + argv)
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error:") and message in err and "\n" not in err
    assert not (tmp_path / "tables").exists()  # nothing was computed


def test_nearest_child_lut_equals_brute_force():
    rng = np.random.default_rng(30)
    codebook, cents = rng.random((50, 4)), rng.random((11, 4))
    parent = np.sort(rng.integers(0, 4, 11))
    parent[:4] = np.arange(4)  # every turn bucket has a child
    parent.sort()
    first, last = (np.searchsorted(parent, np.arange(4), side=s) for s in ("left", "right"))
    lut = np.empty((4, 50), np.int32)
    nearest_child_lut(codebook, cents, first, last, lut)
    for t in range(4):
        kids = np.flatnonzero(parent == t)
        d = ((codebook[:, None, :] - cents[None, kids, :]) ** 2).sum(-1)
        np.testing.assert_array_equal(lut[t], kids[d.argmin(1)])


def test_a_stored_perfect_recall_ochs_river_looks_up_the_builders_buckets(tmp_path,
                                                                           monkeypatch):
    """The store keeps the river codes and codebook; the solver's look-up puts every code a
    turn bucket reaches in the child the builder put it in (same counts per river bucket)."""
    rng = np.random.default_rng(31)
    game = small_holdem(rng)
    fake = FakeRiver(rng, 90, n_river=game.leaf.size)
    monkeypatch.setattr("abstraction.methods.holdem_river", lambda *a, **k: fake)
    model = OpponentClusterHandStrength((3, 6, 12, 30), n_init=1, opponent_clusters=3).fit(game)
    store.save(model, game, "h-ochs", seed=0, seconds=1.0, data_dir=tmp_path)
    b = load_buckets("h-ochs", tmp_path)
    assert b.n_buckets == (3, 6, 12, 30) and b.river_stride == 60 and b.perfect_recall
    np.testing.assert_array_equal(b.river_key, fake.codes)
    lut = b.arrays[3].reshape(12, 60)
    river = model.rounds_[3]
    pts, _ = fake.points(model.rounds_[2].bucket)
    got = np.zeros(river.n_buckets, np.int64)
    for t, pt in enumerate(pts):
        kids = lut[t, pt.x[:, 1].astype(np.int64)]
        assert (river.parent[kids] == t).all()
        got += np.bincount(kids, minlength=river.n_buckets)
    np.testing.assert_array_equal(got, river.hands)  # distinct codes per bucket, as built


def test_a_stored_imperfect_recall_ochs_river_is_listed_per_hand(tmp_path, monkeypatch):
    rng = np.random.default_rng(32)
    game = small_holdem(rng, sizes=(10, 30, 90))
    x = rng.random((500, 3))
    key = np.round(x.mean(1) * 1980).astype(np.uint16)
    river = OCHSRiver(HoldemOCHS(np.arange(169) % 3, x, key, np.ones(500, np.uint8)),
                      np.ones(90))
    monkeypatch.setattr("abstraction.methods.holdem_river", lambda *a, **k: river)
    model = OpponentClusterHandStrength((4, 9, 9, 8), n_init=1, opponent_clusters=3,
                                        recall="imperfect").fit(game)
    store.save(model, game, "h-ochs-ir", seed=0, seconds=1.0, data_dir=tmp_path)
    b = load_buckets("h-ochs-ir", tmp_path)
    assert b.river_stride == 0 and not b.perfect_recall and b.n_buckets[3] == 8
    np.testing.assert_array_equal(b.river_key, model.rounds_[3].bucket)
    np.testing.assert_array_equal(b.arrays[3], np.arange(8))


def test_an_ochs_abstraction_without_river_tables_is_refused_in_one_line(tmp_path):
    """(One built before the river tables were stored.)"""
    rng = np.random.default_rng(33)
    game = small_holdem(rng)
    fake = FakeRiver(rng, 90, n_river=game.leaf.size)
    with pytest.MonkeyPatch.context() as m:
        m.setattr("abstraction.methods.holdem_river", lambda *a, **k: fake)
        model = OpponentClusterHandStrength((3, 6, 12, 30), n_init=1,
                                            opponent_clusters=3).fit(game)
    store.save(model, game, "old", seed=0, seconds=1.0, data_dir=tmp_path)
    for f in ("river_codes.parquet", "river_codebook.parquet"):
        (tmp_path / "abstractions" / "old" / f).unlink()
    with pytest.raises(UserError,
                       match=r"rebuild it with `cli\.py build-abstraction \.\.\. --replace`") as e:
        load_buckets("old", tmp_path)
    assert "\n" not in str(e.value)
