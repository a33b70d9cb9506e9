"""Writing and reading built abstractions: Parquet bucket tables plus a catalog row.

Layout (schemas in ``schema.abstraction``)::

    <data_dir>/abstractions/<name>/round0.parquet ... round<R-1>.parquet
    <data_dir>/abstractions/<name>/centroids.parquet
    <data_dir>/abstractions/<name>/thresholds.parquet

and a row of ``schema.catalog_abstraction.Abstraction``. Files are written atomically and the
catalog row last, so an abstraction is listed only once all its files exist.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from abstraction.hands import GameHands
from abstraction.tree import RoundResult
from etl.lock import file_lock
from schema.abstraction import (BUCKETS_SCHEMA, CENTROIDS_SCHEMA, RIVER_CODEBOOK_SCHEMA,
                                RIVER_CODES_SCHEMA, THRESHOLDS_SCHEMA)
from schema.catalog import catalog_path, open_read_only, session_scope
from schema.catalog_abstraction import Abstraction
from schema.paths import data_dir as resolve_data_dir
from schema.paths import stored_path
from schema.publish import publish
from schema.storage import atomic_write_parquet

#: Bump when a change to the builders changes what a given (method, buckets, seed) produces.
CODE_VERSION = "abstraction-3"  # 3: lossless = GameShrink classes (13, 205, 1774), public board
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\Z")  # \Z: "$" lets a final newline through


def check_name(name: str) -> str:
    if not _NAME.match(name or ""):
        raise ValueError(f"abstraction name {name!r} must be letters, digits, '_', '.', '-'")
    return name


def abstraction_dir(name: str, data_dir: str | Path | None = None) -> Path:
    return resolve_data_dir(data_dir) / "abstractions" / check_name(name)


def exists(name: str, data_dir: str | Path | None = None) -> bool:
    with session_scope(data_dir) as s:
        return s.get(Abstraction, name) is not None


def round_table(r: int, res: RoundResult) -> pa.Table:
    n = len(res.bucket)
    return pa.table({
        "round": np.full(n, r, dtype=np.int8),
        "hand": np.arange(n, dtype=np.int64),
        "bucket": res.bucket.astype(np.int32),
        "parent_bucket": res.parent[res.bucket].astype(np.int32),
    }, schema=BUCKETS_SCHEMA)


def river_code_tables(codes: np.ndarray, codebook: np.ndarray) -> tuple[pa.Table, pa.Table]:
    """The river codes of every river hand and the codebook (``schema.abstraction``)."""
    codebook = np.asarray(codebook, np.float64)
    return (pa.table({"hand": np.arange(len(codes), dtype=np.int64),
                      "code": np.asarray(codes, np.uint16)}, schema=RIVER_CODES_SCHEMA),
            pa.table({"code": np.arange(len(codebook), dtype=np.int32),
                      "vector": pa.array(list(codebook), type=pa.list_(pa.float64()))},
                     schema=RIVER_CODEBOOK_SCHEMA))


def centroids_table(rounds: list[RoundResult]) -> pa.Table:
    cols = {name: [] for name in CENTROIDS_SCHEMA.names}
    for r, res in enumerate(rounds):
        k = res.n_buckets
        cols["round"].append(np.full(k, r, dtype=np.int8))
        cols["bucket"].append(np.arange(k, dtype=np.int32))
        cols["parent_bucket"].append(res.parent)
        cols["hands"].append(res.hands.astype(np.int64))
        cols["weight"].append(res.weight)
        cols["mean_equity"].append(res.mean_equity)
        cols["centroid"].extend(np.asarray(c, dtype=np.float64).tolist() for c in res.centroids)
    arrays = [pa.array(np.concatenate(cols[n]) if n != "centroid" else cols[n],
                       type=CENTROIDS_SCHEMA.field(n).type) for n in CENTROIDS_SCHEMA.names]
    return pa.Table.from_arrays(arrays, schema=CENTROIDS_SCHEMA)


def thresholds_table(rounds: list[RoundResult]) -> pa.Table:
    """Equity range of each bucket; ``interval`` where no sibling's range overlaps it."""
    parts = []
    for r, res in enumerate(rounds):
        k = res.n_buckets
        lo, hi = res.ranges[:, 0], res.ranges[:, 1]
        order = np.lexsort((lo, res.parent))
        interval = np.ones(k, dtype=bool)
        start = 0
        while start < k:  # siblings are a contiguous run of ``order``
            end = start
            while end < k and res.parent[order[end]] == res.parent[order[start]]:
                end += 1
            sib = order[start:end]
            prefmax = np.maximum.accumulate(hi[sib])
            interval[sib[1:]] &= prefmax[:-1] < lo[sib[1:]]
            interval[sib[:-1]] &= hi[sib[:-1]] < lo[sib[1:]]
            start = end
        parts.append(pa.table({
            "round": np.full(k, r, dtype=np.int8), "parent_bucket": res.parent,
            "bucket": np.arange(k, dtype=np.int32), "min_equity": lo, "max_equity": hi,
            "interval": interval}, schema=THRESHOLDS_SCHEMA))
    return pa.concat_tables(parts)


