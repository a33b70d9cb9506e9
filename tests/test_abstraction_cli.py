"""build-abstraction / abstractions commands and the stored bucket tables."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import cli
from abstraction import store
from schema.abstraction import BUCKETS_SCHEMA, CENTROIDS_SCHEMA, THRESHOLDS_SCHEMA
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction


def run(tmp_path, *argv):
    return cli.main(["--data-dir", str(tmp_path), *argv])


def test_build_and_list(tmp_path, capsys):
    args = ["build-abstraction", "--buckets", "13,20,40", "--game", "rhode-island",
            "--method", "eb", "--name", "ri-eb", "--n-init", "1"]
    assert run(tmp_path, *args) == 0
    root = tmp_path / "abstractions" / "ri-eb"
    sizes = (13, 325, 9997)
    prev = None
    for r in range(3):
        t = pq.read_table(root / f"round{r}.parquet")
        assert t.schema.equals(BUCKETS_SCHEMA)
        hand = t["hand"].to_numpy()
        assert np.array_equal(hand, np.arange(sizes[r]))  # every hand exactly once
        bucket, parent = t["bucket"].to_numpy(), t["parent_bucket"].to_numpy()
        assert len(np.unique(bucket)) == (13, 20, 40)[r]
        # one parent per bucket
        assert len(np.unique(np.stack([bucket, parent], 1), axis=0)) == len(np.unique(bucket))
        if prev is not None:
            from etl.rhode_island import hand_tree
            assert np.array_equal(parent, prev[hand_tree()[r].parent])
        prev = bucket
    assert pq.read_table(root / "centroids.parquet").schema.equals(CENTROIDS_SCHEMA)
    assert pq.read_table(root / "thresholds.parquet").schema.equals(THRESHOLDS_SCHEMA)
    with session_scope(tmp_path) as s:
        row = s.get(Abstraction, "ri-eb")
        assert (row.method, row.game, row.built, row.seed) == ("eb", "rhode-island",
                                                                "13,20,40", 0)
        assert len(json.loads(row.errors)) == 3
    assert store.load_buckets("ri-eb", 2, tmp_path).num_rows == 9997
    capsys.readouterr()
    assert run(tmp_path, "abstractions") == 0
    assert "ri-eb" in capsys.readouterr().out
    # the name is taken unless --replace
    assert run(tmp_path, *args) == 2
    assert "exists" in capsys.readouterr().err
    assert run(tmp_path, *args, "--replace") == 0


@pytest.mark.parametrize("argv, message", [
    (["--buckets", "13,25"], "needs 3 counts"),
    (["--buckets", "13,12,125"], "fewer than round 0"),
    (["--buckets", "14,25,125"], "more than the 13 hands"),
    (["--buckets", "13,25,10000"], "more than the 9,997 hands"),
    (["--buckets", "13,25,125", "--method", "kmeans"], "unknown method"),
    (["--buckets", "13,x,125"], "comma-separated"),
    (["--buckets", "13,25,125", "--opponent-clusters", "4"], "applies to --method ochs"),
    (["--buckets", "13,25,125", "--method", "eb", "--intermediate", ",,40"],
     "potential-aware methods"),
])
def test_bad_requests(tmp_path, capsys, argv, message):
    assert run(tmp_path, "build-abstraction", "--game", "rhode-island", *argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and message in err and "\n" not in err


def test_method_games_are_checked_before_loading(tmp_path, capsys):
    assert run(tmp_path, "build-abstraction", "--method", "lossless") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: lossless is available for rhode-island only")
    # the strategy method (GS4, holdem since its preflop branch) reads its strategy first
    assert run(tmp_path, "build-abstraction", "--method", "strategy", "--buckets",
               "20,800,4800,28800", "--from-strategy", "x") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --from-strategy: no strategy 'x'") and "\n" not in err
    assert not (tmp_path / "tables").exists()  # nothing was computed


def test_holdem_bucket_checks_before_loading(tmp_path, capsys):
    assert run(tmp_path, "build-abstraction", "--buckets", "170,800,4800,28800") == 2
    assert "more than the 169 hands" in capsys.readouterr().err
    assert run(tmp_path, "build-abstraction", "--buckets", "20,800,4800") == 2
    assert "needs 4 counts" in capsys.readouterr().err


def test_lossless_cli(tmp_path, capsys):
    assert run(tmp_path, "build-abstraction", "--game", "rhode-island", "--method",
               "lossless") == 0
    out = capsys.readouterr().out
    assert "buckets 13,205,1774" in out and "visible: 13,325,7969 (board, bucket)" in out
    assert run(tmp_path, "abstractions") == 0
    line = [x for x in capsys.readouterr().out.splitlines() if "lossless" in x][0]
    assert "13,205,1774" in line and "public" in line
    from solve.abstractions import load_abstraction
    ab = load_abstraction("rhode-island-lossless-full", "rhode-island", tmp_path)
    assert ab.public_board and ab.n_buckets == (13, 325, 7969)


def test_public_board_flag(tmp_path, capsys):
    assert run(tmp_path, "build-abstraction", "--buckets", "13,20,40", "--game", "rhode-island",
               "--method", "eb", "--name", "pb", "--n-init", "1", "--public-board") == 0
    assert "(board, bucket) classes" in capsys.readouterr().out
    from solve.abstractions import load_abstraction
    ab = load_abstraction("pb", "rhode-island", tmp_path)
    assert ab.public_board and ab.n_buckets[1] > 20
    assert run(tmp_path, "build-abstraction", "--buckets", "20,800,4800,28800",
               "--public-board") == 2
    assert "rhode-island only" in capsys.readouterr().err


def test_sql_views(tmp_path, capsys):
    pytest.importorskip("queries.views")
    assert run(tmp_path, "build-abstraction", "--buckets", "13,20,40", "--game", "rhode-island",
               "--method", "eb2", "--name", "v", "--n-init", "1") == 0
    capsys.readouterr()
    assert run(tmp_path, "sql", "SELECT round, count(DISTINCT bucket) AS n FROM "
               "abstraction_buckets WHERE abstraction = 'v' GROUP BY round ORDER BY round",
               "--format", "csv") == 0
    out = capsys.readouterr().out.split()
    assert out[-3:] == ["0,13", "1,20", "2,40"]



def test_moved_data_dir_reads_its_own_files(tmp_path):
    # the catalog records paths inside the data directory relative to it; a row with an
    # absolute path (as older code wrote) still reads the moved directory's own files
    import shutil

    from schema.catalog import session_scope
    from schema.catalog_abstraction import Abstraction
    from solve.abstractions import load_abstraction

    a, b = tmp_path / "a", tmp_path / "b"
    assert run(a, "build-abstraction", "--game", "rhode-island", "--method", "eb",
               "--buckets", "13,20,40", "--name", "x", "--n-init", "1") == 0
    with session_scope(a) as s:
        row = s.get(Abstraction, "x")
        assert row.path == "abstractions/x"
        row.path = str(a / "abstractions" / "x")
    shutil.copytree(a, b)
    shutil.rmtree(a)
    assert load_abstraction("x", "rhode-island", b).n_buckets == (13, 20, 40)


def test_replace_keeps_the_old_build_until_the_new_one_is_written(tmp_path, monkeypatch):
    from abstraction import store

    args = ["build-abstraction", "--game", "rhode-island", "--method", "eb", "--buckets",
            "13,20,40", "--name", "x", "--n-init", "1"]
    assert run(tmp_path, *args) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "abstractions" / "x").iterdir()}

    def crash(*a, **k):
        raise KeyboardInterrupt  # e.g. Ctrl-C while the new thresholds table is written

    monkeypatch.setattr(store, "thresholds_table", crash)
    assert run(tmp_path, *args, "--buckets", "13,25,50", "--replace") == 130  # interrupted
    after = {p.name: p.read_bytes() for p in (tmp_path / "abstractions" / "x").iterdir()}
    assert after == before  # the old build is whole and still the one the catalog names
    monkeypatch.undo()
    assert run(tmp_path, *args, "--buckets", "13,25,50", "--replace") == 0
    assert store.load_buckets("x", 2, tmp_path).column("bucket").to_numpy().max() == 49
    assert sorted(p.name for p in (tmp_path / ".staging").iterdir()) == []
