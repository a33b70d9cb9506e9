"""CLI commands of the abstraction stage: ``build-abstraction`` and ``abstractions``.

    python cli.py build-abstraction --buckets 13,25,125 --game rhode-island --method pa
    python cli.py abstractions
"""

from __future__ import annotations

import argparse
import json

from abstraction import store
from abstraction.build import build, method_options, option_fields, summary_lines
from abstraction.options import OptionError
from schema.errors import UserError
from schema.listing import FORMATS, Column, print_rows


def flag(name: str) -> str:
    """The command line's flag of build parameter ``name`` (``n_init`` -> ``--n-init``)."""
    return "--" + name.replace("_", "-")


def _spell(text: str) -> str:
    """``text`` (a field's help) with each ``{parameter}`` written as its flag."""
    return OptionError(text, *(f.name for f in option_fields())).spelled(flag)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "build-abstraction", help="build a card abstraction (bucket tables + catalog row)",
        description="Build an abstraction of a game's hands (docs/design.md section 4) and store it "
                    "under <data-dir>/abstractions/NAME/.")
    # one flag per parameter of abstraction.build.build and of every method's options
    for field in option_fields():
        meta, help = field.metadata, field.metadata["help"]
        help = _spell(help() if callable(help) else help)
        if field.default is False:
            p.add_argument(flag(field.name), action="store_true", help=help)
            continue
        kwargs = {k: meta[k] for k in ("type", "metavar", "choices") if meta.get(k) is not None}
        p.add_argument(flag(field.name), default=field.default, help=help, **kwargs)
    p.set_defaults(func=build_command)

    q = subparsers.add_parser("abstractions", help="list the built abstractions",
                              description="List the built abstractions (catalog table "
                              "abstractions): name, game, method, bucket counts, board visibility, "
                              "seed and build seconds.")
    q.add_argument("--format", choices=FORMATS, default="table",
                   help="table (default), csv, or one JSON array (as every list command)")
    q.add_argument("--json", dest="format", action="store_const", const="json",
                   help="the same as --format json")
    q.set_defaults(func=list_command)


def build_command(args: argparse.Namespace) -> int:
    values = {f.name: getattr(args, f.name) for f in option_fields()}
    target = {k: values.pop(k) for k in ("game", "method", "name", "replace")}
    try:
        options = method_options(target["method"], **values)
        result = build(target["game"], target["method"], options, name=target["name"],
                       replace=target["replace"], data_dir=args.data_dir, progress=True)
    except OptionError as exc:  # the library names parameters; the user typed flags
        raise UserError(exc.spelled(flag)) from None
    print("\n".join(summary_lines(result)))
    return 0


#: The columns of ``abstractions`` (table headers; csv and json use the keys).
COLUMNS = (Column("name", "name"), Column("game", "game"), Column("method", "method"),
           Column("built", "buckets"), Column("board", "board"), Column("recall", "recall"), Column("seed", "seed", right=True),
           Column("seconds", "build s", lambda v: f"{v:,.1f}", right=True),
           Column("created", "created", lambda v: v.isoformat(timespec="seconds")))


def list_command(args: argparse.Namespace) -> int:
    # a data directory that does not exist has no abstractions (and is not created)
    rows = store.list_abstractions(args.data_dir) if args.data_dir.is_dir() else []
    for r in rows:
        r["board"] = "public" if r["public_board"] else "hidden"
        r["recall"] = "perfect" if r["perfect_recall"] else "imperfect"
        r["seconds"] = json.loads(r["timings"]).get("total")
    print_rows(rows, COLUMNS, args.format, title="abstractions",
               empty="no abstractions built (see: cli.py build-abstraction --help)")
    return 0
