"""The benchmark scripts run as modules from the project root (issue 48): ``python -m
bench.NAME``. None edits ``sys.path`` to find the pipeline's packages, and each one's ``--help``
runs, so every script at least imports and parses its options as BENCHMARKS.md's commands call
it."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: every script in bench/ (the package's own helpers are not scripts)
SCRIPTS = sorted(p.stem for p in (ROOT / "bench").glob("*.py")
                 if p.stem not in ("__init__", "_common"))

#: One interpreter runs each script as ``python -m bench.NAME --help`` does (``runpy`` as
#: ``__main__``, from the project root): one process, so numpy and numba load once, not 29
#: times. Prints {name: problem} for the scripts whose --help failed.
DRIVER = """
import contextlib, io, json, runpy, sys, traceback
bad = {}
for name in sys.argv[1:]:
    out = io.StringIO()
    sys.argv = ["python -m bench." + name, "--help"]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            runpy.run_module("bench." + name, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as e:
        code = e.code or 0
    except BaseException:
        code = traceback.format_exc()
    if code != 0 or "usage:" not in out.getvalue():
        bad[name] = f"exit {code}: {out.getvalue()[-1500:]}"
print(json.dumps(bad))
"""


def path_edits(source: str) -> list[int]:
    """Lines that touch ``sys.path`` (``sys.path.insert``, ``sys.path = ...``, ``from sys import
    path``) or ``site.addsitedir``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in (("sys", "path"), ("site", "addsitedir"))):
            lines.append(node.lineno)
        elif (isinstance(node, ast.ImportFrom) and node.module in ("sys", "site")
              and any(a.name in ("path", "addsitedir") for a in node.names)):
            lines.append(node.lineno)
    return sorted(lines)


def test_there_are_scripts_and_bench_is_a_package():
    assert (ROOT / "bench" / "__init__.py").is_file()
    assert len(SCRIPTS) >= 25


def test_no_bench_script_touches_sys_path():
    bad = {name: lines for name in SCRIPTS + ["_common"]
           if (lines := path_edits((ROOT / "bench" / f"{name}.py").read_text()))}
    assert not bad, f"bench scripts editing sys.path (script: lines): {bad}"


def test_the_sys_path_check_is_not_vacuous():
    assert path_edits("import sys\nsys.path.insert(0, 'x')\n") == [2]
    assert path_edits("import sys\n\nsys.path = ['x']\n") == [3]
    assert path_edits("from sys import path\npath.append('x')\n") == [1]
    assert path_edits("import site\nsite.addsitedir('x')\n") == [2]
    assert path_edits("import sys\nprint(sys.argv)  # sys.path untouched\n") == []


def test_every_bench_script_help_runs_as_a_module():
    env = {k: v for k, v in os.environ.items() if not k.startswith("POKER_")}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, "-c", DRIVER, *SCRIPTS], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    bad = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not bad, "\n".join(f"python -m bench.{k} --help: {v}" for k, v in bad.items())
