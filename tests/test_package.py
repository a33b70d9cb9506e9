"""The project as a package (issue 48): ``pyproject.toml`` pins its dependencies (from
requirements.txt), finds every package of the pipeline, and its ``poker`` console script is
the same command line as ``python cli.py``. The last test installs it for real (editable,
into a venv that sees the machine's packages) and runs ``poker --help`` from another
directory, as a user would after ``pip install -e .``."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

import cli

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
TOP_LEVEL = ("schema", "etl", "abstraction", "solve", "queries")


def _entry_point(spec: str):
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr)


def _commands(help_text: str) -> list[str]:
    """The sub-command names a top-level ``--help`` lists."""
    block = help_text.split("positional arguments:")[1].split("options:")[0]
    return re.findall(r"^ {4}(\S+)", block, flags=re.M)


@pytest.fixture(scope="module")
def cli_py_help() -> str:
    """What ``python cli.py --help`` prints, run from the project root with no ``POKER_*``
    variable (the environment a fresh shell has)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("POKER_")}
    proc = subprocess.run([sys.executable, "cli.py", "--help"], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_poker_script_is_the_cli_main():
    assert PYPROJECT["project"]["scripts"] == {"poker": "cli:main"}
    assert _entry_point(PYPROJECT["project"]["scripts"]["poker"]) is cli.main


def test_the_poker_script_has_the_commands_of_python_cli_py(capsys, monkeypatch, cli_py_help):
    """Run as ``poker`` (the console script's ``sys.argv[0]``), the parser is the one
    ``python cli.py`` builds: the same commands, named ``poker`` in its usage line."""
    monkeypatch.setattr(sys, "argv", ["poker"])
    with pytest.raises(SystemExit) as done:
        _entry_point(PYPROJECT["project"]["scripts"]["poker"])(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: poker ")
    assert _commands(out) == _commands(cli_py_help)
    assert {"etl", "build-abstraction", "solve", "compare", "experiment"} <= set(_commands(out))


def test_dependencies_are_the_pinned_requirements():
    assert PYPROJECT["project"]["dynamic"] == ["dependencies"]
    files = PYPROJECT["tool"]["setuptools"]["dynamic"]["dependencies"]["file"]
    assert files == ["requirements.txt"]
    reqs = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text()
            .splitlines()]
    reqs = [r for r in reqs if r]
    assert len(reqs) >= 10
    unpinned = [r for r in reqs if not re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==[A-Za-z0-9_.+]+", r)]
    assert not unpinned, unpinned


def test_every_package_of_the_pipeline_is_installed():
    """setuptools' discovery, as pyproject configures it, finds every folder of the pipeline
    with Python files (each a regular package), and the cli module; the SQL files the views
    read are package data."""
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    found = set(find_packages(where=str(ROOT), include=include))
    folders = {".".join(d.relative_to(ROOT).parts) for top in TOP_LEVEL
               for d in [ROOT / top, *(ROOT / top).rglob("*")]
               if d.is_dir() and any(d.glob("*.py"))}
    missing_init = sorted(f for f in folders if not (ROOT / f.replace(".", "/") / "__init__.py")
                          .exists())
    assert not missing_init, f"folders with Python files but no __init__.py: {missing_init}"
    assert found == folders
    assert PYPROJECT["tool"]["setuptools"]["py-modules"] == ["cli"]
    assert "*.sql" in PYPROJECT["tool"]["setuptools"]["package-data"]["queries"]
    assert any((ROOT / "queries").glob("*.sql"))


def test_every_data_file_of_a_package_is_package_data():
    """A file a package reads beside its modules (the views' SQL, the evaluator's tables) is
    installed with it: each file in a package folder that is not Python source matches a
    ``package-data`` pattern of its package."""
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    loose = []
    for top in TOP_LEVEL:
        for f in (ROOT / top).rglob("*"):
            if (f.is_file() and f.suffix not in (".py", ".pyc") and "__pycache__" not in f.parts
                    and not f.name.startswith(".")):
                package = ".".join(f.parent.relative_to(ROOT).parts)
                if not any(f.match(g) for g in data.get(package, ())):
                    loose.append(str(f.relative_to(ROOT)))
    assert not loose, f"files no package-data pattern installs: {loose}"
    assert (ROOT / "etl" / "eval_tables.npz").is_file()


def test_pip_install_editable_then_poker_help_from_another_directory(tmp_path, cli_py_help):
    """A real install: a venv that sees the machine's packages (so ``--no-deps``: the pinned
    ones are there already), ``pip install -e .``, then ``poker --help`` and an import of the
    library from a directory outside the project (about 12 s)."""
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith("POKER_")}
    env.pop("PYTHONPATH", None)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=120)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-deps", "-e",
                          str(ROOT)], capture_output=True, text=True, env=env, timeout=600)
    assert pip.returncode == 0, pip.stderr[-2000:]
    elsewhere = tmp_path / "notebooks"
    elsewhere.mkdir()
    proc = subprocess.run([str(venv / "bin" / "poker"), "--help"], cwd=elsewhere,
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: poker ")
    assert _commands(proc.stdout) == _commands(cli_py_help)
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import cli, queries.compare, solve.games.registry, schema.errors; "
         "print(queries.compare.__file__)"],
        cwd=elsewhere, capture_output=True, text=True, env=env, timeout=120)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()) == ROOT / "queries" / "compare.py"
