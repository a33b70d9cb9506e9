"""Defect 11 (issue 50): Ctrl-C of a replace while it waits for the catalog.

`build-abstraction --replace` used to put its new files live, then wait for the catalog (held
by a long reader); a Ctrl-C there left the new files with the old row and the old build
stranded in staging. Now the catalog is held before any file moves, so a stop while waiting
leaves the old build exactly (files and row), and a re-run succeeds. The same for
`import --replace`.

The moment is reached without sleeping: this test holds the name's lock until the command
says it waits for it (its files are staged by then), takes the catalog as a reader, lets the
name go and interrupts once the command says it waits for the catalog.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import cli
from abstraction.build import build
from abstraction.options import MethodOptions
from etl.lock import file_lock
from schema.catalog import catalog_path
from schema.catalog_abstraction import Abstraction
from schema.errors import UserError
from schema.publish import publish
from solve import share
from test_attack_archive import AB, _reader, files_of, state, unpack, wait_for

ROOT = Path(__file__).resolve().parents[1]
NEW = "13,20,50"  # the replacement's buckets (the old build has 13,25,125)


def interrupt_at_the_catalog_wait(data: Path, *argv) -> str:
    """Run ``cli.py argv`` on ``data``, Ctrl-C it while it waits for the catalog; its
    stderr."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    name_lock = file_lock(data / ".locks" / f"abstraction-{AB}.lock")
    name_lock.__enter__()
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--quiet", "--data-dir",
                             str(data), *argv], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    reader = None
    try:
        lines = _reader(proc)
        seen = wait_for(lines, f"another build or import of abstraction {AB!r} is under way")
        reader = duckdb.connect(str(catalog_path(data)), read_only=True)
        name_lock.__exit__(None, None, None)
        name_lock = None
        seen += wait_for(lines, "is held by another process")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=300) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if name_lock is not None:
            name_lock.__exit__(None, None, None)
        if reader is not None:
            reader.close()
    return "".join(seen + list(iter(lines.get, None)))


@pytest.fixture()
def old(tmp_path) -> Path:
    d = tmp_path / "d"
    build("rhode-island", "eb", MethodOptions(buckets="13,25,125", n_init=1), name=AB, data_dir=d)
    return d


def test_ctrl_c_of_build_abstraction_replace(old):
    before = state(old)
    argv = ["build-abstraction", "--game", "rhode-island", "--method", "eb", "--buckets", NEW,
            "--name", AB, "--n-init", "1", "--replace"]
    err = interrupt_at_the_catalog_wait(old, *argv)
    assert "interrupted" in err and "Traceback" not in err, err
    assert state(old) == before  # the old build, row and files alike
    assert not list((old / ".staging").glob(f"abstraction-{AB}*"))
    assert cli.main(["--quiet", "--data-dir", str(old), *argv]) == 0
    row, files = state(old)
    assert row["built"] == NEW and files != before[1] and row["created"] > before[0]["created"]


def test_ctrl_c_of_import_replace(old, tmp_path):
    src = tmp_path / "src"
    build("rhode-island", "eb", MethodOptions(buckets=NEW, n_init=1), name=AB, data_dir=src)
    archive = tmp_path / "a.tar"
    share.export(src, AB, archive)
    before = state(old)
    err = interrupt_at_the_catalog_wait(old, "import", "--replace", str(archive))
    assert "interrupted" in err and "Traceback" not in err, err
    assert state(old) == before
    assert not list((old / ".staging").glob(f"import-abstraction-{AB}*"))
    assert cli.main(["--quiet", "--data-dir", str(old), "import", "--replace",
                     str(archive)]) == 0
    row, files = state(old)
    assert row["built"] == NEW and files == unpack(archive)[1]


KILL_AT = {
    # killed after the renames, before the row: the files are the new build's, the row the old
    "merge": "Session.merge = lambda *a, **k: os._exit(9)",
    # killed after the row's commit, before the old folder is removed
    "commit": "merge, commit = Session.merge, Session.commit\n"
              "Session.merge = lambda self, *a, **k: setattr(self, 'hit', 1) or merge(self, *a, **k)\n"
              "Session.commit = lambda self: commit(self) or getattr(self, 'hit', 0) and os._exit(9)",
}


@pytest.mark.parametrize("moment", list(KILL_AT))
def test_a_kill_inside_the_swap_is_settled_by_the_next_run(moment, old, tmp_path):
    """SIGKILL cannot be deferred: killed between the renames and the commit (or right after
    it), the next import or build of the name first settles the journal: the old build back
    whole when the row was not committed, the new one kept when it was."""
    src = tmp_path / "src"
    build("rhode-island", "eb", MethodOptions(buckets=NEW, n_init=1), name=AB, data_dir=src)
    archive = tmp_path / "a.tar"
    share.export(src, AB, archive)
    before, new = state(old), unpack(archive)[1]
    argv = ["--quiet", "--data-dir", str(old), "import", "--replace", str(archive)]
    script = (f"import os, sys\nfrom sqlalchemy.orm import Session\n{KILL_AT[moment]}\n"
              f"import cli\nsys.exit(cli.main({argv!r}))\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 9, proc.stderr
    assert files_of(old / "abstractions" / AB) == new  # what the kill left live
    # the next publish of the name settles it before anything else (here one that is then
    # refused, to see the settled state)
    with pytest.raises(UserError, match="refused"):
        publish(old, tmp_path / "unused", old / "abstractions" / AB, Abstraction(name=AB),
                check=refuse)
    if moment == "merge":
        assert state(old) == before
    else:
        assert state(old)[0]["built"] == NEW and state(old)[1] == new
    assert not list((old / ".staging").iterdir())
    assert cli.main(argv) == 0  # and a re-run succeeds
    assert state(old)[0]["built"] == NEW and state(old)[1] == new


def refuse(_session):
    raise UserError("refused")
