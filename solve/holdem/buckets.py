"""Bucket look-ups of a built Texas Hold'em abstraction for the solver and the evaluators:
per round, a real hand (hole cards + board) -> its bucket (``HoldemBuckets``), read from the
abstraction's tables (``load_buckets``) or made up for tests and benchmarks
(``synthetic_buckets``); the river through the equity thresholds of its turn bucket, or for
OCHS through its stored river codes (``ochs_river``). ``HandBuckets`` reads the buckets of one
hand at a time, only that hand's rows (a single look-up: a second, not the half a minute of
loading every hand's)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from etl import storage
from etl.equity import PARTITIONS, board_range
from etl.isomorphism import HandIndexer
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.errors import UserError, first_line
from schema.paths import resolve_stored
from solve.holdem import _kernels as K
from solve.holdem._river_kernels import nearest_child_lut

from solve.holdem.game import GROUPS, RIVER_KEYS


def indexer_tables():
    """``HandIndexer`` tables of [2], [2,3], [2,3,1], [2,5] (the ``tabs`` of the kernels)."""
    return tuple(HandIndexer(g).tables for g in GROUPS)


_EMPTY = np.zeros(1, dtype=np.int32)


@dataclass
class HoldemBuckets:
    """Per-round bucket lookups of one abstraction (see the module docstring).

    Attributes:
        name: abstraction name.
        n_buckets: buckets per round (one per betting round used).
        arrays: (preflop per [2] index, flop per [2,3], turn per [2,3,1], river
            ``lut[turn_bucket * river_stride + river_key[river index]]``) as int32; unused
            rounds hold a dummy.
        parents: per round, the parent bucket of every bucket (-1 in round 0).
        river_key: per [2,5] index (uint16): ``2*wins + ties`` for a river of equity ranges
            (``RIVER_KEYS`` keys), a river code or the bucket itself for an OCHS river; a
            dummy below 4 rounds.
        river_stride: keys per turn bucket in the river lut (0: the river bucket does not
            depend on the turn bucket, imperfect recall listed per river hand).
    """

    name: str
    n_buckets: tuple[int, ...]
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    parents: list[np.ndarray]
    river_key: np.ndarray
    river_stride: int = RIVER_KEYS

    @property
    def lookup(self) -> tuple:
        """What the kernels take as ``bk`` (``solve.holdem._kernels``): the four arrays, the
        river key and the stride (an int64 array of one)."""
        return (*self.arrays, self.river_key, np.array([self.river_stride], np.int64))

    @property
    def n_rounds(self) -> int:
        return len(self.n_buckets)

    @property
    def perfect_recall(self) -> bool:
        """False when a later round's buckets have no parent (``--recall imperfect``)."""
        return all(len(p) == 0 or p.min() >= 0 for p in self.parents[1:])

    def child_ranges(self) -> np.ndarray:
        """(4, max K + 1): ``[r, b] .. [r, b+1]-1`` are the round r+1 children of bucket b
        (children of a parent are contiguous, ordered by parent)."""
        if not self.perfect_recall:
            raise ValueError(f"abstraction {self.name!r} has imperfect recall: a bucket has no "
                             "children, so the abstract best response (which backs up over "
                             "them) does not apply; evaluate at real cards (LBR, head-to-head)")
        kmax = max(self.n_buckets)
        out = np.zeros((4, kmax + 1), dtype=np.int64)
        for r in range(self.n_rounds - 1):
            par = self.parents[r + 1]
            if np.any(np.diff(par) < 0):
                raise ValueError(f"round {r + 1} buckets are not grouped by parent")
            out[r, :self.n_buckets[r] + 1] = np.searchsorted(par, np.arange(self.n_buckets[r] + 1))
        return out

    @classmethod
    def from_arrays(cls, name, rounds: list[np.ndarray], parents: list[np.ndarray],
                    river_lut: np.ndarray | None = None, river_key: np.ndarray | None = None,
                    river_stride: int | None = None):
        """Lookups from per-round bucket arrays (round r indexed by the canonical index of
        ``GROUPS[r]``) and, for the river, a (K_turn, keys) table and the key array (the
        stride is the table's row length unless given)."""
        if river_stride is None:
            river_stride = (np.shape(river_lut)[1] if river_lut is not None
                            and np.ndim(river_lut) == 2 else RIVER_KEYS)
        arrays = [np.ascontiguousarray(a, dtype=np.int32) for a in rounds]
        n = [len(p) for p in parents]
        if river_lut is not None:
            arrays.append(np.ascontiguousarray(river_lut, dtype=np.int32).ravel())
        while len(arrays) < 4:
            arrays.append(_EMPTY)
        for r, a in enumerate(rounds):
            if len(a) and (a.min() < 0 or a.max() >= n[r]):
                raise ValueError(f"round {r} buckets outside 0..{n[r] - 1}")
        rk = np.zeros(1, np.uint16) if river_key is None else np.ascontiguousarray(river_key,
                                                                                    np.uint16)
        return cls(name, tuple(n), tuple(arrays), [np.asarray(p, np.int64) for p in parents], rk,
                   int(river_stride))


