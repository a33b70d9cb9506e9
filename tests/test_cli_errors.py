"""Bad input to ``cli.py`` ends in one line ``error: ...`` and exit status 2, never a traceback,
and before anything is written (the robustness sweep of the commands; small, cheap inputs)."""

from __future__ import annotations

import pytest


def _main(capsys, monkeypatch, data_dir, *args) -> tuple[int, str, str]:
    """``cli.py`` in this process (a subprocess costs seconds of imports each)."""
    import cli

    monkeypatch.setenv("POKER_DATA_DIR", str(data_dir))  # restored after the test
    capsys.readouterr()
    rc = cli.main(["--data-dir", str(data_dir), *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _one_error(rc: int, err: str, starts: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith(f"error: {starts}"), err
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [("abstractions",), ("solve", "--game", "kuhn", "--iterations", "2"),
                                  ("compare", "--game", "kuhn", "x"), ("sql", "SELECT 1")])
def test_data_dir_is_a_file_or_under_one(tmp_path, capsys, monkeypatch, args):
    a_file = tmp_path / "plain-file"
    a_file.write_text("x")
    for data_dir in (a_file, a_file / "sub"):
        rc, out, err = _main(capsys, monkeypatch, data_dir, *args)
        _one_error(rc, err, f"data directory {data_dir} is not a directory")
    assert a_file.read_text() == "x"


def test_os_error_is_one_line(tmp_path, capsys, monkeypatch):
    import schema.catalog

    def denied(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "poker.duckdb"))

    monkeypatch.setattr(schema.catalog, "make_engine", denied)
    rc, out, err = _main(capsys, monkeypatch, tmp_path, "abstractions")
    _one_error(rc, err, f"Permission denied: {tmp_path / 'poker.duckdb'}")


@pytest.mark.parametrize("args", [("abstractions",), ("etl", "status", "--quick"), ("sql", "SELECT 1"),
                                  ("solve", "--game", "kuhn", "--iterations", "2"),
                                  ("solve", "--game", "kuhn-blinds", "--algorithm", "lp"),
                                  ("solve", "--game", "holdem", "--abstraction", "synthetic:3",
                                   "--iterations", "2")])
def test_damaged_catalog(tmp_path, capsys, monkeypatch, args):
    (tmp_path / "poker.duckdb").write_bytes(b"not a duckdb file " * 500)
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args)
    _one_error(rc, err, f"cannot use the catalog {tmp_path / 'poker.duckdb'}")
    assert not (tmp_path / "strategies").exists()  # checked before solving, nothing written


@pytest.mark.parametrize("args", [
    ("solve", "--game", "kuhn", "--time-limit", "nan"),  # ran forever
    ("solve", "--game", "kuhn", "--target-exploitability", "nan", "--iterations", "2"),
    ("solve", "--game", "holdem", "--abstraction", "synthetic:3", "--time-limit", "inf"),  # traceback
    ("compare", "--game", "kuhn", "x", "--target", "nan"),
    ("compare", "--game", "kuhn", "x", "--equilibrium-time-limit", "inf"),
    ("experiment", "rhode-island-granularity", "--time-limit", "nan"),
])
def test_non_finite_numbers(tmp_path, capsys, monkeypatch, args):
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args)
    _one_error(rc, err, "--")
    assert "positive and finite" in err
    assert not (tmp_path / "strategies").exists()


def test_report_dir_checked_before_any_work(tmp_path, capsys, monkeypatch):
    a_file = tmp_path / "plain-file"
    a_file.write_text("x")
    data = tmp_path / "data"
    for args in (("compare", "--game", "kuhn", "kuhn-full-lp", "--report", str(a_file / "r")),
                 ("experiment", "rhode-island-granularity", "--report", str(a_file))):
        rc, out, err = _main(capsys, monkeypatch, data, *args)
        _one_error(rc, err, "--report")
    assert not (data / "strategies").exists() and not (data / "abstractions").exists()


def test_experiment_builds_abstractions_like_the_cli(tmp_path):
    # queries.builds.build_abstraction (used by `experiment` on a fresh data dir) failed with
    # AttributeError: 'Namespace' object has no attribute 'public_board'
    from abstraction import store
    from queries.builds import build_abstraction

    build_abstraction(tmp_path, "eb", "13,25,125", "ri-eb", seed=0)
    assert store.exists("ri-eb", tmp_path)
    row = {r["name"]: r for r in store.list_abstractions(tmp_path)}["ri-eb"]
    assert row["public_board"] is False


def test_damaged_abstraction_table(tmp_path, capsys, monkeypatch):
    rc, out, err = _main(capsys, monkeypatch, tmp_path, "build-abstraction", "--game",
                         "rhode-island", "--method", "eb", "--buckets", "13,25,125", "--name", "e")
    assert rc == 0, err
    part = tmp_path / "abstractions" / "e" / "round1.parquet"
    part.write_bytes(part.read_bytes()[:100])
    rc, out, err = _main(capsys, monkeypatch, tmp_path, "solve", "--game", "rhode-island",
                         "--abstraction", "e", "--iterations", "2")
    _one_error(rc, err, "abstraction 'e' has a damaged round1.parquet")
    assert not (tmp_path / "strategies").exists()


