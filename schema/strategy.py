"""Arrow schema of strategy tables (issue 3, docs/design.md section 6).

``<data_dir>/strategies/<name>/strategy.parquet``: one row per (information set, action) of a
solved strategy profile. ``cards`` is the private cards with the public cards after ``|``
("Ks|Qh2c") for a real-game strategy, or the bucket sequence ("3.17.101") when the strategy
belongs to an abstraction. Public cards are canonical under suit isomorphism: the strategy
for any other board is the one of the canonical board with suits renamed alike.
``history`` is the betting history in ACPC letters (``c`` check/call, ``r`` bet/raise,
``f`` fold, ``/`` between rounds); ``action`` one of fold, check, call, bet, raise.

``reached`` (:data:`REACHED_FIELD`; tables written by ``solve`` of kuhn, leduc and
rhode-island, see :data:`STRATEGY_REACHED_SCHEMA`, and of the classic games): false for an
information set that the acting player's own strategy never reaches (its own sequence weight
into it is 0 in the solver's realization plan, e.g. after an action the LP plays with
probability 0). The behaviour there is undefined: those tables store the uniform strategy as a
playable default in ``probability`` (the classic-game tables, ``solve/cli/classic.py``, store
NULL instead). It does not change the realization plan, so value and exploitability do not
depend on it. Tables without the column (older ones, Hold'em, 3-player Kuhn) are read as all
reached; in the DuckDB ``strategies`` view (``union_by_name``) their ``reached`` is NULL.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

STRATEGIES_DIR = "strategies"
TABLE_FILE = "strategy.parquet"


def strategy_path(data_dir, name: str) -> Path:
    """Where strategy ``name``'s table lives: ``<data_dir>/strategies/<name>/strategy.parquet``."""
    return Path(data_dir) / STRATEGIES_DIR / name / TABLE_FILE


STRATEGY_SCHEMA = pa.schema([
    pa.field("strategy", pa.dictionary(pa.int32(), pa.string()), nullable=False),
    pa.field("game", pa.dictionary(pa.int32(), pa.string()), nullable=False),
    pa.field("abstraction", pa.dictionary(pa.int32(), pa.string()), nullable=True),
    pa.field("round", pa.int8(), nullable=False),
    pa.field("player", pa.int8(), nullable=False),
    pa.field("cards", pa.string(), nullable=False),
    pa.field("history", pa.dictionary(pa.int32(), pa.string()), nullable=False),
    pa.field("action", pa.dictionary(pa.int32(), pa.string()), nullable=False),
    pa.field("probability", pa.float64(), nullable=False),
])

REACHED_FIELD = pa.field("reached", pa.bool_(), nullable=False)
STRATEGY_REACHED_SCHEMA = STRATEGY_SCHEMA.append(REACHED_FIELD)
#: the classic games' tables (``solve/cli/classic.py``): ``probability`` NULL where no behaviour
#: is defined, plus ``reached``
CLASSIC_STRATEGY_SCHEMA = pa.schema(
    [pa.field("probability", pa.float64(), nullable=True) if f.name == "probability" else f
     for f in STRATEGY_SCHEMA] + [REACHED_FIELD])
#: every schema a stored ``strategy.parquet`` has, whatever its format
STRATEGY_SCHEMAS = (STRATEGY_SCHEMA, STRATEGY_REACHED_SCHEMA, CLASSIC_STRATEGY_SCHEMA)

#: Parquet key-value metadata naming a strategy table's format, which says how to read it back:
#: ``compiled`` (a game of limit poker rules compiled to arrays, ``solve.table``), ``tree`` (a
#: classic or sequence-form solve on a generic game tree, ``solve.cli.classic``), ``kuhn3``
#: (three-player Kuhn), ``holdem`` (Texas Hold'em on an abstraction, bucket sequences as cards).
#: Tables written before the key existed are told apart as they always were
#: (``solve.table.table_format``).
FORMAT_KEY = b"poker.strategy_format"
FORMATS = ("compiled", "tree", "kuhn3", "holdem")


def with_format(schema: pa.Schema, fmt: str) -> pa.Schema:
    """``schema`` with its metadata naming format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown strategy table format {fmt!r}")
    return schema.with_metadata({**(schema.metadata or {}), FORMAT_KEY: fmt.encode()})
