"""Where ETL tables live on disk, how a partition is written, read back and validated.

Table ``name`` is the set of files ``<data_dir>/tables/<name>/part-<key>.parquet``, one per
partition key (``etl.spec.TableSpec``). Files are written whole or not at all
(``schema.storage.atomic_write_parquet``): a worker first writes a staged file under
``tables/<name>/.staging/`` and the coordinating process (the one holding the ETL lock) moves it
into place, so a crashed or orphaned worker can never make a partition visible. Names that start
with ``.`` are ignored by the ``*.parquet`` globs of the DuckDB views.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from schema.errors import UserError, first_line
from schema.storage import AtomicFile, atomic_write_parquet, file_sha256, read_parquet

TABLES_DIR = "tables"
STAGING_DIR = ".staging"
PENDING_DIR = ".pending"  # checksums of published partitions not recorded yet (see publish)
QUARANTINE_DIR = "quarantine"  # under the data directory: stray files moved aside by --refresh

#: Partition states (``etl status``).
OK, MISSING, STALE, DAMAGED = "ok", "missing", "stale", "damaged"


class DamagedPartitionError(UserError):
    """A partition file is unreadable, truncated or does not match its catalog row."""


def table_dir(data_dir: str | os.PathLike, name: str) -> Path:
    return Path(data_dir) / TABLES_DIR / name


def partition_path(data_dir: str | os.PathLike, name: str, key: str) -> Path:
    return table_dir(data_dir, name) / f"part-{key}.parquet"


def staged_path(data_dir: str | os.PathLike, name: str, key: str, token: str) -> Path:
    return table_dir(data_dir, name) / STAGING_DIR / f"part-{key}.{token}.parquet"


def key_of(path: Path) -> str:
    """``part-07.parquet`` -> ``"07"``."""
    return path.name[len("part-"):-len(".parquet")]


def partition_files(data_dir: str | os.PathLike, name: str) -> dict[str, Path]:
    """Partition files present on disk, by key."""
    d = table_dir(data_dir, name)
    if not d.is_dir():
        return {}
    return {key_of(p): p for p in sorted(d.glob("part-*.parquet"))}


def table_names_on_disk(data_dir: str | os.PathLike) -> list[str]:
    """Tables that have at least one partition file, sorted by name."""
    root = Path(data_dir) / TABLES_DIR
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and any(p.glob("part-*.parquet")))


def stray_files(data_dir: str | os.PathLike, name: str, keep: Iterable[Path]) -> list[Path]:
    """Files in table ``name``'s folder (recursively) that are not in ``keep`` (its partition
    files), a staged file or a hidden one: what a view or a reader must never count."""
    d = table_dir(data_dir, name)
    if not d.is_dir():
        return []
    keep = {Path(p).resolve() for p in keep}
    out = []
    for p in sorted(d.rglob("*")):
        rel = p.relative_to(d)
        if any(part.startswith(".") for part in rel.parts) or p.is_dir():
            continue
        if p.resolve() not in keep:
            out.append(p)
    return out


def quarantine(data_dir: str | os.PathLike, name: str, files: Iterable[Path]) -> list[Path]:
    """Move ``files`` of table ``name`` to ``<data_dir>/quarantine/<name>/`` (never deleted;
    a name already taken gets a numbered suffix). Returns where they went."""
    dest_dir = Path(data_dir) / QUARANTINE_DIR / name
    moved = []
    for f in files:
        dest_dir.mkdir(parents=True, exist_ok=True)
        rel = f.relative_to(table_dir(data_dir, name))
        dest = dest_dir / "__".join(rel.parts)
        n = 1
        while dest.exists():
            dest = dest_dir / f"{'__'.join(rel.parts)}.{n}"
            n += 1
        shutil.move(str(f), dest)
        moved.append(dest)
    return moved


# --- writing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class WrittenPartition:
    """What a worker reports back: the staged file and its metadata (for the catalog)."""

    table: str
    key: str
    staged: str
    rows: int
    bytes: int
    checksum: str
    seconds: float


#: Parquet key-value metadata of a partition: the code version that built it (so a lost
#: catalog can be rebuilt from the files, ``etl --rebuild-catalog``).
VERSION_KEY = b"poker.code_version"


def file_version(path: Path) -> str:
    """The code version a partition file records (``""`` if none: written before it did)."""
    meta = pq.ParquetFile(path).schema_arrow.metadata or {}
    return meta.get(VERSION_KEY, b"").decode()


def write_staged(data_dir: str | os.PathLike, name: str, key: str, table: pa.Table,
                 schema: pa.Schema, token: str, version: str = "") -> tuple[Path, str]:
    """Check ``table`` against ``schema`` and write it (atomically) to its staging path.

    Returns the staged path and its SHA-256.

    Raises:
        ValueError: the columns do not match the declared schema.
    """
    if not table.schema.equals(schema, check_metadata=False):
        try:
            table = table.select(schema.names).cast(schema)
        except (KeyError, ValueError, pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ValueError(f"table {name!r} partition {key!r}: columns {table.schema.names} "
                             f"do not match the declared schema {schema.names}: {exc}") from exc
    if version:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               VERSION_KEY: version.encode()})
    path = staged_path(data_dir, name, key, token)
    return path, atomic_write_parquet(table, path)


def pending_path(data_dir: str | os.PathLike, name: str, key: str) -> Path:
    return table_dir(data_dir, name) / PENDING_DIR / f"part-{key}.sha256"


def publish(data_dir: str | os.PathLike, written: WrittenPartition) -> Path:
    """Move a staged partition into place (atomic rename in the same file system).

    Until the catalog records it, its SHA-256 waits in ``.pending/part-KEY.sha256`` (written
    first), so a reader that finds the new file under the old catalog row can tell a
    partition being replaced from a damaged one (``etl.integrity``); :func:`forget_pending`
    removes it once recorded."""
    final = partition_path(data_dir, written.table, written.key)
    pending = pending_path(data_dir, written.table, written.key)
    pending.parent.mkdir(exist_ok=True)
    with AtomicFile(pending, checksum=False) as f:
        f.tmp.write_text(written.checksum + "\n")
    os.replace(written.staged, final)
    return final


def pending_checksum(data_dir: str | os.PathLike, name: str, key: str) -> str:
    """The checksum of a published, not yet recorded partition ("" if none)."""
    try:
        return pending_path(data_dir, name, key).read_text().strip()
    except OSError:
        return ""


def forget_pending(data_dir: str | os.PathLike, name: str, key: str) -> None:
    pending_path(data_dir, name, key).unlink(missing_ok=True)


def clean_staging(data_dir: str | os.PathLike, names: Iterable[str]) -> int:
    """Remove leftovers of killed runs (staged files, ``.tmp`` files). Call with the lock held.

    Returns the number of entries removed.
    """
    removed = 0
    for name in names:
        d = table_dir(data_dir, name)
        if not d.is_dir():
            continue
        for sub in (STAGING_DIR, PENDING_DIR):
            staging = d / sub
            if staging.exists():
                removed += sum(1 for _ in staging.iterdir())
                shutil.rmtree(staging, ignore_errors=True)
        for tmp in d.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed


# --- reading -------------------------------------------------------------------------------


def read_partition(path: str | os.PathLike, columns: list[str] | None = None) -> pa.Table:
    """One partition file (its page checksums verified).

    Raises:
        DamagedPartitionError: the file cannot be read as Parquet, or a page checksum fails.
    """
    try:
        return read_parquet(path, columns=columns)
    except (OSError, pa.ArrowException) as exc:
        raise DamagedPartitionError(
            f"damaged partition {path}: {first_line(exc)} (rebuild: cli.py etl --refresh)"
        ) from exc


def read_table(data_dir: str | os.PathLike, name: str, columns: list[str] | None = None,
               keys: list[str] | None = None) -> pa.Table:
    """All partitions of table ``name`` concatenated in key order (or only ``keys``, in order).

    Raises:
        UserError: the table has no partitions, or a requested key is missing.
        DamagedPartitionError: a file cannot be read.
    """
    files = partition_files(data_dir, name)
    if keys is None:
        if not files:
            raise UserError(f"table {name!r} has no partitions in {table_dir(data_dir, name)}: "
                            f"run `cli.py etl --tables {name}`")
        keys = sorted(files)
    missing = [k for k in keys if k not in files]
    if missing:
        raise UserError(f"table {name!r} is missing partition(s) {', '.join(missing[:5])}: "
                        f"run `cli.py etl --tables {name}`")
    parts = [read_partition(files[k], columns) for k in keys]
    return pa.concat_tables(parts) if len(parts) > 1 else parts[0]


def read_column_array(data_dir: str | os.PathLike, name: str, column: str,
                      keys: list[str] | None = None) -> np.ndarray:
    """One column of a table as a single contiguous numpy array (key order)."""
    col = read_table(data_dir, name, columns=[column], keys=keys).column(column)
    return col.to_numpy() if col.num_chunks != 1 else col.chunk(0).to_numpy(zero_copy_only=False)


# --- validation ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PartitionCheck:
    """The state of one partition and, when not ok, why."""

    key: str
    state: str
    reason: str = ""
    rows: int = 0
    bytes: int = 0


def check_partition(path: Path, record, version: str, checksum: bool = True) -> PartitionCheck:
    """Compare a partition file with its catalog row (``schema.catalog_etl.Partition`` or None).

    Order of checks: present and recorded (else missing), size, Parquet footer and row count,
    SHA-256 (when ``checksum``), then code version (stale: intact but built by other code).
    """
    key = key_of(path)
    if record is None or not path.exists():
        return PartitionCheck(key, MISSING, "no file" if record is not None else "not recorded")
    size = path.stat().st_size
    if size != record.bytes:
        return PartitionCheck(key, DAMAGED, f"size {size} != recorded {record.bytes}", bytes=size)
    try:
        rows = pq.ParquetFile(path).metadata.num_rows
    except (OSError, pa.ArrowException) as exc:
        return PartitionCheck(key, DAMAGED, f"unreadable footer: {first_line(exc)}", bytes=size)
    if rows != record.rows:
        return PartitionCheck(key, DAMAGED, f"rows {rows} != recorded {record.rows}",
                              rows=rows, bytes=size)
    if checksum and file_sha256(path) != record.checksum:
        return PartitionCheck(key, DAMAGED, "checksum mismatch", rows=rows, bytes=size)
    if record.code_version != version:
        return PartitionCheck(key, STALE, f"built by {record.code_version}, code is {version}",
                              rows=rows, bytes=size)
    return PartitionCheck(key, OK, rows=rows, bytes=size)
