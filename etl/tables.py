"""The registry of ETL tables: every ``TableSpec`` that ``cli.py etl`` knows, by name.

Each entry is ``(module, attribute)``; the attribute is a ``TableSpec`` or a function
``f(options) -> TableSpec | list[TableSpec]`` for tables whose content has parameters (e.g.
histogram bins). A module that does not exist yet is skipped, so stages can land one at a time.

:func:`use_tables` (``"module:function"``) replaces the registry with the tables of
``function(options)`` (a dict or list of specs); the tests use it to run the real CLI on toy
tables (the command line passes its ``POKER_ETL_TABLES`` environment variable).
"""

from __future__ import annotations

from typing import Any

from etl.spec import TableSpec
from schema.optional import import_optional

#: (module, attribute), in pipeline order.
REGISTRY: tuple[tuple[str, str], ...] = (
    ("etl.handval", "SPEC"),
    ("etl.equity", "tables"),
)

_override: str | None = None  # use_tables


def use_tables(override: str | None) -> None:
    """From now on the tables of ``override`` (``"module:function"``, the function
    ``function(options)`` giving a dict or list of specs) in place of the registry; None (or
    empty): the registry."""
    global _override
    _override = override or None


def tables_override() -> str | None:
    """What :func:`use_tables` set (what a worker process is given to see the same tables)."""
    return _override


def all_tables(options: dict[str, Any] | None = None) -> dict[str, TableSpec]:
    """Every known table, by name, in registry order.

    Args:
        options: content parameters (``cli.py etl --option KEY=VALUE``) passed to the
            registry functions that take them.

    Raises:
        ValueError: two specs share a name, or an entry is not a TableSpec.
    """
    options = dict(options or {})
    found: dict[str, TableSpec] = {}
    entries = list(REGISTRY)
    if _override:
        module, _, attr = _override.partition(":")
        entries = [(module, attr or "tables")]
    for module_name, attr in entries:
        module = import_optional(module_name)
        if module is None or not hasattr(module, attr):  # None: stage not written yet
            continue
        for spec in _specs(getattr(module, attr), options):
            if not isinstance(spec, TableSpec):
                raise ValueError(f"{module_name}.{attr} gave {type(spec).__name__}, "
                                 f"not a TableSpec")
            if spec.name in found:
                raise ValueError(f"two tables named {spec.name!r} ({module_name}.{attr})")
            found[spec.name] = spec
    return found


def _specs(obj: Any, options: dict[str, Any]) -> list[TableSpec]:
    if isinstance(obj, TableSpec):
        return [obj]
    if callable(obj):
        obj = obj(options)
    if isinstance(obj, TableSpec):
        return [obj]
    if isinstance(obj, dict):
        return list(obj.values())
    return list(obj)
