"""SQL at real cards (issue 47): the macros of queries/cards*.sql agree with the Python
look-ups -- canonical indexes with ``HandIndexer``, buckets with the abstraction tables and
``HoldemBuckets``, ``strategy_at`` with ``solve.lookup`` -- at random real cards, every round
of Texas Hold'em (the river through its equity key and the thresholds) and Rhode Island
Hold'em."""

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cli
from etl import storage
from etl.cards import format_card
from etl.isomorphism import HandIndexer
from etl.records import record_partitions
from etl.rhode_island import hand_tree
from etl.views import connect
from queries.views import create_views
from schema.abstraction import BUCKETS_SCHEMA, CENTROIDS_SCHEMA, THRESHOLDS_SCHEMA
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.errors import UserError
from schema.equity import EQUITY_RIVER_SCHEMA
from solve.abstractions import load_abstraction
from solve.holdem import run as holdem_run
from solve.holdem.buckets import HoldemBuckets, river_lut
from solve.holdem.game import RIVER_KEYS
from solve.lookup import StrategyLookup, open_lookup

GROUPS = ((2,), (2, 3), (2, 3, 1), (2, 5))
CARDS_SQL = Path(__file__).resolve().parents[1] / "queries" / "cards.sql"
BOARD = (0, 3, 4, 5)  # public cards by Hold'em round


def sql(d, query, params=None):
    with connect(d, read_only=True) as con:
        return con.execute(query, params or []).fetchall()


def test_canonical_index_and_colex_index_agree_with_the_python_indexers():
    import duckdb

    from etl.colex import colex_index

    con = duckdb.connect()
    con.execute(CARDS_SQL.read_text())
    rng = np.random.default_rng(5)
    for g in ((2,), (2, 3), (2, 4), (2, 5), (2, 3, 1)):
        cards = np.array([rng.choice(52, sum(g), replace=False) for _ in range(200)])
        got = [r[0] for r in con.execute(
            "SELECT hand_index(?::INT[], c) FROM unnest(?::INT[][]) WITH ORDINALITY t(c, i) "
            "ORDER BY i", [list(g), cards.tolist()]).fetchall()]
        assert got == HandIndexer(g).index(cards.astype(np.uint8)).tolist(), g
    seven = np.array([rng.choice(52, 7, replace=False) for _ in range(100)])
    got = [r[0] for r in con.execute(
        "SELECT colex_index(c) FROM unnest(?::INT[][]) WITH ORDINALITY t(c, i) ORDER BY i",
        [seven.tolist()]).fetchall()]
    assert got == colex_index(seven).tolist()
    assert con.execute("SELECT parse_cards('As kd,2c'), card_names([51, 0])").fetchone() == (
        [51, 45, 0], "As2c")
    for bad, msg in (("AsX", "two characters each"), ("Ax", "'Ax' is not a card"),
                     ("AsAs", "card As appears twice")):
        with pytest.raises(duckdb.Error, match=msg):
            con.execute("SELECT parse_cards(?, 'hole')", [bad]).fetchall()


def test_hands_view_lists_the_169_preflop_classes():
    import duckdb

    con = duckdb.connect()
    con.execute(CARDS_SQL.read_text())
    rows = con.execute("SELECT idx, hand, combos, example FROM hands ORDER BY idx").fetchall()
    assert len(rows) == 169 and [r[0] for r in rows] == list(range(169))
    by_name = {r[1]: r for r in rows}
    assert sum(r[2] for r in rows) == 1326
    assert (by_name["AA"][2], by_name["AKs"][2], by_name["AKo"][2], by_name["72o"][2]) == (
        6, 4, 12, 12)
    assert len(by_name) == 169 and "KAo" not in by_name and "22" in by_name
    ix = HandIndexer((2,))
    for name, (idx, _, combos, example) in by_name.items():
        hole = np.array([[4 * "23456789TJQKA".index(example[0]) + "cdhs".index(example[1]),
                          4 * "23456789TJQKA".index(example[2]) + "cdhs".index(example[3])]],
                        np.uint8)
        assert int(ix.index(hole)[0]) == idx
        assert example[0] == name[0] and example[2] == name[1]
        assert (name.endswith("s")) == (example[1] == example[3]) or len(name) == 2
    # the names equity_preflop gives its rows (etl.equity.hand_name of each class)
    from etl.equity import hand_name
    holes = ix.unindex(np.arange(169))
    assert [r[1] for r in rows] == [hand_name(int(a), int(b)) for a, b in holes]
    # every raw hole counted once: the combos are the class sizes of the [2] index
    raw = np.array([[a, b] for a in range(52) for b in range(a + 1, 52)], np.uint8)
    sizes = np.bincount(ix.index(raw), minlength=169)
    assert [r[2] for r in rows] == sizes.tolist()


