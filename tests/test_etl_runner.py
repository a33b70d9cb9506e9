"""The ETL runner on toy tables: idempotence, resume after SIGKILL, damage detection and refresh,
the lock, a Dask LocalCluster run, views and the ``sql`` command.

The toy tables are module-level (picklable for worker processes). The CLI sees them through
``POKER_ETL_TABLES=test_etl_runner:toy_tables``; ``TOY_DELAY`` slows each partition.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import cli_inprocess
from etl import cluster, records, runner, storage
from etl.lock import LockHeldError, etl_lock
from etl.spec import TableSpec
from schema.errors import UserError

ROOT = Path(__file__).resolve().parents[1]
N_TOY = 12
ROWS_PER_PART = 1000

TOY_SCHEMA = pa.schema([pa.field("i", pa.int64(), nullable=False),
                        pa.field("sq", pa.int64(), nullable=False)])
SUM_SCHEMA = pa.schema([pa.field("part", pa.string(), nullable=False),
                        pa.field("total", pa.int64(), nullable=False)])


def toy_keys() -> list[str]:
    return [f"{p:02d}" for p in range(N_TOY)]


def toy_compute(key: str, data_dir: Path) -> pa.Table:
    if os.environ.get("TOY_STARTED"):  # a test waits for the run to be under way
        Path(os.environ["TOY_STARTED"]).touch()
    if os.environ.get("TOY_HOLD"):  # ... and holds it there until the file exists
        deadline = time.monotonic() + 300
        while not Path(os.environ["TOY_HOLD"]).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    time.sleep(float(os.environ.get("TOY_DELAY", "0")))
    i = pa.array(range(int(key) * ROWS_PER_PART, (int(key) + 1) * ROWS_PER_PART), pa.int64())
    return pa.Table.from_arrays([i, pc.multiply(i, i)], schema=TOY_SCHEMA)


def toy_sum_keys() -> list[str]:
    return ["all"]


def toy_sum_compute(key: str, data_dir: Path) -> pa.Table:
    sq = storage.read_column_array(data_dir, "toy", "sq")
    return pa.table({"part": [key], "total": [int(sq.sum())]}, schema=SUM_SCHEMA)


def toy_tables(options: dict | None = None) -> dict[str, TableSpec]:
    version = os.environ.get("TOY_VERSION", "toy-1")
    toy = TableSpec("toy", TOY_SCHEMA, version, toy_keys, toy_compute, description="toy rows")
    total = TableSpec("toy_sum", SUM_SCHEMA, "toy-sum-1", toy_sum_keys, toy_sum_compute,
                      depends_on=("toy",), description="sum of toy.sq", threaded=True)
    return {"toy": toy, "toy_sum": total}


EXPECTED_SUM = sum(i * i for i in range(N_TOY * ROWS_PER_PART))


def _run(data_dir, **kw) -> runner.RunReport:
    kw.setdefault("workers", 1)
    kw.setdefault("progress", False)
    return runner.run(data_dir, toy_tables(), **kw)


def _by_name(report: runner.RunReport) -> dict[str, runner.TableReport]:
    return {t.name: t for t in report.tables}


def _cli(data_dir, *args, env=None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "cli.py", "--data-dir", str(data_dir), *args],
                          cwd=ROOT, env=_env(env), capture_output=True, text=True, timeout=120,
                          **kw)


def _env(extra=None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT),
                                         env.get("PYTHONPATH", "")])
    env["POKER_ETL_TABLES"] = "test_etl_runner:toy_tables"
    env.update(extra or {})
    return env


def _states(data_dir) -> dict[str, dict[str, str]]:
    return {st.name: {c.key: c.state for c in st.checks}
            for st in records.status(data_dir, toy_tables())}


def test_build_then_rerun_computes_nothing(tmp_path):
    first = _by_name(_run(tmp_path))
    assert first["toy"].built == N_TOY and first["toy_sum"].built == 1
    assert first["toy"].rows == N_TOY * ROWS_PER_PART and first["toy"].complete
    assert storage.read_table(tmp_path, "toy_sum").column("total").to_pylist() == [EXPECTED_SUM]
    mtimes = {p: p.stat().st_mtime_ns for p in (tmp_path / "tables").rglob("*.parquet")}
    second = _by_name(_run(tmp_path))
    assert second["toy"].built == 0 and second["toy_sum"].built == 0
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "tables").rglob("*.parquet")} == mtimes
    assert all(s == "ok" for t in _states(tmp_path).values() for s in t.values())


def test_process_pool_and_dependency_order(tmp_path):
    report = _run(tmp_path, names=["toy_sum"], workers=2)
    assert [t.name for t in report.tables] == ["toy", "toy_sum"]  # dependency added, first
    assert report.executor == "processes+inline" and report.ok  # toy_sum is threaded
    assert storage.read_table(tmp_path, "toy").num_rows == N_TOY * ROWS_PER_PART


def test_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        report = _run(tmp_path, names=["toy"], scheduler=cluster.scheduler_address)
        assert report.executor == "dask" and report.ok
        assert _by_name(report)["toy"].built == N_TOY
        rc, out, err = _main(tmp_path, "etl", "--no-progress",
                             "--scheduler", cluster.scheduler_address)  # the CLI path
    assert rc == 0, err
    assert "executor dask" in out
    assert storage.read_table(tmp_path, "toy_sum").column("total").to_pylist() == [EXPECTED_SUM]


def test_damaged_partition_detected_and_only_it_rebuilt(tmp_path):
    _run(tmp_path)
    bad = storage.partition_path(tmp_path, "toy", "03")
    data = bad.read_bytes()
    bad.write_bytes(data[: len(data) // 2])  # truncated
    flipped = storage.partition_path(tmp_path, "toy", "07")
    raw = bytearray(flipped.read_bytes())
    raw[len(raw) // 3] ^= 0xFF  # same size, footer intact: only the checksum notices
    flipped.write_bytes(bytes(raw))
    states = _states(tmp_path)["toy"]
    assert states["03"] == "damaged" and states["07"] == "damaged"
    assert sum(s == "ok" for s in states.values()) == N_TOY - 2

    # a default run keeps damaged partitions and says so; dependents are not rebuilt on them
    plain = _by_name(_run(tmp_path))
    assert plain["toy"].built == 0 and plain["toy"].damaged == ["03", "07"]
    assert not plain["toy"].complete and plain["toy_sum"].blocked_by == "toy"

    others = {k: storage.partition_path(tmp_path, "toy", k).stat().st_mtime_ns
              for k in toy_keys() if k not in ("03", "07")}
    fixed = _by_name(_run(tmp_path, refresh=True))
    assert fixed["toy"].built == 2 and fixed["toy"].complete
    assert {k: storage.partition_path(tmp_path, "toy", k).stat().st_mtime_ns
            for k in others} == others
    assert all(s == "ok" for s in _states(tmp_path)["toy"].values())


def test_stale_rebuilt_only_with_refresh(tmp_path, monkeypatch):
    _run(tmp_path)
    monkeypatch.setenv("TOY_VERSION", "toy-2")
    plain = _by_name(_run(tmp_path))
    assert plain["toy"].built == 0 and len(plain["toy"].stale) == N_TOY
    assert plain["toy_sum"].stale == ["all"]  # built from a table of another version
    assert _states(tmp_path) == {"toy": {k: "stale" for k in toy_keys()},
                                 "toy_sum": {"all": "stale"}}
    refreshed = _by_name(_run(tmp_path, refresh=True))
    assert refreshed["toy"].built == N_TOY and refreshed["toy_sum"].built == 1
    assert set(_states(tmp_path)["toy"].values()) == {"ok"}
    assert _by_name(_run(tmp_path, refresh=True))["toy"].built == 0  # refresh is idempotent too


def test_lock_second_run_exits_with_message(tmp_path):
    with etl_lock(tmp_path):
        with pytest.raises(LockHeldError, match="another etl run holds"):
            _run(tmp_path)
        proc = _cli(tmp_path, "etl", "--tables", "toy", "--workers", "1")
    assert proc.returncode != 0
    assert proc.stderr.strip().startswith("error: another etl run holds")
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not storage.partition_files(tmp_path, "toy")


def test_resume_after_sigkill(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "cli.py", "--data-dir", str(tmp_path), "etl", "--workers", "2",
         "--no-progress"], cwd=ROOT, env=_env({"TOY_DELAY": "0.4"}),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    try:
        while len(storage.partition_files(tmp_path, "toy")) < 3:
            assert proc.poll() is None and time.monotonic() < deadline, "run ended too early"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)  # the coordinating process, mid-way
        proc.wait()
        while True:  # its workers (and the fork server) notice and exit on their own
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            assert time.monotonic() < deadline, "worker processes outlived the run"
            time.sleep(0.1)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    done = len(storage.partition_files(tmp_path, "toy"))
    assert 3 <= done < N_TOY
    for part in storage.partition_files(tmp_path, "toy").values():  # visible files are whole
        assert storage.read_partition(part).num_rows == ROWS_PER_PART
    states = _states(tmp_path)["toy"]
    assert set(states.values()) <= {"ok", "missing"}

    again = _cli(tmp_path, "etl", "--workers", "2", "--no-progress")
    assert again.returncode == 0, again.stderr
    assert all(s == "ok" for t in _states(tmp_path).values() for s in t.values())
    assert storage.read_table(tmp_path, "toy_sum").column("total").to_pylist() == [EXPECTED_SUM]
    names = [p.name for p in (tmp_path / "tables" / "toy").iterdir()]
    assert sorted(names) == [f"part-{k}.parquet" for k in toy_keys()]  # no temp/staged leftovers


def _main(data_dir, *args) -> tuple[int, str, str]:
    """``cli.py`` in this process (``cli_inprocess``; a subprocess costs seconds of imports
    each): (exit status, stdout, stderr)."""
    proc = cli_inprocess.run(["--data-dir", str(data_dir), *args],
                             env=_env({"POKER_DATA_DIR": str(data_dir)}))
    return proc.returncode, proc.stdout, proc.stderr


def test_cli_status_sql_and_errors(tmp_path):
    rc, out, err = _main(tmp_path, "etl", "--workers", "1", "--no-progress")
    assert rc == 0, err
    assert "toy_sum" in out and "12,000" in out  # summary table

    rc, out, err = _main(tmp_path, "sql",
                         "SELECT count(*) AS n, sum(sq) AS s FROM toy", "--format", "json")
    assert rc == 0, err
    assert json.loads(out) == [{"n": N_TOY * ROWS_PER_PART, "s": EXPECTED_SUM}]
    rc, out, err = _main(tmp_path, "sql", "SELECT i FROM toy ORDER BY i",
                         "--format", "csv", "--limit", "3")
    assert out.split() == ["i", "0", "1", "2"]
    rc, out, err = _main(tmp_path, "sql",
                         "SELECT table_name, count(*) AS parts FROM etl_partitions "
                         "GROUP BY ALL ORDER BY 1")
    assert rc == 0 and "toy_sum" in out and "12" in out

    storage.partition_path(tmp_path, "toy", "05").write_bytes(b"not parquet")
    rc, out, err = _main(tmp_path, "etl", "status")
    assert rc == 4 and "damaged: toy part-05" in out  # exit status 4: damaged (issue 15)

    a_file = tmp_path / "plain-file"
    a_file.write_text("x")
    for data_dir, args, message in [
        (tmp_path, ("sql", "SELEC nonsense"), "error: Parser Error"),
        (tmp_path, ("sql", "SELECT * FROM no_such_table"), "error: Catalog Error"),
        (tmp_path, ("etl", "--tables", "nope"), "error: unknown table 'nope'"),
        (tmp_path, ("etl", "--option", "nope=1"), "error: unknown --option 'nope'"),
        (tmp_path, ("etl", "--no-progress"), "error: toy: damaged partition(s) 05"),
        (a_file, ("etl", "--no-progress"), f"error: data directory {a_file} is not a directory"),
    ]:
        rc, out, err = _main(data_dir, *args)
        assert rc != 0, args
        errors = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and errors[0].startswith(message), (args, err)
        assert "Traceback" not in err


def test_cli_bad_sql_one_line_in_subprocess(tmp_path):
    _run(tmp_path, names=["toy"], views=True)
    proc = _cli(tmp_path, "sql", "SELECT nope FROM toy")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: Binder Error") and proc.stderr.count("\n") == 1


def test_unknown_table_and_bad_workers(tmp_path):
    with pytest.raises(UserError, match="unknown table 'nope'"):
        _run(tmp_path, names=["nope"])
    with pytest.raises(UserError, match="`workers` must be at least 1"):  # the parameter
        _run(tmp_path, workers=0)


def test_verify_wiring(tmp_path):
    from etl.commands import _canonical_rows

    result = {"size": 169, "hits": 169, "burnside": 169, "raw": 1326, "visited": 1326,
              "out_of_range": 0, "not_invariant": 0, "not_isomorphic": 1, "ok": False}
    rows = {what.split(": ")[1]: (exp, found) for what, exp, found in
            _canonical_rows([2], 169, result)}
    assert rows["size"] == (169, 169) and rows["raw hands visited"] == (1326, 1326)
    assert rows["errors"] == (0, 1) and rows["ok"] == (True, False)
    rc, out, err = _main(tmp_path, "etl", "verify", "--checks", "nope")
    assert rc == 2 and err.strip() == "error: unknown check 'nope' (known: canonical, handval, equity)"


def test_storage_readers(tmp_path):
    _run(tmp_path, names=["toy"])
    sq = storage.read_column_array(tmp_path, "toy", "sq")
    assert sq.shape == (N_TOY * ROWS_PER_PART,) and int(sq.sum()) == EXPECTED_SUM
    assert storage.read_table(tmp_path, "toy", keys=["02"]).column("i")[0].as_py() == 2000
    with pytest.raises(UserError, match="has no partitions"):
        storage.read_table(tmp_path, "nope")
    storage.partition_path(tmp_path, "toy", "04").write_bytes(b"PAR1 garbage")
    with pytest.raises(storage.DamagedPartitionError, match="damaged partition .*part-04"):
        storage.read_table(tmp_path, "toy")


def test_a_refused_scheduler_is_one_line_at_once():
    """Nothing listening on a ``tcp://`` scheduler's port: both ``--scheduler`` paths (the ETL
    runner's and ``etl.cluster.dask_client``'s) say so in one line at once, not after the Dask
    client's 10 s timeout."""
    with socket.socket() as s:  # a port nobody listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    for connect in (lambda: runner._Executor(1, address),
                    lambda: cluster.dask_client(address).__enter__()):
        t0 = time.monotonic()
        with pytest.raises(UserError) as err:
            connect()
        assert time.monotonic() - t0 < 5
        assert str(err.value) == (f"cannot reach Dask scheduler {address}: "
                                  f"connection refused by 127.0.0.1:{port}")
