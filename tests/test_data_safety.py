"""Data safety of a shared data directory (issue 15): each reproduction of the issue, as a test.

The toy ETL tables of ``test_etl_runner`` stand in for the equity tables; every test works in
its own temporary data directory and checks that nothing outside it was written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cli_inprocess
from etl import runner, storage
from queries import sandbox
from queries.commands import run_query
from schema.errors import UserError
from test_etl_runner import N_TOY, ROWS_PER_PART, toy_tables

ROOT = Path(__file__).resolve().parents[1]
TOTAL = N_TOY * ROWS_PER_PART


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT),
                                         env.get("PYTHONPATH", "")])
    env["POKER_ETL_TABLES"] = "test_etl_runner:toy_tables"
    return env


def cli(data_dir, *args, cwd=ROOT) -> subprocess.CompletedProcess:
    """``python cli.py --data-dir DATA_DIR ARGS`` run in this process (``cli_inprocess``); the
    tests of Ctrl-C and of a held lock start a real process."""
    return cli_inprocess.run(["--data-dir", str(data_dir), *args], cwd=cwd, env=_env())


@pytest.fixture()
def data(tmp_path) -> Path:
    d = tmp_path / "data"
    runner.run(d, toy_tables(), workers=1, progress=False)
    return d


def snapshot(folder: Path) -> dict:
    """Every file's size and mtime; the catalog by its content (``sql`` refreshes the views in
    it, a write of ours, not the query's)."""
    out = {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
           for p in folder.rglob("*") if p.is_file() and p.suffix != ".wal"
           and p.name != "poker.duckdb"}
    for db in folder.rglob("poker.duckdb"):
        out[str(db.relative_to(folder))] = catalog_rows(db.parent)
    return out


def catalog_rows(data: Path) -> list:
    return sandbox.run(data, "SELECT * FROM etl_partitions ORDER BY ALL").to_pylist()


def count(data: Path, table: str = "toy") -> int:
    """Rows of a view, the views refreshed first (as ``cli.py sql`` does)."""
    return int(run_query(data, f"SELECT count(*) AS n FROM {table}").column("n")[0].as_py())


# --- 1. ad-hoc SQL cannot write, and reads only inside the data directory -----------------

WRITES = [
    "COPY (SELECT * FROM toy LIMIT 10) TO '{d}/tables/toy/part-03.parquet' (FORMAT parquet)",
    "COPY (SELECT 1 AS a) TO '{d}/poker.duckdb' (FORMAT csv)",
    "COPY (SELECT 1 AS a) TO 'relative.csv'",
    "ATTACH '{d}/new.duckdb' AS n (READ_WRITE)",
    "EXPORT DATABASE '{d}/exported'",
    "EXPLAIN ANALYZE COPY (SELECT 1 AS a) TO '{d}/tables/toy/x.csv'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "SELECT 1; COPY (SELECT 1 AS a) TO '{d}/y.csv'",
    "CREATE TABLE t AS SELECT 1",
    "DELETE FROM etl_partitions",
]
READS_OUTSIDE = ["SELECT * FROM read_csv('/etc/passwd')",
                 "SELECT * FROM read_text('/etc/hostname')",
                 "SELECT * FROM glob('/etc/*')",
                 "SELECT * FROM read_csv('{d}/../outside.csv')",
                 "SELECT * FROM read_parquet('tables/../../outside.parquet')"]


