#!/usr/bin/env python
"""EMD k-means on a line at Texas Hold'em size: each Lloyd step's scan from nothing vs from
each point's previous centre (``abstraction.line_kmeans``), side by side in one run.

The imperfect-recall flop (1,286,792 distinct river-equity histograms, 50 bins; or the turn's
13,960,050 with ``--round 2``) clustered into ``--k`` buckets for ``--steps`` Lloyd steps by
``line_kmeans`` with every step's scan starting from nothing (``warm=False``, as before
2026-11-26) and from each point's previous centre (``warm=True``, now), with the same seeds;
prints each one's seconds and whether labels, centres and error agree.

    python -m bench.bench_line_kmeans --data-dir D --k 9000 --steps 8

``--curve``: instead, the perfect-recall ``pa-emd``'s work on one flop parent -- the
incremental Lloyd error curve (``abstraction.lloyd``, k = 1..``--k``) of the ``--rows`` flop
histograms nearest equity 0.55 -- with a full scan per assignment (``emd_line_assign``, as
before) and with ``LineEMD``'s bounded scan (now).

    python -m bench.bench_line_kmeans --data-dir D --curve --rows 64000 --k 120
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from abstraction._emd_kernels import emd_line_assign
from abstraction.line_kmeans import line_kmeans
from abstraction.lloyd import LineEMD, incremental_curve
from abstraction.emd import EMDLine
from abstraction.holdem import holdem_hands


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--round", type=int, default=1, choices=(1, 2), help="1 flop, 2 turn")
    ap.add_argument("--k", type=int, default=9000)
    ap.add_argument("--steps", type=int, default=8, help="Lloyd steps (the builder caps at 30)")
    ap.add_argument("--curve", action="store_true", help="a pa-emd flop parent's error curve")
    ap.add_argument("--rows", type=int, default=64000, help="--curve: the parent's hands")
    args = ap.parse_args()
    if args.curve:
        return curve(args)
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


class FullScan(LineEMD):
    """``LineEMD`` with the assignment it had before: every centre, partial sums only."""

    def assign(self, x, c):
        return emd_line_assign(x, np.ascontiguousarray(c), self.gaps)


def curve(args) -> int:
    x, _ = holdem_hands(args.data_dir).rounds[1].histogram.distinct()
    line = EMDLine.equity_bins(x.shape[1])
    mean = x @ line.positions
    cx = line.cdf(x[np.argsort(np.abs(mean - 0.55), kind="stable")[:args.rows]])
    w = np.random.default_rng(0).random(len(cx))
    w /= w.sum()
    out = {}
    for label, dist in (("full scan (before)", FullScan(line.gaps)),
                        ("bounded scan (now)", LineEMD(line.gaps))):
        t0 = time.perf_counter()
        c, _ = incremental_curve(cx, w, args.k, 7, dist=dist)
        out[label] = (time.perf_counter() - t0, c)
    (a_label, (ta, ca)), (b_label, (tb, cb)) = out.items()
    print(f"\nerror curve k = 1..{args.k} of {len(cx):,} flop histograms (nearest equity 0.55)\n")
    print("| assignment | s | speed-up | error at the last k |")
    print("|---|---:|---:|---:|")
    print(f"| {a_label} | {ta:.1f} | | {float(ca[-1])!r} |")
    print(f"| {b_label} | {tb:.1f} | {ta / tb:.2f}x | {float(cb[-1])!r} |")
    print(f"\ncurves equal: {np.array_equal(ca, cb)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
