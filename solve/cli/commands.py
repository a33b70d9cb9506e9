"""CLI: ``solve`` (equilibrium of a game, stored as a strategy table) and ``evaluate``.

    python cli.py solve --game leduc --algorithm cfr+ --target-exploitability 1e-3
    python cli.py solve --game rhode-island --abstraction ri-13-25-125 --algorithm lp
    python cli.py evaluate leduc-full-cfr+
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from schema.errors import UserError
from solve import lookup, share
from solve.cli import classic as classic_cli
from solve.cli import holdem as holdem_cli
from solve.cli import holdem_exact
from solve.games import registry
from solve.games.backend import EvaluateRequest, SolveRequest
from solve.runs import NAME_PATTERN
from solve.table import strategy_path, table_format, table_game

_NAME = NAME_PATTERN


def _documented(subparsers, name: str, help: str, doc: str):
    """A sub-command whose ``--help`` shows a module docstring as written."""
    return subparsers.add_parser(name, help=help, description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)


def register(subparsers) -> None:
    p = subparsers.add_parser("solve", help="solve a poker game; store the strategy table",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)

    p.add_argument("--game", required=True,
                   help=f"one of {', '.join(registry.names())} (solve.games.registry)")
    p.add_argument("--abstraction", default=None,
                   help="card abstraction name ("
                        f"{', '.join(registry.names(lambda g: g.card_abstractions))})")
    p.add_argument("--algorithm", default="cfr+",
                   help="one of lp, cfr, cfr+, dcfr (default cfr+); egt and ga on the generic "
                        "tree of kuhn, leduc and the classic games")
    p.add_argument("--iterations", type=int, default=None,
                   help="iterations (CFR family; default 1000 unless a target or time limit is given)")
    p.add_argument("--target-exploitability", type=float, default=None,
                   help="stop once exploitability (chips; in the abstract game if abstracted) is below")
    p.add_argument("--time-limit", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--check-every", type=int, default=None,
                   help="iterations between exploitability checks and checkpoints (default: "
                        "the game's, 10 for rhode-island, 50 otherwise)")
    p.add_argument("--name", default=None, help="strategy name (default GAME-ABSTRACTION-ALGORITHM)")
    p.add_argument("--resume", action="store_true", help="continue from the run's checkpoint")
    p.add_argument("--engine", choices=("auto", "form", "tree"), default="auto",
                   help="CFR on an abstraction: 'form' iterates on bucket types (solve."
                        "abstract_cfr; fast; up to 10,000 final bucket sequences and 32 M "
                        "nonzero matrix entries; imperfect recall too), 'tree' on the public "
                        "tree; auto (default) picks form when it fits")
    classic_cli.add_arguments(p)

    holdem_cli.add_arguments(p)
    p.set_defaults(func=run_solve)

    e = subparsers.add_parser("evaluate", help="exploitability and value of a stored strategy",
                              description="Exploitability and value of a stored strategy in its "
                              "game (holdem: LBR bound and baselines, in mbb/g).")
    e.add_argument("strategy", help="strategy name (as given to solve) or path to strategy.parquet")
    e.add_argument("--lbr-boards", type=int, default=None,
                   help="holdem: LBR over this many whole boards (default: as the solve run)")
    e.add_argument("--lbr-deals", type=int, default=None,
                   help="holdem: LBR over this many deals (default: as the solve run)")
    e.add_argument("--h2h-deals", type=int, default=None,
                   help="holdem: duplicate deals against each baseline (default: as the solve run)")
    e.add_argument("--threshold", default=None, metavar="TAU",
                   help="holdem: evaluate the strategy thresholded at TAU (action probabilities "
                   "below it dropped, the rest renormalised; 'pure': purification; Ganzfried, "
                   "Sandholm & Waugh 2012)")
    holdem_exact.add_arguments(e)
    c = e.add_argument_group("holdem convergence curve (--curve)")
    c.add_argument("--curve", action="store_true",
                   help="holdem: the run's convergence instead: each checkpoint's LBR bound and "
                   "results against always-call / always-raise (as the solve logged them) and "
                   "head-to-head against --reference (of checkpoints kept by --keep-averages), "
                   "against solve CPU time; a table per run and a PNG of the four panels; "
                   "with --lbr-boards N, the LBR bound of every kept checkpoint measured again "
                   "over the same N boards, and its difference from the run's last, paired; "
                   "figures measured before are read back from each run's evaluations/ "
                   "folder, so a run going on costs only its new checkpoints")
    c.add_argument("--with", dest="with_runs", action="append", default=[], metavar="RUN",
                   help="--curve: another run on the same picture (repeatable)")
    c.add_argument("--reference", default=None, metavar="SPEC",
                   help="--curve: head-to-head opponent, NAME[@ITERATIONS][~TAU] (default: the "
                   "final strategy of the run with the most solve time)")
    c.add_argument("--out", default=None, metavar="PNG",
                   help="--curve: where the picture goes (default "
                   "<data-dir>/reports/STRATEGY-convergence.png)")
    e.set_defaults(func=run_evaluate)
    q = _documented(subparsers, "strategy", "what a stored strategy plays at real cards and a "
                    "betting history", lookup.__doc__)
    q.add_argument("strategy", help="strategy name")
    q.add_argument("--hole", required=True, help="the acting player's private cards, e.g. As")
    q.add_argument("--board", default="", help="public cards dealt so far, e.g. Kd7c")
    q.add_argument("--history", default="",
                   help="betting so far in ACPC notation (c, r, f; '/' between rounds), e.g. rc/r")
    q.add_argument("--format", choices=("table", "json"), default="table",
                   help="table (default) or json")
    q.set_defaults(func=run_strategy)
    x = _documented(subparsers, "export", "write one archive of an abstraction or strategy",
                    share.__doc__)
    x.add_argument("name", help="abstraction or strategy name")
    x.add_argument("file", help="archive to write (e.g. NAME.tar)")
    x.set_defaults(func=run_export)
    i = _documented(subparsers, "import", "add an exported abstraction or strategy to this "
                    "data directory", share.__doc__)
    i.add_argument("file", help="archive written by export")
    i.add_argument("--replace", action="store_true", help="replace a build of the same name")
    i.add_argument("--max-size", default=None, metavar="SIZE",
                   help=f"refuse an archive holding more than SIZE uncompressed, e.g. 500M, 2G "
                        f"(default {share.MAX_SIZE >> 30}G)")
    i.set_defaults(func=run_import)


def run_strategy(args) -> int:
    found = lookup.lookup(args.data_dir, args.strategy, args.hole, args.board, args.history)
    if args.format == "json":
        print(json.dumps(found.as_dict()))
        return 0

    print(f"{found.strategy}: {lookup_seat(found)} to act in round {found.round}")
    print(f"game {found.game}, abstraction {found.abstraction or '- (real game)'}; hole "
          f"{found.hole}, board {found.board or '-'}, history {found.history or '-'}")
    print(f"information set: {found.infoset} | {found.history or '-'}")
    print(training_line(found))
    t = Table()
    t.add_column("action")
    t.add_column("probability" if found.training != "never trained"
                 else "uniform default (not advice)", justify="right")
    for a, p in zip(found.actions, found.probabilities):
        t.add_row(a, f"{p:.4f}")
    Console(width=100).print(t)
    return 0


def lookup_seat(found) -> str:
    """"big blind (player 2)" in Texas Hold'em, "player 2" where the seat is the number."""
    number = f"player {found.player}"
    return number if found.seat == number else f"{found.seat} ({number})"


