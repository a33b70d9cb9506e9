"""Import a module that a stage may not have written yet."""

from __future__ import annotations

import importlib
from types import ModuleType


def import_optional(name: str) -> ModuleType | None:
    """The module ``name``, or None when that module itself does not exist.

    An import error raised *inside* the module (a missing dependency, a typo) still propagates.
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise
