"""The environment variables of the command line, read here and nowhere in the library
(issue 48): library functions take these settings as arguments, or from the registries'
own setters, which :func:`configure` calls.

- ``POKER_DATA_DIR``: the data directory when ``--data-dir`` is not given (``cli.py``);
- ``POKER_PROGRESS``: ``bar``, ``log`` or ``off`` forces the progress mode
  (``schema.progress.force_mode``; ``--quiet`` forces ``off``);
- ``POKER_GAME_PLUGINS``: comma-separated modules whose ``GAMES`` join the game registry
  (``solve.games.registry.use_plugins``);
- ``POKER_ETL_TABLES``: ``module:function`` giving the ETL tables in place of the registry
  (``etl.tables.use_tables``; the tests run the real CLI on toy tables with it);
- ``POKER_CATALOG_WAIT``: seconds a catalog write waits for readers
  (``schema.catalog.set_catalog_wait``);
- ``POKER_WAIT_NOTE``: seconds a command waits for the catalog or another writer's lock
  before it says so on stderr (``schema.catalog.set_wait_note``; default 5).
"""

from __future__ import annotations

import os
from typing import Mapping

from etl.tables import use_tables
from schema.catalog import set_catalog_wait, set_wait_note
from schema.progress import force_mode
from solve.games.registry import use_plugins

DATA_DIR_ENV = "POKER_DATA_DIR"
PROGRESS_ENV = "POKER_PROGRESS"
PLUGINS_ENV = "POKER_GAME_PLUGINS"
ETL_TABLES_ENV = "POKER_ETL_TABLES"
CATALOG_WAIT_ENV = "POKER_CATALOG_WAIT"
WAIT_NOTE_ENV = "POKER_WAIT_NOTE"


def configure(environ: Mapping[str, str] | None = None, quiet: bool = False) -> None:
    """Set the library's process-wide settings from ``environ`` (default ``os.environ``),
    every one of them, so that a setting left by an earlier call in this process (a test, a
    notebook) does not leak into this one."""
    env = os.environ if environ is None else environ
    force_mode("off" if quiet else env.get(PROGRESS_ENV))
    use_plugins(env.get(PLUGINS_ENV, "").split(","))
    use_tables(env.get(ETL_TABLES_ENV) or None)
    try:
        set_catalog_wait(float(env[CATALOG_WAIT_ENV]) if env.get(CATALOG_WAIT_ENV) else None)
    except ValueError:  # not a number: the default, as before
        set_catalog_wait(None)
    try:
        set_wait_note(float(env[WAIT_NOTE_ENV]) if env.get(WAIT_NOTE_ENV) else None)
    except ValueError:  # not a number: the default
        set_wait_note(None)
