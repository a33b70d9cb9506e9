"""Where numba's compile time goes in any command: per function, CPU seconds and signatures.

    python -m bench.compile_events -- python -m pytest -q -n 0 tests/test_holdem_best_response.py
    python -m bench.compile_events --top 40 --warm -- python cli.py strategy tour-holdem ...

Runs the command with ``bench/compile_events_site`` on ``PYTHONPATH`` (a ``sitecustomize``
that records numba's ``numba:compile`` events in every Python process below it) and, unless
``--warm``, an empty ``NUMBA_CACHE_DIR`` (what a fresh machine or CI pays). Then prints, per
compiled function over all processes: its own CPU seconds (nested compiles taken out), with
them, and how many signatures it was compiled for; and the argument types of the functions
compiled more than once in one process (a literal argument, another dtype, a layout: each is
a separate compile, and the usual cause of avoidable compile time). Every Python process
below it then imports numba as it starts (0.5-0.8 s more each here), so a test that
times a process's start-up (a Ctrl-C 0.3 s after it starts) can fail under it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench._common import wrapped_command

SITE = Path(__file__).resolve().parent / "compile_events_site"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=25, help="functions to list (default 25)")
    ap.add_argument("--warm", action="store_true",
                    help="keep numba's cache as it is (default: an empty one)")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = ap.parse_args()
    cmd = wrapped_command(ap, args)
    with tempfile.TemporaryDirectory(prefix="compile-events-") as tmp:
        env = dict(os.environ, COMPILE_EVENTS_DIR=tmp,
                   PYTHONPATH=os.pathsep.join(filter(None, [str(SITE),
                                                            os.environ.get("PYTHONPATH")])))
        if not args.warm:
            env["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba-cache")
        rc = subprocess.call(cmd, env=env)
        rows = [(p.name, json.loads(line)) for p in Path(tmp).glob("events-*.jsonl")
                for line in p.read_text().splitlines()]
    own, total = collections.Counter(), collections.Counter()
    sigs: dict[str, set] = collections.defaultdict(set)
    per_process: dict[tuple, list] = collections.defaultdict(list)
    for proc, r in rows:
        own[r["function"]] += r["own"]
        total[r["function"]] += r["total"]
        sigs[r["function"]].add(r["args"])
        per_process[proc, r["function"]].append(r["args"])
    print(f"\n{len(rows):,} compiles in {len({p for p, _ in rows})} processes, "
          f"{sum(own.values()):.1f} CPU s in all (exit code of the command: {rc})")
    print(f"{'own CPU s':>10} {'with nested':>12} {'signatures':>10}  function")
    for f, s in own.most_common(args.top):
        print(f"{s:10.2f} {total[f]:12.2f} {len(sigs[f]):10d}  {f}")
    again: dict[str, set] = collections.defaultdict(set)  # over every process that did
    for (_, f), a in per_process.items():
        if len(a) > 1 and "<locals>" not in f:  # not numba's own overloads (np.zeros...)
            again[f].update(a)
    if again:
        print("\ncompiled more than once in one process (argument types):")
        for f, a in sorted(again.items()):
            print(f"  {f}")
            for x in sorted(a):
                print(f"    {x[:300]}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
