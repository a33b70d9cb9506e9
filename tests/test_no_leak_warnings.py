"""No ``nanobind: leaked ...`` lines at interpreter exit (DuckDB's extension objects are freed).

They appeared after commands that use both pyarrow (whose pandas shim pins pandas for the life
of the process) and the catalog (SQLAlchemy + duckdb_engine); see
``schema.catalog._release_dialect_at_exit``. Each case runs a real command in a fresh
interpreter, since the lines are printed by interpreter teardown.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(tmp_path, *argv) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(tmp_path),
                           *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def check_clean(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, proc.stderr
    assert "nanobind: leaked" not in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("argv", [
    ("build-abstraction", "--game", "rhode-island", "--buckets", "13,20,40", "--method", "eb",
     "--name", "t1", "--n-init", "1"),
    ("solve", "--game", "kuhn", "--iterations", "50", "--name", "k1"),
])
def test_command_exits_without_leak_warnings(tmp_path, argv):
    check_clean(run_cli(tmp_path, *argv))


def test_sql_exits_without_leak_warnings(tmp_path):
    proc = run_cli(tmp_path, "sql", "SELECT 1 AS one")
    check_clean(proc)
    assert "1" in proc.stdout


def test_pyarrow_then_catalog_exits_without_leak_warnings(tmp_path):
    # The smallest reproduction: pyarrow's pandas shim initialised, then a catalog session.
    code = ("import pyarrow as pa\n"
            "pa.table({'a': [1, 2]})\n"
            "from schema.catalog import session_scope\n"
            f"with session_scope({str(tmp_path)!r}) as s:\n"
            "    pass\n")
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    check_clean(proc)
