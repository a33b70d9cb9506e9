"""Atomic Parquet writes: a crash or Ctrl-C never leaves a half file that looks whole."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


class AtomicFile:
    """``with AtomicFile(path) as f:`` write ``f.tmp`` (same directory, a ``.tmp`` name that
    ``*.parquet`` globs never see); on success the file is fsynced, hashed (``f.digest``, the
    SHA-256 the catalog records; skipped with ``checksum=False``, e.g. for checkpoints) and
    renamed onto ``path``; on any error (or Ctrl-C) it is removed."""

    def __init__(self, path: str | Path, checksum: bool = True):
        self.path = Path(path)
        self.checksum = checksum
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        self.digest = ""

    def __enter__(self) -> "AtomicFile":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                with open(self.tmp, "rb+") as fh:
                    os.fsync(fh.fileno())
                self.digest = file_sha256(self.tmp) if self.checksum else ""
                os.replace(self.tmp, self.path)
        finally:
            if self.tmp.exists():
                self.tmp.unlink()


def atomic_write_parquet(table: pa.Table, path: str | Path, compression: str = "zstd",
                         row_group_size: int | None = None) -> str:
    """Write ``table`` to ``path`` atomically (``AtomicFile``) with a CRC per data page (so a
    flipped byte is a read error where the reader verifies them, e.g. ``read_parquet`` below);
    returns the file's SHA-256."""
    with AtomicFile(path) as f:
        pq.write_table(table, f.tmp, compression=compression, row_group_size=row_group_size,
                       write_page_checksum=True)
    return f.digest


def read_parquet(path: str | Path, columns: list[str] | None = None) -> pa.Table:
    """A Parquet file, its page checksums verified (where written)."""
    return pq.read_table(path, columns=columns, page_checksum_verification=True)


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