def river_lut(thresholds, n_turn: int) -> tuple[np.ndarray, np.ndarray]:
    """The river lookup ``(K_turn, RIVER_KEYS) -> river bucket`` from the river rows of
    ``thresholds.parquet`` (each bucket an equity range ``key/1980`` within its turn bucket),
    and the parent of every river bucket. Keys no river hand of a turn bucket has (never
    looked up in a real deal) take the nearest bucket below (above for the lowest)."""
    par = np.asarray(thresholds["parent_bucket"], dtype=np.int64)
    bucket = np.asarray(thresholds["bucket"], dtype=np.int64)
    if len(par) and (par < 0).all():  # imperfect recall: one river bucketing for every turn
        lut, parents = river_lut({**{k: thresholds[k] for k in ("bucket", "min_equity",
                                                                  "max_equity")},
                                  "parent_bucket": np.zeros(len(par), np.int64)}, 1)
        return np.repeat(lut, n_turn, axis=0), np.full(len(bucket), -1, dtype=np.int64)
    lo = np.rint(np.asarray(thresholds["min_equity"]) * (RIVER_KEYS - 1)).astype(np.int64)
    hi = np.rint(np.asarray(thresholds["max_equity"]) * (RIVER_KEYS - 1)).astype(np.int64)
    lut = np.full((n_turn, RIVER_KEYS), -1, dtype=np.int32)
    order = np.lexsort((lo, par))
    for i in order:
        lut[par[i], lo[i]:hi[i] + 1] = bucket[i]
    for t in range(n_turn):  # fill the gaps between ranges
        row = lut[t]
        have = np.flatnonzero(row >= 0)
        if len(have) == 0:
            raise ValueError(f"turn bucket {t} has no river buckets")
        idx = np.maximum.accumulate(np.where(row >= 0, np.arange(RIVER_KEYS), -1))
        idx[idx < 0] = have[0]
        lut[t] = row[idx]
    parents = np.full(len(bucket), -1, dtype=np.int64)
    parents[bucket] = par
    return lut, parents


def river_keys(data_dir) -> np.ndarray:
    """``2*wins + ties`` of every [2,5] hand from ``equity_river`` (uint16, 123,156,254)."""
    size = HandIndexer((2, 5)).size
    out = np.zeros(size, dtype=np.uint16)
    files = storage.partition_files(data_dir, "equity_river")
    if not files:
        raise UserError("table 'equity_river' has no partitions: run `cli.py etl --tables "
                        "equity_river`")
    seen = 0
    for key in sorted(files):
        t = storage.read_table(data_dir, "equity_river", columns=["idx", "wins", "ties"],
                               keys=[key])
        idx = t.column("idx").to_numpy()
        out[idx] = (2 * t.column("wins").to_numpy().astype(np.int64)
                    + t.column("ties").to_numpy()).astype(np.uint16)
        seen += len(idx)
    if seen != size:
        raise UserError(f"equity_river has {seen} rows, expected {size}")
    return out


def round_buckets(path: Path, r: int) -> np.ndarray:
    """The bucket of every hand of round r (by canonical index) from ``round<r>.parquet``."""
    t = pq.read_table(path / f"round{r}.parquet", columns=["hand", "bucket"])
    b = np.empty(t.num_rows, dtype=np.int32)
    b[t.column("hand").to_numpy()] = t.column("bucket").to_numpy()
    return b


