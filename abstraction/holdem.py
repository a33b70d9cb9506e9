"""Texas Hold'em adapter: the equity tables as a ``GameHands`` tree (four rounds).

Rounds (docs/design.md section 2): preflop [2] (169 hands), flop [2,3] (1,286,792), turn [2,3,1]
(55,190,538: perfect-recall buckets need the flop and the turn apart) and the river as a
``LeafRound``: its 2.4 billion [2,3,1,1] hands are never listed; a river bucket is an equity
range within its turn bucket, found from the distribution of river equities (exact integer keys
2*wins + ties over the 990 opponent hands) of each turn bucket's river continuations.

Each round's equity is read from ``equity_preflop`` / ``equity_flop`` / ``equity_turn``
(turn equity per [2,4] hand) / ``equity_river`` ([2,5]); potential-aware features from
``hist_flop`` and ``hist_turn`` (distribution of the next round's equity over fixed bins).
A hand's probability is its suit-isomorphism class size over the raw count.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa

from abstraction._holdem_kernels import RIVER_KEYS, river_histograms, round_arrays
from abstraction.clustering import Points
from abstraction.hands import GameHands, HandRound, LeafRound
from etl import storage
from etl.isomorphism import HandIndexer, raw_count
from etl.records import status
from etl.runner import run
from etl.tables import all_tables
from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir

EQUITY_TABLES = ("equity_preflop", "equity_flop", "equity_turn", "equity_river")
HIST_TABLES = ("hist_flop", "hist_turn")
GROUPS = ((2,), (2, 3), (2, 3, 1))
EQUITY_GROUPS = ((2,), (2, 3), (2, 4), (2, 5))
CHUNK = 1 << 22


def round_index_arrays(groups: tuple[int, ...], parent_groups: tuple[int, ...] | None,
                       eq_groups: tuple[int, ...], start: int = 0, stop: int | None = None):
    """For canonical hands ``start..stop-1`` of ``groups``: (parent index, equity-table index,
    probability). The parent is the index of the first ``sum(parent_groups)`` cards."""
    ix = HandIndexer(groups)
    stop = ix.size if stop is None else stop
    n = stop - start
    parent = np.full(n, -1, dtype=np.int32)
    eq = np.empty(n, dtype=np.int64)
    orbit = np.empty(n, dtype=np.int64)
    bounds = np.cumsum((0,) + groups).astype(np.int64)
    ptables = HandIndexer(parent_groups).tables if parent_groups else ix.tables
    n_parent = sum(parent_groups) if parent_groups else 0
    etables = HandIndexer(eq_groups).tables
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        round_arrays(ix.tables, ix.n_cards, bounds, ptables, n_parent, etables, start + a,
                     parent[a:b], eq[a:b], orbit[a:b])
    return parent, eq, orbit / raw_count(groups)


def _by_idx(table: pa.Table, column: str, size: int, dtype) -> np.ndarray:
    idx = table.column("idx").to_numpy()
    out = np.zeros(size, dtype=dtype)
    out[idx] = table.column(column).to_numpy()
    if len(idx) != size:
        raise UserError(f"equity table has {len(idx)} rows, expected {size}")
    return out


def _hist_by_idx(table: pa.Table, size: int) -> np.ndarray:
    """Histogram counts (size, bins) by canonical index, in the table's small integer type."""
    bins = [n for n in table.column_names if n != "idx"]
    if len(bins) == 1 and pa.types.is_list(table.schema.field(bins[0]).type):
        mat = np.stack(table.column(bins[0]).to_numpy(zero_copy_only=False))
    else:
        mat = np.stack([table.column(n).to_numpy() for n in bins], axis=1)
    out = np.zeros((size, mat.shape[1]), dtype=mat.dtype)
    out[table.column("idx").to_numpy()] = mat
    return out


class _HistRows:
    """``HandRound.histogram`` without materialising it per hand: row ``i`` is the normalised
    histogram of equity-table row ``eq_idx[i]`` (a turn round has 55 million [2,3,1] hands but
    only 14 million [2,4] histograms; float32 rows for all of them would take 11 GB)."""

    def __init__(self, counts: np.ndarray, eq_idx: np.ndarray):
        self.counts = counts
        self.eq_idx = eq_idx
        self.shape = (len(eq_idx), counts.shape[1])

    def __len__(self) -> int:
        return len(self.eq_idx)

    def __getitem__(self, rows) -> np.ndarray:
        return self._normalised(self.eq_idx[rows])

    def distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """(float32 normalised rows of the distinct equity-table rows, each hand's row)."""
        uniq, inverse = np.unique(self.eq_idx, return_inverse=True)
        return self._normalised(uniq), inverse.ravel()

    def _normalised(self, eq_rows) -> np.ndarray:
        mat = self.counts[eq_rows].astype(np.float32)
        mat /= np.maximum(mat.sum(axis=-1, keepdims=True), 1)
        return mat


