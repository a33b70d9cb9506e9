"""CLI commands of the abstraction stage: ``build-abstraction`` and ``abstractions``.

    python cli.py build-abstraction --buckets 13,25,125 --game rhode-island --method pa
    python cli.py abstractions
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from schema.errors import UserError

METHOD_NAMES = ("pa", "eb", "eb2", "lossless")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "build-abstraction", help="build a card abstraction (bucket tables + catalog row)",
        description="Build an abstraction of a game's hands (DESIGN.md section 4) and store it "
                    "under <data-dir>/abstractions/NAME/.")
    p.add_argument("--buckets", default=None,
                   help="bucket counts per round, totals, e.g. 20,800,4800,28800 "
                        "(optional for lossless)")
    p.add_argument("--method", default="pa", help="pa (default), eb, eb2 or lossless")
    p.add_argument("--game", default="holdem", help="holdem (default) or rhode-island")
    p.add_argument("--name", default=None, help="default: GAME-METHOD-BUCKETS")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes (default: the number of cores for holdem, 1 for "
                        "rhode-island)")
    p.add_argument("--n-init", type=int, default=4, help="k-means restarts (default 4)")
    p.add_argument("--kmax", type=int, default=None,
                   help="most children per parent bucket considered (default: no cap)")
    p.add_argument("--kmax-factor", type=float, default=None,
                   help="cap children per parent at KMAX_FACTOR * (buckets / parents) "
                        "(default: 3 for holdem, no cap for rhode-island)")
    p.add_argument("--intermediate", default=None,
                   help="pa: bottom-up cluster counts per round, e.g. ,,200 (blank = default)")
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
    q.add_argument("--json", action="store_true", help="print JSON lines")
    q.set_defaults(func=list_command)


def parse_buckets(text: str | None, game: str) -> tuple[int, ...] | None:
    from abstraction.games import HAND_COUNTS, ROUNDS

    if text is None:
        return None
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise UserError(f"--buckets must be comma-separated integers, got {text!r}") from None
    if len(counts) != ROUNDS[game]:
        raise UserError(f"--buckets needs {ROUNDS[game]} counts for {game} (one per round), "
                        f"got {len(counts)}")
    for r, k in enumerate(counts):
        if k < 1:
            raise UserError(f"--buckets: round {r} needs at least 1 bucket, got {k}")
        if r and k < counts[r - 1]:
            raise UserError(f"--buckets: round {r} has {k} buckets, fewer than round {r - 1} "
                            f"({counts[r - 1]})")
        if k > HAND_COUNTS[game][r]:
            raise UserError(f"--buckets: round {r} has {k} buckets, more than the "
                            f"{HAND_COUNTS[game][r]:,} hands of {game} round {r}")
    return counts


def _parse_intermediate(text: str | None):
    if text is None:
        return None
    try:
        return tuple(int(x) if x.strip() else None for x in text.split(","))
    except ValueError:
        raise UserError(f"--intermediate must be comma-separated integers, got {text!r}") \
            from None


def load_game(game: str, data_dir, workers: int, method: str = "pa"):
    if game == "rhode-island":
        from abstraction.games import rhode_island

        return rhode_island()
    from abstraction.holdem import holdem_hands

    return holdem_hands(data_dir, workers=workers, progress=sys.stderr.isatty(),
                        need_histograms=method == "pa")


def build_command(args: argparse.Namespace) -> int:
    from abstraction import store
    from abstraction.games import GAMES
    from abstraction.methods import METHODS

    if args.method not in METHOD_NAMES:
        raise UserError(f"unknown method {args.method!r}; choose from {', '.join(METHOD_NAMES)}")
    if args.game not in GAMES:
        raise UserError(f"unknown game {args.game!r}; choose from {', '.join(GAMES)}")
    if args.method == "lossless" and args.game != "rhode-island":
        raise UserError("lossless is available for rhode-island only (Texas Hold'em's lossless "
                        "abstraction is far too large to build)")
    if args.public_board and args.game != "rhode-island":
        raise UserError("--public-board is available for rhode-island only")
    if getattr(args, "intermediate", None) is not None and args.method != "pa":
        raise UserError(f"--intermediate applies to --method pa, not {args.method}")
    buckets = parse_buckets(args.buckets, args.game)
    if buckets is None and args.method != "lossless":
        raise UserError(f"--buckets is required for method {args.method}")
    if args.workers is None:
        args.workers = (os.cpu_count() or 1) if args.game == "holdem" else 1
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    name = args.name or f"{args.game}-{args.method}-" + (
        "-".join(map(str, buckets)) if buckets else "full")
    try:
        store.check_name(name)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not args.replace and store.exists(name, args.data_dir):
        raise UserError(f"abstraction {name!r} exists (use --replace to rebuild it)")

    t0 = time.perf_counter()
    hands = load_game(args.game, args.data_dir, args.workers, args.method)
    kmax_factor = args.kmax_factor
    if kmax_factor is None and args.game == "holdem":
        kmax_factor = 3.0
    kwargs = dict(random_state=args.seed, n_init=args.n_init, kmax=args.kmax,
                  kmax_factor=kmax_factor,
                  workers=args.workers, progress=sys.stderr.isatty(),
                  public_board=args.public_board)
    if args.method == "pa":
        kwargs["intermediate"] = _parse_intermediate(args.intermediate)
    if args.method == "lossless":
        kwargs = {"random_state": args.seed}
    model = METHODS[args.method](buckets, **kwargs)
    try:
        model.fit(hands)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    seconds = time.perf_counter() - t0
    store.save(model, hands, name, seed=args.seed, seconds=seconds, replace=args.replace,
               data_dir=args.data_dir)
    print(f"{name}: {args.method} on {hands.game}, buckets {','.join(map(str, model.buckets_))} "
          f"in {seconds:.1f}s")
    if model.public_board:
        from solve.abstractions import public_board_buckets

        seen = public_board_buckets([res.bucket for res in model.rounds_])
        print("  played with the public board visible: "
              f"{','.join(str(int(b.max()) + 1) for b in seen)} (board, bucket) classes")
    for rep in model.report_:
        line = (f"  round {rep['round']}: {rep['built']}/{rep['requested']} buckets, "
                f"sizes {rep['sizes']['min']}..{rep['sizes']['max']} "
                f"(median {rep['sizes']['median']:g})")
        if "ip_objective" in rep:
            line += (f", IP error {rep['ip_objective']:.4g} vs equal split "
                     f"{rep['equal_split_error']:.4g}")
        if "reason" in rep:
            line += f" -- {rep['reason']}"
        print(line)
    return 0


def list_command(args: argparse.Namespace) -> int:
    from abstraction import store

    from schema.paths import data_dir

    # a data directory that does not exist has no abstractions (and is not created)
    rows = store.list_abstractions(args.data_dir) if data_dir().is_dir() else []
    if args.json:
        for r in rows:
            print(json.dumps(r, default=str))
        return 0
    if not rows:
        print("no abstractions built (see: cli.py build-abstraction --help)")
        return 0
    print(f"{'name':32} {'game':13} {'method':8} {'built':24} {'board':6} {'seed':>4} "
          f"{'seconds':>8}")
    for r in rows:
        total = json.loads(r["timings"]).get("total")
        board = "public" if r["public_board"] else "hidden"
        print(f"{r['name']:32} {r['game']:13} {r['method']:8} {r['built']:24} {board:6} "
              f"{r['seed']:>4} {total:>8.1f}")
    return 0
