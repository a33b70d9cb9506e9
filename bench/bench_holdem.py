"""Benchmark: chance-sampled CFR+ on limit Hold'em (issue 6) -- iterations/s, memory of the
arrays, evaluation costs -- on a synthetic hand-strength abstraction (no equity tables needed)
or on a built one.

    NUMBA_NUM_THREADS=1 python -m bench.bench_holdem --buckets 20,800,4800,28800 --seconds 60
    python -m bench.bench_holdem --abstraction holdem-pa --data-dir /tmp/lead-data --seconds 60

The synthetic lookups are cached in ``--cache`` (default /tmp/holdem-bench-<buckets>.npz).
Run under ``/usr/bin/time -v`` for the peak resident memory.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


from solve.holdem.buckets import HoldemBuckets, load_buckets, synthetic_buckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.evaluate import Policy, duplicate_match, local_best_response
from solve.holdem.game import HoldemRules, build_tree


def synthetic(k, cache: Path) -> HoldemBuckets:
    if cache.exists():
        z = np.load(cache)
        rounds = [z[f"r{r}"] for r in range(min(3, len(k)))]
        parents = [z[f"p{r}"] for r in range(len(k))]
        lut = z["lut"].reshape(len(parents[2]), -1) if len(k) == 4 else None
        return HoldemBuckets.from_arrays("synthetic", rounds, parents, lut,
                                         z["key"] if len(k) == 4 else None)
    b = synthetic_buckets(k, n_rounds=len(k))
    arrays = {f"r{r}": b.arrays[r] for r in range(min(3, len(k)))}
    arrays.update({f"p{r}": p for r, p in enumerate(b.parents)})
    if len(k) == 4:
        arrays.update(lut=b.arrays[3], key=b.river_key)
    np.savez(cache, **arrays)
    return b


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--buckets", default="20,800,4800,28800")
    ap.add_argument("--abstraction", default=None)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lbr-deals", type=int, default=200)
    ap.add_argument("--h2h-deals", type=int, default=20000)
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.abstraction:
        b = load_buckets(args.abstraction, args.data_dir)
    else:
        k = tuple(int(x) for x in args.buckets.split(","))
        cache = Path(args.cache or f"/tmp/holdem-bench-{'-'.join(map(str, k))}.npz")
        b = synthetic(k, cache)
    print(f"lookups {b.name} {b.n_buckets}: {time.perf_counter() - t0:.1f}s", flush=True)
    tree = build_tree(HoldemRules(n_rounds=b.n_rounds))
    s = HoldemCFR(tree, b, seed=0, threads=args.threads)
    print(f"tree {tree.n_nodes} nodes, {s.size_:,} (infoset, action) pairs = "
          f"{2 * 4 * s.size_ / 2 ** 30:.2f} GiB", flush=True)
    s.iterate(10)
    t0 = time.perf_counter()
    chunk = 1000
    while time.perf_counter() - t0 < args.seconds:
        ts = time.perf_counter()
        s.iterate(chunk)
        took = time.perf_counter() - ts
        print(f"  it={s.iteration_:>10,} {chunk / took:>10,.0f} it/s", flush=True)
        chunk = int(max(100, chunk * 5.0 / took))
    el = time.perf_counter() - t0
    print(f"CFR+: {s.iteration_ - 10:,} iterations in {el:.1f}s = "
          f"{(s.iteration_ - 10) / el:,.0f} it/s ({args.threads} thread(s))", flush=True)
    pol = Policy.table("x", tree, b, s.average_)
    for make in (Policy.always_call, Policy.always_raise):
        t0 = time.perf_counter()
        e = duplicate_match(tree, pol, make(tree, b), args.h2h_deals, seed=1)
        print(f"vs {make(tree, b).name}: {e} [{time.perf_counter() - t0:.1f}s]", flush=True)
    t0 = time.perf_counter()
    lbr, s0, s1 = local_best_response(tree, pol, args.lbr_deals, seed=2)
    el = time.perf_counter() - t0
    print(f"LBR: {lbr} [{el:.1f}s, {el / (2 * args.lbr_deals) * 1000:.1f} ms/game]", flush=True)


if __name__ == "__main__":
    main()
