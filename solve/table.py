"""Strategy tables: a solved profile as Parquet rows, one per (information set, action).

Schema in :mod:`schema.strategy` (``STRATEGY_WEIGHT_SCHEMA``: with the ``reached`` flag of
information sets the player's own strategy never reaches, their ``probability`` the uniform
playable default, and each information set's average-strategy ``weight``); files at ``<data_dir>/strategies/<name>/strategy.parquet``
(written atomically), read in DuckDB through the ``strategies`` view
(``queries/strategies.sql``). Rows are in infoset order, actions in tree order, so reading
back into a compiled game is a column comparison plus a reshape.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from schema.errors import UserError, first_line
from schema.storage import atomic_write_parquet
from schema.strategy import (BARELY_TRAINED, FORMAT_KEY, FORMATS, STRATEGIES_DIR,  # noqa: F401
                             STRATEGY_REACHED_SCHEMA, STRATEGY_SCHEMA, STRATEGY_WEIGHT_SCHEMA,
                             TABLE_FILE, round_mean_weights, seat_name, training_codes,
                             strategy_path, with_format)
from solve.games.compile import ACTION_NAMES, CompiledGame
from solve.strategy import Strategy

def _rows(game: CompiledGame):
    nact = game.info_nact.astype(np.int64)
    inf = np.repeat(np.arange(game.n_infosets), nact)
    a = np.arange(len(inf)) - np.repeat(np.cumsum(nact) - nact, nact)
    node = game.dnode[game.info_d[inf]]
    codes = game.child_action[game.child_start[node] + a]
    return inf, a, np.array(ACTION_NAMES, dtype=object)[codes]


def to_table(name: str, strategy: Strategy) -> pa.Table:
    """Arrow table (STRATEGY_WEIGHT_SCHEMA) of ``strategy`` under run name ``name``; ``reached``
    is all true when ``strategy.reached`` is None, ``weight`` NULL when ``strategy.weight``
    is."""
    g = strategy.game
    inf, a, actions = _rows(g)
    n = len(inf)
    reached = (np.ones(g.n_infosets, dtype=bool) if strategy.reached is None
               else np.asarray(strategy.reached, dtype=bool))

    def dict_col(values, repeat=None):
        return pa.array(values if repeat is None else [values] * n, pa.string()).dictionary_encode()

    cols = {
        "strategy": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([name])),
        "game": pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([g.rules.name])),
        "abstraction": (pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([g.abstraction]))
                        if g.abstraction else pa.nulls(n, STRATEGY_SCHEMA.field("abstraction").type)),
        "round": pa.array(g.info_round[inf], pa.int8()),
        "player": pa.array(g.info_player[inf], pa.int8()),
        "cards": pa.array(g.infoset_labels()[inf], pa.string()),
        "history": dict_col(g.infoset_histories()[inf]),
        "action": dict_col(actions),
        "probability": pa.array(strategy.probs[inf, a], pa.float64()),
        "reached": pa.array(reached[inf], pa.bool_()),
        **_weight_columns(g, strategy.weight, inf),
    }
    schema = STRATEGY_WEIGHT_SCHEMA
    cols = {k: (v.cast(schema.field(k).type) if v.type != schema.field(k).type else v)
            for k, v in cols.items()}
    return pa.Table.from_pydict(cols, schema=with_format(schema, "compiled"))


def _weight_columns(g: CompiledGame, weight, inf) -> dict:
    """``weight`` and ``round_mean_weight`` of the rows of infosets ``inf`` (NULL if unknown)."""
    if weight is None:
        return {"weight": pa.nulls(len(inf), pa.float64()),
                "round_mean_weight": pa.nulls(len(inf), pa.float64())}
    w = np.asarray(weight, dtype=np.float64)
    rounds = g.info_round.astype(np.int64)
    mean = round_mean_weights(w, rounds, int(rounds.max()) + 1 if len(rounds) else 1)
    m = mean[rounds[inf]]
    return {"weight": pa.array(w[inf], pa.float64()),
            "round_mean_weight": pa.array(m, pa.float64(), mask=np.isnan(m))}


def write_strategy(data_dir: Path, name: str, strategy: Strategy) -> tuple[Path, str]:
    """Write the table; returns (path, sha256)."""
    path = strategy_path(data_dir, name)
    digest = atomic_write_parquet(to_table(name, strategy), path)
    return path, digest


#: Parquet key-value metadata of a ``tree`` table: its game and the game's parameters (what
#: identified tree tables before :data:`schema.strategy.FORMAT_KEY`).
TREE_PARAMS_KEY = b"poker.classic_game"


#: Before the format was recorded, a table of these games had its game's format, by name.
_FORMAT_NAMED_GAMES = ("kuhn3", "holdem")


def table_format(path: str | Path) -> str:
    """The format of a strategy table (:data:`schema.strategy.FORMATS`), from its metadata;
    for a table written before the format was recorded: ``tree`` if it carries the classic
    key, else by its ``game`` column (``kuhn3``, ``holdem``, or ``compiled``).

    Raises:
        UserError: the file is not a readable strategy table (one line).
    """
    try:
        meta = pq.read_schema(path).metadata or {}
        if FORMAT_KEY in meta:
            fmt = meta[FORMAT_KEY].decode()
            if fmt not in FORMATS:
                raise UserError(f"strategy table {path} has unknown format {fmt!r} (written by a "
                                f"newer version?)")
            return fmt
        if TREE_PARAMS_KEY in meta:
            return "tree"
        head = pq.read_table(path, columns=["game"]).slice(0, 1).column("game").to_pylist()
    except UserError:
        raise
    except Exception as exc:  # damaged or foreign file (Arrow's messages run over many lines)
        raise UserError(f"cannot read strategy table {path}: {first_line(exc)}") from None
    if not head:
        raise UserError(f"strategy table {path} is empty")
    return head[0] if head[0] in _FORMAT_NAMED_GAMES else "compiled"


def read_strategy(path: str | Path, game: CompiledGame) -> Strategy:
    """Load a strategy table into ``game`` (compiled with the table's game and abstraction).

    ``reached`` comes from the table's column (None if the table has none: all reached); a
    never-reached information set whose probabilities are NULL gets the uniform default.
    ``weight`` from its column: None (unknown) for a table written before it existed or with
    NULL weights.

    Raises:
        ValueError: if the table belongs to another game or abstraction.
    """
    t = pq.read_table(path)
    games = set(t.column("game").to_pylist()[:1])
    if games != {game.rules.name}:
        raise ValueError(f"strategy is for game {sorted(games)}, not {game.rules.name!r}")
    inf, a, actions = _rows(game)
    if (t.num_rows != len(inf)
            or not np.array_equal(t.column("action").to_numpy(zero_copy_only=False).astype(object), actions)
            or not np.array_equal(t.column("history").to_numpy(zero_copy_only=False).astype(object),
                                  game.infoset_histories()[inf])
            or not np.array_equal(t.column("cards").to_numpy(zero_copy_only=False).astype(object),
                                  game.infoset_labels()[inf])):
        raise ValueError("strategy table does not match the compiled game (other abstraction or version)")
    reached = None
    if "reached" in t.column_names:
        col = t.column("reached")
        if col.null_count:
            raise ValueError("strategy table has NULL in column 'reached'")
        flags = col.to_numpy(zero_copy_only=False).astype(bool)
        reached = np.ones(game.n_infosets, dtype=bool)
        reached[inf[~flags]] = False
        if not np.array_equal(reached[inf], flags):
            raise ValueError("strategy table has differing 'reached' flags within an information set")
    prob = t.column("probability").to_numpy(zero_copy_only=False).astype(np.float64)  # NULL -> NaN
    if np.isnan(prob).any():
        if reached is None or np.isnan(prob[reached[inf]]).any():
            raise ValueError("strategy table has NULL probabilities at reached information sets")
        nact = game.info_nact.astype(np.float64)
        prob = np.where(np.isnan(prob), 1.0 / nact[inf], prob)
    probs = np.zeros((game.n_infosets, 3))
    probs[inf, a] = prob
    weight = None
    if "weight" in t.column_names and not t.column("weight").null_count:
        weight = np.zeros(game.n_infosets)
        weight[inf] = t.column("weight").to_numpy(zero_copy_only=False).astype(np.float64)
    return Strategy(game, probs, reached, weight)


def table_training_counts(path: str | Path) -> list[dict] | None:
    """``Strategy.training_counts`` read from a stored table of any format but ``holdem``
    (whose counts come from its weights, ``solve.holdem.table.training_counts``): one row per
    round (from 1) and seat; None when the table stores no weights."""
    names = pq.read_schema(path).names
    if "weight" not in names:
        return None
    t = pq.read_table(path, columns=["game", "round", "player", "cards", "history", "weight"])
    if t.column("weight").null_count:
        return None
    infosets = t.group_by(["game", "round", "player", "cards", "history"],
                          use_threads=False).aggregate([("weight", "max")])
    rounds = infosets.column("round").to_numpy().astype(np.int64)
    players = infosets.column("player").to_numpy().astype(np.int64)
    weight = infosets.column("weight_max").to_numpy().astype(np.float64)
    n_rounds = int(rounds.max()) + 1 if len(rounds) else 1
    mean = round_mean_weights(weight, rounds, n_rounds)
    code = training_codes(weight, mean[rounds])
    rows = []
    for r in range(n_rounds):
        for p in sorted(set(players[rounds == r].tolist())):
            mine = (rounds == r) & (players == p)
            rows.append({"round": r + 1, "seat": seat_name(p),
                         "infosets": int(mine.sum()), "never trained": int((code[mine] == 2).sum()),
                         "barely trained": int((code[mine] == 1).sum()),
                         "mean weight": float(mean[r])})
    return rows


def training_lines(counts: list[dict] | None) -> list[str]:
    """``evaluate``'s lines for :func:`table_training_counts` / ``Strategy.training_counts``."""
    if counts is None:
        return ["information sets never trained: unknown (the table was written before weights "
                "were stored)"]
    return ([f"information sets never trained (weight 0) / barely trained (weight below "
             f"{BARELY_TRAINED:g} x the round's mean):"]
            + [f"  round {r['round']} {r['seat']}: {r['never trained']:,} never trained, "
               f"{r['barely trained']:,} barely trained, of {r['infosets']:,}" for r in counts])


def table_head(path: Path) -> dict:
    """The ``game`` and ``abstraction`` of a strategy table, one-line errors if unreadable."""
    try:
        batch = next(pq.ParquetFile(path).iter_batches(batch_size=1,
                                                       columns=["game", "abstraction"]), None)
        head = [] if batch is None else batch.to_pylist()[:1]
    except Exception as exc:  # damaged or foreign file (Arrow's messages run over many lines)
        raise UserError(f"cannot read strategy table {path}: {first_line(exc)}") from None
    if not head:
        raise UserError(f"strategy table {path} is empty")
    return head[0]


def table_game(path: str | Path, fmt: str) -> str:
    """The registry name of the game of strategy table ``path`` of format ``fmt``: a ``tree``
    table records it in its metadata (its ``game`` column holds the tree's name, with the
    parameters), the others in their ``game`` column.

    Raises:
        UserError: the table or its metadata cannot be read (one line).
    """
    if fmt == "tree":
        meta = pq.read_schema(path).metadata or {}
        try:
            return json.loads(meta[TREE_PARAMS_KEY])["game"]
        except (KeyError, ValueError, TypeError):
            raise UserError(f"strategy table {path} has damaged game metadata") from None
    return table_head(path)["game"]
