"""CLI of the comparisons: ``compare`` (``queries.compare``), ``experiment``
(``queries.experiment``) and ``plot-range`` (``queries.range_grid``): their options, and the
library calls they make with them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from queries import compare, experiment, range_grid
from queries.holdem_methods import PipelineOptions
from queries.report import write_report
from queries.support import Options
from queries.tables import print_tables
from schema.errors import UserError
from schema.paths import output_file


def register(subparsers) -> None:
    register_compare(subparsers)
    register_experiment(subparsers)
    register_range(subparsers)


def add_solve_options(p: argparse.ArgumentParser, target_default: float = 1.0) -> None:
    p.add_argument("--target", type=float, default=target_default,
                   help=f"abstract-game exploitability (chips) a strategy of an abstraction must be "
                        f"under to be reused; else it is solved (default {target_default:g})")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds of iterating per solve; a solve stopped by it is stored above "
                        "the target and reported so (default: no limit)")
    p.add_argument("--iterations", type=int, default=None,
                   help="most iterations per solve, in total (a resumed solve counts its "
                        "earlier ones); stored above the target if it stops it (default: no cap)")
    p.add_argument("--reuse-solved", action="store_true",
                   help="use an abstraction's stored strategy even above --target (no more solving)")
    p.add_argument("--algorithm", default="dcfr", help="cfr, cfr+ or dcfr (default dcfr)")
    p.add_argument("--check-every", type=int, default=25,
                   help="iterations between exploitability checks and checkpoints (default 25)")
    p.add_argument("--equilibrium", default=None,
                   help="strategy to use as the real game's equilibrium (default: the game's "
                        "reference, see above)")
    p.add_argument("--equilibrium-target", type=float, default=1.0,
                   help="exploitability (chips) the reference equilibrium is solved to (default 1)")
    p.add_argument("--equilibrium-time-limit", type=float, default=None,
                   help="seconds for solving the reference equilibrium (default: no limit)")
    p.add_argument("--equilibrium-iterations", type=int, default=None,
                   help="most iterations for the reference equilibrium (default: no cap)")
    p.add_argument("--report-only", action="store_true",
                   help="solve and evaluate nothing: tables (and report) of what is stored, "
                        "each abstraction by its stored strategy")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--jobs", type=int, default=1,
                   help="solves (and the experiments' builds) run side by side, each in its "
                        "own process on cores/jobs threads (default 1)")


def register_compare(subparsers) -> None:
    p = subparsers.add_parser("compare", help="compare strategies or abstractions on the four "
                              "measures (exploitability, head-to-head, vs equilibrium, value)",
                              description=compare.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help=f"one of {', '.join(compare.game_registry())}")
    p.add_argument("names", nargs="+", help="strategy or abstraction names")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="write DIR/README.md and PNG plots of each measure against granularity")
    add_solve_options(p)
    p.add_argument("--deals", type=int, default=100_000,
                   help="sampled games (holdem): duplicate deals per match (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="sampled games (holdem): deal seed")
    p.set_defaults(func=run_compare)


def options_from(args) -> Options:
    """The solve options of ``compare`` and ``experiment`` (:func:`add_solve_options`), typed;
    ``Options`` checks them (one-line errors naming the parameter, which ``cli.py`` prints as
    its flag)."""
    return Options(target=args.target, time_limit=args.time_limit,
                   reuse_solved=args.reuse_solved or args.report_only,
                   report_only=args.report_only, algorithm=args.algorithm,
                   check_every=args.check_every, equilibrium=args.equilibrium,
                   equilibrium_target=args.equilibrium_target,
                   equilibrium_time_limit=args.equilibrium_time_limit,
                   iterations=args.iterations, equilibrium_iterations=args.equilibrium_iterations,
                   progress=not args.no_progress, jobs=args.jobs)


def run_compare(args) -> int:
    options = options_from(args)
    if args.report:
        compare.check_report_dir(args.report)
    data_dir = args.data_dir
    support = compare.game_support(args.game, data_dir)
    result = compare.compare(support, args.names, options, data_dir)
    print_tables(result["tables"])
    if args.report:
        path = write_report(Path(args.report), data_dir, support.game, result)
        print(f"report: {path}")
    return 0


def register_experiment(subparsers) -> None:
    p = subparsers.add_parser("experiment", help="run a named comparison end to end "
                              f"({', '.join(experiment.EXPERIMENTS)})", description=experiment.__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help=f"one of {', '.join(experiment.EXPERIMENTS)}")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="report directory (default: DATA_DIR/reports/NAME)")
    p.add_argument("--seed", type=int, default=0, help="abstraction seed (default 0)")
    p.add_argument("--methods", default=None,
                   help="rhode-island-granularity(-public): comma-separated abstraction methods "
                        f"(default eb,eb2,pa; any of {', '.join(experiment.method_tokens())}: "
                        "strategy = GS4 clustered by the lossless game's strategy, solved first; "
                        "METHOD-ir = METHOD built with --recall imperfect, solved by CFR, "
                        "board hidden only)")
    p.add_argument("--ir-iterations", type=int, default=experiment.IR_ITERATIONS,
                   help="rhode-island-granularity: the most iterations of an imperfect-recall "
                        "(METHOD-ir) solve, which stops at --target otherwise: under imperfect "
                        "recall CFR need not converge (default %(default)s)")
    p.add_argument("--reference", default=None,
                   help="rhode-island-granularity: the settings measured: real = hidden board "
                        "vs the real game (default); lossless-hidden = also hidden board vs the "
                        "hidden-board lossless game (the thesis's: its equilibrium the "
                        "reference, its best responses the nemesis); all = also the board "
                        "visible vs the real game (the builds of rhode-island-granularity-public)"
                        ", the three side by side")
    p.add_argument("--lossless-target", type=float, default=None,
                   help="rhode-island-granularity --reference lossless-hidden/all: exploitability"
                        " (chips, in that game) the hidden-board lossless game's equilibrium is "
                        "solved to (default: --equilibrium-target)")
    p.add_argument("--variants", default=None,
                   help="rhode-island-rules: comma-separated rule variants (default: all)")
    h = p.add_argument_group("holdem-methods (and --jobs: steps at a time)")
    h.add_argument("--dry-run", action="store_true",
                   help="holdem-methods: list the steps left (what each calls) and stop")
    h.add_argument("--json", type=Path, default=None,
                   help="holdem-methods: the comparison's figures (default "
                        "DATA_DIR/holdem-methods.json)")
    h.add_argument("--logs", type=Path, default=None,
                   help="holdem-methods: per-step logs (default DATA_DIR/pipeline-logs)")
    h.add_argument("--memory-gb", type=float, default=PipelineOptions.memory_gb,
                   help="holdem-methods: start a step only while the running steps' peaks "
                        "(estimated) and its own stay under this (default %(default)s of the "
                        "machine's 24 GiB)")
    add_solve_options(p)
    p.set_defaults(func=run_experiment)


def experiment_options(args) -> experiment.ExperimentOptions:
    """``experiment``'s options, typed (the checks that need the experiment are its own)."""
    return experiment.ExperimentOptions(
        name=args.name, solve=options_from(args),
        report=None if args.report is None else Path(args.report), seed=args.seed,
        methods=None if args.methods is None else experiment.split_list(args.methods),
        ir_iterations=args.ir_iterations, reference=args.reference,
        lossless_target=args.lossless_target,
        variants=None if not args.variants else experiment.split_list(args.variants),
        pipeline=PipelineOptions(jobs=args.jobs, memory_gb=args.memory_gb, logs=args.logs,
                                 json=args.json, dry_run=args.dry_run),
        # a report re-rendered with --report-only names the command that computed it
        command_line=" ".join(a for a in args.command_line.split(" ") if a != "--report-only")
        if getattr(args, "command_line", None) else None)


