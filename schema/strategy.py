"""Arrow schema of strategy tables (issue 3, DESIGN.md section 6).

``<data_dir>/strategies/<name>/strategy.parquet``: one row per (information set, action) of a
solved strategy profile. ``cards`` is the private cards with the public cards after ``|``
("Ks|Qh2c") for a real-game strategy, or the bucket sequence ("3.17.101") when the strategy
belongs to an abstraction. Public cards are canonical under suit isomorphism: the strategy
for any other board is the one of the canonical board with suits renamed alike.
``history`` is the betting history in ACPC letters (``c`` check/call, ``r`` bet/raise,
``f`` fold, ``/`` between rounds); ``action`` one of fold, check, call, bet, raise.
"""

from __future__ import annotations

import pyarrow as pa

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
