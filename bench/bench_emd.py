"""EMD under a ground matrix: ``EMDGround.pairwise`` beside POT's ``ot.emd2`` per pair.

    python -m bench.bench_emd [--bins 25] [--rows 2000] [--centres 8]

Potential-aware abstraction with EMD compares each hand's histogram over the next round's
clusters with every centre (``abstraction.emd.EMDGround``): one small transport problem per
pair. Prints CPU seconds and microseconds per pair for ``EMDGround.pairwise`` (POT's network
simplex called directly) and for the same pairs through ``ot.emd2`` (POT's public function,
the peer), and checks that the two agree to the last bit.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import ot

from abstraction.emd import EMDGround


def histograms(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """``n`` histograms over ``d`` bins, about half the bins empty (as next-round histograms of
    a hand are)."""
    x = rng.random((n, d)) * (rng.random((n, d)) < 0.5)
    x[:, 0] += 1e-3
    return x / x.sum(axis=1, keepdims=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bins", type=int, default=25, help="histogram bins (default 25)")
    ap.add_argument("--rows", type=int, default=2000, help="histograms (default 2000)")
    ap.add_argument("--centres", type=int, default=8, help="centres (default 8)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    pts = rng.random((args.bins, 3))
    ground = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    x, c = histograms(rng, args.rows, args.bins), histograms(rng, args.centres, args.bins)
    pairs = args.rows * args.centres

    t = time.process_time()
    ours = EMDGround(ground).pairwise(x, c)
    t_ours = time.process_time() - t

    t = time.process_time()
    peer = np.empty_like(ours)
    for i, p in enumerate(x):
        for j, q in enumerate(c):
            sp, sq = p > 0, q > 0
            a, b = p[sp], q[sq]
            peer[i, j] = ot.emd2(a / a.sum(), b / b.sum(), ground[np.ix_(sp, sq)])
    t_peer = time.process_time() - t

    print(f"{pairs:,} pairs of histograms over {args.bins} bins")
    print(f"{'':28} {'CPU s':>8} {'us/pair':>8}")
    print(f"{'EMDGround.pairwise':28} {t_ours:8.3f} {1e6 * t_ours / pairs:8.1f}")
    print(f"{'ot.emd2 per pair (POT)':28} {t_peer:8.3f} {1e6 * t_peer / pairs:8.1f}")
    print(f"speed-up {t_peer / t_ours:.1f}x; identical to the last bit: "
          f"{bool(np.array_equal(ours, peer))}")


if __name__ == "__main__":
    main()