# ---------------------------------------------------------------------------------------------
# Rhode Island Hold'em: a built abstraction (board hidden and board visible) and a solve
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ri_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("ri")
    for name, extra in (("ab", []), ("abp", ["--public-board"]),
                        ("abi", ["--recall", "imperfect"])):
        assert cli.main(["--data-dir", str(d), "build-abstraction", "--game", "rhode-island",
                         "--method", "eb", "--buckets", "13,20,40", "--name", name,
                         "--n-init", "1", *extra]) == 0
    for name in ("ab", "abi"):
        assert cli.main(["--data-dir", str(d), "solve", "--game", "rhode-island",
                         "--abstraction", name, "--algorithm", "dcfr", "--iterations", "10"]) == 0
    create_views(d)
    return d


def ri_names(cards):
    from solve.games.rules import rhode_island
    rules = rhode_island()
    return "".join(rules.card_str(int(c)) for c in cards)


def test_rhode_island_bucket_of_agrees_with_the_abstraction_tables(ri_dir):
    tree = hand_tree()
    rng = np.random.default_rng(11)
    deals = [rng.choice(52, 3, replace=False) for _ in range(150)]
    for name in ("ab", "abp"):
        ab = load_abstraction(name, "rhode-island", ri_dir)
        rows = [(i, ri_names(c[:1]), ri_names(c[1:1 + i % 3])) for i, c in enumerate(deals)]
        got = sql(ri_dir, "SELECT d.i, b.round, b.hand, b.bucket, b.buckets, b.game_bucket FROM "
                          "(SELECT unnest(?::INT[]) AS i, unnest(?::VARCHAR[]) AS hole, "
                          "unnest(?::VARCHAR[]) AS board) AS d, "
                          "LATERAL bucket_of(?, hole := d.hole, board := d.board) AS b "
                          "ORDER BY d.i",
                  [[r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], name])
        assert len(got) == len(deals)
        for (i, rnd, hand, bucket, seq, game_bucket), c in zip(got, deals):
            assert rnd == i % 3 + 1  # rounds from 1, as every output numbers them
            rnd -= 1
            want = [int(tree[r].index_of(np.array([c[:r + 1]]))[0]) for r in range(rnd + 1)]
            assert hand == want[-1]
            assert seq == [int(ab.labels[r][want[r]]) for r in range(rnd + 1)]
            assert bucket == seq[-1]
            assert game_bucket == int(ab.round_buckets[rnd][hand])  # refined if public
        # the buckets the solver plays: refined by the board when it is visible
        game = sql(ri_dir, "SELECT round, hand, game_bucket FROM rhode_island_game_buckets "
                           "WHERE abstraction = ?", [name])
        assert len(game) == sum(len(t.cards) for t in tree)
        for r, hand, gb in game:
            assert gb == int(ab.round_buckets[r][hand])
    assert sql(ri_dir, "SELECT count(DISTINCT game_bucket) FROM rhode_island_game_buckets "
                       "WHERE abstraction = 'abp' AND round = 2")[0][0] > 40


@pytest.mark.parametrize("name", ["rhode-island-ab-dcfr",    # perfect recall: "3.17.39"
                                  "rhode-island-abi-dcfr"])  # imperfect: "-.-.39"
