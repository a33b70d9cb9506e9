"""Duplicate head-to-head between stored Hold'em strategies (issue 6), e.g. pa vs eb solved for
the same time, and each against the always-call / always-raise baselines.

    python -m bench.bench_holdem_h2h --data-dir /tmp/lead-data holdem-holdem-pa-cfr+ \
        holdem-holdem-eb-cfr+ --deals 200000
    # B as it was at one of its checkpoints (solve --keep-averages):
    python -m bench.bench_holdem_h2h --data-dir D A B --b-weights D/strategies/B/checkpoint/average-N.npy
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


from solve.holdem.run import load_policy
from solve.holdem.evaluate import Policy, duplicate_match


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--baseline-deals", type=int, default=100_000,
                    help="deals of each strategy against the baselines (0: skip)")
    ap.add_argument("--a-weights", default=None, help="average weights to use for A (.npy)")
    ap.add_argument("--b-weights", default=None, help="average weights to use for B (.npy)")
    args = ap.parse_args()
    cache: dict = {}
    pa, ta = load_policy(args.a, Path(args.data_dir), cache)
    pb, tb = load_policy(args.b, Path(args.data_dir), cache)
    for pol, tree, w in ((pa, ta, args.a_weights), (pb, tb, args.b_weights)):
        if w:
            pol.weights = np.ascontiguousarray(np.load(w), np.float32)
            pol.name += f" [{Path(w).name}]"
    t0 = time.perf_counter()
    e = duplicate_match(ta, pa, pb, args.deals, seed=21)
    print(f"{pa.name} vs {pb.name}: {e} [{time.perf_counter() - t0:.0f}s]", flush=True)
    for pol, tree in ((pa, ta), (pb, tb)) if args.baseline_deals > 0 else ():
        for make in (Policy.always_call, Policy.always_raise):
            opp = make(tree, pol.buckets)
            e = duplicate_match(tree, pol, opp, args.baseline_deals, seed=22)
            print(f"{pol.name} vs {opp.name}: {e}", flush=True)


if __name__ == "__main__":
    main()
