#!/usr/bin/env python
"""poker: exact equity databases, card abstractions and solved strategies.

The one entry point. Each stage registers its own commands:
``etl.commands``, ``abstraction.commands``, ``solve.cli.commands``, ``queries.commands``.
Run ``python cli.py COMMAND --help`` for any command.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys


def _interrupted_at_start(*_):
    """Ctrl-C while the modules load (seconds on a busy machine): one line, exit 130, nothing
    was started (a KeyboardInterrupt inside an extension's import can be swallowed)."""
    sys.stderr.write("interrupted: nothing was started\n")
    sys.stderr.flush()
    os._exit(130)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, _interrupted_at_start)

import argparse  # noqa: E402 (after the start-up Ctrl-C handler)
import re  # noqa: E402

import duckdb  # noqa: E402

from queries import environment_cli  # noqa: E402
from queries.commands import refresh_views  # noqa: E402
from schema.catalog import catalog_error, catalog_path, is_damage  # noqa: E402
from schema.errors import ParameterError, UserError  # noqa: E402
from schema.optional import import_optional  # noqa: E402
from schema.paths import check_data_dir, data_dir  # noqa: E402

#: The environment variable naming the data directory when ``--data-dir`` is not given (read
#: here only: every command is passed ``args.data_dir``; the others: queries.environment_cli).
DATA_DIR_ENV = environment_cli.DATA_DIR_ENV
# Modules that contribute sub-commands; each defines ``register(subparsers)``.
COMMAND_MODULES = ("etl.commands", "abstraction.commands", "solve.cli.commands",
                   "solve.cli.strategies", "queries.commands")


#: Commands that write tables: after them the DuckDB views of every stage are recreated (here,
#: at the top, so that no stage imports ``queries``), for other DuckDB clients of the file.
WRITERS = ("etl", "build-abstraction", "solve", "compare", "experiment")


class _Parser(argparse.ArgumentParser):
    """argparse with the project's one-line ``error: ...`` (exit 2) instead of usage + error;
    sub-command parsers inherit it."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "cli.py",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        help=f"data directory (default: ${DATA_DIR_ENV} or ./data)",
    )
    parser.add_argument(
        "--quiet", action="store_true",
        help="no progress output (bars on a terminal, timestamped lines otherwise); errors "
             "and results still print")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        module = import_optional(name)
        if module is not None:  # None: stage not built yet
            module.register(sub)
    return parser


def _attach_negative_values(argv: list[str]) -> list[str]:
    """``--flag -5,10`` -> ``--flag=-5,10``: argparse reads a value that starts with ``-`` and
    is not a plain number as another option ("expected one argument"); attached, the command
    itself says what is wrong with the value."""
    out: list[str] = []
    for a in argv:
        if (out and out[-1].startswith("--") and "=" not in out[-1] and re.match(r"^-\d", a)
                and not re.match(r"^-\d+(\.\d*)?$", a)):
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out


def option_names(parser: argparse.ArgumentParser, command: str | None) -> dict[str, str]:
    """Parameter name -> how the command line spells it, for the options of ``parser`` and of
    ``command``'s parser (and its sub-commands'): ``check_every`` -> ``--check-every``, a
    positional argument by its metavar. The library names parameters (``ParameterError``);
    this is where they become the flags that the user typed."""
    names: dict[str, str] = {}
    todo = [parser]
    while todo:
        p = todo.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [sub for name, sub in action.choices.items()
                         if p is not parser or name == command]
            elif action.dest not in (argparse.SUPPRESS, "help"):
                longest = max(action.option_strings, key=len, default=None)
                names.setdefault(action.dest, longest or action.metavar or action.dest.upper())
    return names


def error_line(exc: UserError, parser: argparse.ArgumentParser, command: str | None) -> str:
    """``error: ...`` for ``exc``, a parameter named by the option that sets it."""
    if isinstance(exc, ParameterError):
        return f"error: {exc.naming(option_names(parser, command).get)}"
    return f"error: {exc}"


def main(argv: list[str] | None = None) -> int:
    environment_cli.configure()  # the game plug-ins first: the parser lists the games
    try:
        parser = build_parser()  # lists the games, plug-ins included (solve.games.registry)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(_attach_negative_values(argv))
    args.command_line = "python cli.py " + shlex.join(argv)  # what reports say reproduces them
    if args.data_dir is not None and not args.data_dir.strip():  # e.g. --data-dir "$UNSET"
        parser.error("--data-dir is empty (it would mean ./data)")
    # resolved once, here, and passed to every command: later cwd changes do not move it
    args.data_dir = data_dir(args.data_dir if args.data_dir is not None
                             else os.environ.get(DATA_DIR_ENV))
    if args.quiet:
        environment_cli.configure(quiet=True)
    if signal.getsignal(signal.SIGINT) is _interrupted_at_start:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the command's own handling
    try:
        check_data_dir(args.data_dir)
        rc = int(args.func(args) or 0)
        if args.command in WRITERS:
            refresh_views(args.data_dir)  # best effort: `sql` refreshes them again
        return rc
    except UserError as exc:
        print(error_line(exc, parser, args.command), file=sys.stderr)
        return 2
    except OSError as exc:  # the environment: permission denied, disk full, read-only file system
        where = f": {exc.filename}" if exc.filename else ""
        print(f"error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: completed work is kept; re-run to resume", file=sys.stderr)
        return 130
    except duckdb.Error as exc:
        if not is_damage(exc):
            raise  # a bug: keep the traceback
        print(f"error: {catalog_error(catalog_path(args.data_dir), exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
