"""CLI commands of the abstraction stage: ``build-abstraction`` and ``abstractions``.

    python cli.py build-abstraction --buckets 13,25,125 --game rhode-island --method pa
    python cli.py abstractions
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from abstraction import store
from abstraction.build import Target, build, method_options, option_fields, summary_lines
from abstraction.options import OptionError
from schema.errors import UserError
from schema.listing import FORMATS, Column, print_rows


def flag(name: str) -> str:
    """The command line's flag of build parameter ``name`` (``n_init`` -> ``--n-init``)."""
    return "--" + name.replace("_", "-")


def flags() -> dict[str, str]:
    """Every build parameter's flag, by parameter (the methods registered now included)."""
    return {f.name: flag(f.name) for f in option_fields()}


def _spelled(exc: OptionError) -> str:
    """The message of ``exc`` with its parameters written as the user typed them: flags."""
    table = flags()
    return exc.spelled(lambda name: table.get(name, name))


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "build-abstraction", help="build a card abstraction (bucket tables + catalog row)",
        description="Build an abstraction of a game's hands (docs/design.md section 4) and store it "
                    "under <data-dir>/abstractions/NAME/.")
    # one flag per parameter of abstraction.build.build and of every method's options
    fields = option_fields()
    for field in fields:
        meta, help = field.metadata, field.metadata["help"]
        help = _spelled(OptionError(help() if callable(help) else help,
                                    *(f.name for f in fields)))
        if isinstance(field.default, bool):
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
    target = {f.name: values.pop(f.name) for f in dataclasses.fields(Target)}
    try:
        options = method_options(target["method"], **values)
        result = build(target["game"], target["method"], options, name=target["name"],
                       replace=target["replace"], data_dir=args.data_dir, progress=True)
    except OptionError as exc:  # the library names parameters; the user typed flags
        raise UserError(_spelled(exc)) from None
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
