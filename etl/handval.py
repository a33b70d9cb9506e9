"""The handval table: the strength of every seven-card set, indexed by colex index.

Row ``colex(c1 < .. < c7) = sum_i C(c_i, i)`` of ``C(52, 7) = 133,784,560`` rows holds the value
of the hand (``etl/evaluator.py``: 0..7461, higher wins, equal ties). Enumerating the sets with
the highest card as the outermost loop visits them in colex order, so the build is a nest of
loops carrying partial evaluator states (one add per card, not seven) that writes rows
consecutively. The unit of parallel work is the top three cards (17,296 triples, each a
contiguous block of rows); the table is split into ``N_PARTITIONS`` ranges of the colex index cut
at triple boundaries, about equal in size.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa

from etl._eval_kernels import categories_of, handval_fill, handval_tasks
from etl.spec import TableSpec
from schema.equity import HANDVAL_SCHEMA

N_HANDS = 133_784_560
N_PARTITIONS = 16
VERSION = "handval-1"


@lru_cache(maxsize=1)
def _tasks() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return handval_tasks()


@lru_cache(maxsize=1)
def _task_bounds() -> np.ndarray:
    """Task index where each partition starts (and the end), cut near equal row counts."""
    starts = _tasks()[3]
    targets = (np.arange(N_PARTITIONS + 1, dtype=np.int64) * N_HANDS) // N_PARTITIONS
    return np.searchsorted(starts, targets, side="left")


def partition_keys() -> list[str]:
    """Partition keys "00" .. "15"."""
    return [f"{p:02d}" for p in range(N_PARTITIONS)]


def partition_range(key: str) -> tuple[int, int]:
    """Colex rows ``[lo, hi)`` of partition ``key``.

    Raises:
        ValueError: an unknown key.
    """
    if key not in partition_keys():
        raise ValueError(f"unknown handval partition {key!r}: expected 00..{N_PARTITIONS - 1}")
    p = int(key)
    b = _task_bounds()
    starts = _tasks()[3]
    return int(starts[b[p]]), int(starts[b[p + 1]])


def handval_values(lo_task: int, hi_task: int) -> np.ndarray:
    """Values (uint16) of the rows of tasks ``lo_task .. hi_task - 1``, in colex order."""
    t5, t6, t7, st = _tasks()
    out = np.empty(int(st[hi_task] - st[lo_task]), np.uint16)
    previous = numba.set_parallel_chunksize(8)  # tasks differ in size: hand them out in small chunks
    try:
        handval_fill(t5, t6, t7, st, lo_task, hi_task, out)
    finally:
        numba.set_parallel_chunksize(previous)
    return out


def build_handval() -> np.ndarray:
    """The whole handval array: ``values[colex(hand)]``, uint16, 133,784,560 entries."""
    return handval_values(0, _tasks()[3].shape[0] - 1)


def compute(key: str, data_dir: Path) -> pa.Table:
    """Rows of partition ``key`` (``data_dir`` unused: handval depends on no other table)."""
    lo, hi = partition_range(key)
    b = _task_bounds()
    p = int(key)
    values = handval_values(int(b[p]), int(b[p + 1]))
    category = np.empty(values.shape[0], np.int8)
    categories_of(values, category)
    return pa.Table.from_arrays(
        [pa.array(np.arange(lo, hi, dtype=np.uint32)), pa.array(values), pa.array(category)],
        schema=HANDVAL_SCHEMA)


SPEC = TableSpec(
    name="handval",
    schema=HANDVAL_SCHEMA,
    version=VERSION,
    partitions=partition_keys,
    compute=compute,
    description="strength of every 7-card set (133,784,560 rows by colex index)",
)