def ensure_tables(data_dir: Path, workers: int, progress: bool, names) -> None:
    """Build the equity tables the abstraction needs when they are not complete (the ETL:
    missing partitions only, so an interrupted build resumes where it stopped)."""
    tables = all_tables()
    unknown = [n for n in names if n not in tables]
    if unknown:
        raise UserError(f"the ETL does not define the equity table(s) {', '.join(unknown)}")
    if not data_dir.exists() or not (data_dir / "tables").exists():
        incomplete = list(names)
    else:
        incomplete = [st.name for st in status(data_dir, tables, names, checksum=False)
                      if not st.complete]
    if not incomplete:
        return
    report = run(data_dir, tables, incomplete, workers=workers, progress=progress)
    if hasattr(report, "ok") and not report.ok:
        raise UserError("building the equity tables failed (see `cli.py etl status`)")


def holdem_hands(data_dir=None, workers: int = 1, progress: bool = False,
                 need_histograms: bool = True) -> GameHands:
    """Texas Hold'em hands for the abstraction builder, read from the equity tables (built
    first by the ETL when missing)."""
    root = resolve_data_dir(data_dir)
    names = EQUITY_TABLES + (HIST_TABLES if need_histograms else ())
    ensure_tables(root, workers, progress, names)
    rounds = []
    for r, groups in enumerate(GROUPS):
        parent, eq_idx, weight = round_index_arrays(groups, GROUPS[r - 1] if r else None,
                                                    EQUITY_GROUPS[r])
        eq_size = HandIndexer(EQUITY_GROUPS[r]).size
        eq_table = storage.read_table(root, EQUITY_TABLES[r], columns=["idx", "equity"])
        equity = _by_idx(eq_table, "equity", eq_size, np.float64)[eq_idx]
        hist = None
        if need_histograms and r in (1, 2):
            h = _hist_by_idx(storage.read_table(root, HIST_TABLES[r - 1]), eq_size)
            hist = _HistRows(h, eq_idx)
        rounds.append(HandRound(weight=weight, parent=parent, equity=equity, histogram=hist))
    if need_histograms:
        rounds[0] = replace(rounds[0], histogram=_preflop_histograms(rounds[1], len(rounds[0])))
    key = _river_keys(root, HandIndexer((2, 5)).size)
    turn_weight = rounds[2].weight
    leaf = LeafRound(HandIndexer((2, 3, 1, 1)).size, _RiverPoints(key, turn_weight))
    return GameHands("holdem", tuple(rounds), leaf, data_dir=root)


def _preflop_histograms(flop: HandRound, n: int) -> np.ndarray:
    """Each preflop hand's distribution of final river equity (same bins as ``hist_flop``):
    the probability-weighted mixture of its flop hands' ``hist_flop`` rows. The raw form of
    the potential-aware feature, like the flop's and turn's, instead of clustering all 1.3
    million flop histograms bottom-up for 169 hands."""
    out = np.zeros((n, flop.histogram.shape[1]))
    chunk = 1 << 18
    for a in range(0, len(flop), chunk):
        rows = np.arange(a, min(len(flop), a + chunk))
        mat = flop.histogram[rows] * flop.weight[rows, None]
        for j in range(mat.shape[1]):
            out[:, j] += np.bincount(flop.parent[rows], weights=mat[:, j], minlength=n)
    return out / np.maximum(out.sum(axis=1, keepdims=True), 1e-300)


def _river_keys(root: Path, size: int) -> np.ndarray:
    """``2 * wins + ties`` (0..1980) of every [2,5] hand, uint16, by canonical index."""
    key = np.zeros(size, np.uint16)
    n = 0
    for path in sorted(storage.partition_files(root, "equity_river").values()):
        part = storage.read_partition(path, ["idx", "wins", "ties"])
        w = part.column("wins").to_numpy().astype(np.uint16)
        w *= 2
        w += part.column("ties").to_numpy().astype(np.uint16)
        key[part.column("idx").to_numpy()] = w
        n += part.num_rows
    if n != size:
        raise UserError(f"equity_river has {n} rows, expected {size}")
    return key


class _RiverPoints:
    """``LeafRound.points`` of the river: equity distribution per turn bucket."""

    def __init__(self, key: np.ndarray, turn_weight: np.ndarray):
        self.key = key
        self.turn_weight = turn_weight

    def __call__(self, turn_bucket: np.ndarray):
        k = int(turn_bucket.max()) + 1
        hist = river_histograms(HandIndexer((2, 3, 1)).tables, HandIndexer((2, 5)).tables,
                                turn_bucket.astype(np.int64), self.turn_weight, self.key, k)
        p = hist.sum(axis=1)
        equity = np.arange(RIVER_KEYS) / (2.0 * 990)
        out = []
        for b in range(k):
            nz = np.flatnonzero(hist[b] > 0)
            out.append(Points(equity[nz][:, None], hist[b, nz] / p[b], np.arange(len(nz))))
        return out, p
