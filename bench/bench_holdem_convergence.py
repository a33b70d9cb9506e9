"""Convergence of Texas Hold'em solve runs (issue 17): the LBR bound, the results against
always-call and always-raise, and head-to-head against a reference strategy (by default the
longest run's final one), each against solve time, from the runs' checkpoint evaluations.

    python -m bench.bench_holdem_convergence --data-dir D holdem-holdem-pa-cfr+ \
        holdem-holdem-pa-pcs-h64 --out docs/holdem-convergence.png

The same as ``python cli.py --data-dir D evaluate RUN --curve --with RUN2 ...``
(``solve.holdem.curve``), for the commands recorded in BENCHMARKS.md. Prints one Markdown
table per run and saves the four panels as a PNG.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


from schema.errors import UserError
from solve.holdem import curve


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--reference", default=None,
                    help="strategy to play head-to-head (default: the run with most solve time)")
    ap.add_argument("--h2h-deals", type=int, default=20_000)
    ap.add_argument("--lbr-boards", type=int, default=0,
                    help="measure the LBR bound of every kept checkpoint again over the same "
                         "boards (seed 2024, the 400-board tables' boards) instead of the logged one")
    ap.add_argument("--out", default=None, help="PNG of the four panels")
    args = ap.parse_args()
    try:
        ref, curves = curve.convergence(args.data_dir, args.runs, args.reference, args.h2h_deals,
                                        lbr_boards=args.lbr_boards)
    except UserError as exc:
        raise SystemExit(f"error: {exc}") from None
    for r, points in curves.items():
        print(f"\n{curve.markdown(r, points)}\n\n(head-to-head against {ref}, "
              f"{args.h2h_deals:,} duplicate deals)")
    if args.out:
        print(f"\nsaved {curve.plot(curves, ref, Path(args.out))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
