#!/usr/bin/env python
"""EMD k-means on a line at Texas Hold'em size: each Lloyd step's scan from nothing vs from
each point's previous centre (``abstraction.line_kmeans``), side by side in one run.

The imperfect-recall flop (1,286,792 distinct river-equity histograms, 50 bins; or the turn's
13,960,050 with ``--round 2``) clustered into ``--k`` buckets for ``--steps`` Lloyd steps by
``line_kmeans`` with every step's scan starting from nothing (``warm=False``, as before
2026-11-26) and from each point's previous centre (``warm=True``, now), with the same seeds;
prints each one's seconds and whether labels, centres and error agree.

    python bench/bench_line_kmeans.py --data-dir D --k 9000 --steps 8
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from abstraction.line_kmeans import line_kmeans  # noqa: E402
from abstraction.emd import EMDLine  # noqa: E402
from abstraction.holdem import holdem_hands  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--round", type=int, default=1, choices=(1, 2), help="1 flop, 2 turn")
    ap.add_argument("--k", type=int, default=9000)
    ap.add_argument("--steps", type=int, default=8, help="Lloyd steps (the builder caps at 30)")
    args = ap.parse_args()
    h = holdem_hands(args.data_dir).rounds[args.round]
    x, inverse = h.histogram.distinct()
    w = np.bincount(inverse, weights=h.weight, minlength=len(x))
    w /= w.sum()
    line = EMDLine.equity_bins(x.shape[1])
    np.cumsum(x, axis=1, out=x)
    runs = {}
    for label, warm in (("cold scan (before)", False), ("from the previous centre (now)", True)):
        t0 = time.perf_counter()
        runs[label] = line_kmeans(x, w, line.gaps, args.k, max_iter=args.steps, rtol=0.0,
                                  progress=True, desc=label, warm=warm)
        runs[label] += (time.perf_counter() - t0,)
    (a_label, a), (b_label, b) = runs.items()
    print(f"\nround {args.round}: {len(x):,} distinct histograms x {x.shape[1]} bins, "
          f"k = {args.k:,}, {args.steps} Lloyd steps at most\n")
    print("| assignment | steps | s | speed-up | error |")
    print("|---|---:|---:|---:|---:|")
    print(f"| {a_label} | {a[3]} | {a[4]:.1f} | | {a[2]:.6g} |")
    print(f"| {b_label} | {b[3]} | {b[4]:.1f} | {a[4] / b[4]:.1f}x | {b[2]:.6g} |")
    print(f"\nlabels equal: {np.array_equal(a[0], b[0])}; largest centre difference: "
          f"{float(np.abs(a[1] - b[1]).max()):.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
