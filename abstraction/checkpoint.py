"""Round checkpoints of a perfect-recall build, so a killed or failed build resumes.

A Texas Hold'em build spends most of an hour in its flop and turn rounds; each finished round
(an ``abstraction.tree.RoundResult``) is written here atomically (temp file, then rename) and a
re-run of the same build loads the finished rounds instead of clustering them again. The
directory is ``DATA_DIR/cache/builds/NAME-KEY``: ``KEY`` hashes every parameter of the build
and the source of the ``abstraction`` package, so a changed option or a changed clustering
code never resumes from rounds it did not produce. The build removes it once stored.

A live build holds its directory (an exclusive ``flock`` on ``NAME-KEY.lock``, released by the
kernel when the process dies, even by SIGKILL): a second build of the same name and parameters
started while the first runs builds without checkpoints, so it neither reads rounds the first
is writing nor finds them removed under it, and the stale directories of other keys are
removed only when no live build holds them.

Imperfect-recall builds checkpoint their rounds the same way, and share one more cache across
builds (:func:`shared_path`, ``DATA_DIR/cache/rounds/``): a round clustered the same way by
two builds -- the flop and turn of Texas Hold'em's imperfect-recall ``pa-emd`` and ``ochs``,
each an hour of EMD k-means on the same histograms -- is computed once. Its key hashes the
clustering's parameters, the code and the input arrays themselves; nothing removes it (it is
the next build's saving; delete the directory to reclaim the space).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from etl.lock import try_file_lock


def code_fingerprint() -> str:
    """SHA-256 of the ``abstraction`` package's Python sources (sorted by name)."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def checkpoint_dir(data_dir: Path, name: str, params: dict) -> Path:
    """The checkpoint directory of build ``name`` with ``params`` (JSON-serialisable; the
    code fingerprint is added here)."""
    key = hashlib.sha256(json.dumps({**params, "code": code_fingerprint()}, sort_keys=True,
                                    default=str).encode()).hexdigest()[:16]
    return Path(data_dir) / "cache" / "builds" / f"{name}-{key}"


@contextmanager
def claimed(data_dir: Path, name: str, params: dict) -> Iterator[Path | None]:
    """:func:`checkpoint_dir`, held by this process for the block; None when another live
    build holds it (this one then builds without checkpoints). Directories of earlier builds
    of the same name with other parameters or code are removed (they can never be resumed)
    unless a live build holds them."""
    here = checkpoint_dir(data_dir, name, params)
    with try_file_lock(_lock_file(here)) as mine:
        if not mine:
            yield None
            return
        for old in here.parent.glob(f"{name}-*"):
            rest = old.name[len(name) + 1:]
            if old != here and len(rest) == 16 and all(c in "0123456789abcdef" for c in rest):
                with try_file_lock(_lock_file(old)) as stale:
                    if stale:
                        remove(old)
        yield here


def _lock_file(directory: Path) -> Path:
    """The lock a live build holds on its checkpoint directory (beside it)."""
    return directory.with_name(directory.name + ".lock")


def save_round(directory: Path | None, r: int, result) -> None:
    """Write round ``r`` atomically (nothing when ``directory`` is None)."""
    if directory is not None:
        save_object(Path(directory) / f"round{r}.pkl", result)


def load_round(directory: Path | None, r: int):
    """Round ``r`` as saved, or None (no directory, not saved, or unreadable)."""
    return None if directory is None else load_object(Path(directory) / f"round{r}.pkl")


def save_object(path: Path, obj) -> None:
    """Pickle ``obj`` to ``path`` atomically (temp file in the same directory, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def load_object(path: Path):
    """What :func:`save_object` wrote, or None (missing or unreadable)."""
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        return None


def shared_path(directory: Path | None, what: str, params: dict, *arrays) -> Path | None:
    """Where a round clustered with ``params`` from ``arrays`` is shared between builds
    (module docstring), given a build's checkpoint ``directory`` (None: not shared)."""
    if directory is None:
        return None
    h = hashlib.sha256(json.dumps({**params, "code": code_fingerprint()}, sort_keys=True,
                                  default=str).encode())
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype}{a.shape}".encode())
        h.update(hashlib.blake2b(memoryview(a).cast("B"), digest_size=32).digest())
    return Path(directory).parent.parent / "rounds" / f"{what}-{h.hexdigest()[:24]}.pkl"


def remove(directory: Path | None) -> None:
    """Remove a finished build's checkpoints (by the process holding them)."""
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)
        _lock_file(Path(directory)).unlink(missing_ok=True)
