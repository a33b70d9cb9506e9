"""Look-up at real cards (issue 18, item 1): ``cli.py strategy NAME --hole .. --board ..
--history ..`` maps a concrete situation to its information set and reads the stored table."""

import itertools
import json

import pyarrow.parquet as pq
import pytest

import cli
from solve.games.rules import leduc
from solve.lookup import StrategyLookup
from solve.table import strategy_path


@pytest.fixture(scope="module")
def leduc_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("leduc")
    assert cli.main(["--data-dir", str(d), "solve", "--game", "leduc", "--algorithm", "cfr+",
                     "--iterations", "200"]) == 0
    return d


def test_lookup_agrees_with_the_stored_table_on_every_leduc_information_set(leduc_dir):
    rows = pq.read_table(strategy_path(leduc_dir, "leduc-full-cfr+")).to_pylist()
    table = {}
    for r in rows:
        table.setdefault((r["cards"], r["history"]), {})[r["action"]] = r["probability"]
    look = StrategyLookup(leduc_dir, "leduc-full-cfr+")
    rules = leduc()
    names = [rules.card_str(c) for c in range(rules.n_cards)]
    seen = set()
    for hist in sorted({h for _, h in table}):
        deals = (itertools.permutations(names, 2) if "/" in hist  # every hole and public card
                 else ((hole, "") for hole in names))             # round 1: no public card yet
        for hole, board in deals:
            got = look.at(hole, board, hist)
            key = (got.infoset, hist)
            assert key in table, key
            assert dict(zip(got.actions, got.probabilities)) == pytest.approx(table[key])
            assert got.infoset.startswith(hole[0])  # the rank is kept; suits canonical
            seen.add(key)
    assert seen == set(table)  # every information set of the table is reached by real cards


