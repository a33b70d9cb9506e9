"""One reader of strategy tables (issue 16): every writer names its table's format in the
Parquet metadata, ``solve.table.table_format`` reads it (and tells apart the tables written
before the key existed as they always were), and ``evaluate`` dispatches on it."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

import cli
from schema.errors import UserError
from schema.strategy import FORMAT_KEY
from solve.table import strategy_path, table_format

SOLVES = {  # strategy name -> (solve arguments, format)
    "k-cfr": (["--game", "kuhn", "--algorithm", "cfr+", "--iterations", "50"], "compiled"),
    "k-egt": (["--game", "kuhn", "--algorithm", "egt", "--iterations", "30"], "tree"),
    "k3": (["--game", "kuhn3", "--algorithm", "cfr+", "--iterations", "50"], "kuhn3"),
    "h": (["--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets", "2",
           "--iterations", "200", "--lbr-deals", "5", "--h2h-deals", "50"], "holdem"),
}


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    d = tmp_path_factory.mktemp("formats")
    for name, (argv, _) in SOLVES.items():
        assert cli.main(["--data-dir", str(d), "solve", *argv, "--name", name]) == 0
    return d


def _rewrite(path, metadata):
    table = pq.read_table(path)
    pq.write_table(table.replace_schema_metadata(metadata), path)


def _evaluate(d, name, capsys):
    capsys.readouterr()
    code = cli.main(["--data-dir", str(d), "evaluate", name])
    return code, capsys.readouterr()


@pytest.mark.parametrize("name", sorted(SOLVES))
def test_every_writer_names_its_format(solved, name):
    path = strategy_path(solved, name)
    assert pq.read_schema(path).metadata[FORMAT_KEY].decode() == SOLVES[name][1]
    assert table_format(path) == SOLVES[name][1]


@pytest.mark.parametrize("name", sorted(SOLVES))
def test_tables_written_before_the_key_read_the_same(solved, name, tmp_path, capsys):
    """A table without the format key (an older data directory) has the same format and
    evaluates to the same line."""
    code, before = _evaluate(solved, name, capsys)
    assert code == 0
    path = strategy_path(solved, name)
    original = pq.read_schema(path).metadata
    legacy = {k: v for k, v in original.items() if k != FORMAT_KEY}
    try:
        _rewrite(path, legacy)
        assert FORMAT_KEY not in (pq.read_schema(path).metadata or {})
        assert table_format(path) == SOLVES[name][1]
        code, after = _evaluate(solved, name, capsys)
        assert code == 0
        if SOLVES[name][1] != "holdem":  # holdem's evaluation samples; its line has timings
            assert after.out == before.out
    finally:
        _rewrite(path, original)


def test_an_unknown_format_is_a_one_line_error(solved, tmp_path, capsys):
    path = tmp_path / "strategy.parquet"
    table = pq.read_table(strategy_path(solved, "k-cfr"))
    pq.write_table(table.replace_schema_metadata({FORMAT_KEY: b"hologram"}), path)
    with pytest.raises(UserError, match="unknown format 'hologram'"):
        table_format(path)
    assert cli.main(["--data-dir", str(solved), "evaluate", str(path)]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown format" in err
