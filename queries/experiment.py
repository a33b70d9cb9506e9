"""``cli.py experiment NAME``: named end-to-end comparisons (issue 5).

    python cli.py experiment rhode-island-granularity --report docs/rhode-island-granularity

``rhode-island-granularity``: builds the eb, eb2 and pa abstractions of Rhode Island Hold'em
at 13,25,125 / 13,50,250 / 13,75,500 / 13,100,750 / 13,125,1000 / 13,150,1250 / 13,205,1774
buckets (named ``rhode-island-METHOD-B1-B2-B3``) and the lossless one, solves the real game
(the reference equilibrium) and each abstract game to ``--target`` chips of exploitability
in its own game (DCFR by default; resuming checkpoints), evaluates the four measures of every
strategy against all the others and against the equilibrium, and writes the report (Markdown + plots). Re-running reuses
every abstraction, strategy and evaluation already stored.

``rhode-island-rules``: the Rhode Island value question of issue 14, one solve per rule
variant and setting (see ``queries.rules_experiment``):

    python cli.py experiment rhode-island-rules --target 0.1 --report docs/rhode-island-rules
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from queries import rules_experiment
from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir

RI_GRANULARITIES = ("13,25,125", "13,50,250", "13,75,500", "13,100,750", "13,125,1000",
                    "13,150,1250", "13,205,1774")
RI_METHODS = ("eb", "eb2", "pa")


def ri_name(method: str, buckets: str) -> str:
    return f"rhode-island-{method}-{buckets.replace(',', '-')}"


def rhode_island_granularity(args, data_dir: Path) -> int:
    from queries.compare import RhodeIslandSupport, build_abstraction, check_report_dir, compare, \
        options_from, print_tables
    from queries.report import write_report

    options = options_from(args)
    report = Path(args.report) if args.report else data_dir / "reports" / args.name
    check_report_dir(report)
    t0 = time.time()
    support = RhodeIslandSupport(data_dir)
    have = set(support._abstractions())
    names = []
    for buckets in RI_GRANULARITIES:
        for method in RI_METHODS:
            name = ri_name(method, buckets)
            if name not in have:
                build_abstraction(data_dir, method, buckets, name, seed=args.seed)
            names.append(name)
    lossless = "rhode-island-lossless-full"
    if lossless not in have:
        build_abstraction(data_dir, "lossless", None, lossless, seed=args.seed)
    result = compare(support, names + [lossless], options, data_dir)
    print_tables(result["tables"])
    if not options.report_only:
        result["wall_seconds"] = time.time() - t0
    result["command"] = "python " + " ".join(sys.argv)
    path = write_report(report, data_dir, support.game, result, title="Rhode Island Hold'em: "
                        "abstraction granularity (eb, eb2, pa)")
    print(f"report: {path}")
    if "wall_seconds" in result:
        print(f"wall: {result['wall_seconds']:.0f}s")
    return 0


EXPERIMENTS = {"rhode-island-granularity": rhode_island_granularity,
               "rhode-island-rules": rules_experiment.run}


def register(subparsers) -> None:
    from queries.compare import add_solve_options

    p = subparsers.add_parser("experiment", help="run a named comparison end to end "
                              f"({', '.join(EXPERIMENTS)})", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help=f"one of {', '.join(EXPERIMENTS)}")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="report directory (default: DATA_DIR/reports/NAME)")
    p.add_argument("--seed", type=int, default=0, help="abstraction seed (default 0)")
    p.add_argument("--variants", default=None,
                   help="rhode-island-rules: comma-separated rule variants (default: all)")
    add_solve_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.name not in EXPERIMENTS:
        raise UserError(f"unknown experiment {args.name!r}; choose from {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[args.name](args, resolve_data_dir())