def ochs_river(path: Path, centroids, n_turn: int):
    """The river look-up of a Texas Hold'em ``ochs`` abstraction stored at ``path``
    (``schema.abstraction``): (lut as (rows, keys), key per [2,5] index, stride, parent of
    every river bucket). Imperfect recall (``round3.parquet``): the key is the river hand's
    bucket, the lut the identity, the stride 0. Perfect recall (``river_codes.parquet``): the
    key is the hand's code and ``lut[t, code]`` the child of turn bucket t whose centroid is
    nearest the code's OCHS vector (the builder's own assignment rule)."""
    if (path / "round3.parquet").exists():
        bucket = round_buckets(path, 3)
        k = int(bucket.max()) + 1
        if k > np.iinfo(np.uint16).max:
            raise UserError(f"abstraction at {path}: {k} river buckets; the Hold'em solver's "
                            "river key holds at most 65,535")
        return (np.arange(k, dtype=np.int32)[None, :], bucket.astype(np.uint16), 0,
                np.full(k, -1, np.int64))
    if not (path / "river_codes.parquet").exists():
        raise UserError(f"abstraction at {path} (ochs) has no river tables (river_codes.parquet"
                        " or round3.parquet): it was built before they were stored; rebuild it "
                        "with `cli.py build-abstraction ... --replace`")
    t = pq.read_table(path / "river_codes.parquet")
    key = np.empty(t.num_rows, np.uint16)
    key[t.column("hand").to_numpy()] = t.column("code").to_numpy()
    del t
    cb = pq.read_table(path / "river_codebook.parquet").to_pandas().sort_values("code")
    codebook = np.ascontiguousarray(np.stack(cb["vector"].to_numpy()), np.float64)
    rows = centroids[centroids["round"] == 3].sort_values("bucket")
    parent = rows["parent_bucket"].to_numpy(np.int64)
    if len(parent) == 0 or np.any(np.diff(parent) < 0) or parent.min() < 0:
        raise UserError(f"abstraction at {path}: its river buckets are not grouped by turn "
                        "bucket")
    cents = np.ascontiguousarray(np.stack(rows["centroid"].to_numpy()), np.float64)
    first = np.searchsorted(parent, np.arange(n_turn)).astype(np.int64)
    last = np.searchsorted(parent, np.arange(n_turn), side="right").astype(np.int64)
    if np.any(last <= first):
        raise UserError(f"abstraction at {path}: a turn bucket has no river bucket")
    lut = np.empty((n_turn, len(codebook)), np.int32)
    nearest_child_lut(codebook, cents, first, last, lut)
    return lut, key, len(codebook), parent


def _stored_abstraction(name: str, data_dir) -> tuple[Path, str]:
    """(directory, method) of stored Hold'em abstraction ``name``; UserError if none."""
    with session_scope(data_dir) as s:
        row = s.get(Abstraction, name)
        if row is None:
            raise UserError(f"no abstraction {name!r} (see `cli.py abstractions`)")
        game, stored, method = row.game, row.path, row.method
    if game != "holdem":
        raise UserError(f"abstraction {name!r} is for {game!r}, not holdem")
    return resolve_stored(data_dir, stored, Path(data_dir) / "abstractions" / name), method


def _thresholds(name: str, path: Path):
    """The abstraction's ``thresholds.parquet`` (pandas) and the parents of rounds 0..2."""
    try:
        th = pq.read_table(path / "thresholds.parquet").to_pandas()
    except (OSError, KeyError) as exc:
        raise UserError(f"abstraction {name!r}: cannot read its tables ({exc})") from None
    parents = [th[th["round"] == r].sort_values("bucket")["parent_bucket"].to_numpy(np.int64)
               for r in range(3)]
    return th, parents


def load_buckets(name: str, data_dir) -> HoldemBuckets:
    """The lookups of abstraction ``name`` built by ``cli.py build-abstraction --game holdem``.

    Raises:
        UserError: no such abstraction, not a Hold'em one, or its files are missing.
    """
    path, method = _stored_abstraction(name, data_dir)
    try:
        rounds = [round_buckets(path, r) for r in range(3)]
    except (OSError, KeyError) as exc:
        raise UserError(f"abstraction {name!r}: cannot read its tables ({exc})") from None
    th, parents = _thresholds(name, path)
    if method == "ochs":  # river buckets are OCHS clusters, not equity ranges
        try:
            cents = pq.read_table(path / "centroids.parquet").to_pandas()
        except OSError as exc:
            raise UserError(f"abstraction {name!r}: cannot read its tables ({exc})") from None
        lut, key, stride, river_par = ochs_river(path, cents, len(parents[2]))
    else:
        lut, river_par = river_lut(th[th["round"] == 3], len(parents[2]))
        key, stride = river_keys(data_dir), RIVER_KEYS
    parents.append(river_par)
    return HoldemBuckets.from_arrays(name, rounds, parents, lut, key, stride)


