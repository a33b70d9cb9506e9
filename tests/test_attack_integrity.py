"""Issue 50, integrity: a damaged or missing partition is an error whatever the spelling of
the read (defects 9 and 10), and a strategy whose files cannot be read does not break the
views of the others. Toy ETL tables of ``test_etl_runner``."""

from __future__ import annotations

from pathlib import Path

import pytest

from etl import runner, storage
from queries import sandbox
from queries.commands import run_query
from schema.errors import UserError
from test_data_safety import flip
from test_etl_runner import N_TOY, ROWS_PER_PART, toy_tables

TOTAL = N_TOY * ROWS_PER_PART


@pytest.fixture()
def data(tmp_path) -> Path:
    d = tmp_path / "data"
    runner.run(d, toy_tables(), workers=1, progress=False)
    return d


# every way of reading the toy table's files that bypassed the check
SPELLINGS = [
    "SELECT sum(i) FROM TOY",
    'SELECT sum(i) FROM "Toy"',
    'SELECT sum(i) FROM main."TOY"',
    "WITH t AS (SELECT * FROM toy) SELECT sum(i) FROM t",
    "SELECT sum(i) FROM read_parquet('tables/toy/*.parquet')",
    "SELECT sum(i) FROM read_parquet('./tables//toy/part-0*.parquet')",
    "SELECT sum(i) FROM read_parquet('tables/../tables/toy/part-03.parquet')",
    "SELECT sum(i) FROM read_parquet(['tables/toy/part-00.parquet', 'tables/toy/part-03.parquet'])",
    "SELECT count(*) FROM read_parquet('tables/*/*.parquet', union_by_name = true)",
    "SELECT count(*) FROM read_parquet('*/toy/*.parquet')",
    "SELECT count(*) FROM read_parquet('{d}/tables/toy/part-03.parquet')",
    "SELECT count(*) FROM 'tables/toy/part-03.parquet'",
    "SELECT count(*) FROM read_parquet('tables/' || 'toy/part-03.parquet')",
    "SELECT count(*) FROM parquet_scan('tables/toy/part-03.parquet')",
    "SELECT count(*) FROM read_blob('tables/toy/*')",
    "SELECT count(*) FROM (SELECT 1 FROM glob('tables/toy/*')) g, (SELECT * FROM Toy) t",
]


@pytest.mark.parametrize("query", SPELLINGS)
def test_a_damaged_partition_is_refused_however_it_is_read(data, query):
    flip(storage.partition_path(data, "toy", "03"))
    with pytest.raises(UserError, match="damaged partition toy part-03"):
        sandbox.run(data, query.format(d=data))


def test_damage_still_blocks_only_what_reads_it(data):
    flip(storage.partition_path(data, "toy", "03"))
    assert sandbox.run(data, "SELECT 42 AS x").column("x")[0].as_py() == 42
    assert sandbox.run(data, "SELECT count(*) AS n FROM Toy_Sum").column("n")[0].as_py() == 1
    got = sandbox.run(data, "SELECT count(*) AS n FROM read_parquet('tables/toy_sum/*.parquet')")
    assert got.column("n")[0].as_py() == 1


def test_a_missing_partition_is_an_error_naming_it(data):
    storage.partition_path(data, "toy", "02").unlink()
    for q in ("SELECT count(*) FROM toy", "SELECT count(*) FROM TOY",
              "SELECT count(*) FROM read_parquet('tables/toy/*.parquet')"):
        with pytest.raises(UserError, match="missing partition toy part-02.*etl --tables toy"):
            run_query(data, q)  # the views refreshed first, as `cli.py sql` does
    assert run_query(data, "SELECT count(*) AS n FROM toy_sum").column("n")[0].as_py() == 1
    runner.run(data, toy_tables(), workers=1, progress=False)
    assert run_query(data, "SELECT count(*) AS n FROM toy").column("n")[0].as_py() == TOTAL


def test_an_unreadable_strategy_is_left_out_of_the_views_with_a_warning(tmp_path):
    import subprocess
    import sys

    import cli
    from test_data_safety import ROOT, _env

    d = tmp_path / "data"
    assert cli.main(["--data-dir", str(d), "solve", "--game", "kuhn", "--algorithm", "lp"]) == 0
    assert cli.main(["--data-dir", str(d), "solve", "--game", "kuhn", "--algorithm", "cfr",
                     "--iterations", "5"]) == 0
    bad = d / "strategies" / "kuhn-full-cfr" / "strategy.parquet"
    bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])  # truncated
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(d), "sql",
                           "SELECT DISTINCT strategy FROM strategies", "--format", "csv"],
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["strategy", "kuhn-full-lp"]
    assert "warning: strategy kuhn-full-cfr left out of the strategies view" in proc.stderr
    assert bad.exists()  # left where it is, not moved or deleted
