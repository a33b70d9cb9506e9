"""The wall time of an exact best response on W workers, projected from the CPU seconds its
flops took (issue 51): each canonical flop is one task (a worker process or a Dask task), so
a run on W workers lasts the longest worker's share of the per-flop times.

    python -m bench.bench_exact_workers --data-dir D --strategy pa-1h
    python -m bench.bench_exact_workers --data-dir D --strategy pa-1h --workers 2,16,64,256

Reads the seconds ``evaluate NAME --best-response exact`` keeps beside each stored flop
(``FlopStore.seconds``: the CPU time of the worker that walked it, under whatever else shared
the machine). Flops not yet walked, or walked before the seconds were kept, are given the
measured flops' CPU seconds per river board times their own river boards
(``bench_holdem_best_response.river_boards_per_flop``: 675 to 2,352 per flop). The tasks are
then placed longest first on the least loaded of W workers (LPT, what a greedy scheduler
does given the largest tasks first; within 4/3 of the best placement) and the longest
worker's load is the projected wall time, against the ideal total / W.
"""

from __future__ import annotations

import argparse
import heapq
import sys
from pathlib import Path

import numpy as np

from bench.bench_holdem_best_response import river_boards_per_flop
from solve.holdem import best_response as BR
from solve.holdem.run import load_policy, spec_parts


def makespan(times: np.ndarray, workers: int) -> float:
    """The longest worker's load when ``times`` are placed longest first on the least loaded
    of ``workers``."""
    loads = [0.0] * workers
    heapq.heapify(loads)
    for t in np.sort(times)[::-1]:
        heapq.heapreplace(loads, loads[0] + float(t))
    return max(loads)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default="data", help="read only")
    ap.add_argument("--strategy", required=True, help="a strategy with a (running or finished) "
                    "exact best response")
    ap.add_argument("--workers", default="2,16,64,256", help="worker counts to project")
    args = ap.parse_args(argv)
    try:
        counts = [int(w) for w in args.workers.split(",")]
    except ValueError:
        ap.error("--workers: comma-separated integers")
    if not counts or min(counts) < 1:
        ap.error("--workers: at least one, each >= 1")
    ddir = Path(args.data_dir)
    pol, tree = load_policy(args.strategy, ddir, {})
    key = BR.store_key(ddir, args.strategy, tree, BR.FULL_DECK)
    folder = BR.FlopStore.folder(ddir / "strategies" / spec_parts(args.strategy)[0]
                                 / "evaluations", key)
    secs = BR.FlopStore(folder, key).seconds()
    if not secs:
        print(f"no measured flop times in {folder} (run evaluate {args.strategy} "
              "--best-response exact first)", file=sys.stderr)
        return 1
    boards = river_boards_per_flop()
    done = np.array(sorted(secs))
    t_done = np.array([secs[i] for i in done])
    per_board = t_done / boards[done]
    rate = t_done.sum() / boards[done].sum()
    times = boards * rate
    times[done] = t_done
    stored = len(list(folder.glob("flop*.npy")))
    print(f"{args.strategy}: {len(done):,} of 1,755 flops with measured CPU seconds ({stored:,} "
          f"stored); per flop {t_done.min():.1f} / {np.median(t_done):.1f} / {t_done.max():.1f} "
          f"s (min / median / max), per river board {1e3 * per_board.min():.1f} / "
          f"{1e3 * np.median(per_board):.1f} / {1e3 * per_board.max():.1f} ms, "
          f"{1e3 * rate:.1f} ms over them")
    total = times.sum()
    print(f"all 1,755 flops: {total / 3600:.1f} CPU hours ({t_done.sum() / 3600:.1f} measured, "
          f"the rest at {1e3 * rate:.1f} ms per river board x their "
          f"{int(boards.sum() - boards[done].sum()):,} river boards)")
    print(f"{'workers':>8} {'wall h (LPT)':>13} {'total / W h':>12} {'longest flop s':>15}")
    for w in counts:
        print(f"{w:>8} {makespan(times, w) / 3600:>13.2f} {total / w / 3600:>12.2f} "
              f"{times.max():>15.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
