"""Catalog of the equity database: one row per built Parquet partition (issue 2).

The ETL runner writes a row as soon as a partition is in place; ``etl status`` and the runner
compare each row with its file (size, footer, row count, SHA-256) and the table's code version
to tell ok, missing, stale and damaged partitions apart. Only the coordinating process writes
these rows; workers return the metadata.
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from schema.catalog import Base


class Partition(Base):
    """Partition ``key`` of table ``table_name``: ``tables/<table_name>/part-<key>.parquet``.

    ``bytes`` is the file size, ``checksum`` the SHA-256 of the file, ``code_version`` the
    table's ``TableSpec.full_version`` when built, ``seconds`` the compute + write time.
    """

    __tablename__ = "etl_partitions"

    table_name: Mapped[str] = mapped_column(sa.String, primary_key=True)
    key: Mapped[str] = mapped_column(sa.String, primary_key=True)
    rows: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    bytes: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    checksum: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    code_version: Mapped[str] = mapped_column(sa.String, nullable=False)
    built_at: Mapped[dt.datetime] = mapped_column(sa.DateTime, nullable=False)
    seconds: Mapped[float] = mapped_column(sa.Float, nullable=False)


class VerifiedFile(Base):
    """The file-system identity of partition ``key`` of ``table_name`` when its SHA-256 last
    matched the catalog (written by the ETL after publishing or fully checking it). A reader
    that finds the file with another identity (size, mtime, ctime, inode: any write to it, a
    copy, a replacement) re-hashes it before trusting it; see ``etl.integrity``."""

    __tablename__ = "etl_verified"

    table_name: Mapped[str] = mapped_column(sa.String, primary_key=True)
    key: Mapped[str] = mapped_column(sa.String, primary_key=True)
    bytes: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    mtime_ns: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    ctime_ns: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
    inode: Mapped[int] = mapped_column(sa.BigInteger, nullable=False)
