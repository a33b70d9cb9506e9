"""Attacks on `import` (issue 50): forged, malformed, oversized and concurrent archives.

Import is a transaction: each attack is refused with one line (exit 2) before anything goes
live, and the build already in the data directory stays exactly as it was."""

from __future__ import annotations

import hashlib
import io
import json
import os
import queue
import resource
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cli
from abstraction.build import build
from abstraction.options import MethodOptions
from etl.lock import file_lock
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from solve import share

ROOT = Path(__file__).resolve().parents[1]
AB = "A"


def run(data: Path, *argv) -> int:
    return cli.main(["--quiet", "--data-dir", str(data), *argv])


def one_line_error(capsys, rc: int) -> str:
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def row_of(data: Path, name: str = AB) -> dict | None:
    with session_scope(data) as s:
        r = s.get(Abstraction, name)
        return None if r is None else {c.name: getattr(r, c.name)
                                       for c in Abstraction.__table__.columns}


def files_of(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def state(data: Path) -> tuple:
    """What a build of A is, as far as a reader can tell: its catalog row and its files."""
    return row_of(data), files_of(data / "abstractions" / AB)


def unpack(archive: Path) -> tuple[dict, dict]:
    with tarfile.open(archive) as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())
        files = {m.name[len("files/"):]: tar.extractfile(m).read() for m in tar.getmembers()
                 if m.name.startswith("files/")}
    return manifest, files


def pack(out: Path, manifest, files: dict, gz: bool = False, raw: bytes | None = None) -> Path:
    """An archive of ``manifest`` (or the manifest bytes ``raw``) and ``files`` (path ->
    bytes), members written as given (the manifest is not brought in line with them)."""
    with tarfile.open(out, "w:gz" if gz else "w", **({"compresslevel": 1} if gz else {})) as tar:
        for name, data in [("manifest.json", raw if raw is not None else
                            json.dumps(manifest).encode())] + \
                [(f"files/{p}", d) for p, d in files.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def entry(path: str, data: bytes) -> dict:
    return {"path": path, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


@pytest.fixture(scope="module")
def arch(tmp_path_factory) -> dict:
    """Archives of abstraction A as built in two data directories (other buckets), and of a
    Kuhn strategy k."""
    out = {}
    for key, buckets in (("a1", "13,25,125"), ("a2", "13,20,50")):
        d = tmp_path_factory.mktemp(key)
        build("rhode-island", "eb", MethodOptions(buckets=buckets, n_init=1), name=AB, data_dir=d)
        out[key] = d / f"{key}.tar"
        share.export(d, AB, out[key])
    d = tmp_path_factory.mktemp("k")
    assert run(d, "solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "20",
               "--name", "k") == 0
    out["k"] = d / "k.tar"
    share.export(d, "k", out["k"])
    return out


@pytest.fixture()
def target(tmp_path, arch) -> Path:
    """A data directory holding A (from a1)."""
    d = tmp_path / "target"
    share.import_(d, arch["a1"])
    return d


def test_a_row_of_another_name_does_not_rewrite_that_build(target, arch, tmp_path, capsys):
    """Defect 1: a manifest named B whose row names A rewrote A's catalog row."""
    before = state(target)
    manifest, files = unpack(arch["a2"])
    manifest["name"] = "B"  # row["name"] stays A
    err = one_line_error(capsys, run(target, "import", str(pack(tmp_path / "b.tar", manifest,
                                                                      files))))
    assert "row is of abstraction 'A'" in err and "manifest of 'B'" in err
    assert state(target) == before and row_of(target, "B") is None
    assert not (target / "abstractions" / "B").exists()


def test_a_failed_replace_leaves_the_previous_build(target, arch, tmp_path, capsys):
    """Defect 2: a row with an unexpected field swapped the files in, then crashed."""
    before = state(target)
    manifest, files = unpack(arch["a2"])
    manifest["row"]["owner"] = "mallory"
    err = one_line_error(capsys, run(target, "import", "--replace",
                                     str(pack(tmp_path / "x.tar", manifest, files))))
    assert "unknown field(s) owner" in err
    assert state(target) == before
    # and the archive as exported replaces it whole
    assert run(target, "import", "--replace", str(arch["a2"])) == 0
    assert state(target)[1] == files and state(target)[0]["buckets"] == "13,20,50"


def test_a_member_larger_than_its_manifest_entry_is_never_copied(target, arch, tmp_path):
    """Defect 7: members were copied before their sizes were checked (2 GB of zeros in an
    8.7 MB .tar.gz). Here 64 MB of zeros behind round2.parquet, and the import may write no
    file larger than 8 MB: it refuses on the member's header, before copying."""
    manifest, files = unpack(arch["a2"])
    files["round2.parquet"] += bytes(64 << 20)
    bomb = pack(tmp_path / "bomb.tar.gz", manifest, files, gz=True)
    assert bomb.stat().st_size < 1 << 20

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (8 << 20, 8 << 20))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "--quiet", "--data-dir",
                           str(target), "import", "--replace", str(bomb)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, preexec_fn=small_files)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "round2.parquet is 64.0 MB in the archive" in proc.stderr


