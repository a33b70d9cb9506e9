"""Rhode Island Hold'em abstractions: build time of eb, eb2 and pa for the 7 bucket settings.

Issue 4 target: each build under 2 minutes (2 cores). Prints a Markdown table for
BENCHMARKS.md. Usage:

    python -m bench.bench_abstraction_ri [--n-init 4] [--workers 1]
"""

from __future__ import annotations

import argparse
import sys
import time


from abstraction.games import rhode_island
from abstraction.methods import METHODS, Lossless

SETTINGS = [(13, 25, 125), (13, 50, 250), (13, 75, 500), (13, 100, 750), (13, 125, 1000),
            (13, 150, 1250), (13, 205, 1774)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-init", type=int, default=4)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t = time.perf_counter()
    game = rhode_island()
    print(f"hand tree + equities: {time.perf_counter() - t:.2f} s")
    lossless = Lossless().fit(game)
    print("| buckets | method | built | seconds | round-2 IP error | round-2 equal-split error "
          "| = lossless |")
    print("|---|---|---|---|---|---|---|")
    for buckets in SETTINGS:
        for method in ("eb", "eb2", "pa"):
            t = time.perf_counter()
            m = METHODS[method](buckets, random_state=args.seed, n_init=args.n_init,
                                workers=args.workers).fit(game)
            sec = time.perf_counter() - t
            rep = m.report_[2]
            same = ""
            if buckets == lossless.buckets_:
                same = str(all(len({(a, b) for a, b in zip(x.bucket, y.bucket)}) == x.n_buckets
                               == y.n_buckets for x, y in zip(m.rounds_, lossless.rounds_)))
            print(f"| {','.join(map(str, buckets))} | {method} | "
                  f"{','.join(map(str, m.buckets_))} | {sec:.1f} | {rep['ip_objective']:.3g} | "
                  f"{rep['equal_split_error']:.3g} | {same} |", flush=True)
    import resource

    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
