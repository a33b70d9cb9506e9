"""The catalog: SQLAlchemy models that record every build and run, stored in DuckDB.

One DuckDB file, ``<data_dir>/poker.duckdb``, holds the catalog tables (declared with
SQLAlchemy, one module per stage: ``schema.catalog_*``) and the views over every Parquet
table, so ``cli.py sql`` sees both. Only the coordinating process writes the catalog;
worker processes only write Parquet files. DuckDB allows one writing process at a time, so
connections are short-lived: open, write, close (``session_scope``).
"""

from __future__ import annotations

import atexit
import datetime as dt
import sys
import time
import types
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import duckdb
import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, MappedColumn, Session, mapped_column

from schema.errors import UserError, first_line
from schema.optional import import_optional
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


def catalog_error(path: Path, exc: BaseException):
    """A one-line ``UserError`` if ``exc`` (raised opening the catalog) says the file cannot be
    used -- damaged, not a DuckDB file, unreadable, not writable -- else None (a real bug)."""
    orig = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps the driver's exception
    text = first_line(orig)
    if is_damage(orig):
        return UserError(f"cannot use the catalog {path}: {text} (it is damaged: rebuild it "
                         f"from the partition files with `cli.py etl --rebuild-catalog`)")
    if type(orig).__name__ == "IOException":
        return UserError(f"cannot use the catalog {path}: {text}")
    return None


def open_read_only(path: Path, attempts: int = 50) -> duckdb.DuckDBPyConnection:
    """A plain read-only DuckDB connection to the catalog file ``path``: readers never block
    each other. While a writer holds the file (a moment, e.g. an etl run recording a
    partition) it is retried, 0.2 s apart, up to ``attempts`` times.

    Raises:
        UserError: the file cannot be used (:func:`catalog_error`: damaged, unreadable).
        duckdb.Error: anything else (a lock still held after the last attempt included).
    """
    for attempt in range(attempts):
        try:
            return duckdb.connect(str(path), read_only=True)
        except duckdb.Error as exc:
            if "lock" not in str(exc).lower() or attempt == attempts - 1:
                raise (catalog_error(path, exc) or exc) from None
            time.sleep(0.2)
    raise ValueError(f"attempts must be at least 1, got {attempts}")


def is_damage(exc: BaseException) -> bool:
    """Whether a DuckDB error says the database file itself is damaged (truncated, corrupt,
    not a database), as opposed to held, unreadable or not writable."""
    text = first_line(exc)
    return any(s in text for s in ("Corrupt database file", "not a valid DuckDB database",
                                   "Could not read enough bytes", "checksum", "Checksum"))


def _import_models() -> None:
    # Importing registers the models on Base.metadata. Stages that are not built yet are skipped.

    for name in ("schema.catalog_etl", "schema.catalog_abstraction", "schema.catalog_solve",
                 "schema.catalog_queries"):
        import_optional(name)


#: Seconds a catalog write waits for readers (a long ``cli.py sql``, another DuckDB client
#: holding the file) to let go, before it fails (:func:`set_catalog_wait`; the command line
#: passes its POKER_CATALOG_WAIT environment variable).
CATALOG_WAIT = 900.0
_wait = CATALOG_WAIT
#: Seconds a command waits (for the catalog here, for another writer's lock in
#: ``etl.lock.file_lock``) before it says on stderr why it sits still: a moment's wait says
#: nothing (:func:`set_wait_note`; the command line passes its POKER_WAIT_NOTE).
WAIT_NOTE = 5.0
_note_after = WAIT_NOTE


def set_catalog_wait(seconds: float | None) -> None:
    """How long catalog writes wait from now on (None: :data:`CATALOG_WAIT`)."""
    global _wait
    _wait = CATALOG_WAIT if seconds is None else float(seconds)


def catalog_wait() -> float:
    """Seconds a catalog write waits for readers (:func:`set_catalog_wait`)."""
    return _wait


def set_wait_note(seconds: float | None) -> None:
    """Seconds of waiting before a waiting command says so, from now on (None:
    :data:`WAIT_NOTE`)."""
    global _note_after
    _note_after = WAIT_NOTE if seconds is None else max(0.0, float(seconds))


def wait_note() -> float:
    """Seconds of waiting before a waiting command says so (:func:`set_wait_note`)."""
    return _note_after


