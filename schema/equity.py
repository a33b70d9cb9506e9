"""Arrow schemas of the equity-database tables (docs/design.md sections 2-3).

Each table's schema is declared once here and used by its writer (``etl/``), its readers and
the tests.
"""

from __future__ import annotations

import pyarrow as pa

#: ``handval``: one row per seven-card set, ``idx`` = colex index of the sorted cards
#: (``sum_i C(c_i, i)``, 0 .. 133,784,559); ``value`` = strength 0..7461 (dense rank of the best
#: five-card class, higher wins, equal ties; ``etl/evaluator.py``); ``category`` = 0 high card
#: .. 8 straight flush.
HANDVAL_SCHEMA = pa.schema([
    pa.field("idx", pa.uint32(), nullable=False),
    pa.field("value", pa.uint16(), nullable=False),
    pa.field("category", pa.int8(), nullable=False),
])

#: Parquet write options that suit handval (for ``pyarrow.parquet.write_table``): the sorted,
#: gap-free ``idx`` column delta-encodes to almost nothing, whereas the default (PLAIN + zstd)
#: makes it ~95% of the file (437 MiB vs ~28 MiB for the whole table; writing is ~3x faster).
HANDVAL_PARQUET_OPTIONS = {
    "use_dictionary": ["value", "category"],
    "column_encoding": {"idx": "DELTA_BINARY_PACKED"},
}


def _cards(prefix: str, n: int) -> list[pa.Field]:
    return [pa.field(f"{prefix}{i + 1}", pa.uint8(), nullable=False) for i in range(n)]


def equity_schema(n_board: int, count_type: pa.DataType) -> pa.Schema:
    """``equity_flop`` (3 board cards), ``equity_turn`` (4), ``equity_river`` (5): one row per
    canonical ``[2, n_board]`` hand.

    ``idx`` = canonical index (``etl/isomorphism.py``); ``hole1, hole2, board1..`` = the cards of
    one member of the class (card ``c``: rank ``c // 4``, suit ``c % 4``); ``preflop`` = the
    canonical ``[2]`` index of the hole cards (0..168); ``weight`` = class size (raw hands in the
    class, so ``sum(x * weight) / sum(weight)`` averages over raw hands); ``wins, ties, losses``
    against a uniformly random opponent hand with the board completed uniformly at random (exact
    counts: 990 opponents on the river, x 46 rivers on the turn, x 1,081 two-card completions on
    the flop); ``equity = (wins + ties / 2) / total``.
    """
    return pa.schema(
        [pa.field("idx", pa.uint32(), nullable=False)]
        + _cards("hole", 2) + _cards("board", n_board)
        + [pa.field("preflop", pa.uint8(), nullable=False),
           pa.field("weight", pa.uint8(), nullable=False),
           pa.field("wins", count_type, nullable=False),
           pa.field("ties", count_type, nullable=False),
           pa.field("losses", count_type, nullable=False),
           pa.field("equity", pa.float64(), nullable=False)])


EQUITY_RIVER_SCHEMA = equity_schema(5, pa.uint16())
EQUITY_TURN_SCHEMA = equity_schema(4, pa.uint32())
EQUITY_FLOP_SCHEMA = equity_schema(3, pa.uint32())

#: ``equity_preflop``: the 169 canonical hole-card classes. ``idx`` = canonical ``[2]`` index,
#: ``hand`` = its name ("AA", "AKs", "72o"), ``weight`` = class size (6, 4 or 12); counts over
#: the C(50,5) = 2,118,760 boards x 990 opponent hands.
EQUITY_PREFLOP_SCHEMA = pa.schema([
    pa.field("idx", pa.uint8(), nullable=False),
    pa.field("hand", pa.string(), nullable=False),
    pa.field("hole1", pa.uint8(), nullable=False),
    pa.field("hole2", pa.uint8(), nullable=False),
    pa.field("weight", pa.uint8(), nullable=False),
    pa.field("wins", pa.int64(), nullable=False),
    pa.field("ties", pa.int64(), nullable=False),
    pa.field("losses", pa.int64(), nullable=False),
    pa.field("equity", pa.float64(), nullable=False),
])


def hist_schema(n_bins: int, count_type: pa.DataType) -> pa.Schema:
    """``hist_flop`` / ``hist_turn``: per canonical ``[2,3]`` / ``[2,4]`` hand (``idx``), how many
    of its board completions (1,081 two-card completions on the flop, 46 rivers on the turn)
    end with a river equity in each of ``n_bins`` equal bins of [0, 1]: column ``bin00`` counts
    equity in [0, 1/n), ..., the last bin includes 1."""
    width = max(2, len(str(n_bins - 1)))
    return pa.schema([pa.field("idx", pa.uint32(), nullable=False)]
                     + [pa.field(f"bin{j:0{width}d}", count_type, nullable=False)
                        for j in range(n_bins)])