class HandBuckets:
    """The buckets of one hand at a time of a stored abstraction whose river buckets are
    equity ranges (every method but ``ochs``), reading only that hand's rows: per round its
    canonical index (``HandIndexer`` of ``GROUPS``, the index the solver's kernel computes),
    the row of ``round<r>.parquet`` with that ``hand`` (the files are sorted by hand: the row
    group statistics name the one row group to read), and on the river ``lut[turn bucket,
    key]`` with the hand's key ``2*wins + ties`` from the one ``equity_river`` partition of its
    board (the rule of ``HoldemBuckets.lookup``). For one look-up; many look-ups load the whole
    abstraction once (``load_buckets``)."""

    def __init__(self, name: str, data_dir):
        path, method = _stored_abstraction(name, data_dir)
        if method == "ochs":
            raise ValueError(f"abstraction {name!r} is ochs: its river buckets are clusters "
                             "of river codes, not equity ranges (use load_buckets)")
        try:
            # ParquetFile, not read_table: that would import pyarrow.dataset (0.4 s)
            t = pq.ParquetFile(path / "thresholds.parquet").read()
            th = {c: t.column(c).to_numpy() for c in ("round", "parent_bucket", "bucket",
                                                        "min_equity", "max_equity")}
        except (OSError, KeyError, pa.ArrowException) as exc:
            raise UserError(f"abstraction {name!r}: cannot read its tables ({exc})") from None
        river = th["round"] == 3
        self.river = {c: v[river] for c, v in th.items()}
        self.name, self.path, self.data_dir = name, path, data_dir
        self.n_buckets = tuple(int((th["round"] == r).sum()) for r in range(4))

    @property
    def n_rounds(self) -> int:
        return len(self.n_buckets)

    def of(self, hole: list[int], board: list[int]) -> np.ndarray:
        """The bucket of the hand in each round its board has reached (``len(board)``: 0, 3,
        4, 5 cards), as int64. UserError if the abstraction holds no bucket for it."""
        rnd = {0: 0, 3: 1, 4: 2, 5: 3}[len(board)]
        cards = np.array(list(hole) + list(board), np.uint8)
        out = np.zeros(rnd + 1, np.int64)
        for r in range(min(rnd, 2) + 1):
            idx = HandIndexer(GROUPS[r]).index(cards[:sum(GROUPS[r])])
            try:
                row = row_where(self.path / f"round{r}.parquet", "hand", idx, ["bucket"])
            except (OSError, pa.ArrowException) as exc:
                raise UserError(f"abstraction {self.name!r}: cannot read its tables ({exc})"
                                ) from None
            if row is None:
                raise UserError(f"abstraction {self.name!r} holds no round {r + 1} bucket for "
                                "this hand")
            out[r] = row["bucket"]
        if rnd == 3:
            key = river_key_of(self.data_dir, HandIndexer(GROUPS[3]).index(cards), board)
            out[3] = self.river_row(int(out[2]))[key]
        return out

    def river_row(self, turn_bucket: int) -> np.ndarray:
        """``river_lut``'s row of one turn bucket (from that bucket's river thresholds only;
        under imperfect recall every turn bucket's row is the same)."""
        th = self.river
        par = np.asarray(th["parent_bucket"], np.int64)
        mine = np.ones(len(par), bool) if len(par) and (par < 0).all() else par == turn_bucket
        bucket = np.asarray(th["bucket"], np.int64)[mine]
        # as one turn bucket of local bucket numbers, mapped back
        one = {"bucket": np.arange(len(bucket)), "min_equity": th["min_equity"][mine],
               "max_equity": th["max_equity"][mine],
               "parent_bucket": np.where(par[mine] < 0, -1, 0)}
        return bucket[river_lut(one, 1)[0][0]]


def row_where(path: Path, column: str, value: int, columns: list[str],
              verify: bool = False) -> dict | None:
    """``columns`` of the first row of Parquet file ``path`` whose ``column`` is ``value``
    (None if none), reading only the row groups whose statistics can hold it (page checksums
    verified with ``verify``)."""
    f = pq.ParquetFile(path, page_checksum_verification=verify)
    col = f.metadata.schema.names.index(column)
    for g in range(f.metadata.num_row_groups):
        st = f.metadata.row_group(g).column(col).statistics
        if st is not None and st.has_min_max and not st.min <= value <= st.max:
            continue
        hit = np.flatnonzero(f.read_row_group(g, columns=[column]).column(0).to_numpy()
                             == value)
        if len(hit):
            t = f.read_row_group(g, columns=columns).slice(int(hit[0]), 1)
            return {c: t.column(c)[0].as_py() for c in columns}
    return None


