"""CLI: ``strategies``, the stored strategies (catalog table ``solve_runs``).

    python cli.py strategies
    python cli.py strategies --format json
    python cli.py strategies --upgrade NAME

One row per strategy: its game, abstraction, algorithm, iterations, solve time (CPU seconds
where the Hold'em run counted CPU time, else wall seconds) and size on disk (the whole
``strategies/NAME/`` folder: table, averages and any kept checkpoints).

``--upgrade NAME`` rewrites a Texas Hold'em strategy table written before the
``uniform_start`` column existed with that column (computed from the table's own rows, one
streaming pass, atomically: the old table stays if anything fails), so that the
``strategies`` SQL view says "never trained" where its average is still the uniform start;
a table already current is left alone.
"""

from __future__ import annotations

import argparse

from schema.listing import FORMATS, Column, human_bytes, print_rows
from solve.runs import list_strategies, upgrade_strategy


def _seconds(row_value) -> str:
    return f"{row_value:,.1f}"


#: The columns of ``strategies`` (table headers; csv and json use the keys).
COLUMNS = (Column("name", "name"), Column("game", "game"), Column("abstraction", "abstraction"),
           Column("algorithm", "algorithm"),
           Column("iterations", "iterations", lambda v: f"{v:,}", right=True),
           Column("solve_seconds", "solve s", _seconds, right=True),
           Column("clock", "clock"),
           Column("bytes", "on disk", human_bytes, right=True),
           Column("created", "created", lambda v: v.isoformat(timespec="seconds")))


def register(subparsers) -> None:
    p = subparsers.add_parser("strategies", help="list the stored strategies",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="table (default), csv, or one JSON array (as every list command)")
    p.add_argument("--upgrade", metavar="NAME",
                   help="add the uniform_start column to Hold'em strategy NAME's table, written "
                        "before it existed (atomic; see above), instead of listing")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.upgrade is not None:
        out = upgrade_strategy(args.data_dir, args.upgrade)
        if out["resumed"]:
            print(f"{args.upgrade}: finished an upgrade that was cut off after the catalog "
                  f"recorded it: {out['path']}")
        elif not out["upgraded"]:
            print(f"{args.upgrade}: already current (has uniform_start): {out['path']}")
        else:
            print(f"{args.upgrade}: upgraded {out['rows']:,} rows, {out['infosets']:,} "
                  f"information sets, {out['uniform_start']:,} still at the uniform start: "
                  f"{out['path']}")
        return 0
    rows = list_strategies(args.data_dir) if args.data_dir.is_dir() else []
    print_rows(rows, COLUMNS, args.format, title="strategies",
               empty="no strategies stored (see: cli.py solve --help)")
    return 0
