"""export / import of a build (issue 19): the imported build is used exactly as the original,
and every refusal is a one-line error that writes nothing."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

import cli_inprocess
from cli import main as cli_main
from etl import runner
from solve import share
from test_etl_runner import toy_tables

ROOT = Path(__file__).resolve().parents[1]
AB = "ri-eb"


def cli(data, *args, env=None) -> subprocess.CompletedProcess:
    """``python cli.py --quiet --data-dir DATA ARGS``, run in this process (``cli_inprocess``)."""
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]),
             **(env or {}))
    return cli_inprocess.run(["--quiet", "--data-dir", str(data), *args], cwd=ROOT, env=e)


def ok(proc) -> str:
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """The build to export (the build and solve commands have tests of their own)."""
    d = tmp_path_factory.mktemp("src")
    with pytest.MonkeyPatch.context() as mp:  # cli.main sets these two for its process
        mp.setenv("POKER_DATA_DIR", str(d))
        mp.setenv("POKER_PROGRESS", "off")
        assert cli_main(["--quiet", "--data-dir", str(d), "build-abstraction", "--game",
                         "rhode-island", "--method", "eb", "--buckets", "13,25,125", "--name",
                         AB, "--n-init", "1"]) == 0
        assert cli_main(["--quiet", "--data-dir", str(d), "solve", "--game", "rhode-island",
                         "--abstraction", AB, "--algorithm", "cfr+", "--iterations", "30",
                         "--name", "s"]) == 0
    return d


@pytest.fixture(scope="module")
def archives(source, tmp_path_factory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("arch")
    a, s = out / "ab.tar", out / "s.tar"
    assert "exported abstraction 'ri-eb'" in ok(cli(source, "export", AB, str(a)))
    assert "exported strategy 's'" in ok(cli(source, "export", "s", str(s)))
    return a, s


def snapshot(d: Path) -> dict:
    return {str(p.relative_to(d)): p.read_bytes() for p in d.rglob("*")
            if p.is_file() and p.name != "poker.duckdb" and not p.name.endswith(".wal")}


def test_import_gives_the_same_build(source, archives, tmp_path):
    a, s = archives
    dst = tmp_path / "dst"
    ok(cli(dst, "import", str(a)))
    ok(cli(dst, "import", str(s)))
    for sub in (f"abstractions/{AB}", "strategies/s"):
        mine = {k: v for k, v in snapshot(source / sub).items() if "checkpoint" not in k}
        assert snapshot(dst / sub) == mine  # byte for byte
    assert ok(cli(dst, "evaluate", "s")) == ok(cli(source, "evaluate", "s"))
    # solving on the imported abstraction is the same game: the same 5-iteration result
    outs = [ok(cli(d, "solve", "--game", "rhode-island", "--abstraction", AB, "--iterations",
                   "5", "--name", "again", "--algorithm", "cfr")) for d in (source, dst)]
    fields = [re.sub(r" wall=\S+", "", x.splitlines()[0]) for x in outs]
    assert "value=" in fields[0] and fields[0] == fields[1]
    # and compare takes the imported build as the original: the abstraction stands for the
    # same stored strategy (no solve: nothing new in solve_runs), with the same four measures
    tables = [ok(cli(d, "compare", "--game", "rhode-island", AB, "s", "--equilibrium", "s",
                     "--reuse-solved", "--no-progress")) for d in (source, dst)]
    assert AB in tables[0] and tables[0] == tables[1]
    got = ok(cli(dst, "sql", "SELECT name FROM solve_runs ORDER BY name", "--format", "csv"))
    assert got.split() == ["name", "again", "s"]


def test_refusals(source, archives, tmp_path):
    a, s = archives
    dst = tmp_path / "dst"
    dst.mkdir()
    before = snapshot(dst)
    # a strategy whose abstraction is missing
    proc = cli(dst, "import", str(s))
    assert proc.returncode == 2 and "import the abstraction first" in proc.stderr
    # a damaged archive: one byte flipped inside a Parquet file
    raw = bytearray(a.read_bytes())
    with tarfile.open(a) as tar:
        m = next(x for x in tar.getmembers() if x.name.endswith("round2.parquet"))
    raw[m.offset_data + m.size // 2] ^= 0xFF
    bad = tmp_path / "bad.tar"
    bad.write_bytes(bytes(raw))
    proc = cli(dst, "import", str(bad))
    assert proc.returncode == 2 and "is damaged" in proc.stderr and "round2" in proc.stderr
    # truncated, and not an archive at all
    (tmp_path / "short.tar").write_bytes(a.read_bytes()[: len(raw) // 2])
    proc = cli(dst, "import", str(tmp_path / "short.tar"))
    assert proc.returncode == 2 and proc.stderr.startswith("error: ")
    (tmp_path / "x.tar").write_text("hello")
    proc = cli(dst, "import", str(tmp_path / "x.tar"))
    assert proc.returncode == 2 and "not a readable build archive" in proc.stderr
    for p in (proc,):
        assert "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    assert {k: v for k, v in snapshot(dst).items() if not k.startswith(".staging")} == before
    # a name clash, unless --replace
    ok(cli(dst, "import", str(a)))
    proc = cli(dst, "import", str(a))
    assert proc.returncode == 2 and "exists" in proc.stderr and "--replace" in proc.stderr
    ok(cli(dst, "import", str(a), "--replace"))


def test_other_equity_tables_refused(source, tmp_path):
    """An abstraction built on equity tables other than the target's is refused (the toy ETL
    tables stand in for the equity tables: their fingerprint is what is compared)."""
    target = tmp_path / "t"
    runner.run(target, toy_tables(), workers=1, progress=False)
    mine = share.equity_fingerprint(target)
    assert mine == {}  # toy tables are not equity tables: fingerprint only the real ones
    theirs = {"toy": {"versions": ["toy-0"], "partitions": 12, "digest": "0" * 64}}
    ours = {"toy": {"versions": ["toy-1"], "partitions": 12, "digest": "1" * 64}}
    with pytest.raises(share.UserError, match="built on other toy partitions"):
        share._check_equity(theirs, ours, "x")
    # the target lacks the table the abstraction's use needs: it is told how to build it
    # (exact: it comes out the same); a table its use does not need is not demanded
    river = {"equity_river": {"versions": ["v0"], "partitions": 16, "digest": "0" * 64}}
    with pytest.raises(share.UserError,
                       match=r"run `python cli.py etl --tables equity_river` first"):
        share._check_equity({**theirs, **river}, {}, "x")
    share._check_equity(theirs, {}, "x")
    share._check_equity(theirs, {"toy": dict(theirs["toy"])}, "x")  # the same: fine
    # through the archive: a manifest naming other equity tables is refused by import
    arch = tmp_path / "a.tar"
    share.export(source, AB, arch)
    with tarfile.open(arch) as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]
    forged = tmp_path / "forged.tar"
    with tarfile.open(forged, "w") as tar:
        for m, data in members:
            if m.name == "manifest.json":
                man = json.loads(data)
                man["equity_tables"] = {"equity_river": {"versions": ["v0"], "partitions": 1,
                                                         "digest": "0" * 64}}
                data = json.dumps(man).encode()
                m.size = len(data)
            tar.addfile(m, io.BytesIO(data))
    monkey = {"equity_river": {"versions": ["v1"], "partitions": 1, "digest": "1" * 64}}
    orig = share.equity_fingerprint
    share.equity_fingerprint = lambda d: monkey
    try:
        with pytest.raises(share.UserError, match="built on other equity_river partitions"):
            share.import_(tmp_path / "t2", forged)
    finally:
        share.equity_fingerprint = orig