def test_an_oversized_manifest_is_not_read(target, arch, tmp_path, capsys):
    """Defect 7: a 1 GB manifest.json was read whole (2.27 GB of memory)."""
    manifest, files = unpack(arch["a2"])
    raw = json.dumps(manifest).encode() + b" " * (share.MANIFEST_MAX + 1)
    err = one_line_error(capsys, run(target, "import", "--replace",
                                     str(pack(tmp_path / "m.tar", None, files, raw=raw))))
    assert "manifest.json is 16.0 MB, more than a manifest can be" in err


def test_the_uncompressed_total_is_capped(target, arch, capsys):
    """Defect 7: the cap is stated, and --max-size moves it."""
    before = state(target)
    err = one_line_error(capsys, run(target, "import", "--replace", "--max-size", "10K",
                                     str(arch["a2"])))
    assert "more than the cap of 10.0 KB" in err and "--max-size" in err
    assert state(target) == before
    assert run(target, "import", "--replace", "--max-size", "1M", str(arch["a2"])) == 0
    err = one_line_error(capsys, run(target, "import", "--max-size", "lots", str(arch["a2"])))
    assert "--max-size must be a size" in err


def test_a_strategy_table_must_be_a_parquet_table_of_its_schema(tmp_path, arch, capsys):
    """Defect 8: 11 junk bytes with a matching checksum imported as strategy.parquet, and
    every later query on `strategies` failed."""
    d = tmp_path / "d"
    manifest, files = unpack(arch["k"])
    cases = {"junk": b"hello world",
             "other": _parquet(pa.table({"round": pa.array([0], pa.int8())}))}
    for label, data in cases.items():
        manifest["files"] = [entry("strategy.parquet", data)]
        manifest["row"]["sha256"] = manifest["files"][0]["sha256"]
        err = one_line_error(capsys, run(d, "import", str(pack(tmp_path / f"{label}.tar",
                                                                manifest, {"strategy.parquet":
                                                                           data}))))
        assert ("not a readable Parquet table" if label == "junk"
                else "not its declared schema") in err
        assert not (d / "strategies" / "k").exists()
    assert run(d, "import", str(arch["k"])) == 0
    capsys.readouterr()
    assert run(d, "sql", "SELECT count(*) AS n FROM strategies", "--format", "csv") == 0
    assert capsys.readouterr().out.split()[1] != "0"


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _malformed(manifest: dict) -> dict:
    def edit(**kw):
        m = json.loads(json.dumps(manifest))
        for k, v in kw.items():
            if v is None:
                m.pop(k)
            else:
                m[k] = v
        return m

    return {
        "a JSON list": ([], "a JSON list, not an object"),
        "no row": (edit(row=None), "'row' must be a JSON object, got nothing"),
        "files: 5": (edit(files=5), "'files' must be a JSON list, got number"),
        "NUL in the name": (edit(name="k\0x"), "bad strategy name"),
        "integer name": (edit(name=7), "'name' must be a JSON string"),
        "newline in the name": (edit(name="k\n"), "bad strategy name"),
        "newline inside the name": (edit(name="k\nx"), "bad strategy name"),
        "a path out of the folder": (edit(files=[{**manifest["files"][0],
                                                  "path": "../strategy.parquet"}]),
                                     "is not a file a strategy has"),
        "bytes as text": (edit(files=[{**manifest["files"][0], "bytes": "12"}]),
                          "'bytes' of a file must be a whole number"),
        "a row of the wrong type": (edit(row={**manifest["row"], "iterations": "many"}),
                                    "'iterations' is not a whole number"),
    }


