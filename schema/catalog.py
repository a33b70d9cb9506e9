"""The catalog: SQLAlchemy models that record every build and run, stored in DuckDB.

One DuckDB file, ``<data_dir>/poker.duckdb``, holds the catalog tables (declared with
SQLAlchemy, one module per stage: ``schema.catalog_*``) and the views over every Parquet
table, so ``cli.py sql`` sees both. Only the coordinating process writes the catalog;
worker processes only write Parquet files. DuckDB allows one writing process at a time, so
connections are short-lived: open, write, close (``session_scope``).
"""

from __future__ import annotations

import datetime as dt
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, MappedColumn, Session, mapped_column

from schema.paths import data_dir as _data_dir

CATALOG_FILE = "poker.duckdb"


class Base(DeclarativeBase):
    """Declarative base shared by every catalog model."""


def catalog_path(data_dir: str | Path | None = None) -> Path:
    return _data_dir(data_dir) / CATALOG_FILE


def make_engine(data_dir: str | Path | None = None) -> sa.Engine:
    path = catalog_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    return sa.create_engine(f"duckdb:///{path}", poolclass=sa.pool.NullPool)


def _import_models() -> None:
    # Importing registers the models on Base.metadata. Stages that are not built yet are skipped.
    from schema.optional import import_optional

    for name in ("schema.catalog_etl", "schema.catalog_abstraction", "schema.catalog_solve",
                 "schema.catalog_queries"):
        import_optional(name)


@contextmanager
def session_scope(data_dir: str | Path | None = None, retries: int = 50) -> Iterator[Session]:
    """A short transaction on the catalog; creates missing tables; commits on success.

    Retries for a few seconds when another process holds the DuckDB file.
    """
    _import_models()
    for attempt in range(retries):
        try:
            engine = make_engine(data_dir)
            Base.metadata.create_all(engine)
            break
        except Exception as exc:  # duckdb raises IOException on a held lock
            if "lock" not in str(exc).lower() or attempt == retries - 1:
                raise
            time.sleep(0.2)
    with Session(engine) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
    engine.dispose()


# Columns several catalog models share, declared once here (``created: Mapped[dt.datetime] =
# created_column()`` in a model; the DDL is the same as with the ``mapped_column`` written out).

def game_column() -> MappedColumn[str]:
    """The game a row is for (``kuhn``, ``leduc``, ``rhode-island``, ``holdem``, ...)."""
    return mapped_column(sa.String, nullable=False)


def path_column() -> MappedColumn[str]:
    """Where the row's stored table or folder is (as the writer gave it)."""
    return mapped_column(sa.String, nullable=False)


def code_version_column() -> MappedColumn[str]:
    """Version of the code that wrote the row's data."""
    return mapped_column(sa.String, nullable=False)


def created_column() -> MappedColumn[dt.datetime]:
    """When the row was recorded (UTC, without time zone)."""
    return mapped_column(sa.DateTime, nullable=False)