def save(model, hands: GameHands, name: str, *, seed: int, seconds: float, replace: bool = False,
         data_dir: str | Path | None = None) -> Abstraction:
    """Write a fitted model's tables and its catalog row; returns the row.

    Raises:
        FileExistsError: ``name`` is taken and ``replace`` is false.
    """
    root = abstraction_dir(name, data_dir)
    # two builders of one name (e.g. two `--replace` runs, or a build and an `import`) take
    # turns: the second waits, then replaces the first's build whole; neither sees the other's
    # half-written staging folder
    with file_lock(name_lock(resolve_data_dir(data_dir), name),
                   note=f"note: another build or import of abstraction {name!r} is under way; "
                        f"waiting for it to finish"):
        return _save(model, hands, name, root, seed, seconds, replace, data_dir)


def name_lock(data_dir: Path, name: str) -> Path:
    """The lock file that a build or an import of abstraction ``name`` holds."""
    return Path(data_dir) / ".locks" / f"abstraction-{name}.lock"


def _save(model, hands, name, root, seed, seconds, replace, data_dir) -> Abstraction:
    # written apart (outside abstractions/, which the SQL views glob) while the old build stays
    # whole; `publish` then swaps folder and row in one step. Whether the name is free is
    # decided there, with the catalog held (`build` already refused a taken name up front).
    staging = root.parent.parent / ".staging" / f"abstraction-{name}"
    if staging.exists():
        shutil.rmtree(staging)  # what an interrupted build left
    for r, res in enumerate(model.rounds_):
        # a LeafRound is stored as equity thresholds (and codes, below) unless it was
        # clustered hand by hand (Texas Hold'em ochs with imperfect recall)
        if r < len(hands.rounds) or len(res.bucket):
            atomic_write_parquet(round_table(r, res), staging / f"round{r}.parquet")
    codes = model.river_codes()
    if codes is not None:
        for stem, table in zip(("river_codes", "river_codebook"), river_code_tables(*codes)):
            atomic_write_parquet(table, staging / f"{stem}.parquet")
    atomic_write_parquet(centroids_table(model.rounds_), staging / "centroids.parquet")
    atomic_write_parquet(thresholds_table(model.rounds_), staging / "thresholds.parquet")
    row = Abstraction(
        name=name, method=model.method, game=hands.game,
        buckets=",".join(str(b) for b in (model.buckets or model.buckets_)),
        built=",".join(str(b) for b in model.buckets_), seed=int(seed),
        params=json.dumps(model.params(), default=_json),
        errors=json.dumps(model.report_, default=_json),
        timings=json.dumps({"rounds": [rep.get("seconds") for rep in model.report_],
                            "total": round(seconds, 3)}),
        code_version=CODE_VERSION, path=stored_path(resolve_data_dir(data_dir), root),
        created=dt.datetime.now(dt.timezone.utc).replace(tzinfo=None))

    def free(s) -> None:
        if not replace and s.get(Abstraction, name) is not None:
            raise FileExistsError(f"abstraction {name!r} exists (use replace=True to rebuild it)")

    try:
        publish(data_dir, staging, root, row, check=free)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return row  # merge() attached a copy: this one stays usable


def list_abstractions(data_dir: str | Path | None = None) -> list[dict]:
    """Every stored abstraction, oldest first. On a read-only file system (the catalog cannot
    be opened for writing) it is read with a read-only DuckDB connection instead."""
    try:
        with session_scope(data_dir) as s:
            rows = s.query(Abstraction).order_by(Abstraction.created).all()
            return [{**{c: getattr(r, c) for c in ("name", "method", "game", "buckets",
                                                   "built", "seed", "timings", "created")},
                     "public_board": r.public_board, "perfect_recall": r.perfect_recall}
                    for r in rows]
    except Exception as exc:  # noqa: BLE001 (only a read-only file system falls through)
        if "read-only file system" not in str(exc).lower():
            raise
    return _list_read_only(data_dir)


def _list_read_only(data_dir: str | Path | None) -> list[dict]:
    path = catalog_path(resolve_data_dir(data_dir))
    if not path.exists():
        return []
    con = open_read_only(path)
    cols = ("name", "method", "game", "buckets", "built", "seed", "timings", "created")
    try:
        if "abstractions" not in {r[0] for r in con.execute(
                "SELECT table_name FROM duckdb_tables()").fetchall()}:
            return []
        rows = con.execute(f"SELECT {', '.join(cols)}, params FROM abstractions "
                           f"ORDER BY created").fetchall()
    finally:
        con.close()
    return [{**dict(zip(cols, r[:-1])),
             "public_board": r[1] == "lossless" or bool(json.loads(r[-1] or "{}")
                                                        .get("public_board")),
             "perfect_recall": json.loads(r[-1] or "{}").get("recall") != "imperfect"}
            for r in rows]


def load_buckets(name: str, round_: int, data_dir: str | Path | None = None) -> pa.Table:
    """The bucket table of one round (``schema.abstraction.BUCKETS_SCHEMA``)."""
    path = abstraction_dir(name, data_dir) / f"round{round_}.parquet"
    if not path.exists():
        raise FileNotFoundError(f"no round {round_} table for abstraction {name!r} ({path})")
    return pq.read_table(path, schema=BUCKETS_SCHEMA)


def _json(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o)}")
