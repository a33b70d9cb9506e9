"""Arrow schema of evaluation tables (issue 5, docs/design.md section 6).

``<data_dir>/evaluations/<batch>.parquet``: one row per evaluation of one strategy (or of an
ordered pair of strategies) in the real, unabstracted game, written atomically by
``queries.evaluations``; every row also has a catalog row (``schema.catalog_queries``) and
the views of ``queries/*.sql`` show only rows the catalog holds.

Strategies are named as in ``solve_runs`` and identified by name plus the SHA-256 of their
strategy table, so an evaluation of a strategy that was solved again is stale (the views
drop it). Values are in the game's chips, per game, for ``strategy_a``; ``seat`` is 1 or 2
(player 1 acts first) where a measure is per seat.

Measures (``measure``):

- ``best_response``: value to the nemesis (best response in the real game) when
  ``strategy_a`` plays seat ``seat``; the views turn it into that seat's exploitability
  with the game value.
- ``exploitability``: mean of the two best-response gains (0 at an equilibrium).
- ``head_to_head``: ``1/2 x_a' A y_b - 1/2 x_b' A y_a`` of ``strategy_a`` against
  ``strategy_b`` (both seat assignments averaged); ``exact`` false and ``ci_low``/``ci_high``
  (95 %) set when it was estimated by sampled duplicate matches.
- ``vs_equilibrium``: head-to-head of ``strategy_a`` against ``strategy_b``, an (epsilon-)
  equilibrium of the real game.
- ``value``: ``x' A y`` of ``strategy_a``'s own profile for player 1 -- for an abstract
  equilibrium, the abstraction's estimate of the game value.
- ``game_value``: the real game's value for player 1, from equilibrium ``strategy_a``
  (``exact`` only when that is an exact equilibrium; else within its exploitability).

Rhode Island Hold'em against the hidden-board lossless game ``L`` (the thesis's setting,
``queries.lossless_reference``):

- ``in_lossless_game``: 1 if ``strategy_a`` is a strategy of ``L`` (each of ``L``'s
  information sets lies inside one of its own), else 0 (it is then played in the real game).
- ``best_response_lossless``: value to the nemesis restricted to ``L``'s information sets
  when ``strategy_a`` plays seat ``seat``.
- ``exploitability_lossless``: mean of the two (its negative is the thesis's "against the
  nemesis").
- ``vs_lossless_equilibrium``: head-to-head of ``strategy_a`` against ``strategy_b``, an
  (epsilon-)equilibrium of ``L``.
- ``lossless_game_value``: ``L``'s value for player 1, from its equilibrium ``strategy_a``.
"""

from __future__ import annotations

import pyarrow as pa

MEASURES = ("best_response", "exploitability", "head_to_head", "vs_equilibrium", "value",
            "game_value", "in_lossless_game", "best_response_lossless",
            "exploitability_lossless", "vs_lossless_equilibrium", "lossless_game_value")

EVALUATION_SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("game", pa.string(), nullable=False),
    pa.field("measure", pa.string(), nullable=False),
    pa.field("seat", pa.int8(), nullable=True),
    pa.field("strategy_a", pa.string(), nullable=False),
    pa.field("sha_a", pa.string(), nullable=False),
    pa.field("strategy_b", pa.string(), nullable=True),
    pa.field("sha_b", pa.string(), nullable=True),
    pa.field("value", pa.float64(), nullable=False),
    pa.field("ci_low", pa.float64(), nullable=True),
    pa.field("ci_high", pa.float64(), nullable=True),
    pa.field("exact", pa.bool_(), nullable=False),
    pa.field("seconds", pa.float64(), nullable=False),
    pa.field("code_version", pa.string(), nullable=False),
    pa.field("created", pa.timestamp("us"), nullable=False),
])