def test_rhode_island_strategy_at_agrees_with_the_lookup_library(ri_dir, name):
    look = StrategyLookup(ri_dir, name)
    histories = {r: h for r, h in
                 sql(ri_dir, "SELECT round, list(DISTINCT history) FROM strategies "
                             "WHERE strategy = ? GROUP BY round", [name])}
    rng = np.random.default_rng(2)
    cases = []
    for _ in range(120):
        c = rng.choice(52, 3, replace=False)
        rnd = int(rng.integers(0, 3))
        hist = histories[rnd + 1][int(rng.integers(len(histories[rnd + 1])))]  # view: from 1
        cases.append((ri_names(c[:1]), ri_names(c[1:1 + rnd]), hist))
    got = sql(ri_dir, "SELECT d.i, s.player, s.infoset, s.action, s.probability FROM "
                      "(SELECT unnest(range(?)) AS i, unnest(?::VARCHAR[]) AS hole, "
                      "unnest(?::VARCHAR[]) AS board, unnest(?::VARCHAR[]) AS history) AS d, "
                      "LATERAL strategy_at(?, hole := d.hole, board := d.board, "
                      "history := d.history) AS s",
              [len(cases), [c[0] for c in cases], [c[1] for c in cases],
               [c[2] for c in cases], name])
    by_case = {}
    for i, player, infoset, action, p in got:
        by_case.setdefault(i, []).append((player, infoset, action, p))
    assert len(by_case) == len(cases)
    for i, (hole, board, hist) in enumerate(cases):
        want = look.at(hole, board, hist)
        rows = by_case[i]
        assert {r[1] for r in rows} == {want.infoset}
        assert {r[0] for r in rows} == {want.player}  # both from 1
        assert [r[2] for r in rows] == want.actions
        assert [r[3] for r in rows] == pytest.approx(want.probabilities)


