"""Issue 50 (the SQL sandbox and the API under attack) and issue 47's ``sql`` bugs: each
reproduction as a test that failed before the fix.

Small data directories: the toy ETL tables of ``test_etl_runner`` and a solved Kuhn poker.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import cli
import cli_inprocess
from etl import runner
from queries import sandbox
from schema.errors import UserError
from test_etl_runner import N_TOY, ROWS_PER_PART, toy_tables

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from queries import api  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _env(toy: bool = True) -> dict:
    env = dict(os.environ)
    env.pop("POKER_DATA_DIR", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT),
                                         env.get("PYTHONPATH", "")])
    if toy:
        env["POKER_ETL_TABLES"] = "test_etl_runner:toy_tables"
    else:
        env.pop("POKER_ETL_TABLES", None)
    return env


def cli_run(*args, cwd, toy=True) -> subprocess.CompletedProcess:
    """``python cli.py ARGS`` from ``cwd``, run in this process (``cli_inprocess``)."""
    return cli_inprocess.run(args, cwd=cwd, env=_env(toy))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """Toy ETL tables, a solved Kuhn poker, an empty cache/ folder (a name the server's
    working directory has too)."""
    d = tmp_path_factory.mktemp("attack") / "data"
    runner.run(d, toy_tables(), workers=1, progress=False)
    assert cli.main(["--data-dir", str(d), "solve", "--game", "kuhn", "--algorithm", "lp"]) == 0
    (d / "cache").mkdir(exist_ok=True)
    return d


# --- issue 47: a relative data directory; a table never built ------------------------------

@pytest.mark.parametrize("how", ["default", "relative"])
def test_sql_with_a_relative_data_dir(tmp_path, how):
    """``cli.py sql`` in a directory holding ``data/``: was ``no database at .../data/data``."""
    runner.run(tmp_path / "data", toy_tables(), workers=1, progress=False)
    args = ("sql", "SELECT count(*) AS n FROM toy", "--format", "csv")
    if how == "relative":
        (tmp_path / "sub").mkdir()
        args = ("--data-dir", "../data", *args)
    proc = cli_run(*args, cwd=tmp_path / "sub" if how == "relative" else tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == str(N_TOY * ROWS_PER_PART)


def test_a_table_never_built_names_the_etl_command(data):
    """Was DuckDB's "Table with name handval does not exist"."""
    proc = cli_run("--data-dir", str(data), "sql", "SELECT count(*) FROM handval", cwd=ROOT,
                   toy=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "python cli.py etl --tables handval" in proc.stderr


# --- 3. the sandbox's folders are the data directory's, not the server's working directory --

def test_sql_does_not_read_the_servers_working_directory(data, tmp_path, monkeypatch):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "secret.txt").write_text("TOP SECRET")
    monkeypatch.chdir(tmp_path)
    client = TestClient(api.create_app(data))
    for q in ["SELECT content FROM read_text('cache/secret.txt')",
              f"SELECT content FROM read_text('{tmp_path}/cache/secret.txt')",
              "SELECT * FROM read_csv('cache/secret.txt')"]:
        r = client.get("/sql", params={"q": q})
        assert "TOP SECRET" not in r.text, q
        # refused, or read in the data directory, which has no such file (read_text globs)
        assert r.status_code == 400 or r.json()["rows"] == [], (q, r.text)
    # the data directory's own files still read by relative paths
    r = client.get("/sql", params={"q": "SELECT count(*) AS n FROM "
                                        "read_parquet('tables/toy/part-00.parquet')"})
    assert r.status_code == 200 and r.json()["rows"][0]["n"] > 0


# --- 4. no option value pasted into SQL ----------------------------------------------------

