"""The JSON API (issue 18, item 3): look-ups, range grids, catalog lists and read-only SQL."""

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import cli
from solve.lookup import lookup
from serving import wait_until_serving

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from queries.api import SQL_MAX_CHARS, create_app, is_loopback  # noqa: E402


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("api")
    assert cli.main(["--data-dir", str(d), "solve", "--game", "leduc", "--algorithm", "lp"]) == 0
    assert cli.main(["--data-dir", str(d), "solve", "--game", "holdem", "--abstraction",
                     "synthetic:3,6", "--max-bets", "2", "--name", "h", "--iterations", "1000",
                     "--lbr-deals", "20", "--h2h-deals", "200"]) == 0
    return d


@pytest.fixture(scope="module")
def client(data_dir):
    return TestClient(create_app(data_dir))


def test_lists_lookup_and_range(client, data_dir):
    names = {r["name"]: r for r in client.get("/strategies").json()}
    assert names["leduc-full-lp"]["game"] == "leduc" and "h" in names
    r = client.get("/strategies/leduc-full-lp/lookup",
                   params={"hole": "Qb", "board": "Ka", "history": "rc/r"})
    assert r.status_code == 200
    assert r.json() == lookup(data_dir, "leduc-full-lp", "Qb", "Ka", "rc/r").as_dict()
    r = client.get("/strategies/h/lookup", params={"hole": "AsKd", "board": "7c8h9s",
                                                   "history": "rc/r"})
    assert r.status_code == 200 and r.json()["game"] == "holdem"
    g = client.get("/strategies/h/range", params={"history": "rc/", "board": "7c8h9s"}).json()
    assert g["cells"][0][1] == "AKs" and len(g["probabilities"][0]) == 13
    assert client.get("/abstractions").status_code == 200
    page = client.get("/")
    assert page.status_code == 200 and "Range grid" in page.text


@pytest.mark.parametrize("path, params, status, msg", [
    ("/strategies/leduc-full-lp/lookup", {"hole": "Zz"}, 400, "is not a card of leduc"),
    ("/strategies/leduc-full-lp/lookup", {"hole": "Qb", "history": "rc/"}, 400,
     "has 1 public card(s), got 0"),
    ("/strategies/nope/lookup", {"hole": "Qb"}, 404, "no strategy 'nope'"),
    ("/strategies/leduc-full-lp/range", {}, 400, "range grids are for Texas Hold'em"),
])
def test_bad_input_is_a_one_line_error(client, path, params, status, msg):
    r = client.get(path, params=params)
    assert r.status_code == status and msg in r.json()["error"] and "\n" not in r.json()["error"]


def test_sql_reads_and_refuses_everything_else(client, data_dir):
    r = client.get("/sql", params={"q": "SELECT name FROM solve_runs ORDER BY name", "limit": 1})
    assert r.status_code == 200 and r.json()["rows"] == [{"name": "h"}]
    for q in ["CREATE TABLE x AS SELECT 1", "INSERT INTO solve_runs SELECT * FROM solve_runs",
              "COPY (SELECT 1) TO 'out.csv'", f"ATTACH '{data_dir}/other.db' AS o",
              "SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_text('/etc/hostname')",
              "SELECT 1; SELECT 2", "PRAGMA database_list", "SET threads = 8"]:
        r = client.get("/sql", params={"q": q})
        assert r.status_code == 400, q
        assert r.json()["error"] and "\n" not in r.json()["error"]
    assert not (data_dir / "out.csv").exists() and not (data_dir / "other.db").exists()
    r = client.get("/sql", params={"q": "SELECT 1 -- " + "x" * SQL_MAX_CHARS})
    assert r.status_code == 400 and "q:" in r.json()["error"]
    r = client.get("/sql", params={"q": "SELECT 1", "limit": 10 ** 6})
    assert r.status_code == 400


def test_token_and_loopback(data_dir):
    c = TestClient(create_app(data_dir, token="s3cret"))
    assert c.get("/strategies").status_code == 401
    assert c.get("/strategies", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    assert c.get("/strategies", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.1.2.3")


def test_serve_refuses_a_public_address_without_a_token(tmp_path, capsys):
    assert cli.main(["--data-dir", str(tmp_path), "serve", "--host", "0.0.0.0"]) == 2
    assert "give --token" in capsys.readouterr().err


def test_serve_with_worker_processes_answers_as_the_library(data_dir):
    """``serve --workers 2 --token T``: a real uvicorn with two worker processes on loopback
    gives the library's look-up and keeps the token check."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(cli.__file__).resolve().parent
    proc = subprocess.Popen([sys.executable, str(root / "cli.py"), "--data-dir", str(data_dir),
                             "serve", "--port", str(port), "--workers", "2", "--token", "t0k"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    auth = {"Authorization": "Bearer t0k"}
    params = {"hole": "Qb", "board": "Ka", "history": "rc/r"}
    try:
        wait_until_serving(base, proc)
        got = [httpx.get(f"{base}/strategies/leduc-full-lp/lookup", params=params, headers=auth,
                         timeout=60.0) for _ in range(8)]
        assert all(r.status_code == 200 for r in got)
        assert all(r.json() == lookup(data_dir, "leduc-full-lp", **params).as_dict() for r in got)
        assert httpx.get(f"{base}/strategies", timeout=10.0).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_refuses_zero_workers(tmp_path, capsys):
    assert cli.main(["--data-dir", str(tmp_path), "serve", "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