@pytest.mark.parametrize("query", WRITES)
def test_sql_cannot_write(data, query, tmp_path):
    before, outside = snapshot(data), snapshot(tmp_path)
    proc = cli(data, "sql", query.format(d=data), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert snapshot(data) == before
    assert snapshot(tmp_path) == outside  # nothing written beside the data directory either
    assert count(data) == TOTAL


@pytest.mark.parametrize("query", READS_OUTSIDE)
def test_sql_cannot_read_outside_the_data_directory(data, query, tmp_path):
    (tmp_path / "outside.csv").write_text("secret\n42\n")
    proc = cli(data, "sql", query.format(d=data))
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "secret" not in proc.stdout + proc.stderr


def test_sql_relative_paths_resolve_in_the_data_directory(data, tmp_path):
    """A relative path the views allow (``tables/...``) never reaches the working directory."""
    cwd = tmp_path / "elsewhere"
    (cwd / "tables").mkdir(parents=True)
    (cwd / "tables" / "secret.csv").write_text("secret\n42\n")
    proc = cli(data, "sql", "SELECT * FROM read_csv('tables/secret.csv')", cwd=cwd)
    assert proc.returncode == 2 and "42" not in proc.stdout
    # inside the data directory, reading is fine
    proc = cli(data, "sql", "SELECT count(*) AS n FROM read_parquet('tables/toy/part-00.parquet')",
               "--format", "csv", cwd=cwd)
    assert proc.returncode == 0 and proc.stdout.split() == ["n", str(ROWS_PER_PART)]


def test_allowed_statements(data):
    assert sandbox.check_statement("SELECT 1")
    for q in ("FROM toy", "DESCRIBE toy", "SHOW TABLES", "SUMMARIZE toy", "VALUES (1)",
              "WITH a AS (SELECT 1) SELECT * FROM a", "EXPLAIN SELECT * FROM toy"):
        sandbox.check_statement(q)
        sandbox.run(data, q)
    for q in ("", "  ;", "COPY toy TO 'x.csv'", "PRAGMA database_list", "CALL duckdb_settings()",
              "EXPLAIN ANALYZE SELECT 1"):
        with pytest.raises(UserError):
            sandbox.check_statement(q)


# --- 5. large results stream, time limit, Ctrl-C -------------------------------------------

def test_sql_streams_csv_and_json(data):
    proc = cli(data, "sql", "SELECT i FROM toy ORDER BY i", "--format", "csv")
    assert proc.returncode == 0 and proc.stdout.split() == ["i"] + [str(i) for i in range(TOTAL)]
    proc = cli(data, "sql", "SELECT i FROM toy ORDER BY i", "--format", "json")
    assert [r["i"] for r in json.loads(proc.stdout)] == list(range(TOTAL))
    schema, batches = sandbox.stream(data, "SELECT i FROM toy", batch_rows=1000)
    sizes = [b.num_rows for b in batches]
    assert sum(sizes) == TOTAL and len(sizes) > 1  # in batches, not one table


def test_sql_table_of_a_narrow_result_keeps_its_row_count_on_one_line(data):
    """The count used to be the table's caption, which wraps to the table's width: a one-column
    result printed "1 row(s" and ")" on two lines."""
    proc = cli(data, "sql", "SELECT 1")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[-1] == "1 row(s)"


#: Runs argv[2:] as a child of its own and writes that child's exit status and peak RSS (KiB)
#: to the file argv[1]. Why a launcher: Linux carries a process's high-water RSS across exec
#: (``signal->maxrss`` takes the old address space's peak), and a child forked or vforked
#: straight from the test process starts with the test process's address space, so its
#: ``ru_maxrss`` would report the pytest worker's peak (630 MB in CI), not the command's.
#: The launcher is a fresh small interpreter; what it forks starts from its few MB.
_MEASURE = """\
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def _peak_rss_kib(data, query: str, out: Path) -> int:
    """Run ``cli.py sql QUERY --format csv`` into ``out``; that process's own peak RSS in KiB."""
    report = out.with_suffix(".rss")
    with open(out, "w") as fh:
        proc = subprocess.run([sys.executable, "-c", _MEASURE, str(report), sys.executable,
                               str(ROOT / "cli.py"), "--data-dir", str(data), "sql", query,
                               "--format", "csv"], stdout=fh, stderr=subprocess.PIPE,
                              env=_env(), timeout=600)
    status, peak = map(int, report.read_text().split())
    assert proc.returncode == 0 and status == 0, proc.stderr
    return peak


def test_sql_large_csv_result_streams_in_bounded_memory(data, tmp_path):
    """3 M rows as csv: printed batch by batch, so the process stays far below what holding
    the result (and its Python rows) would take (about 1 GB).

    A one-row query first measures what the process costs anyway (the imports; on a fresh
    clone it also builds the evaluator tables and compiles their builders once, which is
    not what this test is about); the 3 M-row query may add little to that."""
    baseline = _peak_rss_kib(data, "SELECT 1 AS i", tmp_path / "one.csv")
    out = tmp_path / "out.csv"
    peak = _peak_rss_kib(data, "SELECT range AS i, range * 2 AS j FROM range(3000000)", out)
    with open(out) as fh:
        assert fh.readline().strip() == "i,j"
        assert sum(1 for _ in fh) == 3_000_000
    assert peak < 600 * 1024, (peak, baseline)  # kB
    assert peak - baseline < 150 * 1024, (peak, baseline)


def test_sql_time_limit(data):
    slow = "SELECT sum(hash(range)) FROM range(100000000000) AS a"
    t0 = time.monotonic()
    proc = cli(data, "sql", slow, "--timeout", "1")
    assert proc.returncode == 2 and "time limit of 1 s" in proc.stderr
    assert time.monotonic() - t0 < 60
    assert cli(data, "sql", "SELECT 1", "--timeout", "0").returncode == 2


def test_sql_ctrl_c(data):
    slow = "SELECT sum(hash(range)) FROM range(100000000000) AS a"
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(data),
                             "sql", slow], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_env(), text=True)
    time.sleep(4)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert time.monotonic() - t0 < 30
    assert proc.returncode != 0 and "interrupted" in err and "Traceback" not in err