def test_memory_limit_cannot_inject_sql(data):
    injected = "1GB'; COPY (SELECT 1 x) TO 'tables/injected.csv'; SET memory_limit='1GB"
    proc = cli_run("--data-dir", str(data), "sql", "SELECT 1", "--memory-limit", injected,
                   cwd=ROOT)
    assert proc.returncode == 2 and proc.stderr.startswith("error: --memory-limit must be")
    assert proc.stderr.count("\n") == 1
    assert not list(data.rglob("injected*"))
    with pytest.raises(UserError, match="`memory_limit` must be"):  # the library's name
        sandbox.run(data, "SELECT 1", sandbox.Limits(memory_limit=injected))


def _formatted_sql_settings(path: Path) -> list[str]:
    """Lines of ``path`` that build a SET or PRAGMA statement with a formatted value: an
    f-string, ``.format`` or ``%`` on text naming SET/PRAGMA."""
    tree = ast.parse(path.read_text(), filename=str(path))
    sql = re.compile(r"\b(SET|PRAGMA|RESET)\s+\w", re.IGNORECASE)
    found = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue)
                                                   for v in node.values):
            text = "".join(v.value for v in node.values
                           if isinstance(v, ast.Constant) and isinstance(v.value, str))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "format" and isinstance(node.func.value, ast.Constant)
              and isinstance(node.func.value.value, str)):
            text = node.func.value.value
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
              and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            text = node.left.value
        if text is not None and sql.search(text) and re.match(r"\s*(SET|PRAGMA|RESET)\b",
                                                               text, re.IGNORECASE):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text.strip()[:60]}")
    return found


def test_no_sql_setting_is_built_from_values():
    found = [hit for pkg in ("queries", "etl", "schema") for p in sorted((ROOT / pkg).rglob("*.py"))
             for hit in _formatted_sql_settings(p)]
    assert not found, "SQL settings formatted from values (bind or use the config API):\n" \
        + "\n".join(found)


def test_the_setting_grep_finds_what_it_should(tmp_path):
    """The check above is not blind: it flags the pattern that was the bug."""
    bad = ROOT / "tests" / "_setting_grep_sample.py"
    try:
        bad.write_text("def f(con, limits):\n"
                       "    con.execute(f\"SET memory_limit = '{limits.memory_limit}'\")\n"
                       "    con.execute(\"PRAGMA threads={}\".format(2))\n")
        assert len(_formatted_sql_settings(bad)) == 2
    finally:
        bad.unlink()


# --- 5. every request its own DuckDB: no shared, locked configuration; a 429 per client ----