@pytest.mark.parametrize("case", ["a JSON list", "no row", "files: 5", "NUL in the name",
                                  "integer name", "newline in the name",
                                  "newline inside the name", "a path out of the folder",
                                  "bytes as text", "a row of the wrong type"])
def test_malformed_manifests_are_one_line_errors(case, tmp_path, arch, capsys):
    manifest, files = unpack(arch["k"])
    forged, says = _malformed(manifest)[case]
    d = tmp_path / "d"
    err = one_line_error(capsys, run(d, "import", str(pack(tmp_path / "m.tar", forged, files))))
    assert says in err
    assert not (d / "strategies").exists() or not any((d / "strategies").iterdir())


def test_export_to_an_empty_file_name(target, capsys):
    err = one_line_error(capsys, run(target, "export", AB, ""))
    assert "empty" in err


def test_missing_equity_tables_name_the_etl_command(tmp_path, arch, capsys):
    """An abstraction built on equity tables this data directory lacks is refused with the
    command that builds them (it used to import, and every look-up failed later)."""
    manifest, files = unpack(arch["a1"])
    manifest["equity_tables"] = {t: {"versions": ["v1"], "partitions": 4, "digest": "0" * 64}
                                 for t in ("equity_river", "equity_turn")}
    d = tmp_path / "d"
    err = one_line_error(capsys, run(d, "import", str(pack(tmp_path / "e.tar", manifest,
                                                            files))))
    assert "run `python cli.py etl --tables equity_river` first" in err  # what look-ups use
    assert row_of(d) is None and not (d / "abstractions" / AB).exists()
    # built where handval also existed: a table its use does not need does not block it
    manifest["equity_tables"] = {"handval": {"versions": ["v1"], "partitions": 16,
                                             "digest": "0" * 64}}
    assert run(d, "import", str(pack(tmp_path / "h.tar", manifest, files))) == 0
    assert row_of(d) is not None


def _reader(proc) -> queue.Queue:
    """stderr lines of ``proc`` as they come (None at its end)."""
    q: queue.Queue = queue.Queue()

    def pump():
        for line in proc.stderr:
            q.put(line)
        q.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return q


def wait_for(q: queue.Queue, text: str, timeout: float = 300) -> list[str]:
    """Lines read until one holds ``text``; fails at the process's end or after ``timeout``."""
    seen, end = [], time.monotonic() + timeout
    while True:
        line = q.get(timeout=max(0.1, end - time.monotonic()))
        assert line is not None, f"ended without saying {text!r}: {''.join(seen)}"
        seen.append(line)
        if text in line:
            return seen


def test_two_imports_of_one_name_one_wins(tmp_path, arch):
    """Both reported "damaged" (each removed the other's staging folder). Now they take
    turns on the name's lock: held here until both wait on it, then one imports and the
    other says the name exists."""
    d = tmp_path / "d"
    d.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with file_lock(d / ".locks" / "strategy-k.lock"):
        procs = [subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--quiet",
                                   "--data-dir", str(d), "import", str(arch["k"])], cwd=ROOT,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        queues = [_reader(p) for p in procs]
        for q in queues:
            wait_for(q, "another build or import of strategy 'k' is under way")
    rcs = sorted(p.wait(timeout=300) for p in procs)
    rest = ["".join(iter(q.get, None)) for q in queues]
    assert rcs == [0, 2], rest
    assert any("strategy 'k' exists" in r and "--replace" in r for r in rest), rest
    assert not any("damaged" in r for r in rest)
    _, files = unpack(arch["k"])
    assert files_of(d / "strategies" / "k") == files
