"""The concurrency promises of docs/scheduling.md (issue 19): two builders of one abstraction,
two ETL runs, a refresh while readers read."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq

from etl import runner
from etl.lock import file_lock
from queries.commands import run_query
from queries.environment_cli import configure
from schema.catalog import WAIT_NOTE, wait_note
from test_etl_runner import N_TOY, ROWS_PER_PART, toy_tables

ROOT = Path(__file__).resolve().parents[1]
TOTAL = N_TOY * ROWS_PER_PART


def _popen(data: Path, *args, **env) -> subprocess.Popen:
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]),
             POKER_ETL_TABLES="test_etl_runner:toy_tables", **env)
    return subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--quiet", "--data-dir",
                             str(data), *args], cwd=ROOT, env=e, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_two_builders_of_one_name_take_turns(tmp_path):
    build = ("build-abstraction", "--game", "rhode-island", "--method", "eb", "--buckets",
             "13,50,250", "--name", "x", "--n-init", "1")
    procs = [_popen(tmp_path, *build, "--replace", "--seed", str(seed)) for seed in (1, 2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    folder = tmp_path / "abstractions" / "x"
    tables = [pq.read_table(folder / f"round{r}.parquet") for r in range(3)]
    assert [t.num_rows for t in tables] == [13, 325, 9997]
    assert [len(set(t.column("bucket").to_pylist())) for t in tables] == [13, 50, 250]
    seed = run_query(tmp_path, "SELECT seed FROM abstractions WHERE name = 'x'")
    assert seed.column("seed")[0].as_py() in (1, 2)  # one whole build, the last one saved
    assert not list((tmp_path / ".staging").glob("abstraction-x*"))  # no leftovers
    # without --replace, the second one to finish is refused in one line (with the default
    # wait note, as a user has it: the suite's 0.5 s would add the "waiting" note of the
    # moment it waits for the first one's publication)
    procs = [_popen(tmp_path / "b", *build, POKER_WAIT_NOTE=str(WAIT_NOTE)) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], outs
    err = next(o[1] for p, o in zip(procs, outs) if p.returncode == 2)
    assert "exists" in err and err.count("\n") == 1


def test_two_etl_runs_and_readers_during_a_refresh(tmp_path):
    data = tmp_path / "d"
    runner.run(data, toy_tables(), names=["toy"], workers=1, progress=False)
    # a new code version: every partition is stale and rebuilt, slowly
    # (the first run is held inside its first partition until the second has been refused
    # and the third is waiting: no fixed sleep that a loaded machine outlasts)
    started, hold = tmp_path / "started", tmp_path / "go-on"
    first = _popen(data, "etl", "--refresh", "--workers", "1", TOY_DELAY="0.4",
                   TOY_VERSION="toy-2", TOY_STARTED=str(started), TOY_HOLD=str(hold))
    while not started.exists():  # computing: it holds the lock
        assert first.poll() is None, first.stderr.read()
        time.sleep(0.05)
    second = _popen(data, "etl", "--refresh", TOY_VERSION="toy-2")
    out, err = second.communicate(timeout=120)
    assert second.returncode == 2 and "another etl run holds" in err  # no --wait: refused
    waiting = _popen(data, "etl", "--refresh", "--wait", TOY_VERSION="toy-2")
    hold.touch()
    # readers during the refresh see whole partitions only (each replaced by a rename): the
    # table is complete and right at every moment
    reads = 0
    while first.poll() is None:
        got = run_query(data, "SELECT count(*) AS n, sum(i) AS s FROM toy").to_pylist()[0]
        assert got == {"n": TOTAL, "s": TOTAL * (TOTAL - 1) // 2}
        reads += 1
        time.sleep(0.2)
    assert reads >= 3
    assert first.returncode == 0, first.stderr.read()
    waiting.communicate(timeout=120)
    assert waiting.returncode == 0
    assert run_query(data, "SELECT count(*) AS n FROM toy").column("n")[0].as_py() == TOTAL
    status = _popen(data, "etl", "status", TOY_VERSION="toy-2")
    status.communicate(timeout=60)
    assert status.returncode == 0  # all rebuilt by the new version, all recorded


def test_a_waiting_writer_says_why_after_the_wait_note(tmp_path, capsys):
    """``POKER_WAIT_NOTE`` (default 5 s) is how long a writer waits for another's lock before
    it says so on stderr, once; not a number means the default."""
    for value, want in (("0.2", 0.2), ("", WAIT_NOTE), ("soon", WAIT_NOTE), ("-1", 0.0)):
        configure({"POKER_WAIT_NOTE": value})
        assert wait_note() == want
    configure({"POKER_WAIT_NOTE": "0.1"})
    lock = tmp_path / "x.lock"
    held, release = threading.Event(), threading.Event()

    def holder():
        with file_lock(lock):
            held.set()
            release.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(10)
    threading.Timer(0.6, release.set).start()
    t0 = time.monotonic()
    with file_lock(lock, note="note: waiting for x"):
        waited = time.monotonic() - t0
    t.join()
    assert waited >= 0.5
    assert capsys.readouterr().err == "note: waiting for x\n"
