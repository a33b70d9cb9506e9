"""The equity tables: exact win/tie/loss counts of every canonical hand against a uniformly
random opponent, and histograms of river equity (docs/design.md section 3).

=================  ==========================  ===========  ==================================
table              rows (canonical hands)      depends on   computed from
=================  ==========================  ===========  ==================================
``equity_river``   123,156,254 ``[2,5]``       --           134,459 canonical river boards
``equity_turn``    13,960,050 ``[2,4]``        --           16,432 turn boards x 48 rivers
``hist_turn``      13,960,050                  --           the same river evaluations
``equity_flop``    1,286,792 ``[2,3]``         equity_turn  sums of turn rows over 47 turns
``hist_flop``      1,286,792                   hist_turn    sums of hist_turn rows over 47 turns
``equity_preflop`` 169 ``[2]``                 equity_flop  sums of flop rows over 19,600 flops
=================  ==========================  ===========  ==================================

Every river evaluation goes through one kernel (``etl/_equity_kernels.py``): on a five-card
board it ranks the 1,081 hands of the cards left and counts wins and ties against the 990
opponents with card-removal corrections, one sort per board. A turn or flop table walks
canonical boards (every canonical hand is a hand on a canonical board), runs the kernel on each
completion and sums; a hand class met twice on one board (a board with a suit symmetry) is
kept once, from the first hole in card order, with its class size in ``weight``.

Partitions are ranges of canonical boards, so they are equal units of work. The runner computes
them in worker processes, one numba thread each: the kernels scale across boards, and the
Python and Parquet parts of one partition overlap the kernels of another.
"""

from __future__ import annotations

from functools import lru_cache, partial
from pathlib import Path

import numpy as np
import pyarrow as pa

from etl import storage
from etl._equity_kernels import (board_hands, completion_rows, flop_from_turn, preflop_sums,
                                 river_rows, scatter_rows, suit_permutations)
from etl.isomorphism import KNOWN_SIZES, HandIndexer
from etl.spec import TableSpec
from schema.equity import (EQUITY_FLOP_SCHEMA, EQUITY_PREFLOP_SCHEMA, EQUITY_RIVER_SCHEMA,
                           EQUITY_TURN_SCHEMA, hist_schema)

VERSION = "equity-1"
DEFAULT_BINS = 50
RANKS = "23456789TJQKA"

N_OPP = 990
#: canonical boards ([3], [4], [5]) and hands per board (C(52 - board, 2))
N_BOARDS = {3: 1_755, 4: 16_432, 5: 134_459}
HANDS_PER_BOARD = {3: 1_176, 4: 1_128, 5: 1_081}
#: opponent-hand outcomes per row: 990 x the board completions
TOTALS = {3: 1_081 * N_OPP, 4: 46 * N_OPP, 5: N_OPP}
PARTITIONS = {"equity_river": 16, "equity_turn": 8, "hist_turn": 8, "equity_flop": 2,
              "hist_flop": 2, "equity_preflop": 1}


def partition_keys(n: int) -> list[str]:
    return [f"{p:02d}" for p in range(n)]


def board_range(n_board: int, n_parts: int, key: str) -> tuple[int, int]:
    """Canonical boards ``[lo, hi)`` of partition ``key`` of ``n_parts``.

    Raises:
        ValueError: an unknown key.
    """
    if key not in partition_keys(n_parts):
        raise ValueError(f"unknown partition {key!r}: expected 00..{n_parts - 1:02d}")
    p, n = int(key), N_BOARDS[n_board]
    return p * n // n_parts, (p + 1) * n // n_parts


@lru_cache(maxsize=8)
def _tables(groups: tuple[int, ...]):
    return HandIndexer(groups).tables


@lru_cache(maxsize=1)
def preflop_class() -> np.ndarray:
    """``[52, 52]`` -> canonical ``[2]`` index (0..168) of the hole cards (diagonal unused)."""
    a, b = np.triu_indices(52, 1)
    out = np.zeros((52, 52), np.uint8)
    idx = HandIndexer((2,)).index(np.stack([a, b], axis=1))
    out[a, b] = idx
    out[b, a] = idx
    return out


def _boards(n_board: int, lo: int, hi: int) -> np.ndarray:
    return HandIndexer((n_board,)).unindex(np.arange(lo, hi, dtype=np.int64)).astype(np.uint8)