@pytest.mark.parametrize("args, starts", [
    (("etl", "--option", "bins=x"), "--option: bins must be an integer"),  # was a traceback
    (("etl", "--tables", ""), "--tables needs at least one name"),  # was: build every table
    (("etl", "--tables", ",,"), "--tables needs at least one name"),  # was: build nothing, exit 0
    (("etl", "status", "--tables", " , "), "--tables needs at least one name"),
    (("etl", "verify", "--checks", ""), "--checks needs at least one name"),  # was: run all
])
def test_etl_options(tmp_path, capsys, monkeypatch, args, starts):
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args)
    _one_error(rc, err, starts)
    assert not (tmp_path / "tables").exists()


def test_evaluate_foreign_parquet_one_line(tmp_path, capsys, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), path)
    rc, out, err = _main(capsys, monkeypatch, tmp_path, "evaluate", str(path))
    _one_error(rc, err, f"cannot read strategy table {path}")


def test_compare_deleted_evaluations(tmp_path, capsys, monkeypatch):
    rc, out, err = _main(capsys, monkeypatch, tmp_path, "solve", "--game", "kuhn", "--algorithm", "lp")
    assert rc == 0, err
    args = ("compare", "--game", "kuhn", "kuhn-full-lp", "--no-progress")
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args)
    assert rc == 0, err
    files = sorted((tmp_path / "evaluations").glob("*.parquet"))
    assert files
    files[0].unlink()  # its evaluations are computed again, not reported as stored
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args)
    assert rc == 0, err
    assert len(list((tmp_path / "evaluations").glob("*.parquet"))) == len(files)
    for f in (tmp_path / "evaluations").glob("*.parquet"):
        f.unlink()
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args, "--report-only")
    _one_error(rc, err, "no evaluations stored")


@pytest.mark.parametrize("args, starts", [
    (("solve", "--game", "kuhn", "--iterations", "x"), "argument --iterations: invalid int value"),
    (("nope",), "argument COMMAND: invalid choice: 'nope'"),
    (("compare", "--game", "kuhn"), "the following arguments are required: names"),
])
def test_argparse_errors_are_one_line(tmp_path, capsys, monkeypatch, args, starts):
    # was: the whole usage (15 lines for solve), then 'cli.py solve: error: ...'
    with pytest.raises(SystemExit) as exc:
        _main(capsys, monkeypatch, tmp_path, *args)
    _one_error(exc.value.code, capsys.readouterr().err, starts)


@pytest.mark.parametrize("args, starts", [
    (("sql", ""), "no SQL statement given"),  # was: exit 0, an empty line
    (("sql", " ; "), "no SQL statement given"),
    (("solve", "--game", "rhode-island", "--abstraction", "a", "--algorithm", "egt"),
     "--algorithm egt solves the classic game trees, without --abstraction"),
    (("build-abstraction", "--game", "rhode-island", "--method", "eb", "--buckets", "13,25,125",
      "--intermediate", ",,200"), "--intermediate applies to the potential-aware methods (pa, pa-emd, ochs), not eb"),  # was ignored
])
def test_conflicting_or_empty_input(tmp_path, capsys, monkeypatch, args, starts):
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args)
    _one_error(rc, err, starts)
    assert not (tmp_path / "abstractions").exists()


def test_interrupted_checkpoint_leaves_no_temp_file(tmp_path, capsys, monkeypatch):
    # Ctrl-C while a checkpoint was written left checkpoint.npz.tmp.npz beside it
    import numpy as np

    import solve.algorithms.cfr

    rc, out, err = _main(capsys, monkeypatch, tmp_path, "solve", "--game", "kuhn", "--iterations",
                         "20", "--check-every", "10")
    assert rc == 0, err
    folder = tmp_path / "strategies" / "kuhn-full-cfr+"
    before = (folder / "checkpoint.npz").read_bytes()
    table = (folder / "strategy.parquet").read_bytes()

    real_savez = np.savez

    def savez_then_interrupt(file, **arrays):
        real_savez(file, **arrays)
        raise KeyboardInterrupt

    monkeypatch.setattr(solve.algorithms.cfr.np, "savez", savez_then_interrupt)
    rc, out, err = _main(capsys, monkeypatch, tmp_path, "solve", "--game", "kuhn", "--iterations",
                         "40", "--check-every", "10", "--resume")
    assert rc == 130 and "interrupted" in err
    monkeypatch.undo()
    assert sorted(p.name for p in folder.iterdir()) == ["checkpoint.npz", "strategy.parquet"]
    assert (folder / "checkpoint.npz").read_bytes() == before
    assert (folder / "strategy.parquet").read_bytes() == table


def test_empty_data_dir_refused(tmp_path, capsys, monkeypatch):
    # --data-dir "" (e.g. an unset shell variable) silently meant ./data
    import cli

    monkeypatch.setenv("POKER_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as exc:
        cli.main(["--data-dir", "", "abstractions"])
    _one_error(exc.value.code, capsys.readouterr().err, "--data-dir is empty")


def test_resume_from_truncated_checkpoint(tmp_path, capsys, monkeypatch):
    # was: zipfile.BadZipFile traceback
    args = ("solve", "--game", "kuhn", "--iterations", "20", "--check-every", "10")
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args)
    assert rc == 0, err
    ckpt = tmp_path / "strategies" / "kuhn-full-cfr+" / "checkpoint.npz"
    ckpt.write_bytes(ckpt.read_bytes()[:300])
    rc, out, err = _main(capsys, monkeypatch, tmp_path, *args, "--resume")
    _one_error(rc, err, "cannot resume 'kuhn-full-cfr+': damaged checkpoint")