def run_experiment(args) -> int:
    if args.name not in experiment.EXPERIMENTS:
        raise UserError(f"unknown experiment {args.name!r}; choose from "
                        f"{', '.join(experiment.EXPERIMENTS)}")
    return experiment.EXPERIMENTS[args.name](experiment_options(args), args.data_dir)


def register_range(subparsers) -> None:
    p = subparsers.add_parser("plot-range", help="13x13 range grid of a Texas Hold'em strategy "
                              "at a history and board (PNG)", description=range_grid.__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("strategy", help="Texas Hold'em strategy name")
    p.add_argument("--history", default="", help="betting so far, ACPC notation (e.g. rc/)")
    p.add_argument("--board", default="", help="public cards dealt so far (e.g. 7c8h9s)")
    p.add_argument("--out", default=None, help="PNG path (default: NAME-range.png here)")
    p.set_defaults(func=run_range)


def run_range(args) -> int:
    out = output_file(args.out or ".", "--out", f"{args.strategy}-range.png", suffix=".png")
    grid = range_grid.range_grid(args.data_dir, args.strategy, args.history, args.board)
    range_grid.plot_range(grid, out)
    probs = np.asarray(grid["probabilities"])
    never = np.asarray(grid["never_trained"])
    barely = np.asarray(grid["barely_trained"])
    trained = np.asarray(grid["combos"]) - never
    mean = [float(np.nansum(probs[a] * trained) / max(trained.sum(), 1))
            for a in range(len(probs))]
    print(f"{range_grid.seat_label(grid)} at history '{args.history or '-'}', board "
          f"{args.board or '-'}: " + ", ".join(f"{a} {m:.3f}" for a, m in
                                               zip(grid["actions"], mean))
          + " (over all trained hands)")
    if never.sum() or barely.sum():
        print(f"{int(never.sum()):,} of {int(np.sum(grid['combos'])):,} hands never trained "
              f"(left out: grey), {int(barely.sum()):,} barely trained (*)")
    print(out)
    return 0
