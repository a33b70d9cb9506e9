"""The README is executable (issue 47): every command in its code blocks, and in the code blocks
of the docs pages it sends users to (``PAGES``), runs as written.

Each ``sh`` block after the README's set-up commands runs in order (the README, then the pages
in ``PAGES`` order), as one bash script
(``set -euo pipefail``), in a fresh directory that stands for the project root: ``cli.py`` is
linked there (Python puts the link's target directory on ``sys.path``, so the packages load from
this checkout) and nothing else, so ``./data`` is the default data directory, empty at the start,
exactly as a new user's. A block fails on a non-zero exit or a traceback in its output.

A block preceded by ``<!-- readme-test: full data (...) -->`` needs the full tables or hours
(the first set-up command's 20 minutes, a one-hour solve); it is not run here, and the README's
tour on small data is its variant, which is. The set-up commands themselves are the main job
(not run here) and the test command (what CI runs).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the README, then the docs pages whose commands a user runs from the project root, in the
#: order their blocks build on each other (a later page may use what an earlier one stored)
PAGES = ("README.md", "docs/commands.md", "docs/sharing.md", "docs/abstractions.md",
         "docs/lookups.md", "docs/etl.md", "docs/sql.md", "docs/rhode-island.md",
         "docs/holdem.md", "docs/architecture.md")
FULL_DATA = "<!-- readme-test: full data"
FENCE = re.compile(r"(?P<mark><!-- readme-test:[^\n]*-->\n)?```(?P<lang>[a-z]*)\n(?P<body>.*?)```",
                   re.S)


@dataclass(frozen=True)
class Block:
    page: str      # the file, relative to the project root
    line: int      # the line of the opening fence
    lang: str
    body: str
    full_data: bool

    @property
    def commands(self) -> list[str]:
        """The block's command lines (``$ ``-prefixed in an output block)."""
        lines = self.body.splitlines()
        if self.lang == "sh":
            return [x for x in lines if x.strip() and not x.lstrip().startswith("#")]
        return [x[2:] for x in lines if x.startswith("$ ")]


def blocks() -> list[Block]:
    out = []
    for page in PAGES:
        text = (ROOT / page).read_text()
        for m in FENCE.finditer(text):
            mark = m.group("mark") or ""
            if mark and not mark.startswith(FULL_DATA):
                raise AssertionError(f"{page}: unknown mark {mark.strip()!r}")
            out.append(Block(page, text.count("\n", 0, m.start("lang")) + 1, m.group("lang"),
                             m.group("body"), mark.startswith(FULL_DATA)))
    return out


def test_every_docs_page_with_commands_is_run():
    """A docs page with a ``python cli.py`` command block is in ``PAGES`` (or is a recipe for
    another machine, ``docs/scheduling.md``, whose paths are the reader's own). Blocks that
    reproduce a measurement (``python -m bench...``, as in BENCHMARKS.md) take minutes to hours
    and are not the user's commands."""
    fence = re.compile(r"```sh\n(.*?)```", re.S)
    for path in sorted((ROOT / "docs").glob("*.md")):
        page = str(path.relative_to(ROOT))
        if page in PAGES or page in ("docs/scheduling.md", "docs/design.md"):
            continue
        for body in fence.findall(path.read_text()):
            assert "python cli.py" not in body, f"{page} has command blocks but is not run"


def runnable() -> list[Block]:
    return [b for b in blocks()[1:] if b.lang == "sh" and not b.full_data]


def test_the_readme_opens_with_exactly_two_setup_commands():
    first = blocks()[0]
    assert first.page == "README.md" and first.line <= 5 and first.lang == "sh"
    assert len(first.commands) == 2
    install, tests = first.commands
    assert install.startswith("pip install -r requirements.txt && python cli.py build-abstraction")
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests.split("pip install -r requirements-dev.txt && ")[1] in ci


def test_every_command_block_is_run_or_marked_full_data():
    for b in blocks()[1:]:
        if any(c.startswith("python cli.py") for c in b.commands) and not b.full_data:
            assert b.lang == "sh", f"{b.page} line {b.line}: a command block the test cannot run"
    assert len(runnable()) >= 3 and sum(b.full_data for b in blocks()) <= 4


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A fresh directory standing for the project root, ``./data`` not yet made."""
    root = tmp_path_factory.mktemp("readme-root")
    (root / "cli.py").symlink_to(ROOT / "cli.py")
    return root


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("POKER_")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def test_readme_blocks_run_as_written(project):
    """In README order: later blocks use what earlier ones stored."""
    for b in runnable():
        proc = subprocess.run(["bash", "-c", "set -euo pipefail\n" + b.body], cwd=project,
                              env=_env(), capture_output=True, text=True, timeout=900)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"{b.page} line {b.line} exited {proc.returncode}:\n{out[-3000:]}"
        assert "Traceback" not in out, f"{b.page} line {b.line} printed a traceback:\n{out[-3000:]}"
    assert (project / "data" / "poker.duckdb").exists()  # the default ./data, nothing else
    assert (project / "tour-range.png").stat().st_size > 0