def test_ctrl_c_during_start_up(data):
    """Ctrl-C while the modules still load: one line, exit 130, no traceback, no query."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(data),
                             "sql", "SELECT 1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_env(), text=True)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "interrupted: nothing was started\n" and not out


def test_sql_memory_limit(data):
    proc = cli(data, "sql", "SELECT list(range) FROM range(50000000)", "--memory-limit", "50MB",
               "--format", "csv")
    assert proc.returncode == 2 and proc.stderr.startswith("error: ")


# --- 2. stray files are never counted; status lists them; --refresh moves them aside -------

def test_stray_files_not_counted_listed_and_quarantined(data):
    folder = storage.table_dir(data, "toy")
    (folder / "backup.parquet").write_bytes(storage.partition_path(data, "toy", "03").read_bytes())
    (folder / "part-07.bak.parquet").write_bytes(
        storage.partition_path(data, "toy", "07").read_bytes())
    assert count(data) == TOTAL  # the view lists the recorded files, not a glob
    proc = cli(data, "etl", "status")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "stray: toy backup.parquet" in proc.stdout
    assert "stray: toy part-07.bak.parquet" in proc.stdout
    proc = cli(data, "etl", "--refresh", "--no-progress", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert "moved stray file to quarantine/toy/backup.parquet" in proc.stderr
    assert not (folder / "backup.parquet").exists()
    assert (data / "quarantine" / "toy" / "backup.parquet").is_file()  # kept, not deleted
    assert (data / "quarantine" / "toy" / "part-07.bak.parquet").is_file()
    assert count(data) == TOTAL
    assert cli(data, "etl", "status").returncode == 0


def test_unrecorded_partition_not_counted(data):
    """A partition file whose catalog row is gone (a run killed before recording it) is not in
    the view until a run records it."""
    from schema.catalog import session_scope
    from schema.catalog_etl import Partition

    with session_scope(data) as s:
        s.query(Partition).filter(Partition.table_name == "toy", Partition.key == "04").delete()
    assert count(data) == TOTAL - ROWS_PER_PART
    proc = cli(data, "etl", "status", "--tables", "toy")
    assert proc.returncode == 3  # something to build
    runner.run(data, toy_tables(), workers=1, progress=False)
    assert count(data) == TOTAL


# --- 3. a flipped byte is an error, not a wrong number -------------------------------------

def flip(path: Path, n: int = 16) -> None:
    b = bytearray(path.read_bytes())
    mid = len(b) // 3
    for i in range(n):
        b[mid + i] ^= 0xFF
    path.write_bytes(bytes(b))  # same size


def test_bit_flip_is_an_error_everywhere(data):
    part = storage.partition_path(data, "toy", "03")
    flip(part)
    proc = cli(data, "sql", "SELECT sum(i) AS s FROM toy", "--format", "csv")
    assert proc.returncode == 2 and "damaged partition toy part-03" in proc.stderr
    assert "Traceback" not in proc.stderr
    quick = cli(data, "etl", "status", "--quick")
    assert quick.returncode == 4 and "damaged: toy part-03" in quick.stdout
    full = cli(data, "etl", "status")
    assert full.returncode == 4 and "damaged: toy part-03 (checksum mismatch)" in full.stdout
    with pytest.raises(storage.DamagedPartitionError, match="CRC"):
        storage.read_partition(part)  # page checksums: pyarrow readers fail too
    assert cli(data, "etl", "--refresh", "--no-progress", "--workers", "1").returncode == 0
    assert count(data) == TOTAL
    assert sandbox.run(data, "SELECT sum(i) AS s FROM toy").column("s")[0].as_py() == \
        TOTAL * (TOTAL - 1) // 2


def test_touched_but_intact_partition_reads(data):
    part = storage.partition_path(data, "toy", "05")
    part.write_bytes(part.read_bytes())  # rewritten, same bytes: identity changed, hash same
    assert count(data) == TOTAL
    assert cli(data, "etl", "status", "--quick").returncode == 0


# --- 7. etl status exit statuses ------------------------------------------------------------

def test_status_exit_codes(data):
    assert cli(data, "etl", "status").returncode == 0
    storage.partition_path(data, "toy", "02").unlink()
    proc = cli(data, "etl", "status")
    assert proc.returncode == 3 and "missing" in proc.stdout
    storage.partition_path(data, "toy", "06").write_bytes(b"junk")
    assert cli(data, "etl", "status").returncode == 4


def test_damage_only_blocks_queries_that_read_it(data):
    flip(storage.partition_path(data, "toy", "03"))
    assert sandbox.run(data, "SELECT 42 AS x").column("x")[0].as_py() == 42
    assert sandbox.run(data, "SELECT count(*) AS n FROM toy_sum").column("n")[0].as_py() == 1
    for q in ("SELECT count(*) FROM toy", "SELECT * FROM (SELECT i FROM toy) LIMIT 1",
              "SELECT count(*) FROM read_parquet('tables/toy/part-03.parquet')"):
        with pytest.raises(UserError, match="damaged partition toy part-03"):
            sandbox.run(data, q)


# --- 4. a reader does not abort a refresh --------------------------------------------------

HOLD = """
import os, sys, time, duckdb
for _ in range(200):
    try:
        con = duckdb.connect(sys.argv[1], read_only=True)
        break
    except duckdb.Error:
        time.sleep(0.05)
