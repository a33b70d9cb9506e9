"""Texas Hold'em abstraction build: wall time and peak memory of the CLI command.

Issue 4 targets (2 cores): ``build-abstraction --buckets 20,800,4800,28800`` with the equity
tables built: eb under 10 minutes, pa under 30 minutes, peak memory under 16 GiB. Usage:

    python -m bench.bench_abstraction_holdem --data-dir DATA [--methods eb,pa] [--workers 2]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--methods", default="eb,pa")
    ap.add_argument("--buckets", default="20,800,4800,28800")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    print("| method | buckets | wall s | peak RSS GiB | exit |")
    print("|---|---|---|---|---|")
    for method in args.methods.split(","):
        cmd = [sys.executable, str(ROOT / "cli.py"), "--data-dir", args.data_dir,
               "build-abstraction", "--buckets", args.buckets, "--method", method,
               "--workers", str(args.workers), "--name", f"bench-holdem-{method}", "--replace"]
        t = time.perf_counter()
        rc = _run_isolated(cmd)  # a fresh parent per build: its children's peak is this one
        wall = time.perf_counter() - t
        print(f"| {method} | {args.buckets} | {wall:.0f} | {rc[1]:.2f} | {rc[0]} |", flush=True)
    return 0


def _run_isolated(cmd: list[str]) -> tuple[int, float]:
    """Run ``cmd`` in a fresh child that reports its own children's peak RSS."""
    probe = ("import resource, subprocess, sys; rc = subprocess.run(sys.argv[1:]).returncode; "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
             "sys.exit(rc)")
    p = subprocess.run([sys.executable, "-c", probe, *cmd], stderr=subprocess.PIPE, text=True)
    lines = p.stderr.strip().splitlines()
    sys.stderr.write("\n".join(lines[:-1]) + "\n")
    peak_kib = float(lines[-1]) if lines and lines[-1].isdigit() else float("nan")
    return p.returncode, peak_kib / 2**20


if __name__ == "__main__":
    sys.exit(main())
