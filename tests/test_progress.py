"""Progress without a terminal (issue 19): timestamped lines, no control characters."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from schema import progress
from schema.progress import LogProgress, progress_bar

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ")


def test_log_progress_lines():
    out = io.StringIO()
    bar = LogProgress(total=10, desc="work", unit="part", file=out, interval=0.0)
    for _ in range(10):
        bar.update(1)
    bar.set_postfix(loss="0.5")
    bar.close()
    bar.close()  # idempotent
    lines = out.getvalue().splitlines()
    assert len(lines) == 12 and all(LINE.match(x) for x in lines)
    assert lines[0].endswith("work: 0/10 part (0.0%) [started]")
    assert "ETA" in lines[1] and "10/10 part (100.0%)" in lines[-1]
    assert lines[-1].endswith("loss=0.5 [done]")
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_log_progress_at_most_one_line_per_interval():
    out = io.StringIO()
    with LogProgress(total=1000, desc="x", file=out, interval=3600) as bar:
        for _ in range(1000):
            bar.update(1)
    assert len(out.getvalue().splitlines()) == 2  # started, done


def test_log_progress_says_stopped_when_its_block_raises():
    out = io.StringIO()
    try:
        with LogProgress(total=10, desc="x", file=out, interval=3600) as bar:
            bar.update(4)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    last = out.getvalue().splitlines()[-1]
    assert last.endswith("[stopped]") and "4/10" in last and "ETA" not in last


def test_log_progress_rate_and_eta_are_recent(monkeypatch):
    """A run that went slowly for an hour (paused, or sharing the machine), then at its usual
    pace for twenty minutes, shows that pace and the ETA it gives, not the average since the
    start."""
    clock = [1000.0]  # the progress module's clock only, not the time module everyone shares
    monkeypatch.setattr(progress, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    out = io.StringIO()
    bar = LogProgress(total=100_000, desc="x", unit="board", file=out, interval=60.0)
    for _ in range(60):  # an hour at 1 board/s
        clock[0] += 60.0
        bar.update(60)
    for _ in range(20):  # then 20 minutes at 10 boards/s
        clock[0] += 60.0
        bar.update(600)
    last = out.getvalue().splitlines()[-1]
    done = 3600 + 12_000
    assert f"{done:,}/100,000 board" in last and "1 h 20 min elapsed" in last
    assert "10 board/s" in last, last  # the last 15 minutes, not 3.25 boards/s since the start
    assert f"ETA {(100_000 - done) // 10 // 3600} h" in last
    assert len(bar._marks) <= 32


def test_modes(monkeypatch):
    monkeypatch.setattr(progress, "_forced", None)  # restored after the test
    progress.force_mode("off")
    out = io.StringIO()
    with progress_bar(total=3, file=out) as bar:
        bar.update(3)
    assert out.getvalue() == ""
    progress.force_mode("log")
    assert isinstance(progress_bar(total=1, file=out), LogProgress)
    assert list(progress_bar(range(3), file=out)) == [0, 1, 2]


def _env(**extra) -> dict:
    env = dict(os.environ)
    env.pop("POKER_PROGRESS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests"), str(ROOT)])
    env["POKER_ETL_TABLES"] = "test_etl_runner:toy_tables"
    env.update(extra)
    return env


def test_etl_to_a_file_logs_plain_lines(tmp_path):
    """The ETL with stderr sent to a file (cron, systemd): plain timestamped progress lines
    per table, no carriage returns or escape codes; --quiet: none."""
    proc = subprocess.run([sys.executable, "cli.py", "--data-dir", str(tmp_path / "d"), "etl",
                           "--workers", "1"], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if LINE.match(x)]
    assert any("toy: 0/12 part" in x and "[started]" in x for x in lines)
    assert any("toy: 12/12 part (100.0%)" in x and "[done]" in x for x in lines)
    for k in range(1, 13):  # a line per partition
        assert any(f"toy: {k}/12 part" in x for x in lines), k
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr
    proc = subprocess.run([sys.executable, "cli.py", "--quiet", "--data-dir",
                           str(tmp_path / "e"), "etl", "--workers", "1"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and not [x for x in proc.stderr.splitlines() if LINE.match(x)]


def test_build_abstraction_to_a_file_logs_a_line_per_round(tmp_path):
    proc = subprocess.run([sys.executable, "cli.py", "--data-dir", str(tmp_path),
                           "build-abstraction", "--game", "rhode-island", "--method", "pa",
                           "--buckets", "13,25,125", "--n-init", "1"], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if LINE.match(x)]
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr
    for r in (1, 2):  # the per-parent work of every clustered round starts and ends in the log
        assert any(f"round {r}" in x and "[started]" in x for x in lines), (r, lines)
        assert any(f"round {r}" in x and "[done]" in x for x in lines), (r, lines)
