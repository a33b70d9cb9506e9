"""``solve`` for the classic games and the sequence-form solvers (issue 7).

Hooked into :mod:`solve.commands` by :func:`add_arguments` (extra options of ``solve``) and
:func:`handles` / :func:`run` (dispatch). Games: ``kuhn-blinds``, ``von-neumann``,
``flop-poker``, ``draw27`` (2-7 single draw; ``--buckets``) (and ``kuhn``, ``leduc`` as generic trees when a sequence-form solver or
``--exact`` is asked for). Algorithms: ``lp`` (``--exact`` for rational arithmetic),
``cfr``, ``cfr+``, ``dcfr``, ``egt``, ``ga``.

    python cli.py solve --game kuhn --algorithm lp --exact
    python cli.py solve --game kuhn-blinds --small-blind 1 --big-blind 2 --algorithm lp --exact
    python cli.py solve --game von-neumann --ante 1 --bet 2 --grid 100 --algorithm lp
    python cli.py solve --game flop-poker --algorithm cfr+ --iterations 2000
    python cli.py solve --game draw27 --buckets 10 --algorithm lp
    python cli.py solve --game draw27 --buckets iso --algorithm cfr+ --iterations 200
    python cli.py solve --game leduc --algorithm egt --target-exploitability 1e-3
    python cli.py solve --game von-neumann --grid 20 --algorithm ga --generations 50 --seed 1
"""

from __future__ import annotations

import time

import numpy as np

from schema.errors import UserError

GAMES = ("kuhn-blinds", "von-neumann", "flop-poker", "draw27")
TREE_GAMES = GAMES + ("kuhn", "leduc")
ALGORITHMS = ("lp", "cfr", "cfr+", "dcfr", "egt", "ga")


def add_arguments(p) -> None:
    """Extra ``solve`` options (all optional; ignored by the other games)."""
    g = p.add_argument_group("classic games (kuhn-blinds, von-neumann, flop-poker) and solvers egt, ga")
    g.add_argument("--small-blind", default="1", help="kuhn-blinds: player 2's small blind X (default 1)")
    g.add_argument("--big-blind", default="1", help="kuhn-blinds: player 1's big blind Y (default 1)")
    g.add_argument("--ante", default="1", help="von-neumann, flop-poker: ante a (default 1)")
    g.add_argument("--bet", default="2", help="von-neumann, flop-poker: bet B (default 2)")
    g.add_argument("--grid", type=int, default=100, help="von-neumann: hands 1..M (default 100)")
    g.add_argument("--buckets", default="10",
                   help="draw27: buckets per round (int), or 'iso' (unabstracted up to suit "
                        "isomorphism, lossless; cfr family only) (default 10)")
    g.add_argument("--exact", action="store_true", help="lp: rational arithmetic, value as a fraction")
    g.add_argument("--population", type=int, default=40, help="ga: individuals per seat (default 40)")
    g.add_argument("--generations", type=int, default=50, help="ga: generations (default 50)")
    g.add_argument("--hands", type=int, default=200, help="ga: hands per individual per generation")
    g.add_argument("--survivors", type=int, default=10, help="ga: elite kept per generation (default 10)")
    g.add_argument("--mutation", type=float, default=0.02, help="ga: per-gene mutation rate (default 0.02)")
    g.add_argument("--seed", type=int, default=0, help="ga: random seed (default 0)")


def handles(args) -> bool:
    """True if this module solves the request (classic game, egt/ga, or --exact)."""
    return (args.game in GAMES or args.algorithm in ("egt", "ga")
            or bool(getattr(args, "exact", False)))


def build_tree(args):
    from solve.games import classic

    try:
        if args.game == "kuhn-blinds":
            return classic.kuhn_blinds(args.small_blind, args.big_blind)
        if args.game == "von-neumann":
            return classic.von_neumann(args.ante, args.bet, args.grid)
        if args.game == "flop-poker":
            from schema.paths import data_dir as resolve_data_dir

            cache = resolve_data_dir() / "cache" / "flop_poker_equity.npz"  # derived, exact; safe to delete
            return classic.flop_poker(args.ante, args.bet, cache_path=cache)
        if args.game == "draw27":
            from solve.games.draw27 import draw27

            b = args.buckets
            if b not in ("iso", "raw"):
                try:
                    b = int(b)
                except ValueError:
                    raise UserError(f"--buckets must be an integer, 'iso' or 'raw', got {b!r}") from None
            return draw27(b)
        if args.game == "kuhn":
            return classic.kuhn()
        if args.game == "leduc":
            return classic.leduc()
    except ValueError as exc:
        raise UserError(str(exc)) from None
    raise UserError(f"game {args.game!r} is not available with --algorithm {args.algorithm}"
                    f"{' --exact' if args.exact else ''}; choose from {', '.join(TREE_GAMES)}")


