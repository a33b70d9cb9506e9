"""Round checkpoints of a perfect-recall build, so a killed or failed build resumes.

A Texas Hold'em build spends most of an hour in its flop and turn rounds; each finished round
(an ``abstraction.tree.RoundResult``) is written here atomically (temp file, then rename) and a
re-run of the same build loads the finished rounds instead of clustering them again. The
directory is ``DATA_DIR/cache/builds/NAME-KEY``: ``KEY`` hashes every parameter of the build
and the source of the ``abstraction`` package, so a changed option or a changed clustering
code never resumes from rounds it did not produce. The build removes it once stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path


def code_fingerprint() -> str:
    """SHA-256 of the ``abstraction`` package's Python sources (sorted by name)."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def checkpoint_dir(data_dir: Path, name: str, params: dict) -> Path:
    """The checkpoint directory of build ``name`` with ``params`` (JSON-serialisable; the
    code fingerprint is added here). Directories of earlier builds of the same name with
    other parameters or code are removed: they can never be resumed."""
    key = hashlib.sha256(json.dumps({**params, "code": code_fingerprint()}, sort_keys=True,
                                    default=str).encode()).hexdigest()[:16]
    root = Path(data_dir) / "cache" / "builds"
    here = root / f"{name}-{key}"
    if root.exists():
        for old in root.glob(f"{name}-*"):
            rest = old.name[len(name) + 1:]
            if old != here and len(rest) == 16 and all(c in "0123456789abcdef" for c in rest):
                shutil.rmtree(old, ignore_errors=True)
    return here


def save_round(directory: Path | None, r: int, result) -> None:
    """Write round ``r`` atomically (nothing when ``directory`` is None)."""
    if directory is None:
        return
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / f".round{r}.pkl.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, directory / f"round{r}.pkl")
    finally:
        tmp.unlink(missing_ok=True)


def load_round(directory: Path | None, r: int):
    """Round ``r`` as saved, or None (no directory, not saved, or unreadable)."""
    if directory is None:
        return None
    path = Path(directory) / f"round{r}.pkl"
    try:
        with open(path, "rb") as f:
            result = pickle.load(f)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        return None
    return result


def remove(directory: Path | None) -> None:
    """Remove a finished build's checkpoints."""
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)
