"""Solving and evaluating a game on its generic tree (issue 7): the classic games and the
sequence-form solvers (``egt``, ``ga``, ``lp --exact``) on any game with a tree.

The game's backend (``solve.games.backends``) builds the tree and its sequence form; this
module solves it (``lp``, ``lp --exact`` in rational arithmetic, the CFR family, ``egt``,
``ga``), stores the strategy table and reads it back.

Strategy tables: ``schema.strategy.CLASSIC_WEIGHT_SCHEMA``: ``reached`` false for an
information set the player's own strategy never reaches (its behaviour is undefined, stored
as probability NULL, and listed on the console), ``weight`` the plan's own reach of each
information set (these solvers return a realization plan, not an accumulator), and the game
with its parameters in the Parquet metadata, so :func:`evaluate` rebuilds the game.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from schema.errors import ParameterError, UserError
from schema.progress import progress_bar
from schema.storage import atomic_write_parquet
from schema.strategy import CLASSIC_WEIGHT_SCHEMA, round_mean_weights, with_format
from solve.algorithms import _treeplex_kernels as K
from solve.algorithms.egt import EGTSolver
from solve.algorithms.ga import GAParams, GeneticSolver
from solve.algorithms.lp import REACH_TOL
from solve.algorithms.lp_exact import ExactLPError, solve_exact
from solve.algorithms.treeplex import SequenceCFR, behaviour, exploitability, solve_lp, value
from solve.games.backend import ALGORITHMS, Report, SolveRequest, TreeParams
from solve.loop import check_stop_args, iterate_until
from solve.runs import NAME_PATTERN as _NAME
from solve.runs import check_catalog, record_run
from solve.table import TREE_PARAMS_KEY, strategy_path

#: (tree, sequence form) of a game from its parameters, in a data directory (for caches).
Build = Callable[[TreeParams, Path], tuple]

#: The parameters a tree table records (beside the game's name), to rebuild its game.
PARAMS = ("small_blind", "big_blind", "ante", "bet", "grid", "buckets")


def check_request(game_name: str, request: SolveRequest, tree_game: bool) -> None:
    """The checks every solve on a generic tree makes before building it; ``tree_game``: the
    game is only ever solved on its tree (a classic game)."""
    if request.algorithm not in ALGORITHMS:
        raise UserError(f"unknown algorithm {request.algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if request.exact and request.algorithm != "lp":
        raise ParameterError("`exact` applies to `algorithm` lp")
    if request.abstraction is not None:
        raise ParameterError(f"`abstraction` is not supported for {game_name}" if tree_game
                             else f"`algorithm` {request.algorithm}"
                                  f"{' (`exact`)' if request.exact else ''} solves the classic "
                                  "game trees, without `abstraction` (use lp, cfr, cfr+ or dcfr)")
    if request.resume:
        raise ParameterError("`resume` is not supported for the classic games")
    check_stop_args(request)


def solve(game_name: str, build: Build, request: SolveRequest, params: TreeParams,
          data_dir: Path, report: Report) -> Path:
    """Solve the tree ``build`` makes of ``params`` as ``request`` asks; store the table
    (with ``game_name`` and ``params`` in its metadata) and its catalog row; returns its
    path. The request was checked by :func:`check_request`."""
    t0 = time.time()
    tree, sf = build(params, data_dir)
    name = request.name or f"{tree.name}-{request.algorithm}{'-exact' if request.exact else ''}"
    if not _NAME.match(name):
        raise UserError(f"strategy name {name!r} must be letters, digits, '_', '.', '+', '-'")

    check_catalog(data_dir)
    iterations = 0
    exact_value = None
    if request.algorithm == "lp" and request.exact:
        try:
            xq, yq, exact_value, method = solve_exact(sf)
        except ExactLPError as exc:
            raise UserError(str(exc)) from None
        x = np.array([float(v) for v in xq])
        y = np.array([float(v) for v in yq])
        plans = (xq, yq)
    elif request.algorithm == "lp":
        x, y, _ = solve_lp(sf)
        plans = (x, y)
    else:
        x, y, iterations = _iterate(game_name, request, params, sf, t0, report)
        plans = (x, y)
    expl = exploitability(sf, x, y)
    val = value(sf, x, y)
    wall = time.time() - t0
    beh = [behaviour(sf, p, plans[p], tol=0.0 if request.exact else REACH_TOL) for p in (0, 1)]
    reach = [np.array([float(v) for v in np.asarray(plans[p], dtype=object)[
        np.asarray(sf.parent[p], dtype=np.int64)]]) for p in (0, 1)]
    path = _store(data_dir, name, tree, beh, reach,
                  request.algorithm + ("-exact" if request.exact else ""), iterations,
                  wall, expl, val, game_params(game_name, params))
    line = (f"{name}: game={tree.name} algorithm={request.algorithm}{' (exact)' if request.exact else ''} "
            f"iterations={iterations} wall={wall:.1f}s value={val:.9g} exploitability={expl:.6g}"
            + (" (both within the bucket abstraction)" if tree.name.startswith("draw27-b") else ""))
    if exact_value is not None:
        line += f"\nvalue (exact, {method}) = {exact_value}"
    report(line)
    for p in (0, 1):
        un = [lab for lab, u in zip(beh[p].labels, beh[p].unreached) if u]
        if un:
            report(f"player {p + 1}: {len(un)} information sets never reached by its own strategy "
                   f"(no behaviour defined; stored with reached = false, probability NULL): "
                   f"{', '.join(un[:12])}{' ...' if len(un) > 12 else ''}")
    return path


def _iterate(game_name: str, request: SolveRequest, params: TreeParams, sf, t0, report: Report):
    if request.algorithm == "ga":
        try:
            ga = GeneticSolver(sf, GAParams(population=params.population,
                                            generations=params.generations, hands=params.hands,
                                            survivors=params.survivors,
                                            mutation=params.mutation, seed=params.seed))
        except ValueError as exc:
            raise UserError(str(exc)) from None
        for gen in range(params.generations):
            e = ga.step()
            report(f"generation {gen + 1} exploitability {e:.6g}")
        return ga.x, ga.y, ga.generation
    if request.algorithm == "egt":
        solver = EGTSolver(sf)
    else:
        solver = SequenceCFR(sf, request.algorithm)
    default = 1000 if request.target_exploitability is None and request.time_limit is None else None
    total = request.iterations if request.iterations is not None else default
    bar = progress_bar(total=total, unit="it", desc=f"{request.algorithm} {game_name}")
    try:
        iterate_until(solver, None, request.check_every or 50, total=total,
                      target=request.target_exploitability, time_limit=request.time_limit,
                      started=t0, bar=bar, measure_fn=lambda: exploitability(sf, *solver.average()))
    finally:
        bar.close()
    x, y = solver.average()
    return x, y, solver.iteration


def game_params(game_name: str, params: TreeParams) -> dict:
    """What a tree table records of its game (:data:`PARAMS`, as strings)."""
    return {"game": game_name, **{k: str(getattr(params, k)) for k in PARAMS}}


def table_params(path) -> tuple[str, TreeParams]:
    """(game name, parameters) recorded in the metadata of tree table ``path``.

    Raises:
        UserError: the metadata is missing or damaged.
    """
    meta = pq.read_schema(path).metadata or {}
    try:
        params = json.loads(meta[TREE_PARAMS_KEY])
        values = {k: params[k] for k in PARAMS}
        values["grid"] = int(values["grid"])
        return params["game"], dataclasses.replace(TreeParams(), **values)
    except (KeyError, ValueError, TypeError):
        raise UserError(f"strategy table {path} has damaged game metadata") from None


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


def load_table(path, build: Build, data_dir: Path):
    """(tree, sequence form, x, y) of a stored classic strategy table: the game is rebuilt from
    the parameters in the file's metadata (by ``build``); never-reached information sets (``reached`` false)
    get any completion (uniform), which does not change the realization plan.

    Raises:
        UserError: the table does not match the game it names.
    """
    _, params = table_params(path)
    tree, sf = build(params, data_dir)
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


def evaluate(path, build: Build, data_dir: Path, report: Report) -> None:
    """Report the exploitability and value, in chips, of tree table ``path``."""
    tree, sf, x, y = load_table(path, build, data_dir)
    report(f"game={tree.name} abstraction=- value={value(sf, x, y):.9g} "
           f"exploitability={exploitability(sf, x, y):.9g}")
