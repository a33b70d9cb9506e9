"""docs/scheduling.md: every command line it documents runs as written (issue 19), with the
checkout and data-directory paths replaced, on the toy ETL tables."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from etl import storage

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "scheduling.md").read_text()
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ", re.M)


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC, re.S)


def env(**extra) -> dict:
    e = dict(os.environ, **extra)
    e.pop("POKER_PROGRESS", None)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT)])
    e["POKER_ETL_TABLES"] = "test_etl_runner:toy_tables"
    return e


def run_shell(line: str, data: Path, **extra) -> subprocess.CompletedProcess:
    line = line.replace("/srv/poker/data", str(data)).replace("/srv/poker", str(ROOT))
    line = line.replace("python cli.py", f"{shlex.quote(sys.executable)} cli.py")
    return subprocess.run(["bash", "-c", line], env=env(**extra), capture_output=True, text=True,
                          timeout=300)


@pytest.fixture()
def data(tmp_path) -> Path:
    return tmp_path / "data"


def test_cron_line_builds_then_is_idempotent_and_logs_plain_lines(data):
    (cron,) = blocks("cron")
    command = cron.strip().split(None, 5)[5]  # after the five schedule fields
    assert "etl --refresh --wait" in command
    data.mkdir()
    for _ in range(2):
        proc = run_shell(command, data)
        assert proc.returncode == 0, proc.stderr
    log = (data / "etl.log").read_text()
    assert "\r" not in log and "\x1b" not in log
    assert len(STAMP.findall(log)) >= 4  # started/done per table, in both runs


def test_systemd_exec_start_runs(data):
    service = next(b for b in blocks("ini") if "ExecStart=" in b)
    workdir = re.search(r"^WorkingDirectory=(.*)$", service, re.M).group(1)
    exec_start = re.search(r"^ExecStart=(.*)$", service, re.M).group(1)
    proc = run_shell(f"cd {workdir} && {exec_start}", data)
    assert proc.returncode == 0, proc.stderr
    timer = next(b for b in blocks("ini") if "OnCalendar=" in b)
    assert "Persistent=true" in timer


def test_monitor_command_and_exit_statuses(data):
    (monitor,) = [b.strip() for b in blocks("sh")]
    (service,) = [b for b in blocks("ini") if "ExecStart=" in b]
    build = re.search(r"^ExecStart=(.*)$", service, re.M).group(1)
    assert run_shell(f"cd /srv/poker && {build}", data).returncode == 0
    proc = run_shell(monitor, data)
    doc = json.loads(proc.stdout)
    assert proc.returncode == doc["exit_status"] == 0 and doc["state"] == "ok"
    toy = next(t for t in doc["tables"] if t["name"] == "toy")
    assert toy["ok"] == toy["partitions"] == 12 and toy["last_built"].endswith("Z")
    proc = run_shell(monitor, data, TOY_VERSION="toy-2")  # new code: every toy partition stale
    doc = json.loads(proc.stdout)
    toy = next(t for t in doc["tables"] if t["name"] == "toy")
    assert proc.returncode == 3 and doc["state"] == "to-build" and toy["stale"] == 12
    assert {p["state"] for p in toy["problems"]} == {"stale"}
    storage.partition_path(data, "toy", "03").unlink()
    proc = run_shell(monitor, data)
    assert proc.returncode == 3 and json.loads(proc.stdout)["state"] == "to-build"
    (storage.table_dir(data, "toy") / "backup.parquet").write_bytes(b"x")
    proc = run_shell(monitor, data)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 4 and doc["state"] == "damaged"
    assert next(t for t in doc["tables"] if t["name"] == "toy")["stray"] == ["backup.parquet"]
    # the documented table of statuses says the same
    for status, meaning in ((0, "every partition ok"), (3, "missing or stale"),
                            (4, "damaged, or stray")):
        assert re.search(rf"\| {status} \| [^|]*{meaning}", DOC), status
