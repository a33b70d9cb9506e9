"""``solve`` for the classic games and the sequence-form solvers (issue 7).

Hooked into :mod:`solve.cli.commands` by :func:`add_arguments` (extra options of ``solve``) and
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

Strategy tables: ``schema.strategy.STRATEGY_WEIGHT_SCHEMA``: ``reached`` false for an
information set the player's own strategy never reaches (its behaviour is undefined, stored
as probability NULL, and listed on the console), ``weight`` the plan's own reach of each
information set (these solvers return a realization plan, not an accumulator), and the game with its parameters in the
Parquet metadata, so :func:`evaluate_command` (``cli.py evaluate``) rebuilds the game.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir
from schema.progress import progress_bar
from schema.storage import atomic_write_parquet
from schema.strategy import CLASSIC_WEIGHT_SCHEMA, round_mean_weights, with_format
from solve.algorithms import _treeplex_kernels as K
from solve.algorithms.egt import EGTSolver
from solve.algorithms.ga import GAParams, GeneticSolver
from solve.algorithms.lp import REACH_TOL
from solve.algorithms.lp_exact import ExactLPError, solve_exact
from solve.algorithms.treeplex import SequenceCFR, behaviour, exploitability, solve_lp, value
from solve.games import classic, registry
from solve.games.classic import von_neumann_closed_form
from solve.games.draw27 import draw27, draw27_sequence_form
from solve.games.limit_tree import limit_tree
from solve.games.tree import sequence_form
from solve.loop import check_stop_args, iterate_until
from solve.runs import NAME_PATTERN as _NAME
from solve.runs import check_catalog, record_run
from solve.table import TREE_PARAMS_KEY, strategy_path

ALGORITHMS = ("lp",) + registry.CFR_FAMILY + registry.TREE_ALGORITHMS


def classic_games() -> tuple[str, ...]:
    """The games built as generic trees from their CLI parameters (registry: ``tree``)."""
    return registry.names(lambda g: g.representation == "tree")


def tree_games() -> tuple[str, ...]:
    """The games with a generic tree: the classic ones and the rules games that admit the
    sequence-form solvers (Kuhn, Leduc: their trees made from their rules)."""
    return registry.names(lambda g: g.representation == "tree" or (
        g.representation == "rules" and set(registry.TREE_ALGORITHMS) <= set(g.algorithms)))


def add_arguments(p) -> None:
    """Extra ``solve`` options (all optional; ignored by the other games)."""
    g = p.add_argument_group("classic games (--game kuhn-blinds, von-neumann, flop-poker, draw27; kuhn and "
                              "leduc as generic trees) and solvers (--algorithm egt, ga; lp --exact)")
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
    return (args.game in classic_games() or args.algorithm in registry.TREE_ALGORITHMS
            or bool(getattr(args, "exact", False)))


def build_tree(args):
    try:
        if args.game == "kuhn-blinds":
            return classic.kuhn_blinds(args.small_blind, args.big_blind)
        if args.game == "von-neumann":
            return classic.von_neumann(args.ante, args.bet, args.grid)
        if args.game == "flop-poker":
            cache = resolve_data_dir() / "cache" / "flop_poker_equity.npz"  # derived, exact; safe to delete
            return classic.flop_poker(args.ante, args.bet, cache_path=cache)
        if args.game == "draw27":
            b = args.buckets
            if b not in ("iso", "raw"):
                try:
                    b = int(b)
                except ValueError:
                    raise UserError(f"--buckets must be an integer, 'iso' or 'raw', got {b!r}") from None
            return draw27(b)
        if args.game in tree_games():  # a rules game: its tree made from its one definition
            return limit_tree(registry.get(args.game).make_rules())
    except ValueError as exc:
        raise UserError(str(exc)) from None
    raise UserError(f"game {args.game!r} is not available with --algorithm {args.algorithm}"
                    f"{' --exact' if args.exact else ''}; choose from {', '.join(tree_games())}")


def build_sequence_form(args):
    """(tree, sequence form) of the game in ``args`` (draw27 ``--buckets iso``: matrix-free)."""
    if args.game == "draw27" and args.buckets == "iso":
        # the unabstracted (lossless) game: matrix-free sequence form, CFR family only

        sf = draw27_sequence_form("iso")
        return sf.tree, sf
    tree = build_tree(args)
    return tree, sequence_form(tree)


def run(args) -> int:
    if args.algorithm not in ALGORITHMS:
        raise UserError(f"unknown algorithm {args.algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if args.exact and args.algorithm != "lp":
        raise UserError("--exact applies to --algorithm lp")
    if args.abstraction is not None:
        raise UserError(f"--abstraction is not supported for {args.game}" if args.game in classic_games()
                        else f"--algorithm {args.algorithm}{' --exact' if args.exact else ''} "
                             "solves the classic game trees, without --abstraction (use lp, cfr, "
                             "cfr+ or dcfr)")
    if args.resume:
        raise UserError("--resume is not supported for the classic games")
    check_stop_args(args)
    if args.game == "draw27" and args.buckets == "iso" and (args.algorithm not in ("cfr", "cfr+", "dcfr")
                                                            or args.exact):
        raise UserError("draw27 with --buckets iso (unabstracted) is solved with cfr, cfr+ or dcfr")
    t0 = time.time()
    tree, sf = build_sequence_form(args)
    name = args.name or f"{tree.name}-{args.algorithm}{'-exact' if args.exact else ''}"
    if not _NAME.match(name):
        raise UserError(f"strategy name {name!r} must be letters, digits, '_', '.', '+', '-'")

    check_catalog(resolve_data_dir())
    iterations = 0
    exact_value = None
    if args.algorithm == "lp" and args.exact:
        try:
            xq, yq, exact_value, method = solve_exact(sf)
        except ExactLPError as exc:
            raise UserError(str(exc)) from None
        x = np.array([float(v) for v in xq])
        y = np.array([float(v) for v in yq])
        plans = (xq, yq)
    elif args.algorithm == "lp":
        x, y, _ = solve_lp(sf)
        plans = (x, y)
    else:
        x, y, iterations = _iterate(args, sf, t0)
        plans = (x, y)
    expl = exploitability(sf, x, y)
    val = value(sf, x, y)
    wall = time.time() - t0
    beh = [behaviour(sf, p, plans[p], tol=0.0 if args.exact else REACH_TOL) for p in (0, 1)]
    ddir = resolve_data_dir()
    reach = [np.array([float(v) for v in np.asarray(plans[p], dtype=object)[
        np.asarray(sf.parent[p], dtype=np.int64)]]) for p in (0, 1)]
    path = _store(ddir, name, tree, beh, reach, args.algorithm + ("-exact" if args.exact else ""), iterations,
                  wall, expl, val, _game_params(args))
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
                  f"(no behaviour defined; stored with reached = false, probability NULL): "
                  f"{', '.join(un[:12])}{' ...' if len(un) > 12 else ''}")
    if args.game == "von-neumann":
        cf = von_neumann_closed_form(args.ante, args.bet)
        print("continuous von Neumann poker (closed form): "
              f"bluff below alpha={cf['alpha']} ({float(cf['alpha']):.6g}), bet above "
              f"beta={cf['beta']} ({float(cf['beta']):.6g}), call above c={cf['c']} ({float(cf['c']):.6g}), "
              f"value={cf['value']} ({float(cf['value']):.9g})")
    print(path)
    return 0


def _iterate(args, sf, t0):
    if args.algorithm == "ga":
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
        solver = EGTSolver(sf)
    else:
        solver = SequenceCFR(sf, args.algorithm)
    default = 1000 if args.target_exploitability is None and args.time_limit is None else None
    total = args.iterations if args.iterations is not None else default
    bar = progress_bar(total=total, unit="it", desc=f"{args.algorithm} {args.game}")
    try:
        iterate_until(solver, None, args.check_every or 50, total=total,
                      target=args.target_exploitability, time_limit=args.time_limit, started=t0,
                      bar=bar, measure_fn=lambda: exploitability(sf, *solver.average()))
    finally:
        bar.close()
    x, y = solver.average()
    return x, y, solver.iteration


PARAMS = ("small_blind", "big_blind", "ante", "bet", "grid", "buckets")


def _game_params(args) -> dict:
    return {"game": args.game, **{k: str(getattr(args, k)) for k in PARAMS}}


def classic_schema():
    """The strategy schema with ``probability`` NULL where no behaviour is defined:
    ``reached`` false for information sets the player's own strategy never reaches (the LP
    leaves their behaviour undetermined; flagged, not filled in), ``weight`` the plan's own
    reach of each information set (``schema.strategy``)."""
    return CLASSIC_WEIGHT_SCHEMA


def _store(ddir, name, tree, beh, reach, algorithm, iterations, wall, expl, val, params):
    """``reach[p][I]``: player p's plan's own reach of its local infoset I (the weight)."""
    schema = classic_schema()
    rows = {k: [] for k in ("round", "player", "cards", "history", "action", "probability",
                            "reached", "weight")}
    for p in (0, 1):
        b = beh[p]
        for I, (lab, acts) in enumerate(zip(b.labels, b.actions)):
            cards, _, hist = lab.partition("|")
            reached = not bool(b.unreached[I])
            for a, act in enumerate(acts):
                rows["round"].append(hist.count("/"))
                rows["player"].append(p); rows["cards"].append(cards); rows["history"].append(hist)
                rows["action"].append(act)
                rows["probability"].append(float(b.probs[I, a]) if reached else None)
                rows["reached"].append(reached)
                rows["weight"].append(float(reach[p][I]) if reached else 0.0)
    n = len(rows["player"])
    cols = {
        "strategy": pa.array([name] * n).dictionary_encode(),
        "game": pa.array([tree.name] * n).dictionary_encode(),
        "abstraction": pa.nulls(n, schema.field("abstraction").type),
        "round": pa.array(np.array(rows["round"], np.int8)),
        "player": pa.array(np.array(rows["player"], np.int8)),
        "cards": pa.array(rows["cards"], pa.string()),
        "history": pa.array(rows["history"], pa.string()).dictionary_encode(),
        "action": pa.array(rows["action"], pa.string()).dictionary_encode(),
        "probability": pa.array(rows["probability"], pa.float64()),
        "reached": pa.array(rows["reached"], pa.bool_()),
        **_weight_columns(rows),
    }
    cols = {k: (v.cast(schema.field(k).type) if v.type != schema.field(k).type else v)
            for k, v in cols.items()}
    schema = with_format(schema.with_metadata({TREE_PARAMS_KEY: json.dumps(params).encode()}), "tree")
    table = pa.Table.from_pydict(cols, schema=schema)
    path = strategy_path(ddir, name)
    digest = atomic_write_parquet(table, path)
    record_run(ddir, name, tree.name, None, algorithm, iterations, wall, expl, None, val, path, digest)
    return path


def _weight_columns(rows) -> dict:
    """``weight`` and ``round_mean_weight`` (the mean over a round's information sets with
    positive weight, one entry per information set) of the rows."""
    weight = np.array(rows["weight"], dtype=np.float64)
    rounds = np.array(rows["round"], dtype=np.int64)
    first = np.ones(len(weight), dtype=bool)  # the first row of each information set
    first[1:] = ((np.array(rows["cards"][1:]) != np.array(rows["cards"][:-1]))
                 | (np.array(rows["history"][1:]) != np.array(rows["history"][:-1]))
                 | (np.array(rows["player"][1:]) != np.array(rows["player"][:-1])))
    n_rounds = int(rounds.max()) + 1 if len(rounds) else 1
    mean = round_mean_weights(weight[first], rounds[first], n_rounds)[rounds]
    return {"weight": pa.array(weight, pa.float64()),
            "round_mean_weight": pa.array(mean, pa.float64(), mask=np.isnan(mean))}


def load_table(path):
    """(tree, sequence form, x, y) of a stored classic strategy table: the game is rebuilt from
    the parameters in the file's metadata; never-reached information sets (``reached`` false)
    get any completion (uniform), which does not change the realization plan.

    Raises:
        UserError: the table does not match the game it names.
    """
    meta = pq.read_schema(path).metadata or {}
    try:
        params = json.loads(meta[TREE_PARAMS_KEY])
        args = argparse.Namespace(**{k: params[k] for k in ("game",) + PARAMS}, algorithm="evaluate",
                                  exact=False)
        args.grid = int(args.grid)
    except (KeyError, ValueError, TypeError):
        raise UserError(f"strategy table {path} has damaged game metadata") from None
    tree, sf = build_sequence_form(args)
    t = pq.read_table(path, columns=["player", "cards", "history", "action", "probability", "reached"])
    cols = t.to_pydict()
    plans = []
    for p in (0, 1):
        idx = [k for k, v in enumerate(cols["player"]) if v == p]
        q = np.zeros(sf.n_seq[p])
        expected = sum(int(n) for n in sf.nact[p])
        if len(idx) != expected:
            raise UserError(f"strategy table {path} has {len(idx)} rows for player {p + 1}, the game "
                            f"{tree.name} has {expected}")
        k = 0
        for I, g in enumerate(sf.global_id[p]):
            label, acts = tree.info_label[g], tree.info_actions[g]
            o = int(sf.offset[p][I])
            for a, act in enumerate(acts):
                r = idx[k]; k += 1
                if (cols["cards"][r] + "|" + cols["history"][r], cols["action"][r]) != (label, act):
                    raise UserError(f"strategy table {path} does not match the game {tree.name} "
                                    f"(row {r}: {cols['cards'][r]}|{cols['history'][r]} {cols['action'][r]}, "
                                    f"expected {label} {act})")
                v = cols["probability"][r]
                q[o + a] = 1.0 / len(acts) if not cols["reached"][r] or v is None else v
        x = np.zeros(sf.n_seq[p])
        K.plan_from_behaviour(q, sf.parent[p], sf.offset[p], sf.nact[p], x)
        plans.append(x)
    return tree, sf, plans[0], plans[1]


def evaluate_command(path) -> int:
    """``cli.py evaluate`` of a classic strategy table: exploitability and value, in chips."""
    tree, sf, x, y = load_table(path)
    print(f"game={tree.name} abstraction=- value={value(sf, x, y):.9g} "
          f"exploitability={exploitability(sf, x, y):.9g}")
    return 0