def _equity_table(schema: pa.Schema, n_board: int, lo: int, hi: int, idx, wins, ties, hole,
                  weight) -> pa.Table:
    keep = weight > 0
    per = HANDS_PER_BOARD[n_board]
    boards = _boards(n_board, lo, hi)
    total = TOTALS[n_board]
    count = schema.field("wins").type.to_pandas_dtype()
    w = wins[keep]
    t = ties[keep]
    h = hole[keep]
    cols = {"idx": idx[keep].astype(np.uint32), "hole1": h[:, 0], "hole2": h[:, 1]}
    for j in range(n_board):
        cols[f"board{j + 1}"] = np.repeat(boards[:, j], per)[keep]
    cols["preflop"] = preflop_class()[h[:, 0], h[:, 1]]
    cols["weight"] = weight[keep].astype(np.uint8)
    cols["wins"] = w.astype(count)
    cols["ties"] = t.astype(count)
    cols["losses"] = (total - w - t).astype(count)
    cols["equity"] = (w + 0.5 * t) / total
    return pa.table(cols, schema=schema)


def _rows(n_board: int, lo: int, hi: int, n_bins: int = 0):
    """Kernel rows of canonical boards ``lo .. hi-1`` (before dropping repeated classes)."""
    n = (hi - lo) * HANDS_PER_BOARD[n_board]
    idx = np.empty(n, np.int64)
    wins = np.empty(n, np.int64)
    ties = np.empty(n, np.int64)
    hole = np.empty((n, 2), np.uint8)
    weight = np.empty(n, np.uint8)
    hist = np.empty((n, n_bins), np.uint16)
    perms = suit_permutations()
    if n_board == 5:
        river_rows(_tables((5,)), _tables((2, 5)), perms, lo, hi, idx, wins, ties, hole, weight)
    else:
        completion_rows(_tables((n_board,)), _tables((2, n_board)), perms, n_board, lo, hi,
                        n_bins, idx, wins, ties, hole, weight, hist)
    return idx, wins, ties, hole, weight, hist


def compute_river(key: str, data_dir: Path) -> pa.Table:
    lo, hi = board_range(5, PARTITIONS["equity_river"], key)
    idx, wins, ties, hole, weight, _ = _rows(5, lo, hi)
    return _equity_table(EQUITY_RIVER_SCHEMA, 5, lo, hi, idx, wins, ties, hole, weight)


def compute_turn(key: str, data_dir: Path) -> pa.Table:
    lo, hi = board_range(4, PARTITIONS["equity_turn"], key)
    idx, wins, ties, hole, weight, _ = _rows(4, lo, hi)
    return _equity_table(EQUITY_TURN_SCHEMA, 4, lo, hi, idx, wins, ties, hole, weight)


def compute_hist_turn(n_bins: int, key: str, data_dir: Path) -> pa.Table:
    lo, hi = board_range(4, PARTITIONS["hist_turn"], key)
    idx, _, _, _, weight, hist = _rows(4, lo, hi, n_bins)
    keep = weight > 0
    schema = hist_schema(n_bins, pa.uint8())
    cols = [idx[keep].astype(np.uint32)]
    dtype = schema.field(1).type.to_pandas_dtype()
    kept = hist[keep]
    cols += [kept[:, j].astype(dtype) for j in range(n_bins)]
    return pa.Table.from_arrays(cols, schema=schema)


def _dense(data_dir: Path, name: str, columns: list[str], size: int,
           dtype=np.int64) -> np.ndarray:
    """Columns of table ``name`` as a (size, len(columns)) array indexed by canonical index."""
    t = storage.read_table(data_dir, name, columns=["idx"] + columns)
    if t.num_rows != size:
        raise ValueError(f"{name} has {t.num_rows} rows, expected {size}: rebuild it "
                         f"(`cli.py etl --refresh --tables {name}`)")

    out = np.zeros((size, len(columns)), dtype)
    cols = np.empty((len(columns), size), dtype)
    for j, c in enumerate(columns):
        cols[j] = t.column(c).to_numpy()
    scatter_rows(t.column("idx").to_numpy(), cols, out)
    return out


def _from_turn(data_dir: Path, name: str, columns: list[str], dtype, key: str, parts: int):
    """Rows of flop partition ``key`` summed from the turn table ``name`` (``flop_from_turn``)."""
    lo, hi = board_range(3, parts, key)
    turn = _dense(data_dir, name, columns, KNOWN_SIZES[(2, 4)], dtype)
    idx, hole, weight = _flop_hands(lo, hi)
    out = np.empty((idx.shape[0], len(columns)), np.int64)
    flop_from_turn(_tables((3,)), _tables((2, 4)), lo, hi, turn, out)
    return lo, hi, idx, hole, weight, out


def compute_flop(key: str, data_dir: Path) -> pa.Table:
    lo, hi, idx, hole, weight, out = _from_turn(data_dir, "equity_turn", ["wins", "ties"],
                                                np.int64, key, PARTITIONS["equity_flop"])
    return _equity_table(EQUITY_FLOP_SCHEMA, 3, lo, hi, idx, out[:, 0], out[:, 1], hole, weight)