def test_strategy_at_errors_are_one_line(ri_dir, capsys):
    name = "rhode-island-ab-dcfr"
    for q, msg in ((f"SELECT * FROM strategy_at('{name}', hole := 'As', board := 'Kd', "
                    "history := 'rc')", "is of round 2, history 'rc' of round 1"),
                   (f"SELECT * FROM strategy_at('{name}', hole := 'As', board := 'Kd', "
                    "history := 'rc/rf')", "is not a decision point"),
                   ("SELECT * FROM strategy_at('nope', hole := 'As')", "no strategy 'nope'"),
                   (f"SELECT * FROM strategy_at('{name}', hole := 'AsKs')",
                    "rhode-island deals 1 private card, got 2"),
                   ("SELECT * FROM bucket_of('ab', hole := 'As', board := 'Ks As')",
                    "card As appears twice")):
        assert cli.main(["--data-dir", str(ri_dir), "sql", q]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and msg in err and err.count("\n") == 1


# ---------------------------------------------------------------------------------------------
# Texas Hold'em: a small four-round abstraction stored as build-abstraction stores one, with
# the rows of the hands the test deals (the real tables hold 55 million turn and 123 million
# river hands), and a strategy solved on it
# ---------------------------------------------------------------------------------------------

K = (3, 6, 12, 36)  # buckets per round: 2 children per preflop/flop bucket, 3 per turn bucket


def river_thresholds():
    """Three river buckets per turn bucket, equity ranges with gaps between them (a key in a
    gap takes the range below, a key below all of them the lowest)."""
    rows = []
    for t in range(K[2]):
        for j, (lo, hi) in enumerate(((200, 700), (900, 1500), (1600, 1900))):
            rows.append((3, t, 3 * t + j, lo / 1980, hi / 1980))
    return rows


@pytest.fixture(scope="module")
def holdem_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("holdem")
    rng = np.random.default_rng(47)
    deals = np.array([rng.choice(52, 7, replace=False) for _ in range(400)])
    idx = [HandIndexer(g).index(deals[:, :sum(g)].astype(np.uint8)) for g in GROUPS]
    sizes = [HandIndexer(g).size for g in GROUPS]
    # zero arrays of the real sizes (untouched pages cost nothing); the dealt hands get
    # buckets that nest (a child of the round before), the others bucket 0
    arrays = [np.arange(169, dtype=np.int32) % K[0]] + [np.zeros(s, np.int32) for s in sizes[1:3]]
    for r in (1, 2):
        arrays[r][idx[r]] = arrays[r - 1][idx[r - 1]] * 2 + rng.integers(0, 2, len(deals))
    key = np.zeros(sizes[3], np.uint16)
    key[idx[3]] = rng.integers(0, RIVER_KEYS, len(deals))
    th = river_thresholds()
    lut, river_par = river_lut({"round": [t[0] for t in th],
                                "parent_bucket": np.array([t[1] for t in th]),
                                "bucket": np.array([t[2] for t in th]),
                                "min_equity": np.array([t[3] for t in th]),
                                "max_equity": np.array([t[4] for t in th])}, K[2])
    parents = [np.full(K[0], -1), np.arange(K[1]) // 2, np.arange(K[2]) // 2, river_par]
    buckets = HoldemBuckets.from_arrays("hx", arrays, parents, lut, key)

    root = d / "abstractions" / "hx"
    root.mkdir(parents=True)
    for r in range(3):
        hands = np.unique(idx[r]) if r else np.arange(169)
        b = arrays[r][hands]
        pq.write_table(pa.table({"round": np.full(len(hands), r, np.int8), "hand": hands,
                                 "bucket": b, "parent_bucket": parents[r][b].astype(np.int32)},
                                schema=BUCKETS_SCHEMA), root / f"round{r}.parquet")
    rows = ([(0, -1, b, 0.0, 1.0) for b in range(K[0])]
            + [(r, p, b, 0.0, 1.0) for r in (1, 2) for b, p in enumerate(parents[r])] + th)
    pq.write_table(pa.table({"round": [x[0] for x in rows], "parent_bucket": [x[1] for x in rows],
                             "bucket": [x[2] for x in rows], "min_equity": [x[3] for x in rows],
                             "max_equity": [x[4] for x in rows],
                             "interval": [x[0] == 3 for x in rows]}, schema=THRESHOLDS_SCHEMA),
                   root / "thresholds.parquet")
    pq.write_table(pa.table({"round": [x[0] for x in rows], "bucket": [x[2] for x in rows],
                             "parent_bucket": [x[1] for x in rows], "hands": [1] * len(rows),
                             "weight": [1.0] * len(rows), "mean_equity": [0.5] * len(rows),
                             "centroid": [[0.5]] * len(rows)}, schema=CENTROIDS_SCHEMA),
                   root / "centroids.parquet")
    with session_scope(d) as s:
        s.merge(Abstraction(name="hx", method="eb", game="holdem", buckets="3,6,12,36",
                            built="3,6,12,36", seed=0, params="{}", errors="[]", timings="{}",
                            code_version="test", path=str(root),
                            created=dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)))
    # equity_river: the dealt river hands, with wins and ties that make their key
    river = np.unique(idx[3])
    k = key[river].astype(np.int64)
    n = len(river)
    cards = {f"hole{i + 1}": np.zeros(n, np.uint8) for i in range(2)}
    cards.update({f"board{i + 1}": np.zeros(n, np.uint8) for i in range(5)})
    t = pa.table({"idx": river.astype(np.uint32), **cards, "preflop": np.zeros(n, np.uint8),
                  "weight": np.ones(n, np.uint8), "wins": (k // 2).astype(np.uint16),
                  "ties": (k % 2).astype(np.uint16),
                  "losses": (990 - k // 2 - k % 2).astype(np.uint16),
                  "equity": k / 1980.0}, schema=EQUITY_RIVER_SCHEMA)
    staged, digest = storage.write_staged(d, "equity_river", "0000", t, EQUITY_RIVER_SCHEMA, "t")
    written = storage.WrittenPartition("equity_river", "0000", str(staged), n,
                                       staged.stat().st_size, digest, 0.0)
    storage.publish(d, written)
    record_partitions(d, [(written, "test")])
    return d, deals, buckets


@pytest.fixture(scope="module")
def holdem_solved(holdem_dir):
    d, deals, buckets = holdem_dir
    mp = pytest.MonkeyPatch()
    # the solver and the look-up library take the test's buckets (the stored tables are only
    # the dealt hands' rows)
    mp.setattr(holdem_run, "_buckets", lambda spec, ddir: buckets)
    assert cli.main(["--data-dir", str(d), "solve", "--game", "holdem", "--abstraction", "hx",
                     "--max-bets", "1", "--name", "hh", "--iterations", "300",
                     "--lbr-deals", "0", "--h2h-deals", "50"]) == 0
    create_views(d)
    yield d, deals, buckets
    mp.undo()


def test_holdem_bucket_of_every_round_agrees_with_holdem_buckets(holdem_dir):
    from solve.holdem import _kernels as HK
    from solve.holdem.buckets import indexer_tables

    d, deals, buckets = holdem_dir
    assert create_views(d)[1] == []
    tabs = indexer_tables()
    rnds = np.arange(len(deals)) % 4
    holes = ["".join(format_card(c) for c in deal[:2]) for deal in deals]
    boards = ["".join(format_card(c) for c in deal[2:2 + BOARD[r]]) for deal, r in zip(deals, rnds)]
    got = sql(d, "SELECT d.i, b.round, b.hand, b.bucket, b.buckets FROM "
                 "(SELECT unnest(range(?)) AS i, unnest(?::VARCHAR[]) AS hole, "
                 "unnest(?::VARCHAR[]) AS board) AS d, "
                 "LATERAL bucket_of('hx', hole := d.hole, board := d.board) AS b ORDER BY d.i",
              [len(deals), holes, boards])
    assert len(got) == len(deals)
    seen_gap = 0
    for (i, rnd, hand, bucket, seq), deal in zip(got, deals):
        assert rnd == rnds[i] + 1  # rounds from 1, as every output numbers them
        rnd -= 1
        out = np.zeros(4, np.int64)
        padded = np.zeros(5, np.int64)
        padded[:BOARD[rnd]] = deal[2:2 + BOARD[rnd]]
        HK.hand_buckets(int(deal[0]), int(deal[1]), padded, rnd + 1, buckets.lookup, tabs,
                        np.zeros(7, np.int64), out)
        assert seq == out[:rnd + 1].tolist() and bucket == seq[-1]
        assert hand == int(HandIndexer(GROUPS[rnd]).index(
            deal[None, :sum(GROUPS[rnd])].astype(np.uint8))[0])
        if rnd == 3:
            k = int(buckets.river_key[hand])
            seen_gap += not any(lo <= k / 1980 <= hi for *_, lo, hi in river_thresholds())
    assert seen_gap > 0  # river keys between and below the ranges were looked up too


def test_holdem_strategy_at_agrees_with_the_lookup_library_on_every_round(holdem_solved):
    d, deals, _ = holdem_solved
    look = open_lookup(d, "hh")
    histories = {r: h for r, h in
                 sql(d, "SELECT round, list(DISTINCT history ORDER BY history) FROM strategies "
                        "WHERE strategy = 'hh' GROUP BY round")}
    assert sorted(histories) == [1, 2, 3, 4]  # the view numbers rounds from 1
    rng = np.random.default_rng(9)
    cases = []
    for i, deal in enumerate(deals[:200]):
        rnd = i % 4
        hist = histories[rnd + 1][int(rng.integers(len(histories[rnd + 1])))]
        cases.append(("".join(format_card(c) for c in deal[:2]),
                      "".join(format_card(c) for c in deal[2:2 + BOARD[rnd]]), hist))
    got = sql(d, "SELECT d.i, s.round, s.player, s.bucket, s.action, s.probability FROM "
                 "(SELECT unnest(range(?)) AS i, unnest(?::VARCHAR[]) AS hole, "
                 "unnest(?::VARCHAR[]) AS board, unnest(?::VARCHAR[]) AS history) AS d, "
                 "LATERAL strategy_at('hh', hole := d.hole, board := d.board, "
                 "history := d.history) AS s",
              [len(cases), [c[0] for c in cases], [c[1] for c in cases], [c[2] for c in cases]])
    by_case = {}
    for i, rnd, player, bucket, action, p in got:
        by_case.setdefault(i, []).append((rnd, player, bucket, action, p))
    assert len(by_case) == len(cases)
    for i, (hole, board, hist) in enumerate(cases):
        want = look.at(hole, board, hist)
        rows = by_case[i]
        assert {(r[0], r[1], str(r[2])) for r in rows} == {  # both from 1
            (want.round, want.player, want.infoset.split(".")[-1])}
        assert [r[3] for r in rows] == want.actions
        # the table stores float32 probabilities
        assert [r[4] for r in rows] == pytest.approx(want.probabilities, abs=1e-6)


def test_a_single_holdem_lookup_reads_only_its_rows_and_answers_the_same(holdem_solved):
    # lookup() reads the hand's rows of the stored tables (solve.holdem.buckets.HandBuckets)
    # and the round's mean weight the strategy table stores; open_lookup loads every bucket
    # (here the test's, patched in) and sums the weights: the answers are equal, every round
    import os

    from solve.lookup import HoldemLookup, lookup

    d, deals, _ = holdem_solved
    full = open_lookup(d, "hh")
    histories = ("", "cc/", "cc/cc/", "cc/cc/cc/r")
    for i, deal in enumerate(deals[:40]):
        rnd = i % 4
        hole = "".join(format_card(c) for c in deal[:2])
        board = "".join(format_card(c) for c in deal[2:2 + BOARD[rnd]])
        one = HoldemLookup(d, "hh", single=True)
        assert one.hands is not None and one.policy is None  # the row-by-row path
        assert one.at(hole, board, histories[rnd]).as_dict() == \
            full.at(hole, board, histories[rnd]).as_dict()
        assert lookup(d, "hh", hole, board, histories[rnd]) == full.at(hole, board,
                                                                      histories[rnd])
    # a table older than the weights cannot vouch for them: the mean is computed instead
    table = d / "strategies" / "hh" / "strategy.parquet"
    weights = d / "strategies" / "hh" / "average.npy"
    st = table.stat()
    os.utime(table, ns=(st.st_atime_ns, weights.stat().st_mtime_ns - 10**9))
    try:
        hole = "".join(format_card(c) for c in deals[3][:2])
        board = "".join(format_card(c) for c in deals[3][2:])
        assert lookup(d, "hh", hole, board, "cc/cc/cc/r") == full.at(hole, board, "cc/cc/cc/r")
    finally:
        os.utime(table, ns=(st.st_atime_ns, st.st_mtime_ns))
    # a flop the test's tables do not hold: a one-line error, as the SQL macro gives
    dealt = set(HandIndexer(GROUPS[1]).index(deals[:, :5].astype(np.uint8)).tolist())
    rng = np.random.default_rng(2)
    cards = next(c for c in (rng.choice(52, 5, replace=False) for _ in range(1000))
                 if int(HandIndexer(GROUPS[1]).index(c.astype(np.uint8))) not in dealt)
    with pytest.raises(UserError, match="holds no round 2 bucket for this hand"):
        lookup(d, "hh", "".join(format_card(c) for c in cards[:2]),
               "".join(format_card(c) for c in cards[2:]), "cc/")


def test_holdem_macros_in_the_sandbox_and_the_preflop_grid(holdem_solved, capsys):
    d, deals, _ = holdem_solved
    hole = "".join(format_card(c) for c in deals[0][:2])
    board = "".join(format_card(c) for c in deals[0][2:])
    q = (f"SELECT * FROM strategy_at('hh', hole := '{hole}', board := '{board}', "
         "history := 'cc/cc/cc/r')")
    assert cli.main(["--data-dir", str(d), "sql", q, "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    want = open_lookup(d, "hh").at(hole, board, "cc/cc/cc/r")
    assert [r["action"] for r in rows] == want.actions == ["fold", "call"]
    assert [r["probability"] for r in rows] == pytest.approx(want.probabilities, abs=1e-6)
    # a hand the test's partial tables do not hold: an error, not an empty answer
    assert cli.main(["--data-dir", str(d), "sql", "SELECT * FROM strategy_at('hh', hole := "
                     f"'{hole}', board := '{board[2:8]}', history := 'cc/')"]) == 2
    assert "abstraction 'hx' holds no bucket for this hand" in capsys.readouterr().err
    # the preflop grid: one query joining hands (the small blind's first action; with one bet
    # a round the big blind's is the only one preflop)
    grid = sql(d, "SELECT h.hand, h.combos, s.probability FROM hands AS h, "
                  "LATERAL strategy_at('hh', hole := h.example) AS s WHERE s.action = 'call'")
    assert len(grid) == 169 and sum(r[1] for r in grid) == 1326
    look = open_lookup(d, "hh")
    for name, _, p in grid[::17]:
        example = sql(d, "SELECT example FROM hands WHERE hand = ?", [name])[0][0]
        assert p == pytest.approx(look.at(example).probabilities[1], abs=1e-6)


def test_a_damaged_equity_river_partition_is_refused_through_the_macros(holdem_dir, tmp_path,
                                                                        capsys):
    # the macros read equity_river behind a table macro: the sandbox still re-hashes the
    # partitions changed since they were verified before running the query
    import shutil

    src, deals, _ = holdem_dir
    d = tmp_path / "copy"
    shutil.copytree(src, d)
    hole = "".join(format_card(c) for c in deals[3][:2])
    board = "".join(format_card(c) for c in deals[3][2:])
    q = f"SELECT bucket FROM bucket_of('hx', hole := '{hole}', board := '{board}')"
    assert cli.main(["--data-dir", str(d), "sql", q]) == 0
    capsys.readouterr()
    part = storage.partition_path(d, "equity_river", "0000")
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    assert cli.main(["--data-dir", str(d), "sql", q]) == 2
    assert "damaged partition equity_river part-0000" in capsys.readouterr().err
