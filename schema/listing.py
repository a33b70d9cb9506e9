"""How every list command prints its rows: ``--format table|csv|json``.

One shape for all of them (``abstractions``, ``strategies``, ``etl status``' tables): a table
for a person, CSV for a spreadsheet, and one JSON array for a program (the same as
``sql --format json``).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

FORMATS = ("table", "csv", "json")


@dataclass(frozen=True)
class Column:
    """One column: the row's key, its header, and how a table cell shows the value (csv and
    json carry the raw value)."""

    key: str
    header: str
    show: Callable[[object], str] = str
    right: bool = False


def _raw(value):
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    return value


def print_rows(rows: Sequence[dict], columns: Sequence[Column], fmt: str = "table",
               title: str | None = None, empty: str = "", out=None) -> None:
    """Print ``rows`` (dicts) in ``fmt``; ``empty`` is the table format's line for no rows."""
    out = out or sys.stdout
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "json":
        out.write(json.dumps([{c.key: _raw(r.get(c.key)) for c in columns} for r in rows],
                             default=str) + "\n")
        return
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow([c.key for c in columns])
        for r in rows:
            w.writerow(["" if r.get(c.key) is None else _raw(r.get(c.key)) for c in columns])
        return
    if not rows and empty:
        out.write(empty + "\n")
        return
    table = Table(title=title)
    for c in columns:
        table.add_column(c.header, justify="right" if c.right else "left")
    for r in rows:
        table.add_row(*("" if r.get(c.key) is None else c.show(r.get(c.key)) for c in columns))
    Console(file=out, width=None if out.isatty() else 100_000).print(table)


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