def training_line(found) -> str:
    """What a look-up's ``training`` says, in one line (``solve.lookup``)."""
    w = "-" if found.weight is None else f"{found.weight:.4g}"
    cut = "" if found.weight_threshold is None else f", barely trained below {found.weight_threshold:.4g}"
    if found.training == "never trained" and found.weight:
        return (f"NEVER TRAINED: the solver never moved this information set off its uniform "
                f"starting strategy\n(average-strategy weight {w}, all of it from iterations at "
                "which regret matching still played it uniformly):\nthe probabilities below are "
                "the default, not advice")
    if found.training == "never trained":
        return ("NEVER TRAINED: the solver's average strategy holds no weight here (its own play "
                "never got here while solving);\nthe probabilities below are the uniform default "
                "the table stores, not advice")
    if found.training == "barely trained":
        return (f"BARELY TRAINED: average-strategy weight {w}{cut} (1% of the round's mean):"
                "\nthe probabilities are an average of a few early iterations, weak advice")
    if found.training == "unknown":
        return ("training unknown: the table was written before weights were stored "
                "(solve it again to know)")
    return f"trained: average-strategy weight {w}{cut}"


def run_export(args) -> int:
    m = share.export(args.data_dir, args.name, args.file)
    size = sum(f["bytes"] for f in m["files"])
    print(f"exported {m['kind']} {m['name']!r}: {len(m['files'])} file(s), {size:,} bytes "
          f"-> {args.file}")
    return 0


def run_import(args) -> int:
    if not Path(args.file).is_file():
        raise UserError(f"no archive {args.file}")
    cap = share.MAX_SIZE if args.max_size is None else share.parse_size(args.max_size)
    got = share.import_(args.data_dir, args.file, replace=args.replace, max_size=cap)
    print(f"imported {got.kind} {got.name!r}: {got.files} file(s), {got.bytes:,} bytes")
    return 0


def _fields(cls, args) -> dict:
    """The attributes of ``args`` named as the fields of dataclass ``cls``."""
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(cls)}


def run_solve(args) -> int:
    game = registry.get(args.game)
    backend = game.backend
    backend.solve(game, SolveRequest(**_fields(SolveRequest, args)),
                  backend.options(**_fields(backend.options, args)), args.data_dir, print)
    return 0


def run_evaluate(args) -> int:
    if args.best_response or args.workers or args.scheduler or args.progress_file:
        return holdem_exact.run(args)
    ddir = args.data_dir
    curve_only = [f for f, v in (("--with", args.with_runs), ("--reference", args.reference),
                                 ("--out", args.out)) if v]
    if args.curve:
        if args.threshold is not None or args.lbr_deals is not None:
            raise UserError("--curve takes no --threshold or --lbr-deals (a thresholded "
                            "strategy can be the --reference)")
        return holdem_cli.run_curve(args.data_dir, args.strategy, args.with_runs, args.reference,
                                    args.h2h_deals, args.out, args.lbr_boards or 0)
    if curve_only:
        raise UserError(f"{', '.join(curve_only)}: only with --curve")
    path = Path(args.strategy)
    if not (path.suffix == ".parquet" and path.exists()):
        if not _NAME.match(args.strategy):
            raise UserError(f"no strategy {args.strategy!r}")
        path = strategy_path(ddir, args.strategy)
    if not path.exists():
        raise UserError(f"no strategy {args.strategy!r} (looked for {path})")
    fmt = table_format(path)
    game = registry.for_table(path, table_game(path, fmt), fmt)
    game.backend.evaluate(game, path, fmt, ddir, EvaluateRequest(**_fields(EvaluateRequest, args)),
                          print)
    return 0
