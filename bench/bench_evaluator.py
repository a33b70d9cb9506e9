"""Benchmark: 7-card evaluator throughput vs eval7, and the handval table build + Parquet write.

Usage: python -m bench.bench_evaluator [--hands 2000000] [--seed 0] [--workers 2] [--out DIR]

Prints one line per figure (for BENCHMARKS.md). The eval7 side is given its best case: the
Card objects of every hand are built before timing, so only ``eval7.evaluate`` calls are timed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numba
import numpy as np
import pyarrow.parquet as pq


from etl._eval_kernels import evaluate_rows, evaluate_rows_serial
from etl.evaluator import CARD_KEY, CARD_MASK, value_of_state7
from etl.handval import N_HANDS, build_handval, compute, partition_keys
from schema.equity import HANDVAL_PARQUET_OPTIONS
from schema.storage import atomic_write_parquet


@numba.njit(cache=True)
def _river_style(boards: np.ndarray) -> int:
    """Sum of values of every (board, hole pair) with the board state computed once."""
    total = 0
    for b in range(boards.shape[0]):
        bk = 0
        bm = 0
        used = 0
        for c in boards[b]:
            bk += CARD_KEY[c]
            bm |= CARD_MASK[c]
            used |= 1 << c
        for h0 in range(52):
            if used >> h0 & 1:
                continue
            k0 = bk + CARD_KEY[h0]
            m0 = bm | CARD_MASK[h0]
            for h1 in range(h0 + 1, 52):
                if used >> h1 & 1:
                    continue
                total += value_of_state7(k0 + CARD_KEY[h1], m0 | CARD_MASK[h1])
    return total


def write_partition(key: str, root: Path, delta: bool) -> tuple[float, int, float]:
    """Compute and write one handval partition: (compute seconds, file bytes, peak RSS GiB)."""
    t = time.perf_counter()
    table = compute(key, root)
    tc = time.perf_counter() - t
    path = root / "tables" / "handval" / f"part-{key}.parquet"
    if delta:  # written the way atomic_write_parquet would, with handval's encodings
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, path, compression="zstd", **HANDVAL_PARQUET_OPTIONS)
    else:
        atomic_write_parquet(table, path)
    return tc, path.stat().st_size, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def best_of(f, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2, help="processes for the Parquet build")
    ap.add_argument("--out", type=Path, default=None, help="Parquet dir (default: a temp dir)")
    args = ap.parse_args()
    if args.hands < 1000:
        ap.error("--hands must be at least 1000")
    if args.workers < 1:
        ap.error("--workers must be at least 1")

    import eval7

    rng = np.random.default_rng(args.seed)
    hands = np.argsort(rng.random((args.hands, 52)), axis=1)[:, :7].astype(np.uint8)
    out = np.empty(args.hands, np.uint16)
    print(f"threads: {numba.get_num_threads()}  hands: {args.hands:,} random 7-card (uint8 codes)")

    evaluate_rows_serial(hands[:10], out[:10])
    evaluate_rows(hands[:10], out[:10])
    t1 = best_of(lambda: evaluate_rows_serial(hands, out), repeat=5)
    tn = best_of(lambda: evaluate_rows(hands, out), repeat=5)

    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    card_lists = [[deck[c] for c in row] for row in hands.tolist()]
    ev = eval7.evaluate
    te = best_of(lambda: [ev(h) for h in card_lists], repeat=2)
    del card_lists

    n = args.hands
    print(f"eval7 (Python calls)          : {n / te / 1e6:8.3f} M hands/s  ({te:.2f} s)")
    print(f"ours numba, 1 thread          : {n / t1 / 1e6:8.1f} M hands/s  ({t1:.3f} s)  "
          f"{te / t1:.0f}x eval7")
    print(f"ours numba, {numba.get_num_threads()} threads        : {n / tn / 1e6:8.1f} M hands/s  "
          f"({tn:.3f} s)  {te / tn:.0f}x eval7")

    boards = np.argsort(rng.random((2000, 52)), axis=1)[:, :5].astype(np.int64)
    _river_style(boards[:2])
    tr = best_of(lambda: _river_style(boards))
    n_river = 2000 * 1081
    print(f"ours incremental board+hole   : {n_river / tr / 1e6:8.1f} M hands/s  ({tr:.3f} s, "
          f"1 thread, value_of_state7 over 2,000 boards x 1,081 hole pairs)")

    build_handval()
    tb = best_of(lambda: build_handval())
    print(f"handval array (build_handval) : {tb:.3f} s for {N_HANDS:,} hands "
          f"({N_HANDS / tb / 1e6:.0f} M hands/s)")

    worker_peak = 0.0
    for workers in (1, args.workers):
        for delta in (False, True):
            with tempfile.TemporaryDirectory(prefix="bench-handval-") as tmp:
                root = args.out or Path(tmp)
                t = time.perf_counter()
                if workers == 1:
                    res = [write_partition(key, root, delta) for key in partition_keys()]
                else:
                    ctx = multiprocessing.get_context("spawn")
                    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
                        res = list(pool.map(write_partition, partition_keys(),
                                            [root] * 16, [delta] * 16))
                tw = time.perf_counter() - t
            t_compute = sum(r[0] for r in res)
            size = sum(r[1] for r in res)
            if workers > 1:
                worker_peak = max(worker_peak, max(r[2] for r in res))
            how = "idx delta-encoded (HANDVAL_PARQUET_OPTIONS)" if delta else \
                "atomic_write_parquet defaults"
            print(f"handval table, 16 partitions, {workers} process(es), {how}: {tw:.2f} s wall "
                  f"(compute {t_compute:.2f} s cpu-summed), {size / 2**20:.0f} MiB")
            if workers == args.workers:
                break
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"peak RSS: {peak:.2f} GiB this process (holds build_handval's array), "
          f"{worker_peak:.2f} GiB largest partition writer (cpu count {os.cpu_count()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
