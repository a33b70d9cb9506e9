"""docs/python.md ("Using it from Python", issue 48) runs as written: its ``python`` blocks, in
order, as one script, in an empty working directory, with the project importable as after
``pip install -e .`` and no ``POKER_*`` variable set. The page names its data directory
explicitly (a temporary one): nothing may appear in the working directory, ``./data`` above
all."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "python.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def page_script() -> str:
    return "\n".join(BLOCK.findall(PAGE.read_text()))


def test_the_page_has_the_worked_example_and_the_readme_links_it():
    script = page_script()
    for step in ("build(", "make_solver(", "store_strategy(", "open_lookup(", "con.sql("):
        assert step in script, f"docs/python.md does not show {step}"
    assert "cli" not in re.findall(r"^(?:from|import) (\w+)", script, re.M)
    assert "](docs/python.md)" in (ROOT / "README.md").read_text()


def test_the_python_page_runs_as_written(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("POKER_")}
    env["PYTHONPATH"] = str(ROOT)  # what `pip install -e .` gives
    env["TMPDIR"] = str(tmp_path / "tmp")  # the page's temporary data directory, cleaned up
    (tmp_path / "tmp").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([sys.executable, "-c", page_script()], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    assert "ri-small-cfr" in proc.stdout and "trained" in proc.stdout
    assert list(work.iterdir()) == []  # no ./data: the data directory is the page's own
    data = [p for p in (tmp_path / "tmp").glob("poker-*/data")]
    assert len(data) == 1 and (data[0] / "poker.duckdb").is_file()