def run(args) -> int:
    from schema.paths import data_dir as resolve_data_dir
    from solve.games.tree import sequence_form
    from solve.treeplex import behaviour, exploitability, value

    if args.algorithm not in ALGORITHMS:
        raise UserError(f"unknown algorithm {args.algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if args.exact and args.algorithm != "lp":
        raise UserError("--exact applies to --algorithm lp")
    if args.abstraction is not None:
        raise UserError(f"--abstraction is not supported for {args.game}")
    if args.resume:
        raise UserError("--resume is not supported for the classic games")
    for flag in ("iterations", "check_every"):
        v = getattr(args, flag)
        if v is not None and v < 1:
            raise UserError(f"--{flag.replace('_', '-')} must be at least 1")
    t0 = time.time()
    if args.game == "draw27" and args.buckets == "iso":
        # the unabstracted (lossless) game: matrix-free sequence form, CFR family only
        if args.algorithm not in ("cfr", "cfr+", "dcfr") or args.exact:
            raise UserError("draw27 with --buckets iso (unabstracted) is solved with cfr, cfr+ or dcfr")
        from solve.games.draw27 import draw27_sequence_form

        sf = draw27_sequence_form("iso")
        tree = sf.tree
    else:
        tree = build_tree(args)
        sf = sequence_form(tree)
    name = args.name or f"{tree.name}-{args.algorithm}{'-exact' if args.exact else ''}"
    iterations = 0
    exact_value = None
    if args.algorithm == "lp" and args.exact:
        from solve.lp_exact import ExactLPError, solve_exact

        try:
            xq, yq, exact_value, method = solve_exact(sf)
        except ExactLPError as exc:
            raise UserError(str(exc)) from None
        x = np.array([float(v) for v in xq])
        y = np.array([float(v) for v in yq])
        plans = (xq, yq)
    elif args.algorithm == "lp":
        from solve.treeplex import solve_lp

        x, y, _ = solve_lp(sf)
        plans = (x, y)
    else:
        x, y, iterations = _iterate(args, sf, t0)
        plans = (x, y)
    expl = exploitability(sf, x, y)
    val = value(sf, x, y)
    wall = time.time() - t0
    beh = [behaviour(sf, p, plans[p], tol=0.0 if args.exact else 1e-12) for p in (0, 1)]
    ddir = resolve_data_dir()
    path = _store(ddir, name, tree, beh, args.algorithm + ("-exact" if args.exact else ""), iterations,
                  wall, expl, val)
    line = (f"{name}: game={tree.name} algorithm={args.algorithm}{' (exact)' if args.exact else ''} "
            f"iterations={iterations} wall={wall:.1f}s value={val:.9g} exploitability={expl:.6g}"
            + (" (both within the bucket abstraction)" if tree.name.startswith("draw27-b") else ""))
    if exact_value is not None:
        line += f"\nvalue (exact, {method}) = {exact_value}"
    print(line)
    for p in (0, 1):
        un = [lab for lab, u in zip(beh[p].labels, beh[p].unreached) if u]
        if un:
            print(f"player {p + 1}: {len(un)} information sets never reached by its own strategy "
                  f"(no behaviour defined; stored as NaN): {', '.join(un[:12])}{' ...' if len(un) > 12 else ''}")
    if args.game == "von-neumann":
        from solve.games.classic import von_neumann_closed_form

        cf = von_neumann_closed_form(args.ante, args.bet)
        print("continuous von Neumann poker (closed form): "
              f"bluff below alpha={cf['alpha']} ({float(cf['alpha']):.6g}), bet above "
              f"beta={cf['beta']} ({float(cf['beta']):.6g}), call above c={cf['c']} ({float(cf['c']):.6g}), "
              f"value={cf['value']} ({float(cf['value']):.9g})")
    print(path)
    return 0


def _iterate(args, sf, t0):
    from tqdm import tqdm

    from solve.treeplex import exploitability

    if args.algorithm == "ga":
        from solve.ga import GAParams, GeneticSolver

        try:
            ga = GeneticSolver(sf, GAParams(population=args.population, generations=args.generations,
                                            hands=args.hands, survivors=args.survivors,
                                            mutation=args.mutation, seed=args.seed))
        except ValueError as exc:
            raise UserError(str(exc)) from None
        for gen in range(args.generations):
            e = ga.step()
            print(f"generation {gen + 1} exploitability {e:.6g}")
        return ga.x, ga.y, ga.generation
    if args.algorithm == "egt":
        from solve.egt import EGTSolver

        solver = EGTSolver(sf)
    else:
        from solve.treeplex import SequenceCFR

        solver = SequenceCFR(sf, args.algorithm)
    default = 1000 if args.target_exploitability is None and args.time_limit is None else None
    total = args.iterations if args.iterations is not None else default
    every = args.check_every or 50
    done = 0
    bar = tqdm(total=total, unit="it", desc=f"{args.algorithm} {args.game}")
    try:
        while total is None or done < total:
            step = every if total is None else min(every, total - done)
            solver.iterate(step)
            done += step
            bar.update(step)
            e = exploitability(sf, *solver.average())
            bar.set_postfix(exploitability=f"{e:.4g}")
            if args.target_exploitability is not None and e < args.target_exploitability:
                break
            if args.time_limit is not None and time.time() - t0 >= args.time_limit:
                break
    finally:
        bar.close()
    x, y = solver.average()
    return x, y, done


def _store(ddir, name, tree, beh, algorithm, iterations, wall, expl, val):
    import datetime as dt

    import pyarrow as pa

    from schema.catalog import session_scope
    from schema.catalog_solve import SolveRun
    from schema.storage import atomic_write_parquet
    from schema.strategy import STRATEGY_SCHEMA
    from solve.table import strategy_path

    rows = {k: [] for k in ("round", "player", "cards", "history", "action", "probability")}
    for p in (0, 1):
        b = beh[p]
        for I, (lab, acts) in enumerate(zip(b.labels, b.actions)):
            cards, _, hist = lab.partition("|")
            for a, act in enumerate(acts):
                v = b.probs[I, a]
                rows["round"].append(hist.count("/"))
                rows["player"].append(p); rows["cards"].append(cards); rows["history"].append(hist)
                rows["action"].append(act)
                rows["probability"].append(float("nan") if v is None or (isinstance(v, float) and np.isnan(v))
                                           else float(v))
    n = len(rows["player"])
    cols = {
        "strategy": pa.array([name] * n).dictionary_encode(),
        "game": pa.array([tree.name] * n).dictionary_encode(),
        "abstraction": pa.nulls(n, STRATEGY_SCHEMA.field("abstraction").type),
        "round": pa.array(np.array(rows["round"], np.int8)),
        "player": pa.array(np.array(rows["player"], np.int8)),
        "cards": pa.array(rows["cards"], pa.string()),
        "history": pa.array(rows["history"], pa.string()).dictionary_encode(),
        "action": pa.array(rows["action"], pa.string()).dictionary_encode(),
        "probability": pa.array(rows["probability"], pa.float64()),
    }
    cols = {k: (v.cast(STRATEGY_SCHEMA.field(k).type) if v.type != STRATEGY_SCHEMA.field(k).type else v)
            for k, v in cols.items()}
    table = pa.Table.from_pydict(cols, schema=STRATEGY_SCHEMA)
    path = strategy_path(ddir, name)
    digest = atomic_write_parquet(table, path)
    with session_scope(ddir) as s:
        s.merge(SolveRun(name=name, game=tree.name, abstraction=None, algorithm=algorithm,
                         iterations=int(iterations), wall_seconds=float(wall), exploitability=float(expl),
                         abstract_exploitability=None, value=float(val), path=str(path), sha256=digest,
                         created=dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)))
    return path
