"""Atomic Parquet writes: a crash or Ctrl-C never leaves a half file that looks whole."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def atomic_write_parquet(table: pa.Table, path: str | Path, compression: str = "zstd",
                         row_group_size: int | None = None) -> str:
    """Write ``table`` to ``path`` via a temp file in the same directory and ``os.replace``.

    Returns the SHA-256 of the written file (the partition checksum recorded in the catalog).
    The temp name ends in ``.tmp`` so ``*.parquet`` globs (DuckDB views) never see it.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        pq.write_table(table, tmp, compression=compression, row_group_size=row_group_size)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        digest = file_sha256(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return digest


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
