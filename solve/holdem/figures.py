"""Evaluation figures of Hold'em strategies kept on disk, so that measuring again what was
measured already costs nothing: the convergence curve's per-checkpoint LBR values and
head-to-heads (``solve.holdem.curve``, in each run's ``evaluations/``) and the comparison's
rows and pairs (``python -m bench.bench_holdem_methods --cache DIR``).

A figure is stored under a key, a JSON-able dict of everything it depends on: the strategies'
weights files (:func:`file_identity`: a run resumed further, or solved again under the same
name, is another strategy), the evaluation's parameters and :data:`FIGURES_VERSION`. One JSON
file per key, named by its kind and a hash of the key, written atomically; the key is stored
beside the value and checked on reading, so a hash collision or a file of another version reads
as absent, never as a wrong figure.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable

from schema.storage import AtomicFile

#: part of every key: bump it when what a stored figure means changes (the LBR or
#: duplicate-match kernels, how boards or deals are drawn)
FIGURES_VERSION = 2


def file_identity(path: Path) -> str:
    """A weights file's identity in a key: its name, size and modification time (reading 1.7
    GB to hash it would cost more than some figures)."""
    st = path.stat()
    return f"{path.name}:{st.st_size}:{st.st_mtime_ns}"


class FigureStore:
    """Figures already computed, one JSON file per key in ``directory``; no directory:
    nothing is kept (every :meth:`fetch` computes). Keys need a ``"kind"`` (the file name's
    prefix)."""

    def __init__(self, directory: Path | None):
        self.dir = directory

    def _locate(self, key: dict) -> tuple[dict, Path]:
        """(the key as stored, with :data:`FIGURES_VERSION`; its file)"""
        key = {**key, "version": FIGURES_VERSION}
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
        return key, self.dir / f"{key['kind']}-{digest}.json"

    def get(self, key: dict) -> Any:
        """The value stored under ``key``, or None."""
        if self.dir is None:
            return None
        key, path = self._locate(key)
        try:
            stored = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return stored["value"] if stored.get("key") == key else None

    def put(self, key: dict, value: Any) -> None:
        """Store ``value`` (JSON-able) under ``key`` (atomically; makes the folder)."""
        if self.dir is None:
            return
        key, path = self._locate(key)
        with AtomicFile(path, checksum=False) as f:
            f.tmp.write_text(json.dumps({"key": key, "value": value}, default=float))

    def fetch(self, key: dict, compute: Callable[[], Any]) -> Any:
        """The value under ``key``; computed by ``compute()`` and stored when absent."""
        got = self.get(key)
        if got is None:
            got = compute()
            self.put(key, got)
        return got
