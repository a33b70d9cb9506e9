"""Arrow schemas of the abstraction tables (docs/design.md section 4).

An abstraction named NAME is stored under ``<data_dir>/abstractions/NAME/``:

- ``round<r>.parquet`` (``BUCKETS_SCHEMA``): one row per canonical hand of round r.
- ``centroids.parquet`` (``CENTROIDS_SCHEMA``): one row per bucket.
- ``thresholds.parquet`` (``THRESHOLDS_SCHEMA``): the equity range of every bucket within its
  parent; where ``interval`` is true the bucket is exactly the parent's hands with equity in
  ``[min_equity, max_equity]`` (river buckets of Texas Hold'em are stored this way).
- Texas Hold'em ``ochs``: with imperfect recall the river is listed per hand in
  ``round3.parquet``; with perfect recall ``river_codes.parquet`` (``RIVER_CODES_SCHEMA``)
  gives every river hand's code and ``river_codebook.parquet`` (``RIVER_CODEBOOK_SCHEMA``)
  each code's OCHS vector: a river hand under turn bucket t is in the child of t whose
  centroid (``centroids.parquet``) is nearest its code's vector.
"""

from __future__ import annotations

import pyarrow as pa

#: ``hand`` is the game's canonical hand index in that round (Rhode Island Hold'em: the row of
#: ``etl.rhode_island.hand_tree()[r]``); ``parent_bucket`` is the bucket's round r-1 parent
#: (-1 in round 0), the same for every hand of a bucket (perfect recall).
BUCKETS_SCHEMA = pa.schema([
    pa.field("round", pa.int8(), nullable=False),
    pa.field("hand", pa.int64(), nullable=False),
    pa.field("bucket", pa.int32(), nullable=False),
    pa.field("parent_bucket", pa.int32(), nullable=False),
])

#: ``weight`` = probability of the bucket's hands; ``centroid`` = k-means centroid in the
#: feature space of the method (equity, equity squared, or a histogram over the parent's
#: next-round clusters for potential-aware).
CENTROIDS_SCHEMA = pa.schema([
    pa.field("round", pa.int8(), nullable=False),
    pa.field("bucket", pa.int32(), nullable=False),
    pa.field("parent_bucket", pa.int32(), nullable=False),
    pa.field("hands", pa.int64(), nullable=False),
    pa.field("weight", pa.float64(), nullable=False),
    pa.field("mean_equity", pa.float64(), nullable=False),
    pa.field("centroid", pa.list_(pa.float64()), nullable=False),
])

THRESHOLDS_SCHEMA = pa.schema([
    pa.field("round", pa.int8(), nullable=False),
    pa.field("parent_bucket", pa.int32(), nullable=False),
    pa.field("bucket", pa.int32(), nullable=False),
    pa.field("min_equity", pa.float64(), nullable=False),
    pa.field("max_equity", pa.float64(), nullable=False),
    pa.field("interval", pa.bool_(), nullable=False),
])

#: the river code of every canonical river hand ([2,5] index) of a perfect-recall Texas
#: Hold'em ``ochs`` abstraction
RIVER_CODES_SCHEMA = pa.schema([
    pa.field("hand", pa.int64(), nullable=False),
    pa.field("code", pa.uint16(), nullable=False),
])

#: the feature row (OCHS vector) of every river code
RIVER_CODEBOOK_SCHEMA = pa.schema([
    pa.field("code", pa.int32(), nullable=False),
    pa.field("vector", pa.list_(pa.float64()), nullable=False),
])
