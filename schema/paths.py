"""Where data lives: ``./data`` unless ``--data-dir`` or ``POKER_DATA_DIR`` says otherwise."""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "POKER_DATA_DIR"


def data_dir(explicit: str | os.PathLike | None = None) -> Path:
    """Resolve the data directory: explicit argument, then $POKER_DATA_DIR, then ./data."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else Path("data")
