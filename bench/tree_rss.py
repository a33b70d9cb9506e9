"""Run a command and report its wall time and the peak memory of its whole process tree.

``/usr/bin/time -v`` reports the peak of the largest single process it waited for, which misses
pool workers (the ETL and the abstraction builder compute in worker processes). This samples
the summed resident set size of the command and all its descendants every 0.2 s.

    python -m bench.tree_rss -- python cli.py --data-dir D etl --no-progress
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import psutil

from bench._common import wrapped_command


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=0.2, help="sampling period, seconds")
    ap.add_argument("--log", default=None,
                    help="also write 'seconds GiB processes' every sample to this file")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command (after --)")
    args = ap.parse_args()
    cmd = wrapped_command(ap, args)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    root = psutil.Process(proc.pid)
    peak = peak_procs = 0
    log = open(args.log, "w") if args.log else None
    while proc.poll() is None:
        total = n = 0
        try:
            for p in [root] + root.children(recursive=True):
                try:
                    total += p.memory_info().rss
                    n += 1
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            pass
        if total > peak:
            peak, peak_procs = total, n
        if log:
            log.write(f"{time.perf_counter() - t0:.1f} {total / 2**30:.3f} {n}\n")
            log.flush()
        time.sleep(args.interval)
    if log:
        log.close()
    wall = time.perf_counter() - t0
    print(f"tree_rss: exit {proc.returncode}, wall {wall:.1f} s, peak tree RSS "
          f"{peak / 2**30:.2f} GiB ({peak_procs} processes at the peak)", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