def compute_hist_flop(n_bins: int, key: str, data_dir: Path) -> pa.Table:
    bins = hist_schema(n_bins, pa.uint8()).names[1:]
    lo, hi, idx, hole, weight, out = _from_turn(data_dir, "hist_turn", bins, np.uint8, key,
                                                PARTITIONS["hist_flop"])
    keep = weight > 0
    schema = hist_schema(n_bins, pa.uint16())
    kept = out[keep]
    return pa.Table.from_arrays([idx[keep].astype(np.uint32)]
                                + [kept[:, j].astype(np.uint16) for j in range(n_bins)],
                                schema=schema)


def _flop_hands(lo: int, hi: int):
    """Index, hole cards and class size of the hands of flop boards ``lo .. hi-1`` (rows in
    ``completion_rows`` order), without evaluating anything."""
    n = (hi - lo) * HANDS_PER_BOARD[3]
    idx = np.empty(n, np.int64)
    hole = np.empty((n, 2), np.uint8)
    weight = np.empty(n, np.uint8)
    board_hands(_tables((3,)), _tables((2, 3)), suit_permutations(), 3, lo, hi, idx, hole,
                weight)
    return idx, hole, weight


def hand_name(c1: int, c2: int) -> str:
    """"AA", "AKs", "72o" for two hole cards."""
    r1, r2 = sorted((c1 // 4, c2 // 4), reverse=True)
    if r1 == r2:
        return RANKS[r1] * 2
    return RANKS[r1] + RANKS[r2] + ("s" if c1 % 4 == c2 % 4 else "o")


def compute_preflop(key: str, data_dir: Path) -> pa.Table:
    board_range(3, 1, key)  # validates the key
    flop = _dense(data_dir, "equity_flop", ["wins", "ties"], KNOWN_SIZES[(2, 3)])
    out = np.empty((169, 2), np.int64)
    preflop_sums(_tables((2,)), _tables((2, 3)), flop[:, 0], flop[:, 1], out)
    holes = HandIndexer((2,)).unindex(np.arange(169))
    total = 2_118_760 * N_OPP
    weight = np.array([6 if a // 4 == b // 4 else 4 if a % 4 == b % 4 else 12
                       for a, b in holes], np.uint8)
    return pa.table({
        "idx": np.arange(169, dtype=np.uint8),
        "hand": [hand_name(int(a), int(b)) for a, b in holes],
        "hole1": holes[:, 0].astype(np.uint8), "hole2": holes[:, 1].astype(np.uint8),
        "weight": weight, "wins": out[:, 0], "ties": out[:, 1],
        "losses": total - out[:, 0] - out[:, 1],
        "equity": (out[:, 0] + 0.5 * out[:, 1]) / total,
    }, schema=EQUITY_PREFLOP_SCHEMA)


def tables(options: dict | None = None) -> list[TableSpec]:
    """The equity tables; ``options["bins"]`` sets the histogram bins (default 50)."""
    options = dict(options or {})
    try:
        raw = options.get("bins", DEFAULT_BINS)
        n_bins = int(raw)
        if n_bins != raw and str(n_bins) != str(raw):  # 2.7, "2.0x": not silently truncated
            raise ValueError
    except (TypeError, ValueError):
        raise ValueError(f"bins must be an integer, got {options.get('bins')!r}") from None
    if not 1 <= n_bins <= 1000:
        raise ValueError(f"bins must be 1..1000, got {n_bins}")
    keys = {name: partial(partition_keys, n) for name, n in PARTITIONS.items()}
    return [
        TableSpec("equity_river", EQUITY_RIVER_SCHEMA, VERSION, keys["equity_river"],
                  compute_river, description="river equity per canonical [2,5] hand "
                  "(123,156,254 rows)"),
        TableSpec("equity_turn", EQUITY_TURN_SCHEMA, VERSION, keys["equity_turn"],
                  compute_turn, description="turn equity per canonical [2,4] hand "
                  "(13,960,050 rows)"),
        TableSpec("hist_turn", hist_schema(n_bins, pa.uint8()), VERSION, keys["hist_turn"],
                  partial(compute_hist_turn, n_bins), description="river-equity histogram per "
                  "canonical [2,4] hand over the 46 rivers", options={"bins": n_bins},
                  ),
        TableSpec("equity_flop", EQUITY_FLOP_SCHEMA, VERSION, keys["equity_flop"],
                  compute_flop, depends_on=("equity_turn",), description="flop equity per "
                  "canonical [2,3] hand (1,286,792 rows)"),
        TableSpec("hist_flop", hist_schema(n_bins, pa.uint16()), VERSION, keys["hist_flop"],
                  partial(compute_hist_flop, n_bins), depends_on=("hist_turn",),
                  description="river-equity histogram per canonical [2,3] hand over the "
                  "1,081 turn-river completions",
                  options={"bins": n_bins}),
        TableSpec("equity_preflop", EQUITY_PREFLOP_SCHEMA, VERSION, keys["equity_preflop"],
                  compute_preflop, depends_on=("equity_flop",), description="preflop equity "
                  "of the 169 hole-card classes"),
    ]
