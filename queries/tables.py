"""The comparison tables as printed on the terminal (rich) and their titles; the report
(``queries.report``) renders the same tables in Markdown."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

TITLES = {
    "exploitability": "Exploitability in the real game (chips per game; per seat and mean)",
    "head_to_head": "Head-to-head in the real game (chips per game for the row; seats averaged)",
    "vs_equilibrium": "Against an equilibrium of the real game (chips per game)",
    "value_error": "Value of the profile vs the game value (chips per game, player 1)",
}


def print_tables(tables: dict) -> None:
    console = Console(width=None if sys.stdout.isatty() else 250)
    for key, (cols, rows) in tables.items():
        t = Table(title=TITLES[key])
        for c in cols:
            t.add_column(c)
        for r in rows:
            t.add_row(*(fmt(v) for v in r))
        console.print(t)


def fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"
    return str(v)
