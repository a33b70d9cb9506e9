"""A new user's first hour (issue 47): what the README's first command leaves must report
healthy, and its next commands must work from the project root with the default ``./data``.

The toy ETL tables of ``test_etl_runner`` stand in for the equity tables.
"""

from __future__ import annotations

import json

from etl import runner, storage
from test_data_safety import cli
from test_etl_runner import toy_tables


def test_status_is_healthy_when_a_table_was_never_asked_for(tmp_path):
    data = tmp_path / "data"
    runner.run(data, toy_tables(), names=["toy"], workers=1, progress=False)
    proc = cli(data, "etl", "status")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "not built (never asked for" in proc.stdout and "--tables toy_sum" in proc.stdout
    doc = json.loads(cli(data, "etl", "status", "--format", "json").stdout)
    assert doc["exit_status"] == 0 and doc["not_built"] == ["toy_sum"]
    assert [t["name"] for t in doc["tables"]] == ["toy"]
    # Asked for by name, a table never built is work to do (exit 3), as before.
    assert cli(data, "etl", "status", "--tables", "toy_sum").returncode == 3
    # A table in use with a partition gone is still a fault.
    storage.partition_path(data, "toy", "02").unlink()
    proc = cli(data, "etl", "status")
    assert proc.returncode == 3 and "missing" in proc.stdout


def test_a_finished_holdem_run_names_its_overheads_and_removes_its_checkpoint(tmp_path, capsys):
    import cli as entry

    args = ["--data-dir", str(tmp_path), "solve", "--game", "holdem", "--abstraction",
            "synthetic:3,6", "--max-bets", "2", "--lbr-deals", "20", "--h2h-deals", "100",
            "--iterations", "40", "--checkpoint-minutes", "0.00001", "--keep-averages"]
    assert entry.main(args + ["--name", "gone"]) == 0
    out = capsys.readouterr().out
    summary = next(x for x in out.splitlines() if x.startswith("gone: ") and " wall = " in x)
    for part in ("solving", "loading", "evaluating", "checkpointing", "storing"):
        assert f"{part} " in summary
    assert "on disk in" in out and "checkpoint removed" in out
    ckpt = tmp_path / "strategies" / "gone" / "checkpoint"
    assert not (ckpt / "state.json").exists() and not (ckpt / "regrets.npy").exists()
    assert list(ckpt.glob("average-*.npy"))  # what --keep-averages asked for stays
    assert entry.main(args + ["--name", "gone", "--resume", "--iterations", "60"]) == 2
    assert "--keep-checkpoint" in capsys.readouterr().err
    # kept on request, and then a later --resume continues it
    assert entry.main(args + ["--name", "kept", "--keep-checkpoint"]) == 0
    assert "checkpoint kept for --resume" in capsys.readouterr().out
    assert (tmp_path / "strategies" / "kept" / "checkpoint" / "state.json").exists()
    assert entry.main(args + ["--name", "kept", "--resume", "--iterations", "60"]) == 0
    assert "iterations=60" in capsys.readouterr().out


def test_api_docs_page_needs_no_internet(tmp_path):
    """/docs loads Swagger UI's files from the app itself, not from a CDN (a blank page
    offline): every script and stylesheet the page names is served by the app."""
    import re

    from fastapi.testclient import TestClient

    from queries.api import create_app

    client = TestClient(create_app(tmp_path))
    page = client.get("/docs")
    assert page.status_code == 200
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets)
    for asset in assets:
        assert asset.startswith("/"), f"/docs loads {asset} from outside the app"
        got = client.get(asset)
        assert got.status_code == 200 and len(got.content) > 1000, asset
    assert client.get("/openapi.json").status_code == 200


def test_strategies_lists_what_was_solved_in_every_format(tmp_path, capsys):
    import csv
    import io

    import cli as entry

    d = str(tmp_path)
    assert entry.main(["--data-dir", d, "strategies"]) == 0
    assert "no strategies stored" in capsys.readouterr().out
    assert entry.main(["--data-dir", d, "solve", "--game", "kuhn", "--iterations", "50",
                       "--name", "k"]) == 0
    capsys.readouterr()
    assert entry.main(["--data-dir", d, "strategies", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["name"], row["game"], row["iterations"]) == ("k", "kuhn", 50)
    on_disk = sum(p.stat().st_size for p in (tmp_path / "strategies" / "k").rglob("*")
                  if p.is_file())
    assert row["bytes"] == on_disk > 0 and row["solve_seconds"] >= 0
    assert entry.main(["--data-dir", d, "strategies", "--format", "csv"]) == 0
    (got,) = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert got["name"] == "k" and int(got["bytes"]) == on_disk
    assert entry.main(["--data-dir", d, "strategies"]) == 0
    assert "k" in capsys.readouterr().out
    # the other list command speaks the same formats: one JSON array
    assert entry.main(["--data-dir", d, "abstractions", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