print("holding", flush=True)
con.execute("SELECT count(*) FROM etl_partitions").fetchall()
deadline = time.monotonic() + 300  # a bound, not a schedule: released by the test
while not os.path.exists(sys.argv[2]) and time.monotonic() < deadline:
    time.sleep(0.05)
con.close()
"""


def test_a_long_reader_does_not_abort_an_etl_run(tmp_path):
    """The reader holds the catalog until the ETL run says it is waiting for it (not for a
    fixed time, which a loaded machine outlasts), then lets go; the run goes on and ends
    well."""
    data = tmp_path / "data"
    runner.run(data, toy_tables(), names=["toy"], workers=1, progress=False)
    storage.partition_path(data, "toy", "00").unlink()
    for k in range(1, 8):  # some partitions to rebuild while the reader holds the file
        storage.partition_path(data, "toy", f"{k:02d}").write_bytes(b"junk")
    release = tmp_path / "release"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(data / "poker.duckdb"),
                               str(release)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    env = _env()
    env["TOY_DELAY"] = "0.3"
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(data),
                             "etl", "--refresh", "--workers", "1", "--no-progress"], env=env,
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stderr:  # until the run says it waits for the reader
        seen.append(line)
        if "is held by another process" in line:
            break
    assert holder.poll() is None, "the reader let go before the run waited for it"
    release.touch()
    holder.wait(timeout=60)
    out, err = proc.communicate(timeout=300)
    err = "".join(seen) + err
    assert proc.returncode == 0, err
    assert "is held by another process" in err
    assert cli(data, "etl", "status").returncode == 0  # every rebuilt partition recorded
    assert count(data) == TOTAL


# --- 6. a damaged catalog: one line and the way back; a catalog we cannot write is readable --

def test_damaged_catalog_one_line_and_rebuild(data):
    cat = data / "poker.duckdb"
    size = cat.stat().st_size
    with open(cat, "r+b") as fh:
        fh.truncate(size // 8)
    for args in (("etl", "status"), ("etl", "--refresh", "--no-progress", "--workers", "1"),
                 ("sql", "SELECT count(*) FROM toy")):
        proc = cli(data, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "cli.py etl --rebuild-catalog" in proc.stderr or "cannot use the catalog" in \
            proc.stderr, proc.stderr
    proc = cli(data, "etl", "--rebuild-catalog")
    assert proc.returncode == 0, proc.stderr
    assert "recorded 13 partition(s)" in proc.stdout and "no code version" not in proc.stdout
    kept = list(data.glob("poker.duckdb.damaged-*"))
    assert len(kept) == 1 and kept[0].stat().st_size == size // 8  # moved aside, not deleted
    assert cli(data, "etl", "status").returncode == 0  # versions came from the files
    assert count(data) == TOTAL


def test_sql_reads_when_the_views_cannot_be_refreshed(data, monkeypatch):
    """A catalog that cannot be written (read-only file system, a writer holding it): the
    view refresh is skipped and the query runs on the views as they are."""
    import queries.commands

    def refuse(_):
        raise UserError("cannot use the catalog: Read-only file system")

    monkeypatch.setattr(queries.commands, "create_views", refuse)
    assert count(data) == TOTAL


def test_minor_inputs(tmp_path):
    missing = tmp_path / "no-such-dir"
    proc = cli(missing, "abstractions")
    assert proc.returncode == 0 and not missing.exists()  # not created by a listing
    env = {k: v for k, v in _env().items() if k != "POKER_ETL_TABLES"}  # the real tables
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(tmp_path),
                           "etl", "--option", "bins=2.7"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "bins must be an integer, got 2.7" in proc.stderr
    proc = cli(tmp_path, "build-abstraction", "--buckets", "-5,10,10,10")
    assert proc.returncode == 2 and "expected one argument" not in proc.stderr
    assert "--buckets" in proc.stderr


def test_abstractions_listed_from_a_read_only_catalog(tmp_path, monkeypatch):
    """A catalog on a read-only file system: `abstractions` lists it read-only (the write
    path fails as it does there: DuckDB's 'Read-only file system')."""
    import schema.catalog
    from abstraction import store
    from schema.catalog_abstraction import Abstraction

    import datetime as dt

    with schema.catalog.session_scope(tmp_path) as s:
        s.merge(Abstraction(name="a", method="eb", game="rhode-island", buckets="13,25,125",
                            built="13,25,125", seed=0, params="{}", errors="[]", timings="{}",
                            code_version="x", path="abstractions/a",
                            created=dt.datetime(2026, 1, 1)))

    def read_only(*_a, **_k):
        raise OSError(30, "Read-only file system", str(tmp_path / "poker.duckdb"))

    monkeypatch.setattr(schema.catalog, "make_engine", read_only)
    rows = store.list_abstractions(tmp_path)
    assert [r["name"] for r in rows] == ["a"] and rows[0]["public_board"] is False