def test_strategy_cli_table_and_json(leduc_dir, capsys):
    assert cli.main(["--data-dir", str(leduc_dir), "strategy", "leduc-full-cfr+", "--hole", "Qb",
                     "--board", "Ka", "--history", "rc/r", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["player"] == 2 and got["round"] == 2 and got["actions"] == ["fold", "call", "raise"]
    assert sum(got["probabilities"]) == pytest.approx(1.0) and got["reached"] in (True, False)
    assert cli.main(["--data-dir", str(leduc_dir), "strategy", "leduc-full-cfr+", "--hole", "K"
                     "a"]) == 0
    out = capsys.readouterr().out
    assert "player 1 to act in round 1" in out and "check" in out and "bet" in out


@pytest.mark.parametrize("argv, msg", [
    (["--hole", "Zz"], "is not a card of leduc"),
    (["--hole", "Qb", "--board", "Qb", "--history", "rc/"], "card Qb appears twice"),
    (["--hole", "QbKa"], "deals 1 private card(s), got 2"),
    (["--hole", "Qb", "--history", "rc/"], "has 1 public card(s), got 0"),
    (["--hole", "Qb", "--board", "Ka", "--history", "rc"], "has 0 public card(s), got 1"),
    (["--hole", "Qb", "--history", "rx"], "'x' is not an action"),
    (["--hole", "Qb", "--board", "Ka", "--history", "rc/rrrr"], "is not a decision point"),
    (["--hole", "Qb", "--board", "Ka", "--history", "rc/rf"], "is not a decision point"),
    (["--hole", "Qb", "--board", "KaJa", "--history", "rc/cc/"], "has 2 betting round(s)"),
])
def test_bad_situations_are_one_line_errors(leduc_dir, capsys, argv, msg):
    assert cli.main(["--data-dir", str(leduc_dir), "strategy", "leduc-full-cfr+", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and msg in err and err.count("\n") == 1


def test_unknown_strategy_is_a_one_line_error(tmp_path, capsys):
    assert cli.main(["--data-dir", str(tmp_path), "strategy", "nope", "--hole", "As"]) == 2
    assert capsys.readouterr().err.startswith("error: no strategy 'nope'")


def test_rhode_island_abstraction_lookup_finds_the_buckets_of_the_canonical_hand(tmp_path, capsys):
    # the bucket sequence found for real cards is the abstraction's bucket of each round's
    # canonical hand, read straight from its bucket tables
    import numpy as np

    from etl.rhode_island import hand_tree
    from solve.games.rules import rhode_island

    d = str(tmp_path)
    assert cli.main(["--data-dir", d, "build-abstraction", "--game", "rhode-island", "--method",
                     "eb", "--buckets", "13,20,40", "--name", "ab", "--n-init", "1"]) == 0
    assert cli.main(["--data-dir", d, "solve", "--game", "rhode-island", "--abstraction", "ab",
                     "--algorithm", "dcfr", "--iterations", "10"]) == 0
    capsys.readouterr()
    buckets = {}
    for r in range(3):
        t = pq.read_table(tmp_path / "abstractions" / "ab" / f"round{r}.parquet").to_pydict()
        buckets[r] = dict(zip(t["hand"], t["bucket"]))
    tree = hand_tree()
    rules = rhode_island()
    look = StrategyLookup(d, "rhode-island-ab-dcfr")
    rng = np.random.default_rng(7)
    for _ in range(300):
        cards = [int(c) for c in rng.choice(52, 3, replace=False)]
        rnd = int(rng.integers(0, 3))
        history = ["", "rc/", "rc/cc/"][rnd] + ["", "r", "c"][int(rng.integers(0, 3))]
        if rnd == 0:
            history = history or "c"  # player 2 holds the hole card: "c" is their turn
            hole_player = 2
        else:
            hole_player = 1 if len(history.split("/")[-1]) % 2 == 0 else 2
        got = look.at(rules.card_str(cards[0]), "".join(rules.card_str(c) for c in cards[1:rnd + 1]),
                      history)
        assert got.player == hole_player
        want = [buckets[r][int(tree[r].index_of(np.array([cards[:r + 1]]))[0])]
                for r in range(rnd + 1)]
        assert got.infoset == ".".join(str(b) for b in want)


def test_holdem_lookup_finds_the_abstraction_buckets_and_the_stored_probabilities(tmp_path,
                                                                                  capsys):
    # sampled deals: the bucket of each round is the abstraction's bucket of the canonical hand
    # index (etl.isomorphism, independently of the solver's kernel), the probabilities those of
    # the stored strategy table at (bucket sequence, history)
    import numpy as np

    from etl.cards import format_card
    from etl.isomorphism import HandIndexer
    from solve.holdem.buckets import synthetic_buckets
    from solve.lookup import open_lookup

    d = str(tmp_path)
    assert cli.main(["--data-dir", d, "solve", "--game", "holdem", "--abstraction",
                     "synthetic:3,6", "--max-bets", "2", "--name", "h", "--iterations", "3000",
                     "--lbr-deals", "20", "--h2h-deals", "500"]) == 0
    capsys.readouterr()
    rows = pq.read_table(strategy_path(tmp_path, "h")).to_pylist()
    table = {}
    for r in rows:
        table.setdefault((r["cards"], r["history"]), {})[r["action"]] = r["probability"]
    buckets = synthetic_buckets((3, 6), n_rounds=2)
    indexers = [HandIndexer((2,)), HandIndexer((2, 3))]
    look = open_lookup(d, "h")
    histories = sorted({h for _, h in table})
    rng = np.random.default_rng(3)
    for _ in range(300):
        cards = [int(c) for c in rng.choice(52, 5, replace=False)]
        history = histories[int(rng.integers(len(histories)))]
        rnd = history.count("/")
        board = cards[2:5] if rnd else []
        got = look.at("".join(format_card(c) for c in cards[:2]),
                      "".join(format_card(c) for c in board), history)
        want = [int(buckets.arrays[r][int(indexers[r].index(np.array([cards[:2 + 3 * r]],
                                                                          np.uint8))[0])])
                for r in range(rnd + 1)]
        assert got.infoset == ".".join(map(str, want))
        assert dict(zip(got.actions, got.probabilities)) == pytest.approx(
            table[(got.infoset, history)], abs=1e-6)
        assert got.round == rnd + 1
    assert cli.main(["--data-dir", d, "strategy", "h", "--hole", "AsKd", "--board", "7c8h9s",
                     "--history", "rc/r", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["game"] == "holdem" and got["player"] == 1 and got["actions"] == ["fold", "call",
                                                                                  "raise"]
    assert cli.main(["--data-dir", d, "strategy", "h", "--hole", "AsKd", "--board", "7c8h",
                     "--history", "rc/"]) == 2
    assert "has 3 public card(s), got 2" in capsys.readouterr().err


def test_range_grid_is_the_mean_of_the_lookups_of_each_class(tmp_path, capsys):
    import numpy as np

    from queries.range_grid import cell_name, range_grid
    from solve.lookup import open_lookup

    d = str(tmp_path)
    assert cli.main(["--data-dir", d, "solve", "--game", "holdem", "--abstraction",
                     "synthetic:3,6", "--max-bets", "2", "--name", "h", "--iterations", "2000",
                     "--lbr-deals", "20", "--h2h-deals", "500"]) == 0
    grid = range_grid(d, "h", "rc/", "7c8h9s")
    combos = np.array(grid["combos"])
    assert combos.sum() == 1176  # C(49, 2): the hands the flop does not block
    cells = grid["cells"]
    assert cells[0][0] == "AA" and cells[0][1] == "AKs" and cells[1][0] == "AKo"
    assert cells[12][12] == "22" and cell_name(5, 3) == "J9o"
    assert combos[0][0] == 6 and combos[0][1] == 4 and combos[1][0] == 12
    assert combos[5][5] == 3 and combos[6][4] == 9  # 9s, 8h on the board: 99 and T8o lose combos
    look = open_lookup(d, "h")
    probs = np.array(grid["probabilities"])
    for hole, (r, c) in {"AsKs": (0, 1), "AhKd": (1, 0), "9c9d": (5, 5)}.items():
        same = {"AsKs": ["AcKc", "AdKd", "AhKh", "AsKs"],
                "AhKd": [a + b for a in ("Ac", "Ad", "Ah", "As") for b in ("Kc", "Kd", "Kh", "Ks")
                         if a[1] != b[1]],
                "9c9d": ["9c9d", "9c9h", "9d9h"]}[hole]
        want = np.mean([look.at(h, "7c8h9s", "rc/").probabilities for h in same], axis=0)
        assert probs[:, r, c] == pytest.approx(want)
    out = tmp_path / "range.png"
    assert cli.main(["--data-dir", d, "plot-range", "h", "--history", "rc/", "--board",
                     "7c8h9s", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "player 2 at history 'rc/'" in capsys.readouterr().out
    assert cli.main(["--data-dir", d, "solve", "--game", "kuhn", "--iterations", "10"]) == 0
    assert cli.main(["--data-dir", d, "plot-range", "kuhn-full-cfr+"]) == 2
    assert "range grids are for Texas Hold'em" in capsys.readouterr().err
