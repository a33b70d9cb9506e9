#!/usr/bin/env python
"""L1 k-means steps of a strategy-based (GS4) build: the earlier numpy forms vs the current ones.

Side by side in one run, on random rows shaped like a Rhode Island turn parent of a strategy
build (``--rows`` strategy vectors of ``--dim`` action probabilities, ``--centres`` centres):
the L1 distance matrix by a per-centre numpy loop (before) and by ``abstraction.emd.L1``
(scipy's ``cdist``), and the weighted cluster sums by ``np.add.at`` (before) and by
``abstraction.metric_kmeans._means`` (a sparse membership product), with the largest
difference of each pair. Then the whole error curve of one parent (k = 1..``--kmax``, 4
seeded restarts and the warm start per k, as a build prices it) with Lloyd scanning every
distance (before: ``abstraction/metric_kmeans.py`` at git revision ``--before``) and with
the seeding and Lloyd skipping the pairs the triangle inequality rules out (now), on ``--rows`` rows of a stored Rhode Island
strategy's turn vectors (``--strategy NAME --data-dir D``; random rows without).

    python -m bench.bench_metric_kmeans --rows 70 --centres 70 --dim 1600
    python -m bench.bench_metric_kmeans --data-dir D --strategy rhode-island-rhode-island-lossless-full-dcfr \
        --rows 160 --kmax 60
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

from abstraction import metric_kmeans
from abstraction.emd import L1
from abstraction.metric_kmeans import _means
from abstraction.strategy_features import strategy_vectors

ROOT = Path(__file__).resolve().parents[1]


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


def module_at(rev: str, path: str = "abstraction/metric_kmeans.py"):
    """``path`` as it was at git revision ``rev`` (the "before" of the curve's row)."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{path}"], check=True,
                         capture_output=True, text=True).stdout
    mod = types.ModuleType(f"before_{rev}")
    exec(compile(src, f"{rev}:{path}", "exec"), mod.__dict__)
    return mod


def curve(module, x, w, kmax):
    return module.error_curve(x, w, L1(), kmax, lambda k: 1000 + k, n_init=4)[0]


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
    ap.add_argument("--kmax", type=int, default=30, help="error curve up to this k")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--strategy", default=None,
                    help="a stored Rhode Island strategy: its turn vectors for the curve")
    ap.add_argument("--before", default="4a7308f",
                    help="git revision of abstraction/metric_kmeans.py to compare the curve "
                         "with (default 4a7308f: every distance of every Lloyd step and seeding)")
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
    if args.strategy:
        vec = strategy_vectors(args.data_dir, args.strategy, "rhode-island")[2]
        vec = np.unique(np.round(vec, 12), axis=0)
        what = f"{args.strategy}'s turn vectors ({len(vec)} distinct, {vec.shape[1]} columns)"
    else:
        vec = rng.random((args.rows, args.dim))
        what = "random rows"
    pick = rng.choice(len(vec), min(args.rows, len(vec)), replace=False)
    x = vec[pick]
    w = rng.random(len(x))
    w /= w.sum()
    before = module_at(args.before)
    t_old, a = timed(lambda: curve(before, x, w, args.kmax), 1)
    t_new, b = timed(lambda: curve(metric_kmeans, x, w, args.kmax), 1)
    print(f"\nerror curve k = 1..{args.kmax} of {len(x)} rows of {what}\n")
    print("| k-means++ seeding and Lloyd | s | speed-up | largest difference of the curves |")
    print("|---|---:|---:|---:|")
    print(f"| every distance ({args.before}) | {t_old:.2f} | | |")
    print(f"| triangle-inequality bounds (now) | {t_new:.2f} | {t_old / t_new:.1f}x | "
          f"{float(np.abs(a - b).max()):.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
