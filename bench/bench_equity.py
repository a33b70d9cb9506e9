"""Benchmark of the equity tables, side by side with eval7 in the same run.

1. River and turn equity of random hands against a uniformly random opponent: eval7's exact
   enumerator (``py_hand_vs_range_exact`` over the full 1,326-combination range) against our
   kernels (``etl/_equity_kernels.py``: one sort-based pass per board serves its 1,081 hands);
   both must agree exactly.
2. The whole ETL from scratch (``cli.py etl`` on an empty data dir, handval plus every equity
   table) in a child process: wall time, peak memory, rows and size on disk per table.
3. A DuckDB query over ``equity_river``: average equity per preflop class (weighted by class
   size), which must equal ``equity_preflop``.

Usage: ``python -m bench.bench_equity [--data-dir DIR] [--skip-etl] [--hands N]``
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

RANKS = "23456789TJQKA"
SUITS = "cdhs"  # card c: rank c // 4, suit c % 4


def card_name(c: int) -> str:
    return RANKS[c // 4] + SUITS[c % 4]


def full_range():
    import eval7
    return eval7.HandRange("22+,A2s+,K2s+,Q2s+,J2s+,T2s+,92s+,82s+,72s+,62s+,52s+,42s+,32s,"
                           "A2o+,K2o+,Q2o+,J2o+,T2o+,92o+,82o+,72o+,62o+,52o+,42o+,32o")


def _eval7_turn(hand, board, used: set[int]) -> float:
    """Turn equity by brute force over eval7.evaluate (rivers x opponent hands)."""
    import eval7

    cards = {c: eval7.Card(card_name(c)) for c in range(52)}
    w = t = n = 0
    for r in range(52):
        if r in used:
            continue
        b5 = board + [cards[r]]
        me = eval7.evaluate(hand + b5)
        for a in range(52):
            for b in range(a + 1, 52):
                if a in used or b in used or r in (a, b):
                    continue
                o = eval7.evaluate([cards[a], cards[b]] + b5)
                w += me > o
                t += me == o
                n += 1
    return (w + t / 2) / n


def peer_comparison(n_hands: int, seed: int) -> None:
    import eval7

    from etl import equity
    from etl._equity_kernels import completion_rows, river_rows, suit_permutations

    rng = np.random.default_rng(seed)
    villain = full_range()
    perms = suit_permutations()
    print("river: eval7.py_hand_vs_range_exact; turn: a loop over eval7.evaluate (eval7's exact\n"
          "enumerator does not deal the river: it gives other numbers on a 4-card board)")
    print(f"{'':28s}{'eval7':>16s}{'ours (kernel)':>16s}{'speed-up':>10s}  agree")
    for n_board, label in ((5, "river hand vs random hand"), (4, "turn hand vs random hand")):
        n = n_hands if n_board == 5 else max(1, n_hands // 40)
        b0 = int(rng.integers(equity.N_BOARDS[n_board] - n))
        boards = np.arange(b0, b0 + n)
        # ours: all hands of n consecutive canonical boards in one call (boards are the
        # kernel's unit of work; a call per board would mostly time the thread start-up)
        per = equity.HANDS_PER_BOARD[n_board]
        m = n * per
        idx = np.empty(m, np.int64)
        wins = np.empty(m, np.int64)
        ties = np.empty(m, np.int64)
        hole = np.empty((m, 2), np.uint8)
        weight = np.empty(m, np.uint8)
        hist = np.empty((m, 0), np.uint16)
        for _ in range(2):  # the first call may compile
            t0 = time.perf_counter()
            if n_board == 5:
                river_rows(equity._tables((5,)), equity._tables((2, 5)), perms, b0, b0 + n,
                           idx, wins, ties, hole, weight)
            else:
                completion_rows(equity._tables((4,)), equity._tables((2, 4)), perms, 4, b0,
                                b0 + n, 0, idx, wins, ties, hole, weight, hist)
            t_ours = time.perf_counter() - t0
        ours_per_hand = t_ours / m
        # eval7: one random hand per board
        agree = 0
        t_peer = 0.0
        for i, b in enumerate(boards):
            k = i * per + int(rng.integers(per))
            board = equity._boards(n_board, int(b), int(b) + 1)[0]
            hand = [eval7.Card(card_name(int(c))) for c in hole[k]]
            brd = [eval7.Card(card_name(int(c))) for c in board]
            t0 = time.perf_counter()
            if n_board == 5:
                eq = eval7.py_hand_vs_range_exact(hand, villain, brd)
            else:  # eval7's exact enumerator does not deal the river: loop over it here
                eq = _eval7_turn(hand, brd, {int(c) for c in hole[k]} | set(map(int, board)))
            t_peer += time.perf_counter() - t0
            ours = (wins[k] + ties[k] / 2) / equity.TOTALS[n_board]
            agree += abs(eq - ours) < 1e-6  # eval7 sums in single precision
        peer_per_hand = t_peer / n
        print(f"{label:28s}{peer_per_hand * 1e6:13.1f} us{ours_per_hand * 1e6:13.2f} us"
              f"{peer_per_hand / ours_per_hand:9.0f}x  {agree}/{n}")


def run_etl(data_dir: Path) -> None:
    cmd = ["/usr/bin/time", "-v", sys.executable, str(ROOT / "cli.py"), "--data-dir",
           str(data_dir), "etl", "--no-progress"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if proc.returncode:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        raise SystemExit(f"etl failed ({proc.returncode})")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    print(proc.stdout)
    print(f"etl from scratch: {wall:.1f} s wall, peak RSS "
          f"{int(rss.group(1)) / 2**20 if rss else float('nan'):.2f} GiB (largest process)")


def query(data_dir: Path) -> None:
    import duckdb

    from etl import storage

    def src(name):
        files = sorted(str(p) for p in storage.partition_files(data_dir, name).values())
        return "read_parquet([" + ", ".join(f"'{f}'" for f in files) + "])"

    con = duckdb.connect()
    sql = (f"SELECT p.hand, sum(r.equity * r.weight) / sum(r.weight) AS river_avg, "
           f"any_value(p.equity) AS preflop FROM {src('equity_river')} r "
           f"JOIN {src('equity_preflop')} p ON p.idx = r.preflop GROUP BY p.hand")
    t0 = time.perf_counter()
    rows = con.execute(sql).fetchall()
    dt = time.perf_counter() - t0
    worst = max(abs(a - b) for _, a, b in rows)
    print(f"DuckDB: average river equity per preflop class over 123,156,254 rows: {dt:.2f} s "
          f"({len(rows)} classes; max |river avg - preflop| = {worst:.1e})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", help="build here (default: a fresh temporary dir)")
    ap.add_argument("--skip-etl", action="store_true", help="reuse the tables of --data-dir")
    ap.add_argument("--hands", type=int, default=200, help="river hands for eval7 (default 200)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M')} | {os.cpu_count()} cores | load "
          f"{os.getloadavg()[0]:.2f}")
    peer_comparison(args.hands, args.seed)
    tmp = None
    if args.data_dir:
        data_dir = Path(args.data_dir)
    else:
        tmp = tempfile.mkdtemp(prefix="bench-equity-")
        data_dir = Path(tmp)
    try:
        if not args.skip_etl:
            run_etl(data_dir)
        query(data_dir)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
