"""CLI: solve / evaluate, strategy tables in DuckDB, catalog rows, one-line errors."""

import pyarrow.parquet as pq
import pytest

import cli
from schema.catalog import session_scope
from schema.catalog_solve import SolveRun


def run(tmp_path, *argv):
    return cli.main(["--data-dir", str(tmp_path), *argv])


def test_solve_and_evaluate_kuhn_lp(tmp_path, capsys):
    assert run(tmp_path, "solve", "--game", "kuhn", "--algorithm", "lp", "--name", "k") == 0
    assert "value=-0.0555556" in capsys.readouterr().out
    assert run(tmp_path, "evaluate", "k") == 0
    out = capsys.readouterr().out
    assert "value=-0.0555555556" in out and "exploitability=" in out
    with session_scope(tmp_path) as s:
        row = s.get(SolveRun, "k")
        assert (row.game, row.algorithm, row.iterations) == ("kuhn", "lp", 0)
        assert row.exploitability == pytest.approx(0.0, abs=1e-9)
    views = pytest.importorskip("queries.views")
    with views.connect(tmp_path) as con:  # solve refreshed the views (queries/strategies.sql)
        n, = con.execute("select count(*) from strategies where game = 'kuhn'").fetchone()
        assert n == 24  # 12 infosets x 2 actions
        total, = con.execute("select max(abs(s - 1)) from (select sum(probability) s from strategies "
                             "group by strategy, player, cards, history)").fetchone()
        assert total < 1e-12


def test_cfr_resume_and_target(tmp_path, capsys):
    assert run(tmp_path, "solve", "--game", "leduc", "--algorithm", "cfr+", "--iterations", "40",
               "--check-every", "20", "--name", "l") == 0
    assert run(tmp_path, "solve", "--game", "leduc", "--algorithm", "cfr+", "--iterations", "60",
               "--check-every", "20", "--name", "l", "--resume") == 0
    assert "iterations=60" in capsys.readouterr().out
    assert run(tmp_path, "solve", "--game", "leduc", "--algorithm", "dcfr",
               "--target-exploitability", "0.05", "--check-every", "10", "--name", "t") == 0
    out = capsys.readouterr().out
    expl = float(out.split("exploitability=")[1].split()[0])
    assert expl < 0.05


def test_kuhn3_cli(tmp_path, capsys):
    assert run(tmp_path, "solve", "--game", "kuhn3", "--algorithm", "cfr+", "--iterations", "300",
               "--name", "k3") == 0
    capsys.readouterr()
    assert run(tmp_path, "evaluate", "k3") == 0
    nc = float(capsys.readouterr().out.split("nash_conv=")[1])
    assert nc < 1e-2


@pytest.mark.parametrize("argv,msg", [
    (["solve", "--game", "chess"], "unknown game"),
    (["solve", "--game", "kuhn", "--algorithm", "magic"], "unknown algorithm"),
    (["solve", "--game", "rhode-island", "--abstraction", "nope"], "no abstraction named"),
    (["solve", "--game", "leduc", "--abstraction", "x"], "rhode-island only"),
    (["solve", "--game", "kuhn", "--resume", "--name", "zz"], "no checkpoint"),
    (["evaluate", "missing"], "no strategy"),
])
def test_errors_are_one_line(tmp_path, capsys, argv, msg):
    assert run(tmp_path, *argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and msg in err and "\n" not in err


def test_strategy_for_another_game(tmp_path, capsys):
    assert run(tmp_path, "solve", "--game", "kuhn", "--algorithm", "lp", "--name", "k") == 0
    path = tmp_path / "strategies" / "k" / "strategy.parquet"
    t = pq.read_table(path)
    import pyarrow as pa
    import pyarrow.compute as pc
    t = t.set_column(t.schema.get_field_index("game"), "game",
                     pc.cast(pa.array(["leduc"] * t.num_rows), t.schema.field("game").type))
    bad = tmp_path / "bad.parquet"
    pq.write_table(t, bad)
    capsys.readouterr()
    assert run(tmp_path, "evaluate", str(bad)) == 2
    assert "does not match" in capsys.readouterr().err
