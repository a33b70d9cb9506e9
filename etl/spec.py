"""What the ETL runner needs to know about a table: its partitions and how to compute one.

A table is a set of Parquet partitions, ``<data_dir>/tables/<name>/part-<key>.parquet``. Each
partition is the unit of work and of refresh: the runner computes missing, stale (other code
version) or damaged (checksum mismatch) partitions, possibly in other processes or on a Dask
cluster, so ``compute`` must be a picklable module-level function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pyarrow as pa


@dataclass(frozen=True)
class TableSpec:
    """A table of the equity database.

    Attributes:
        name: table name; also the DuckDB view name and the directory under ``tables/``.
        schema: the Arrow schema every partition has (declared once in ``schema/``).
        version: code version of the computation; a partition built by another version is stale.
        partitions: returns the partition keys (short strings, stable order).
        compute: ``compute(key, data_dir) -> pa.Table`` rows of one partition; may read the
            tables in ``depends_on`` from ``data_dir``.
        depends_on: tables that must be complete before this one is computed.
        description: one line for ``etl status`` and ``--help``.
        options: parameters that change the content (e.g. histogram bins); part of the version.
        threaded: ``compute`` already uses every core (numba ``prange``): the local runner
            computes this table's partitions one at a time in its own process instead of
            spreading them over worker processes (a Dask run is unaffected).
    """

    name: str
    schema: pa.Schema
    version: str
    partitions: Callable[[], list[str]]
    compute: Callable[[str, Path], pa.Table]
    depends_on: tuple[str, ...] = ()
    description: str = ""
    options: dict = field(default_factory=dict)
    threaded: bool = False

    @property
    def full_version(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.version}[{opts}]" if opts else self.version
