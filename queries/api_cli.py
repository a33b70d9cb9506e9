"""The JSON API's worker processes under ``serve --workers N``: uvicorn starts each from an
import string (:func:`app_from_environment`), so the data directory and the token reach them
through the environment, read here (not by ``queries.api``)."""

from __future__ import annotations

import os

from fastapi import FastAPI

from queries.api import create_app
from queries.environment_cli import configure

#: Environment of the worker processes of ``serve --workers N`` (:func:`app_from_environment`).
DATA_DIR_ENV, TOKEN_ENV = "POKER_API_DATA_DIR", "POKER_API_TOKEN"


def app_from_environment() -> FastAPI:
    """The app for ``serve --workers N``: data directory and token from
    ``POKER_API_DATA_DIR`` / ``POKER_API_TOKEN``, the other settings as ``cli.py`` reads them
    (``queries.environment_cli``)."""
    configure()
    return create_app(os.environ[DATA_DIR_ENV], os.environ.get(TOKEN_ENV) or None)
