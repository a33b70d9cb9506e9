"""CLI: ``solve`` (equilibrium of a game, stored as a strategy table) and ``evaluate``.

    python cli.py solve --game leduc --algorithm cfr+ --target-exploitability 1e-3
    python cli.py solve --game rhode-island --abstraction ri-13-25-125 --algorithm lp
    python cli.py evaluate leduc-full-cfr+
"""

from __future__ import annotations

import argparse
import json
import time
import zipfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir
from schema.progress import progress_bar
from schema.strategy import seat_name
from solve import lookup, share
from solve.cli import classic as classic_cli
from solve.cli import holdem as holdem_cli
from solve.cli import holdem_exact
from solve.games import kuhn3
from solve.algorithms.abstract_cfr import make_solver
from solve.abstractions import load_abstraction, refuse_stale_checkpoint
from solve.algorithms.evaluate import expected_value, exploitability
from solve.games import registry
from solve.games.compile import compile_game
from solve.loop import check_stop_args, iterate_until
from solve.algorithms.lp import solve_lp
from solve.runs import NAME_PATTERN, check_catalog, store_strategy
from solve.table import (read_strategy, strategy_path, table_format, table_training_counts,
                         training_lines)

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
    found = lookup.lookup(resolve_data_dir(), args.strategy, args.hole, args.board, args.history)
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
    m = share.export(resolve_data_dir(), args.name, args.file)
    size = sum(f["bytes"] for f in m["files"])
    print(f"exported {m['kind']} {m['name']!r}: {len(m['files'])} file(s), {size:,} bytes "
          f"-> {args.file}")
    return 0


def run_import(args) -> int:
    if not Path(args.file).is_file():
        raise UserError(f"no archive {args.file}")
    cap = share.MAX_SIZE if args.max_size is None else share.parse_size(args.max_size)
    got = share.import_(resolve_data_dir(), args.file, replace=args.replace, max_size=cap)
    print(f"imported {got.kind} {got.name!r}: {got.files} file(s), {got.bytes:,} bytes")
    return 0


def _compile(game: str, abstraction: str | None, data_dir: Path, with_abstraction: bool = False):
    """The compiled game (and, if ``with_abstraction``, the card abstraction object too)."""
    ab = None
    if abstraction is not None:
        ab = load_abstraction(abstraction, game, data_dir)
    g = compile_game(registry.get(game).make_rules(), ab)
    return (g, ab) if with_abstraction else g


def run_solve(args) -> int:
    spec = registry.get(args.game)
    if spec.representation == "holdem":  # limit Texas Hold'em on a built abstraction (issue 6)
        return holdem_cli.run_solve(args)
    if spec.representation == "tree" or classic_cli.handles(args):
        return classic_cli.run(args)  # generic trees: classic games, egt, ga, lp --exact
    spec.check_algorithm(args.algorithm)
    check_stop_args(args)
    if args.abstraction is not None and not spec.card_abstractions:
        games = registry.names(lambda g: g.card_abstractions and g.representation == "rules")
        raise UserError(f"--abstraction is supported for {', '.join(games)} only (and "
                        f"holdem), not {args.game}")
    name = args.name or f"{args.game}-{args.abstraction or 'full'}-{args.algorithm}"
    if not _NAME.match(name):
        raise UserError(f"strategy name {name!r} must be letters, digits, '_', '.', '+', '-'")
    ddir = resolve_data_dir()
    check_catalog(ddir)

    if spec.representation == "kuhn3":
        return kuhn3.solve_command(args, name, ddir)

    t0 = time.time()
    game, card_abstraction = _compile(args.game, args.abstraction, ddir, with_abstraction=True)
    abstract = game.abstraction is not None
    ckpt = strategy_path(ddir, name).with_name("checkpoint.npz")
    if args.algorithm == "lp":
        if not getattr(card_abstraction, "perfect_recall", True):
            raise UserError(f"--algorithm lp needs perfect recall; {args.abstraction!r} was "
                            "built with --recall imperfect (solve it with cfr, cfr+ or dcfr)")
        if args.resume:
            raise UserError("--resume applies to cfr, cfr+ and dcfr")
        strategy, _ = solve_lp(game)
        iterations = 0
    else:
        try:
            solver = make_solver(game, args.algorithm, card_abstraction,
                                 getattr(args, "engine", "auto"))
        except ValueError as exc:
            raise UserError(f"--engine form: {exc}") from None
        if args.resume:
            if not ckpt.exists():
                raise UserError(f"no checkpoint to resume for {name!r} ({ckpt})")

            refuse_stale_checkpoint(ckpt, getattr(card_abstraction, "created", None), name,
                                    args.abstraction)

            try:
                solver.load(ckpt)
            except (zipfile.BadZipFile, EOFError) as exc:  # e.g. a truncated checkpoint.npz
                raise UserError(f"cannot resume {name!r}: damaged checkpoint {ckpt} ({exc}); "
                                "solve without --resume") from None
            except (ValueError, KeyError, OSError) as exc:
                raise UserError(f"cannot resume {name!r}: {exc}") from None
        default_iters = 1000 if args.target_exploitability is None and args.time_limit is None else None
        total = args.iterations if args.iterations is not None else default_iters
        every = args.check_every or spec.check_every
        bar = progress_bar(total=total, initial=solver.iteration_ if total else 0, unit="it",
                   desc=f"{args.algorithm} {args.game}")
        try:
            iterate_until(solver, game, every, total=total, target=args.target_exploitability,
                          time_limit=args.time_limit, started=t0, checkpoint=ckpt, bar=bar)
        finally:
            bar.close()
        strategy = solver.average_strategy()
        iterations = solver.iteration_
    real_expl = exploitability(game, strategy)
    abs_expl = exploitability(game, strategy, abstract=True) if abstract else None
    value = expected_value(game, strategy)
    wall = time.time() - t0
    path, digest = store_strategy(ddir, name, strategy, args.game, game.abstraction, args.algorithm,
                          iterations, wall, real_expl, abs_expl, value)
    print(f"{name}: game={args.game} abstraction={game.abstraction or '-'} algorithm={args.algorithm} "
          f"iterations={iterations} wall={wall:.1f}s value={value:.6g} exploitability={real_expl:.6g}"
          + (f" abstract_exploitability={abs_expl:.6g}" if abs_expl is not None else "")
          + f"\n{path}")
    for line in unreached_report(strategy):
        print(line)
    return 0


