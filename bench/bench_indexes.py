"""Benchmark: canonical index / unindex throughput (hands per second) and colex index.

Usage: python -m bench.bench_indexes [--hands 10000000] [--seed 0] [--repeat 3]
       [--groups 2,5 2,3,1] [--verify 2,4 ...]

For each grouping: ``HandIndexer.index`` on ``--hands`` random hands (parallel array API) and
``HandIndexer.unindex`` on their indices, best of ``--repeat`` runs after a warm-up call (numba
compile excluded); the serial per-hand cost of the numba scalar ``index_hand`` from another
kernel; and the colex index of 7-card sets. ``--verify`` also times ``verify_counts`` (the
exhaustive bijection proof) for the given groupings. Prints one line per figure.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numba
import numpy as np


from etl._index_kernels import index_hand
from etl.colex import colex_index
from etl.isomorphism import HandIndexer, verify_counts


@numba.njit(cache=True)
def _serial_index_sum(tables, hands: np.ndarray) -> int:
    s = 0
    for r in range(hands.shape[0]):
        s += index_hand(tables, hands[r])
    return s


@numba.njit(cache=True, parallel=True)
def _random_hands(n: int, k: int, seed: int) -> np.ndarray:
    """n hands of k distinct uniformly random cards (partial Fisher-Yates per row)."""
    out = np.empty((n, k), np.uint8)
    chunks = 64
    step = (n + chunks - 1) // chunks
    for ch in numba.prange(chunks):
        np.random.seed(seed * 1000 + ch)
        deck = np.arange(52).astype(np.uint8)
        for r in range(ch * step, min(n, (ch + 1) * step)):
            for i in range(k):
                j = i + np.random.randint(52 - i)
                deck[i], deck[j] = deck[j], deck[i]
                out[r, i] = deck[i]
    return out


def _best(fn, repeat: int, clock=time.perf_counter) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--groups", nargs="+", default=["2,5", "2,3,1"])
    ap.add_argument("--verify", nargs="*", default=[])
    args = ap.parse_args(argv)
    if args.hands < 1 or args.repeat < 1:
        raise SystemExit("--hands and --repeat must be positive")
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}  {platform.processor() or platform.machine()}"
          f"  cpus={os.cpu_count()}  numba threads={numba.get_num_threads()}  "
          f"load average {os.getloadavg()[0]:.1f}")
    for spec in args.groups:
        groups = tuple(int(x) for x in spec.split(","))
        ix = HandIndexer(groups)
        hands = _random_hands(args.hands, ix.n_cards, args.seed)
        idx = ix.index(hands[:1000])  # warm-up (compile or load cache)
        ix.unindex(idx)
        _serial_index_sum(ix.tables, hands[:1000])
        t_idx = _best(lambda: ix.index(hands), args.repeat)
        idx = ix.index(hands)
        t_un = _best(lambda: ix.unindex(idx), args.repeat)
        back = ix.unindex(idx)
        assert np.array_equal(ix.index(back), idx), "round trip failed"
        n_serial = min(args.hands, 2_000_000)
        t_ser = _best(lambda: _serial_index_sum(ix.tables, hands[:n_serial]), args.repeat)
        # CPU time of the serial loop: less sensitive to other processes on a shared machine
        c_ser = _best(lambda: _serial_index_sum(ix.tables, hands[:n_serial]), args.repeat,
                      time.process_time)
        print(f"{list(groups)} index   {args.hands:,} hands: {t_idx:.3f} s  "
              f"{args.hands / t_idx / 1e6:.1f} M hands/s (parallel array API)")
        print(f"{list(groups)} unindex {args.hands:,} idx:   {t_un:.3f} s  "
              f"{args.hands / t_un / 1e6:.1f} M hands/s (parallel array API)")
        print(f"{list(groups)} index_hand serial in @njit loop: "
              f"{t_ser / n_serial * 1e9:.0f} ns/hand wall, {c_ser / n_serial * 1e9:.0f} ns/hand "
              f"CPU, {n_serial / t_ser / 1e6:.1f} M hands/s per thread")
    sets = _random_hands(args.hands, 7, args.seed + 1)
    colex_index(sets[:10])
    t_col = _best(lambda: colex_index(sets), args.repeat)
    print(f"colex index of {args.hands:,} 7-card sets: {t_col:.3f} s  "
          f"{args.hands / t_col / 1e6:.1f} M sets/s (incl. input validation)")
    for spec in args.verify:
        groups = tuple(int(x) for x in spec.split(","))
        t = time.perf_counter()
        res = verify_counts(groups, progress=False)
        print(f"verify {list(groups)}: ok={res['ok']} raw={res['raw']:,} size={res['size']:,} "
              f"hits={res['hits']:,} unindex {res['seconds_unindex']:.1f} s + enumerate "
              f"{res['seconds_enumerate']:.1f} s = {time.perf_counter() - t:.1f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