def river_key_of(data_dir, idx: int, board: list[int]) -> int:
    """``2*wins + ties`` of [2,5] hand ``idx`` (on ``board``) from ``equity_river``: read
    from the partition of the board's canonical index (``etl.equity``: partitions are ranges
    of canonical boards) first, then, if a table partitioned otherwise does not hold it
    there, from the others; only the rows with that ``idx``, page checksums verified."""
    files = storage.partition_files(data_dir, "equity_river")
    if not files:
        raise UserError("table 'equity_river' has no partitions: run `cli.py etl --tables "
                        "equity_river`")
    n = PARTITIONS["equity_river"]
    b = HandIndexer((5,)).index(np.asarray(board, np.uint8))
    first = next((k for k in files if k.isdigit() and len(k) == 2 and int(k) < n
                  and board_range(5, n, k)[0] <= b < board_range(5, n, k)[1]), None)
    for key in ([first] if first else []) + [k for k in sorted(files) if k != first]:
        try:
            row = row_where(files[key], "idx", idx, ["wins", "ties"], verify=True)
        except (OSError, pa.ArrowException) as exc:
            raise storage.DamagedPartitionError(
                f"damaged partition {files[key]}: {first_line(exc)} (rebuild: cli.py etl "
                "--refresh)") from exc
        if row is not None:
            return 2 * int(row["wins"]) + int(row["ties"])
    raise UserError(f"equity_river holds no row for river hand {idx}: run `cli.py etl "
                    "--tables equity_river`")


def synthetic_buckets(n_buckets, n_rounds: int = 4, name: str = "synthetic") -> HoldemBuckets:
    """A hand-strength bucketing that needs no equity tables (tests, benchmarks): round 0 by
    pair/high cards, each later round splits its parent's hands into ``n_buckets[r] /
    n_buckets[r-1]`` strength quantiles of the evaluator value of the cards seen (the river
    uses the 7-card value as its key). Perfect recall like a built abstraction."""
    tabs = indexer_tables()
    sizes = (2, 5, 6, 7)
    rounds, parents = [], []
    prev = None
    lut = key = None
    for r in range(n_rounds):
        k = int(n_buckets[r])
        n_idx = {0: 169, 1: 1_286_792, 2: 55_190_538, 3: 123_156_254}[r]
        score = np.empty(n_idx, dtype=np.int64)
        K.strength_keys(tabs[r], sizes[r], score)
        if r == 3:
            # river: the key is a rank of the 7-card value into 0..RIVER_KEYS-1; buckets are
            # per turn bucket equal-width key ranges
            key = (score * (RIVER_KEYS - 1) // 7461).astype(np.uint16)
            per = k // len(parents[-1])
            cut = np.minimum(np.arange(RIVER_KEYS) * per // RIVER_KEYS, per - 1)
            lut = np.arange(len(parents[-1]))[:, None] * per + cut[None, :]
            parents.append(np.repeat(np.arange(len(parents[-1])), per))
            break
        if r == 0:
            bucket = _quantile_buckets(score, np.zeros(n_idx, np.int64), 1, k)
            parents.append(np.full(k, -1))
        else:
            pidx = np.empty(n_idx, dtype=np.int64)
            K.parent_index(tabs[r], sizes[r], tabs[r - 1], sizes[r - 1], pidx)
            per = k // len(parents[-1])
            bucket = _quantile_buckets(score, prev[pidx], len(parents[-1]), per)
            parents.append(np.repeat(np.arange(len(parents[-1])), per))
        rounds.append(bucket)
        prev = bucket
    return HoldemBuckets.from_arrays(name, rounds, parents, lut, key)


def _quantile_buckets(score, parent, n_parents, per):
    """Bucket ``parent * per + q`` with q the strength quantile of ``score`` within parent."""
    order = np.lexsort((score, parent))
    counts = np.bincount(parent, minlength=n_parents)
    start = np.concatenate(([0], np.cumsum(counts)))
    rank = np.empty(len(score), dtype=np.int64)
    rank[order] = np.arange(len(score)) - start[parent[order]]
    q = np.minimum(rank * per // np.maximum(counts[parent], 1), per - 1)
    return (parent * per + q).astype(np.int32)