def unreached_report(strategy, show: int = 12) -> list[str]:
    """One console line per player with information sets its own strategy never reaches
    (``Strategy.reached`` false): the count and the first ``show`` as "cards history"."""
    g = strategy.game
    un = strategy.unreached()
    if not len(un):
        return []
    labels, hists = g.infoset_labels(), g.infoset_histories()
    lines = []
    for p in (0, 1):
        mine = un[g.info_player[un] == p]
        if len(mine):
            names = [f"{labels[I]} {hists[I]}" for I in mine[:show]]
            lines.append(f"{seat_name(g.rules.name, p)}: {len(mine)} information sets never reached by its own strategy "
                         f"(no behaviour defined; stored with reached = false, probability uniform "
                         f"as a playable default): {', '.join(names)}{' ...' if len(mine) > show else ''}")
    return lines


def run_evaluate(args) -> int:
    if args.best_response or args.workers or args.scheduler:
        return holdem_exact.run(args)
    ddir = resolve_data_dir()
    curve_only = [f for f, v in (("--with", args.with_runs), ("--reference", args.reference),
                                 ("--out", args.out)) if v]
    if args.curve:
        if args.threshold is not None or args.lbr_deals is not None:
            raise UserError("--curve takes no --threshold or --lbr-deals (a thresholded "
                            "strategy can be the --reference)")
        return holdem_cli.run_curve(args.strategy, args.with_runs, args.reference,
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
    if args.threshold is not None and fmt != "holdem":
        raise UserError("--threshold applies to holdem strategies")
    if fmt != "compiled":
        if fmt == "holdem":
            return holdem_cli.run_evaluate(path, args.lbr_boards, args.lbr_deals, args.h2h_deals,
                                           args.threshold)
        for text in training_lines(table_training_counts(path)):  # first: figures stay last
            print(text)
        return {"tree": classic_cli.evaluate_command, "kuhn3": kuhn3.evaluate_command}[fmt](path)
    head = lookup.table_head(path)
    game_name, abstraction = head["game"], head["abstraction"]
    if game_name not in registry.games():
        raise UserError(f"strategy {path} is for unknown game {game_name!r}")
    game = _compile(game_name, abstraction, ddir)
    try:
        strategy = read_strategy(path, game)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for text in training_lines(table_training_counts(path)):  # first: the figures stay last
        print(text)
    expl = exploitability(game, strategy)
    line = (f"game={game_name} abstraction={abstraction or '-'} value={expected_value(game, strategy):.9g} "
            f"exploitability={expl:.9g}")
    if abstraction:
        line += f" abstract_exploitability={exploitability(game, strategy, abstract=True):.9g}"
    print(line)
    return 0