def _parallel(calls) -> list:
    out = [None] * len(calls)

    def one(i, fn):
        try:
            out[i] = fn()
        except BaseException as exc:  # noqa: BLE001 (reported by the assertions)
            out[i] = exc

    threads = [threading.Thread(target=one, args=(i, fn)) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_concurrent_catalog_and_sql_requests_all_answer(data):
    client = TestClient(api.create_app(data))
    calls = []
    for i in range(8):
        calls += [lambda: client.get("/strategies"), lambda: client.get("/abstractions")]
    calls += [lambda: client.get("/sql", params={"q": "SELECT count(*) AS n FROM toy"})] * 4
    got = _parallel(calls)
    assert [r.status_code for r in got] == [200] * len(calls), [r.text for r in got]
    assert all(r.json()[0]["name"] == "kuhn-full-lp" for r in got[:16:2]), got[0].json()
    assert len({str(r.json()) for r in got[16:]}) == 1


def test_a_slow_query_holds_up_nothing_else(data, monkeypatch):
    """While one /sql runs, the catalog lists and a first look-up (a strategy not opened yet)
    answer. The slow query's time limit is far off (60 s); once the others have answered, its
    query process is ended (SIGKILL, as the time limit would end it), and the request fails
    with a one-line error instead of hanging (the time limit's own message: the 429 test)."""
    monkeypatch.setattr(api, "SQL_TIMEOUT", 60.0)
    client = TestClient(api.create_app(data))
    slow = {}
    started = threading.Event()

    def run_slow():
        started.set()
        slow["r"] = client.get("/sql", params={
            "q": "SELECT sum(hash(range)) FROM range(100000000000) AS a"})

    t = threading.Thread(target=run_slow)
    t.start()
    started.wait()
    others = [client.get("/strategies"), client.get("/abstractions"),
              client.get("/strategies/kuhn-full-lp/lookup", params={"hole": "K"}),
              client.get("/sql", params={"q": "SELECT 42 AS x"})]
    still_running = t.is_alive()
    deadline = time.monotonic() + 120
    while t.is_alive() and not _kill_query_processes(os.getpid()):
        assert time.monotonic() < deadline, "no query process found to end"
        threading.Event().wait(0.05)
    t.join()
    assert [r.status_code for r in others] == [200] * 4, [r.text for r in others]
    assert others[3].json()["rows"] == [{"x": 42}]
    assert still_running  # they did not wait for it
    assert slow["r"].status_code == 400 and "query process ended" in slow["r"].json()["error"]


def test_too_many_queries_from_one_client_is_a_429(data, monkeypatch):
    monkeypatch.setattr(api, "SQL_TIMEOUT", 3.0)
    client = TestClient(api.create_app(data))
    q = {"q": "SELECT sum(hash(range)) FROM range(100000000000) AS a"}
    got = _parallel([lambda: client.get("/sql", params=q)] * (api.SQL_PER_CLIENT + 2))
    codes = sorted(r.status_code for r in got)
    # the first SQL_PER_CLIENT run (to their time limit: 400), none waits for a query process
    # (no 503: as many processes as one client may use); the rest are refused at once
    assert codes.count(429) == 2 and set(codes) <= {400, 429}, codes
    assert all("time limit" in r.json()["error"] for r in got if r.status_code == 400), \
        [r.text for r in got]
    busy = next(r for r in got if r.status_code == 429)
    assert "at most" in busy.json()["error"] and busy.headers["retry-after"]
    assert client.get("/sql", params={"q": "SELECT 1 AS one"}).status_code == 200


# --- 6. the memory limit holds for every operator ------------------------------------------

def test_memory_limit_holds_for_string_functions(data):
    with pytest.raises(UserError, match="memory limit exceeded"):
        sandbox.run(data, "SELECT length(repeat('x', 1500000000)) AS n",
                    sandbox.Limits(memory_limit="200MB", timeout=120))
    got = sandbox.run(data, "SELECT length(repeat('x', 1000000)) AS n",
                      sandbox.Limits(memory_limit="200MB", timeout=120))
    assert got.column("n")[0].as_py() == 1_000_000


def test_memory_limit_from_the_cli(data):
    proc = cli_run("--data-dir", str(data), "sql", "SELECT length(repeat('x',1500000000))",
                   "--memory-limit", "300MB", cwd=ROOT)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "memory limit exceeded" in proc.stderr


# --- smaller: Ctrl-C is 130; a busy port is one line ---------------------------------------

def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of each child process of ``pid``."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.append((int(stat.parent.name),
                            (stat.parent / "cmdline").read_bytes().decode(errors="replace")))
        except (OSError, IndexError, ValueError):
            continue
    return out


def _kill_query_processes(pid: int) -> int:
    """SIGKILL the ``sandbox_worker`` children of ``pid``; how many there were."""
    n = 0
    for child, cmd in _children(pid):
        if "sandbox_worker" in cmd:
            try:
                os.kill(child, signal.SIGKILL)
                n += 1
            except ProcessLookupError:  # ended on its own meanwhile
                pass
    return n


def test_sql_ctrl_c_exits_130(data):
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(data),
                             "sql", "SELECT sum(hash(range)) FROM range(100000000000) AS a"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
                            text=True)
    try:
        # the query runs once its process exists (no fixed sleep; a bound in case it never does)
        deadline = time.monotonic() + 120
        while not any("sandbox_worker" in c for _, c in _children(proc.pid)):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no query process started"
            threading.Event().wait(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert not _children(proc.pid)


def test_serve_on_a_busy_port_is_one_line(data):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = cli_run("--data-dir", str(data), "serve", "--port", str(port), cwd=ROOT)
    assert proc.returncode == 2 and proc.stderr == f"error: port {port} is in use\n"
