"""Texas Hold'em abstractions compared through their solved strategies (issue 20), from the
shell: ``queries.holdem_methods_eval`` (what each row and the round robin measure) with its
options as flags.

    NUMBA_NUM_THREADS=2 python -m bench.bench_holdem_methods --data-dir D pa-pcs-1t \
        eb-pcs-1t ochs-pcs-1t --reference pa-pcs-1t --h2h-deals 300000 --lbr-boards 400

A strategy may be taken at one of its checkpoints as ``NAME@ITERATIONS``. Prints a Markdown
table; ``--json`` also writes the figures. With ``--cache DIR`` every row and head-to-head pair
is kept as it is computed, so a stopped comparison resumes and a later one with more strategies
reuses them (``python cli.py experiment holdem-methods`` evaluates each strategy as its solve
ends and plays the round robin last, with ``DATA_DIR/holdem-methods-figures`` as the cache).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from queries.holdem_methods_eval import Evaluation, evaluate_methods
from schema.errors import UserError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("strategies", nargs="+", help="NAME or NAME@ITERATIONS")
    ap.add_argument("--reference", default=None, help="head-to-head opponent (default: the "
                                                      "first strategy)")
    ap.add_argument("--h2h-deals", type=int, default=300_000)
    ap.add_argument("--baseline-deals", type=int, default=100_000)
    ap.add_argument("--lbr-boards", type=int, default=400)
    ap.add_argument("--round-robin", action="store_true",
                    help="also head-to-head of every pair (--h2h-deals each)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep every figure here as it is computed and reuse what is there "
                         "(resumable; runs with the same data share rows and pairs)")
    args = ap.parse_args(argv)
    if not args.data_dir.is_dir():
        ap.error(f"--data-dir {args.data_dir} is not a directory")
    try:
        evaluate_methods(args.data_dir, Evaluation(
            tuple(args.strategies), reference=args.reference, h2h_deals=args.h2h_deals,
            baseline_deals=args.baseline_deals, lbr_boards=args.lbr_boards,
            round_robin=args.round_robin, json=args.json, cache=args.cache))
    except UserError as exc:  # a strategy that is not there, a bad NAME@ITERATIONS
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
