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
playable default in ``probability`` (the classic-game tables, ``solve/tree_run.py``, store
NULL instead). It does not change the realization plan, so value and exploitability do not
depend on it. Since issue 47 Hold'em and 3-player Kuhn tables carry it too (weight > 0).
Tables without the column (older ones) are read as all reached; in the DuckDB ``strategies``
view (``union_by_name``) their ``reached`` is NULL.

``weight`` (:data:`WEIGHT_FIELD`, issue 47; every table ``solve`` writes): how much
average-strategy weight the information set received, the same on each of its rows. For the
CFR family it is the sum of the average-strategy accumulator over the information set's actions
before normalising (Texas Hold'em: ``average.npy``, as sampled; the compiled-game CFR: chance
weighted). Solvers without an accumulator (the LP, the sequence-form CFR/EGT/GA on a
realization plan, the type-level form of an abstraction) store the player's own reach
probability of the information set under the plan they return (the plan's parent sequence;
summed over the members of a tied information set): the same meaning, the weight the
normalised behaviour was made from, and 0 exactly where the strategy's own play never gets.
``round_mean_weight`` (:data:`ROUND_MEAN_FIELD`): the mean ``weight`` over the round's
information sets with positive weight (both seats), the scale :func:`training_codes` measures
against, so that the SQL views need no pass over the whole table. A weight of 0 is **never
trained** (the probabilities there are the uniform default, no advice). So is, in a Texas
Hold'em table, an information set whose stored average strategy is still exactly the uniform
one (:func:`uniform_default`): the sampled CFR solvers start every information set at the
uniform strategy, and an average that is still uniform got all its weight at iterations when
regret matching had not moved the information set off that start (no positive regret yet),
so its probabilities are the default too, however much weight it holds (pa-5min's big blind
with AcAd on 2c2d2h facing a bet: weight 33, fold / call / raise 1/3 each). A positive weight
below :data:`BARELY_TRAINED` times the round's mean is **barely trained**; the rest is
**trained**. The uniform rule is Hold'em's only: the other tables' solvers (the LP and the
sequence-form methods, whose weight is a reach probability, and the full-width CFR of the
compiled games) can return an exactly uniform strategy as their answer. A Hold'em table stores
that test per row (``uniform_start``, :data:`UNIFORM_START_FIELD`), so the SQL views read it
without a pass over the information set's rows; one written before the column has none (NULL
in the views: only the weight rule there) until ``cli.py strategies --upgrade NAME`` adds it
(``solve.holdem.table.upgrade_strategy_table``). Tables without the
columns (written before issue 47) read as weight unknown: NULL in the views, ``training``
"unknown" (or "never trained" where ``reached`` is false).

Seats and numbering (one convention for every output: look-ups, ``evaluate``, the API's JSON,
the SQL views): players and rounds are numbered from 1 and seats are named by
:func:`seat_name` ("small blind" / "big blind" in Texas Hold'em, "player 1" / "player 2" in
games without blinds). The stored Parquet columns ``round`` and ``player`` stay 0-based, as
written since issue 3; the ``strategies`` view shows them from 1 and adds ``seat``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
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
WEIGHT_FIELD = pa.field("weight", pa.float64(), nullable=True)
ROUND_MEAN_FIELD = pa.field("round_mean_weight", pa.float64(), nullable=True)
#: what ``solve`` writes since issue 47: ``reached``, ``weight`` and ``round_mean_weight``
STRATEGY_WEIGHT_SCHEMA = STRATEGY_REACHED_SCHEMA.append(WEIGHT_FIELD).append(ROUND_MEAN_FIELD)
#: Texas Hold'em tables only: true on every row of an information set whose ``weight`` is
#: positive and whose stored average strategy is still exactly the uniform start
#: (:func:`uniform_default`), false on every other row. Computed when the table is written
#: (``solve.holdem.table``) so that the ``strategies`` view reads it per row, with no pass over
#: the information set's other rows; Hold'em tables written before it have no such column (the
#: view shows NULL there; ``solve.holdem.table.upgrade_strategy_table`` adds it).
UNIFORM_START_FIELD = pa.field("uniform_start", pa.bool_(), nullable=True)
#: what a Texas Hold'em solve writes: :data:`STRATEGY_WEIGHT_SCHEMA` and ``uniform_start``
HOLDEM_WEIGHT_SCHEMA = STRATEGY_WEIGHT_SCHEMA.append(UNIFORM_START_FIELD)


def _nullable_probability(schema: pa.Schema) -> pa.Schema:
    return pa.schema([pa.field("probability", pa.float64(), nullable=True)
                      if f.name == "probability" else f for f in schema])