@contextmanager
def session_scope(data_dir: str | Path | None = None, wait: float | None = None
                  ) -> Iterator[Session]:
    """A short transaction on the catalog; creates missing tables; commits on success.

    When another process holds the DuckDB file (a reader blocks writers), retries for up to
    ``wait`` seconds (default :func:`catalog_wait`), saying once on stderr that it waits.
    """
    _import_models()
    wait = catalog_wait() if wait is None else wait
    t0 = time.monotonic()
    noted = False
    while True:
        engine = make_engine(data_dir)
        conn = None
        try:
            # one connection from here to the commit: the file's lock is held throughout (a
            # reader cannot slip in between the table check and the session)
            conn = engine.connect()
            Base.metadata.create_all(conn)
            conn.commit()
            break
        except Exception as exc:  # duckdb raises IOException on a held lock
            if conn is not None:
                conn.close()
            engine.dispose()
            waited = time.monotonic() - t0
            if "lock" not in str(exc).lower() or waited >= wait:
                unusable = catalog_error(catalog_path(data_dir), exc)
                if unusable is not None:
                    if "lock" in str(exc).lower():
                        raise type(unusable)(f"{unusable} (waited {waited:.0f} s for the "
                                             f"processes reading it)") from None
                    raise unusable from None
                raise
            if not noted and waited >= _note_after:
                print(f"note: the catalog {catalog_path(data_dir)} is held by another process "
                      f"(e.g. a long `cli.py sql`); waiting up to {wait:.0f} s",
                      file=sys.stderr, flush=True)
                noted = True
            time.sleep(0.2)
    try:
        with Session(bind=conn) as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
    finally:
        conn.close()
        engine.dispose()


_DIALECT_PACKAGE = "duckdb_engine"


def _release_dialect_at_exit() -> None:
    """Drop the DuckDB SQLAlchemy dialect's references to DuckDB's extension objects at exit.

    Without this, commands that use pyarrow and the catalog print dozens of
    ``nanobind: leaked ... DuckDBPyType / DuckDBPyConnection`` lines at interpreter exit.
    Nothing leaks while a command runs (catalog connections are NullPool and disposed; no
    connection is open at exit). The objects reported are module-level: the
    ``DuckDBPyConnection`` class (with its methods, whose default arguments hold the enum types
    and the ``duckdb.sqltypes`` constants). They outlive interpreter teardown because
    pyarrow's pandas shim holds pandas in a C-level static that is never released; from pandas,
    typing caches and SQLAlchemy's registries (``@compiles`` dispatchers, PG ``ischema_names``)
    keep duckdb_engine's classes and functions alive, and through their ``__annotations__``
    (``c: duckdb.DuckDBPyConnection``) and their module globals (which CPython 3.11 never wipes,
    as the ``duckdb_engine`` module object itself dies before the wipe) they keep DuckDB's
    extension types alive past nanobind's leak check. Dropping those references here -- after
    the command and the catalog are done, when only interpreter teardown is left -- lets
    teardown free DuckDB's objects. Runs only if the dialect was loaded.
    """
    modules = [m for name, m in list(sys.modules.items()) if isinstance(m, types.ModuleType)
               and (name == _DIALECT_PACKAGE or name.startswith(_DIALECT_PACKAGE + "."))]
    for module in modules:
        namespace = vars(module)
        for value in list(namespace.values()):
            _drop_annotations(value)
        for key in [k for k in namespace if not k.startswith("__")]:
            namespace[key] = None  # what CPython's module teardown does to a live module


def _drop_annotations(obj, depth: int = 0) -> None:
    """Empty the annotations of a duckdb_engine function or class (and of its methods)."""
    obj = getattr(obj, "__func__", obj)  # classmethod / staticmethod
    obj = getattr(obj, "__wrapped__", obj)  # lru_cache and other wrappers
    if not str(getattr(obj, "__module__", "")).startswith(_DIALECT_PACKAGE):
        return  # e.g. SQLAlchemy's functions imported into duckdb_engine's namespace
    if isinstance(obj, types.FunctionType):
        obj.__annotations__ = {}
    elif isinstance(obj, type) and depth == 0:
        annotations = obj.__dict__.get("__annotations__")
        if isinstance(annotations, dict):
            annotations.clear()
        for value in list(vars(obj).values()):
            _drop_annotations(value, depth + 1)


atexit.register(_release_dialect_at_exit)


# Columns several catalog models share, declared once here (``created: Mapped[dt.datetime] =
# created_column()`` in a model; the DDL is the same as with the ``mapped_column`` written out).

def game_column() -> MappedColumn[str]:
    """The game a row is for (``kuhn``, ``leduc``, ``rhode-island``, ``holdem``, ...)."""
    return mapped_column(sa.String, nullable=False)


def path_column() -> MappedColumn[str]:
    """Where the row's stored table or folder is: relative to the data directory when inside
    it (``schema.paths.stored_path``; older rows: absolute), read back with
    ``schema.paths.resolve_stored``."""
    return mapped_column(sa.String, nullable=False)


def code_version_column() -> MappedColumn[str]:
    """Version of the code that wrote the row's data."""
    return mapped_column(sa.String, nullable=False)


def created_column() -> MappedColumn[dt.datetime]:
    """When the row was recorded (UTC, without time zone)."""
    return mapped_column(sa.DateTime, nullable=False)
