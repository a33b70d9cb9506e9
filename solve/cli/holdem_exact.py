"""``evaluate NAME --best-response exact``: the exact best response to a Hold'em strategy in the
real game, both seats, every deal (``solve.holdem.best_response``; issue 51).

    python cli.py evaluate holdem-holdem-pa-pcs-plus-h64 --best-response exact --workers 2
    python cli.py evaluate holdem-holdem-pa-pcs-plus-h64 --best-response exact --scheduler local:16

The flops finished so far are kept under the strategy's ``evaluations/`` folder: the same
command again (after Ctrl-C, a kill, a lost machine) resumes; a second run on the same strategy
at the same time is refused. ``--progress-file FILE`` also keeps the run's progress in one
small file (the flops summed in order so far, keyed by the strategy's content): on another
machine, the same strategy solved again (same abstraction build, same iterations) resumes
from it.

    python cli.py evaluate pa-1h --best-response exact --workers 2 --progress-file pa-1h.npz
"""

from __future__ import annotations

import argparse
from pathlib import Path

from etl.cluster import check_scheduler
from schema.errors import UserError
from solve.holdem import best_response


def add_arguments(e: argparse.ArgumentParser) -> None:
    """The options of ``evaluate`` for the exact best response."""
    g = e.add_argument_group("holdem exact best response (--best-response exact)")
    g.add_argument("--best-response", choices=["exact"], default=None,
                   help="holdem: each seat's best response in the real game (every private hand "
                   "and board, no abstraction on the responder, no sampling): exploitability in "
                   "mbb/g and the game value the strategy implies; resumes a killed run")
    g.add_argument("--workers", type=int, default=0,
                   help="--best-response: local worker processes (default: this process)")
    g.add_argument("--scheduler", default=None, metavar="local:N|tcp://HOST:PORT",
                   help="--best-response: run the flops on a Dask cluster (its workers must see "
                   "the data directory)")
    g.add_argument("--progress-file", type=Path, default=None, metavar="FILE",
                   help="--best-response: start from the progress in FILE if it exists (only "
                   "the same strategy's, checked by a digest of its weights and buckets) and "
                   "keep the run's progress there as it goes (a few hundred KB, at most once "
                   "a minute): carries a run to another machine")


def run(args) -> int:
    """``evaluate NAME --best-response exact`` (``NAME~TAU`` with ``--threshold TAU``)."""
    if not args.best_response:
        raise UserError("--workers, --scheduler and --progress-file: only with "
                        "--best-response exact")
    if args.curve:
        raise UserError("--best-response takes no --curve")
    if args.workers < 0:
        raise UserError(f"--workers must be at least 0, got {args.workers}")
    if args.scheduler:
        check_scheduler(args.scheduler)
    spec = args.strategy if args.threshold is None else f"{args.strategy}~{args.threshold}"
    res = best_response.run_exact(args.data_dir, spec, workers=args.workers,
                                  scheduler=args.scheduler,
                                  progress_file=args.progress_file, report=print)
    d = res.as_dict()
    print(f"exact best response (every deal, {res.flops:,} canonical flops): exploitability "
          f"{res.exploitability_mbb:.3f} mbb/g [best response as seat 0: "
          f"{d['br_seat0_mbb']:+.3f}, as seat 1: {d['br_seat1_mbb']:+.3f}]; game value (seat 0, "
          f"the strategy against itself): {res.value_mbb:+.3f} mbb/g")
    return 0