#: the classic games' tables (``solve/tree_run.py``): ``probability`` NULL where no behaviour
#: is defined; before issue 47 without the weights
CLASSIC_STRATEGY_SCHEMA = _nullable_probability(STRATEGY_REACHED_SCHEMA)
CLASSIC_WEIGHT_SCHEMA = _nullable_probability(STRATEGY_WEIGHT_SCHEMA)
#: every schema a stored ``strategy.parquet`` has, whatever its format and age
STRATEGY_SCHEMAS = (STRATEGY_SCHEMA, STRATEGY_REACHED_SCHEMA, CLASSIC_STRATEGY_SCHEMA,
                    STRATEGY_WEIGHT_SCHEMA, CLASSIC_WEIGHT_SCHEMA, HOLDEM_WEIGHT_SCHEMA)

#: An information set whose average-strategy weight is positive but below this fraction of the
#: mean weight of its round's trained information sets is "barely trained": its average was
#: made from about a hundredth of the play a typical information set of the round saw, so its
#: probabilities are mostly the first few iterations' (close to uniform), not a converged
#: strategy. Relative to the round, because weights shrink round by round (more information
#: sets share the reach) and are in each solver's own units.
BARELY_TRAINED = 0.01

#: :func:`training_codes` values, by index
TRAINING = ("trained", "barely trained", "never trained", "unknown")

#: The precision a Texas Hold'em table stores probabilities in (``solve.holdem.table``: the
#: float32 of ``weight / total``, widened to float64). An average strategy "equals the uniform
#: default" when every action's probability, at that precision, is ``float32(1 / k)``: a
#: tolerance of half a float32 unit in the last place (relative 2**-24, about 6e-8), the
#: tightest the stored tables can resolve -- a relative 1e-9 would call the stored 1/3
#: (0.33333334) non-uniform. The average-strategy accumulators are float32 too, so an average
#: built only at uniform iterations holds equal entries and its probabilities are exactly
#: ``1 / k`` before rounding. The look-up (from ``average.npy``), ``evaluate`` and the Hold'em
#: table writer (``uniform_start``, :data:`UNIFORM_START_FIELD`, which the SQL view
#: ``queries/strategies.sql`` reads) apply the same rule.
PROBABILITY_DTYPE = np.float32


def uniform_entry(k) -> np.ndarray:
    """What a uniform strategy stores, at the tables' precision (:data:`PROBABILITY_DTYPE`),
    for an information set of ``k`` actions (a count or an array of counts): ``float32(1 /
    k)``. The one statement of the uniform-start rule's constant (:func:`uniform_default`;
    ``solve.holdem.table`` applies it column by column to rows of mixed widths)."""
    return (1.0 / np.asarray(k, dtype=np.float64)).astype(PROBABILITY_DTYPE)


def uniform_default(probabilities) -> np.ndarray:
    """Whether each row of ``probabilities`` (..., k actions; float64 ``weight / total``) is
    the uniform strategy at the precision the tables store (:data:`PROBABILITY_DTYPE`):
    every entry rounds to :func:`uniform_entry` ``(k)``."""
    p = np.asarray(probabilities, dtype=np.float64)
    return (p.astype(PROBABILITY_DTYPE) == uniform_entry(p.shape[-1])).all(axis=-1)


def round_mean_weights(weight: np.ndarray, rounds: np.ndarray, n_rounds: int) -> np.ndarray:
    """Per round, the mean of the positive ``weight`` of the information sets in it (one entry
    per information set; ``rounds`` 0-based); NaN for a round with none."""
    w = np.asarray(weight, dtype=np.float64)
    r = np.asarray(rounds, dtype=np.int64)
    pos = w > 0
    total = np.bincount(r[pos], weights=w[pos], minlength=n_rounds)
    count = np.bincount(r[pos], minlength=n_rounds)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def training_codes(weight, round_mean, uniform=False) -> np.ndarray:
    """Index into :data:`TRAINING` of each information set: 2 never trained (weight 0, or
    ``uniform``: its average strategy is still the uniform start, :func:`uniform_default`;
    pass it for Texas Hold'em tables only, see the module doc), 1 barely trained (below
    :data:`BARELY_TRAINED` x its round's mean), 0 trained, 3 unknown (weight NaN: a table
    without weights)."""
    w = np.asarray(weight, dtype=np.float64)
    m = np.asarray(round_mean, dtype=np.float64)
    code = np.where(w < BARELY_TRAINED * np.nan_to_num(m, nan=0.0), 1, 0)
    code = np.where((w <= 0) | np.asarray(uniform, dtype=bool), 2, code)
    return np.where(np.isnan(w), 3, code).astype(np.int8)


def seat_name(player: int, blinds: bool = False) -> str:
    """The name of 0-based seat ``player``: with ``blinds`` (Texas Hold'em) "small blind" /
    "big blind" (the small blind, seat 0, acts first preflop), else "player N" (from 1). A
    game's backend knows which (``solve.games.backend.Backend.seat_name``)."""
    if blinds:
        return ("small blind", "big blind")[int(player)]
    return f"player {int(player) + 1}"

#: Parquet key-value metadata naming a strategy table's format, which says how to read it back:
#: ``compiled`` (a game of limit poker rules compiled to arrays, ``solve.table``), ``tree`` (a
#: classic or sequence-form solve on a generic game tree, ``solve.tree_run``), ``kuhn3``
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
