"""Attacks on the exact best response's progress file (``--progress-file``, issue 51): the one
file meant to be carried between machines. Each damaged or forged file is refused with one
line before any flop is walked, never with a traceback or an allocation of what a header
claims (``schema.npz.read_npz``)."""

from __future__ import annotations

import io
import json
import pickle
import resource
import zipfile
from pathlib import Path

import numpy as np
import pytest

from schema.errors import UserError
from schema.npz import read_npz
from solve.holdem.exact_store import FlopStore

NAMES = ("meta", "total", "seconds")


def _npy(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=True)
    return buf.getvalue()


def _zip(path: Path, members: dict[str, bytes], compress: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", compress) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _good() -> dict[str, bytes]:
    meta = json.dumps({"content": "c1", "flops": 1, "of": 2, "shape": [2]})
    return {"meta.npy": _npy(np.array(meta)), "total.npy": _npy(np.zeros(2)),
            "seconds.npy": _npy(np.array([1.0, np.nan]))}


def _huge_header(shape: tuple) -> bytes:
    """A float64 .npy header claiming ``shape``, followed by 16 bytes of data."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f8", "fortran_order": False, "shape": shape})
    return buf.getvalue() + bytes(16)


def test_a_good_archive_reads_back(tmp_path):
    z = read_npz(_zip(tmp_path / "ok.npz", _good()), NAMES)
    assert json.loads(str(z["meta"]))["flops"] == 1
    assert z["total"].tolist() == [0.0, 0.0] and np.isnan(z["seconds"][1])
    np.savez(tmp_path / "np.npz", meta=np.array("x"), total=np.arange(3.0),
             seconds=np.ones((2, 2), order="F"))  # what numpy itself writes
    z = read_npz(tmp_path / "np.npz", NAMES)
    assert z["total"].tolist() == [0.0, 1.0, 2.0] and z["seconds"].shape == (2, 2)


@pytest.mark.parametrize("case,reason", [
    ("random bytes", "not a .npz archive"),
    ("zip signature, then garbage", "not a .npz archive"),
    ("empty file", "not a .npz archive"),
    ("a directory", "a directory"),
    ("a member missing", "no array 'seconds'"),
    ("a pickled member", "bad header"),
    ("an object array", "Python objects"),
    ("a header claiming 2**40 floats", "header claims"),
    ("a header claiming a negative size", "header claims"),
    ("a header claiming two negative sizes", "header claims the shape"),
    ("members claiming more than the bound", "more than"),
    ("a member's bytes flipped", "damaged archive"),
])
def test_hostile_archives_are_one_line_value_errors(case, reason, tmp_path):
    path = tmp_path / "p.npz"
    members = _good()
    if case == "random bytes":
        path.write_bytes(np.random.default_rng(0).bytes(300))
    elif case == "zip signature, then garbage":
        path.write_bytes(b"PK\x03\x04garbage")
    elif case == "empty file":
        path.write_bytes(b"")
    elif case == "a directory":
        path.mkdir()
    elif case == "a member missing":
        del members["seconds.npy"]
        _zip(path, members)
    elif case == "a pickled member":
        members["total.npy"] = pickle.dumps([1.0, 2.0])
        _zip(path, members)
    elif case == "an object array":
        members["total.npy"] = _npy(np.array([{"a": 1}, None], dtype=object))
        _zip(path, members)
    elif case == "a header claiming 2**40 floats":
        members["total.npy"] = _huge_header((1 << 40,))
        _zip(path, members)
    elif case == "a header claiming a negative size":
        members["total.npy"] = _huge_header((-1, 2))
        _zip(path, members)
    elif case == "a header claiming two negative sizes":  # their product fits the data
        members["total.npy"] = _huge_header((-1, -2))
        _zip(path, members)
    elif case == "members claiming more than the bound":
        members["total.npy"] = bytes(8 << 20)  # compresses to a few KB
        _zip(path, members, zipfile.ZIP_DEFLATED)
    elif case == "a member's bytes flipped":
        _zip(path, members)
        raw = bytearray(path.read_bytes())
        at = raw.index(b"seconds.npy") + len("seconds.npy") + 80  # inside its data
        raw[at] ^= 0xFF
        path.write_bytes(bytes(raw))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ValueError, match=reason) as err:
        read_npz(path, NAMES, max_bytes=1 << 20)
    assert "\n" not in str(err.value)
    # nothing of what a header claims was allocated (ru_maxrss: KiB on Linux)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000


def test_a_store_refuses_a_hostile_progress_file_and_keeps_its_own(tmp_path):
    store = FlopStore(tmp_path / "s", {"kind": "test"}, content="c1")
    store.dir.mkdir()
    store.put_prefix(1, 2, np.zeros(2), np.array([1.0, np.nan]))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04garbage")
    with pytest.raises(UserError, match="not an exact best response's progress"):
        store.adopt(bad, (2,))
    members = _good()
    members["meta.npy"] = _npy(np.array("[" * 100_000))  # JSON nested past Python's stack
    with pytest.raises(UserError, match="not an exact best response's progress"):
        store.adopt(_zip(tmp_path / "nested.npz", members), (2,))
    assert store.prefix((2,))[0] == 1


def test_an_unwritable_progress_file_is_refused_before_any_flop(tmp_path):
    (tmp_path / "file").write_text("x")
    for mirror, reason in [(tmp_path, "is a directory"),
                           (tmp_path / "file" / "p.npz", "cannot keep progress")]:
        with pytest.raises(UserError, match=reason):
            FlopStore(tmp_path / "s", {"kind": "test"}, mirror=mirror).check_mirror()
    FlopStore(tmp_path / "s", {"kind": "test"}, mirror=tmp_path / "new" / "p.npz").check_mirror()
    assert (tmp_path / "new").is_dir()  # its folder is made, as the run would make it


def test_the_command_refuses_them_with_one_line_and_walks_nothing(tmp_path, capsys):
    import cli

    run = lambda *a: cli.main(["--data-dir", str(tmp_path / "d"), *a])  # noqa: E731
    assert run("solve", "--game", "holdem", "--abstraction", "synthetic:3,6", "--max-bets",
               "2", "--name", "h", "--iterations", "50", "--sampler", "chance",
               "--lbr-deals", "10", "--h2h-deals", "10") == 0
    (tmp_path / "zipsig.npz").write_bytes(b"PK\x03\x04garbage")
    (tmp_path / "file").write_text("x")
    for path, reason in [(tmp_path / "zipsig.npz", "not a .npz archive"),
                         (tmp_path, "is a directory"),
                         (tmp_path / "file" / "p.npz", "is not a directory")]:
        capsys.readouterr()
        assert run("evaluate", "h", "--best-response", "exact", "--progress-file",
                   str(path)) == 2
        err = capsys.readouterr().err
        assert reason in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not list((tmp_path / "d").glob("strategies/h/evaluations/exact-br-*/flop*"))


def test_a_damaged_flop_file_reads_as_not_done(tmp_path):
    store = FlopStore(tmp_path / "s", {"kind": "test"}, content="c1")
    store.dir.mkdir()
    for i in range(5):
        store.put(i, np.full(2, float(i)))
    store.path(1).write_bytes(b"PK\x03\x04garbage")  # a zip signature
    _zip(store.path(2), _good())  # a whole .npz archive under a flop's name
    store.path(3).write_bytes(store.path(3).read_bytes()[:-4])  # truncated
    store.path(4).write_bytes(_huge_header((1 << 40,)))  # a header claiming 8 TB
    assert sorted(store.load(5, (2,))) == [0]
