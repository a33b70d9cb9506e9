"""Storing evaluations: one Parquet file per batch (atomic) plus one catalog row per evaluation.

Layout: ``<data_dir>/evaluations/<utc-time>-<id>.parquet`` (``schema.evaluation``) and rows of
``schema.catalog_queries.Evaluation``. The file is written first and the catalog rows last,
so a batch interrupted in between is invisible: the views (``queries/evaluations.sql``) show
only rows whose id the catalog holds.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from schema.catalog import session_scope
from schema.catalog_queries import Evaluation
from schema.evaluation import EVALUATION_SCHEMA, MEASURES
from schema.storage import atomic_write_parquet

#: Bump when a change makes earlier evaluations incomparable (the views keep only this one).
CODE_VERSION = "compare-1"
EVALUATIONS_DIR = "evaluations"


@dataclass
class Result:
    """One measured value, before it is stored (``schema.evaluation`` documents the fields)."""

    measure: str
    strategy_a: str
    sha_a: str
    value: float
    seat: int | None = None
    strategy_b: str | None = None
    sha_b: str | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    exact: bool = True
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def key(self) -> tuple:
        return (self.measure, self.seat, self.strategy_a, self.sha_a, self.strategy_b, self.sha_b)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def write_batch(data_dir: str | Path, game: str, results: list[Result]) -> Path | None:
    """Store ``results`` (Parquet file, then catalog rows); returns the file (None if empty)."""
    if not results:
        return None
    for r in results:
        if r.measure not in MEASURES:
            raise ValueError(f"unknown measure {r.measure!r}")
    created = _now()
    ids = [uuid.uuid4().hex for _ in results]
    rows = {
        "id": ids, "game": [game] * len(results), "measure": [r.measure for r in results],
        "seat": [r.seat for r in results], "strategy_a": [r.strategy_a for r in results],
        "sha_a": [r.sha_a for r in results], "strategy_b": [r.strategy_b for r in results],
        "sha_b": [r.sha_b for r in results], "value": [float(r.value) for r in results],
        "ci_low": [r.ci_low for r in results], "ci_high": [r.ci_high for r in results],
        "exact": [bool(r.exact) for r in results], "seconds": [float(r.seconds) for r in results],
        "code_version": [CODE_VERSION] * len(results), "created": [created] * len(results),
    }
    table = pa.Table.from_pydict(rows, schema=EVALUATION_SCHEMA)
    rel = Path(EVALUATIONS_DIR) / f"{created:%Y%m%dT%H%M%S}-{ids[0][:12]}.parquet"
    atomic_write_parquet(table, Path(data_dir) / rel)
    with session_scope(data_dir) as s:
        for i, r in zip(ids, results):
            s.add(Evaluation(id=i, game=game, measure=r.measure, seat=r.seat,
                             strategy_a=r.strategy_a, sha_a=r.sha_a, strategy_b=r.strategy_b,
                             sha_b=r.sha_b, value=float(r.value), ci_low=r.ci_low,
                             ci_high=r.ci_high, exact=bool(r.exact), seconds=float(r.seconds),
                             code_version=CODE_VERSION, created=created, path=str(rel)))
    return Path(data_dir) / rel


def stored_keys(data_dir: str | Path, game: str) -> dict[tuple, bool]:
    """Keys (:meth:`Result.key`) of the evaluations of ``game`` by this code version whose
    Parquet file is still there (a deleted file's evaluations are computed again), each with
    whether an exact row is stored under it (a sampled one can be superseded)."""
    with session_scope(data_dir) as s:
        q = s.query(Evaluation.measure, Evaluation.seat, Evaluation.strategy_a, Evaluation.sha_a,
                    Evaluation.strategy_b, Evaluation.sha_b, Evaluation.path,
                    Evaluation.exact).filter(
            Evaluation.game == game, Evaluation.code_version == CODE_VERSION)
        rows = q.all()
    present: dict[str, bool] = {}
    out: dict[tuple, bool] = {}
    for row in rows:
        path = row[6]
        if path not in present:
            present[path] = (Path(data_dir) / path).exists()
        if present[path]:
            out[tuple(row[:6])] = out.get(tuple(row[:6]), False) or bool(row[7])
    return out
