"""Arrow schemas of the equity-database tables (DESIGN.md sections 2-3).

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
