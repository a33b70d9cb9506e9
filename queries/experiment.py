"""``cli.py experiment NAME``: named end-to-end comparisons (issue 5).

    python cli.py experiment rhode-island-granularity --report docs/rhode-island-granularity

``rhode-island-granularity``: builds the eb, eb2 and pa abstractions (``--methods`` for others,
e.g. ``eb,eb2,pa,pa-emd,ochs``) of Rhode Island Hold'em
at 13,25,125 / 13,50,250 / 13,75,500 / 13,100,750 / 13,125,1000 / 13,150,1250 / 13,205,1774
buckets (named ``rhode-island-METHOD-B1-B2-B3``) and the lossless one, solves the real game
(the reference equilibrium) and each abstract game to ``--target`` chips of exploitability
in its own game (DCFR by default; resuming checkpoints), evaluates the four measures of every
strategy against all the others and against the equilibrium, and writes the report (Markdown + plots). Re-running reuses
every abstraction, strategy and evaluation already stored.

``rhode-island-granularity-public``: the same 21 builds played with the public cards visible
(``--public-board``, names ``...-public``: the published, ordered-game setting), the reference
equilibrium the lossless abstraction solved to ``--equilibrium-target``; the report puts both
settings side by side when the hidden-board strategies are stored in the same data directory:

    python cli.py experiment rhode-island-granularity-public --target 0.1 \
        --equilibrium-target 0.05 --report docs/rhode-island-granularity-public

``rhode-island-rules``: the Rhode Island value question of issue 14, one solve per rule
variant and setting (see ``queries.rules_experiment``):

    python cli.py experiment rhode-island-rules --target 0.1 --report docs/rhode-island-rules
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from abstraction.methods import METHODS
from queries import rules_experiment
from queries.compare import (add_solve_options, build_abstraction, check_report_dir, compare,
                             game_support, options_from)
from queries.limit_support import RhodeIslandSupport
from queries.parallel_solve import solve_parallel
from queries.report import write_report
from queries.tables import print_tables
from queries.views import connect
from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir

RI_GRANULARITIES = ("13,25,125", "13,50,250", "13,75,500", "13,100,750", "13,125,1000",
                    "13,150,1250", "13,205,1774")
RI_METHODS = ("eb", "eb2", "pa")  # the published comparison; --methods adds others


def parse_methods(text: str | None) -> tuple[str, ...]:
    """``--methods``: comma-separated abstraction methods (default eb, eb2 and pa)."""
    if text is None:
        return RI_METHODS
    methods = tuple(m.strip() for m in text.split(",") if m.strip())
    bad = [m for m in methods if m not in METHODS or m == "lossless"]
    if bad or not methods:
        raise UserError(f"--methods: unknown or unusable method {', '.join(bad) or '(none)'}; "
                        f"choose from {', '.join(m for m in METHODS if m != 'lossless')} "
                        "(lossless is always the reference)")
    return methods


def ri_name(method: str, buckets: str) -> str:
    return f"rhode-island-{method}-{buckets.replace(',', '-')}"


def rhode_island_granularity(args, data_dir: Path) -> int:
    """The 21 builds played with the board hidden behind the bucket (issue 5)."""
    return _granularity(args, data_dir, public_board=False,
                        title="Rhode Island Hold'em: abstraction granularity (eb, eb2, pa)")


def rhode_island_granularity_public(args, data_dir: Path) -> int:
    """The published setting (Gilpin & Sandholm 2007): every abstraction played with the public
    cards visible (``--public-board``), each abstract game solved to ``--target``, the reference
    equilibrium the lossless abstraction (the real game, lossless) solved to
    ``--equilibrium-target``; the report adds both settings side by side."""
    return _granularity(args, data_dir, public_board=True,
                        title="Rhode Island Hold'em: abstraction granularity with the public "
                              "cards visible (published setting)")


def _granularity(args, data_dir: Path, public_board: bool, title: str) -> int:
    methods = parse_methods(getattr(args, "methods", None))
    options = options_from(args)
    report = Path(args.report) if args.report else data_dir / "reports" / args.name
    check_report_dir(report)
    t0 = time.time()
    support = RhodeIslandSupport(data_dir)
    have = set(support._abstractions())
    names = []
    for buckets in RI_GRANULARITIES:
        for method in methods:
            name = ri_name(method, buckets) + ("-public" if public_board else "")
            if name not in have:
                build_abstraction(data_dir, method, buckets, name, seed=args.seed,
                                  public_board=public_board)
            names.append(name)
    lossless = "rhode-island-lossless-full"
    if lossless not in have:
        build_abstraction(data_dir, "lossless", None, lossless, seed=args.seed)
    if public_board and options.equilibrium is None:
        # the lossless game is the real game: solved tighter, it is the reference
        (entry,) = support.resolve([lossless])
        eq_options = options.for_equilibrium()
        if options.jobs > 1 and not options.report_only:  # the reference first: the longest
            solve_parallel(game_support, support.game, data_dir,
                           [(lossless, eq_options)] + [(n, options) for n in reversed(names)],
                           options.jobs, options.progress)
            # every strategy is stored now: compare need not start a second pool to find that
            options = replace(options, jobs=1)
        options = replace(options, equilibrium=support.ensure_strategy(entry, eq_options))
    result = compare(support, names + [lossless], options, data_dir)
    print_tables(result["tables"])
    if not options.report_only:
        result["wall_seconds"] = time.time() - t0
    # the command that reproduces the results (a --report-only re-render only re-reads them)
    result["command"] = "python " + " ".join(a for a in sys.argv if a != "--report-only")
    side = side_by_side(data_dir, support.game, methods) if public_board else []
    path = write_report(report, data_dir, support.game, result, title=title, sections=side)
    print(f"report: {path}")
    if "wall_seconds" in result:
        print(f"wall: {result['wall_seconds']:.0f}s")
    return 0


def side_by_side(data_dir: Path, game: str, methods=RI_METHODS) -> list[str]:
    """Markdown: per method and granularity, real-game exploitability and head-to-head against
    the equilibrium with the board hidden and visible (the strategies stored in ``data_dir``;
    each evaluated against the equilibrium of its own experiment)."""
    with connect(data_dir, read_only=True) as con:
        rows = con.execute(
            "SELECT method, buckets, board, exploitability, vs_equilibrium FROM abstraction_summary "
            "WHERE game = ? AND list_contains(?, method) ORDER BY granularity, method",
            [game, list(methods)]).fetchall()
    cells: dict = {}
    for method, buckets, board, expl, vs_eq in rows:
        cells.setdefault((buckets, method), {})[board] = (expl, vs_eq)
    if not any(len(v) == 2 for v in cells.values()):
        return []

    def fmt(x):
        return "-" if x is None else f"{x:.4g}"

    out = ["## The two settings side by side", "",
           "Real-game exploitability and head-to-head against the equilibrium (chips/game) of "
           "each abstraction played with the board hidden behind the bucket "
           "(`experiment rhode-island-granularity`) and visible (this experiment).", "",
           "| buckets | method | exploitability, hidden | exploitability, public "
           "| vs equilibrium, hidden | vs equilibrium, public |", "|---|---|---|---|---|---|"]
    for (buckets, method), v in cells.items():
        h, p = v.get("hidden", (None, None)), v.get("public", (None, None))
        out.append(f"| {buckets} | {method} | {fmt(h[0])} | {fmt(p[0])} | {fmt(h[1])} "
                   f"| {fmt(p[1])} |")
    return out + [""]


EXPERIMENTS = {"rhode-island-granularity": rhode_island_granularity,
               "rhode-island-granularity-public": rhode_island_granularity_public,
               "rhode-island-rules": rules_experiment.run}


def register(subparsers) -> None:
    p = subparsers.add_parser("experiment", help="run a named comparison end to end "
                              f"({', '.join(EXPERIMENTS)})", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help=f"one of {', '.join(EXPERIMENTS)}")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="report directory (default: DATA_DIR/reports/NAME)")
    p.add_argument("--seed", type=int, default=0, help="abstraction seed (default 0)")
    p.add_argument("--methods", default=None,
                   help="rhode-island-granularity(-public): comma-separated abstraction methods "
                        "(default eb,eb2,pa; also pa-emd, ochs)")
    p.add_argument("--variants", default=None,
                   help="rhode-island-rules: comma-separated rule variants (default: all)")
    add_solve_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.name not in EXPERIMENTS:
        raise UserError(f"unknown experiment {args.name!r}; choose from {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[args.name](args, resolve_data_dir())
