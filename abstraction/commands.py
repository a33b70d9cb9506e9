"""CLI commands of the abstraction stage: ``build-abstraction`` and ``abstractions``.

    python cli.py build-abstraction --buckets 13,25,125 --game rhode-island --method pa
    python cli.py abstractions
"""

from __future__ import annotations

import argparse
import json

from abstraction import store
from abstraction.build import build, method_names, summary_lines
from schema.listing import FORMATS, Column, print_rows


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "build-abstraction", help="build a card abstraction (bucket tables + catalog row)",
        description="Build an abstraction of a game's hands (docs/design.md section 4) and store it "
                    "under <data-dir>/abstractions/NAME/.")
    p.add_argument("--buckets", default=None,
                   help="bucket counts per round, totals, e.g. 20,800,4800,28800 "
                        "(optional for lossless)")
    p.add_argument("--method", default="pa",
                   help=f"one of {', '.join(method_names())} (default pa); pa-emd: potential-aware "
                        "with the earth mover's distance; ochs: opponent cluster hand strength; "
                        "strategy: clustered by a solved strategy (GS4, --from-strategy)")
    p.add_argument("--game", default="holdem", help="holdem (default) or rhode-island")
    p.add_argument("--name", default=None, help="default: GAME-METHOD-BUCKETS")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes (default: the number of cores for holdem, 1 for "
                        "rhode-island)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT|local:N",
                   help="run the per-parent clustering on a Dask cluster (workers must see the "
                        "data directory) or on N local worker processes; same result, bit for "
                        "bit")
    p.add_argument("--n-init", type=int, default=4, help="k-means restarts (default 4)")
    p.add_argument("--kmax", type=int, default=None,
                   help="most children per parent bucket considered (default: no cap)")
    p.add_argument("--kmax-factor", type=float, default=None,
                   help="cap children per parent at KMAX_FACTOR * (buckets / parents) "
                        "(default: 3 for holdem, no cap for rhode-island)")
    p.add_argument("--intermediate", default=None,
                   help="pa, pa-emd, ochs: bottom-up cluster counts per round, e.g. ,,200 "
                        "(blank = default)")
    p.add_argument("--opponent-clusters", type=int, default=None,
                   help="ochs: clusters of opponent starting hands (default 8; rhode-island "
                        "1..13, holdem 1..169, at most 16 for the river table's memory)")
    p.add_argument("--from-strategy", default=None, metavar="NAME",
                   help="strategy (GS4, Gilpin's thesis, CMU 2009, ch. 6): the solved strategy "
                        "whose play clusters the hands, by the L1 distance between their "
                        "realisation plans. rhode-island: a Rhode Island strategy on an "
                        "abstraction, e.g. the lossless one; holdem: a `solve --game holdem` "
                        "strategy on an abstraction with the 169 preflop classes (e.g. built "
                        "with --buckets 169,...) and the later rounds abstracted, whose preflop "
                        "play clusters the 169 preflop hands")
    p.add_argument("--strategy-rounds", default=None, metavar="R1,R2",
                   help="strategy: the rounds (1-based) clustered by strategy vectors, the "
                        "others potential-aware (rhode-island: default all; holdem: 1 only, "
                        "the preflop)")
    p.add_argument("--recall", choices=("perfect", "imperfect"), default="perfect",
                   help="perfect (default): each round's buckets nested in the previous "
                   "round's; imperfect: every round clustered on its own, the earlier buckets "
                   "forgotten (eb = EHS, pa-emd = EMD over next-round buckets, ochs; holdem: "
                   "the river by equity or OCHS, earlier rounds by EMD on next-round equity "
                   "histograms). Solved by CFR (Rhode Island: on the type form with tied "
                   "infosets, or the public tree); the LP needs perfect recall")
    p.add_argument("--public-board", action="store_true",
                   help="rhode-island: play the abstraction with the public cards visible, "
                        "i.e. buckets refined by the board when solving (always on for "
                        "lossless, whose 13,205,1774 classes are lossless only so)")
    p.add_argument("--replace", action="store_true", help="rebuild an existing name")
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
    result = build(game=args.game, method=args.method, buckets=args.buckets, name=args.name,
                   seed=args.seed, public_board=args.public_board, data_dir=args.data_dir,
                   workers=args.workers, n_init=args.n_init, kmax=args.kmax,
                   kmax_factor=args.kmax_factor,
                   intermediate=getattr(args, "intermediate", None), replace=args.replace,
                   progress=True, scheduler=args.scheduler,
                   opponent_clusters=args.opponent_clusters, from_strategy=args.from_strategy,
                   strategy_rounds=args.strategy_rounds, recall=args.recall)
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
