#!/usr/bin/env python
"""L1 k-means steps of a strategy-based (GS4) build: the earlier numpy forms vs the current ones.

Side by side in one run, on random rows shaped like a Rhode Island turn parent of a strategy
build (``--rows`` strategy vectors of ``--dim`` action probabilities, ``--centres`` centres):
the L1 distance matrix by a per-centre numpy loop (before) and by ``abstraction.emd.L1``
(scipy's ``cdist``), and the weighted cluster sums by ``np.add.at`` (before) and by
``abstraction.metric_kmeans._means`` (a sparse membership product), with the largest
difference of each pair.

    python bench/bench_metric_kmeans.py --rows 70 --centres 70 --dim 1600
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from abstraction.emd import L1  # noqa: E402
from abstraction.metric_kmeans import _means  # noqa: E402


def l1_loop(x, c):
    out = np.empty((len(x), len(c)))
    for j in range(len(c)):
        out[:, j] = np.abs(x - c[j]).sum(axis=1)
    return out


def means_add_at(x, w, labels, k, old):
    ws = np.bincount(labels, weights=w, minlength=k)
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, w[:, None] * x)
    out = old.copy()
    nz = ws > 0
    out[nz] = sums[nz] / ws[nz, None]
    return out


def timed(fn, repeat):
    fn()
    t0 = time.perf_counter()
    for _ in range(repeat):
        out = fn()
    return (time.perf_counter() - t0) / repeat, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=70)
    ap.add_argument("--centres", type=int, default=70)
    ap.add_argument("--dim", type=int, default=1600)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.random((args.rows, args.dim))
    c = rng.random((args.centres, args.dim))
    w = rng.random(args.rows)
    labels = rng.integers(0, args.centres, args.rows)
    rows = []
    t_old, a = timed(lambda: l1_loop(x, c), args.repeat)
    t_new, b = timed(lambda: L1().pairwise(x, c), args.repeat)
    rows.append(("L1 distances", t_old, t_new, float(np.abs(a - b).max())))
    t_old, a = timed(lambda: means_add_at(x, w, labels, args.centres, c), args.repeat)
    t_new, b = timed(lambda: _means(x, w, labels, args.centres, c), args.repeat)
    rows.append(("cluster means", t_old, t_new, float(np.abs(a - b).max())))
    print(f"{args.rows} rows x {args.centres} centres x {args.dim} dimensions, "
          f"mean of {args.repeat} calls\n")
    print("| step | before (numpy) ms | now ms | speed-up | largest difference |")
    print("|---|---:|---:|---:|---:|")
    for name, old, new, diff in rows:
        print(f"| {name} | {old * 1e3:.3f} | {new * 1e3:.3f} | {old / new:.1f}x | {diff:.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
