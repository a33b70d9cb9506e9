#!/usr/bin/env python
"""Issue 20's Texas Hold'em comparison from an empty data directory to its table, resumable:
``python cli.py experiment holdem-methods`` (``queries.holdem_methods``, which describes the
steps) with a default of two steps at a time.

    python -m bench.holdem_methods_pipeline --data-dir /work/data-holdem --jobs 2
    # the same as: python cli.py --data-dir /work/data-holdem experiment holdem-methods --jobs 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from queries.holdem_methods import PipelineOptions, run_pipeline
from schema.errors import UserError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--jobs", type=int, default=2, help="steps at a time (default 2)")
    ap.add_argument("--logs", type=Path, default=None, help="per-step logs (default "
                                                           "DATA_DIR/pipeline-logs)")
    ap.add_argument("--json", type=Path, default=None,
                    help="the comparison's figures (default DATA_DIR/holdem-methods.json)")
    ap.add_argument("--memory-gb", type=float, default=PipelineOptions.memory_gb,
                    help="start a step only while the running steps' peaks (estimated) and its "
                         "own stay under this (default 21 of the machine's 24 GiB)")
    ap.add_argument("--dry-run", action="store_true", help="list the steps left and stop")
    args = ap.parse_args(argv)
    try:
        return run_pipeline(args.data_dir, PipelineOptions(
            jobs=args.jobs, memory_gb=args.memory_gb, logs=args.logs, json=args.json,
            dry_run=args.dry_run))
    except UserError as exc:  # another driver on the data directory, a bad option
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
