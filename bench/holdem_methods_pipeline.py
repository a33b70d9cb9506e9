#!/usr/bin/env python
"""Issue 20's Texas Hold'em comparison from an empty data directory to its table, resumable.

Every step is a ``cli.py`` command (or ``python -m bench.bench_holdem_methods`` at the end) run
as its own process, at most ``--jobs`` at a time, one numba thread each unless said otherwise, in
an order that respects what each needs:

1. the equity tables (``etl``);
2. the abstractions at full size: perfect recall ``pa``, ``eb``, ``pa-emd``, ``ochs`` at
   20/800/4800/28800; imperfect recall ``eb`` and ``pa-emd`` at 169/9000/9000/9000 and
   ``ochs`` at 169/9000/9000/28232 (the perfect-recall game's information-set count); the GS4
   source game ``pa`` 169/800/4800/28800;
3. one CPU hour of solving each (the public sampler on every hand, plain regret matching,
   linear averaging, 10-minute checkpoints with a 50-board evaluation): the GS4 source first, then
   ``strategy`` 20/800/4800/28800 built from its strategy and solved like the others;
4. ``bench_holdem_methods.py`` on each strategy as its solve ends (``eval-RUN``: 400-board
   LBR, the baselines, 700,000-deal duplicate head-to-head against ``pa``), then the round
   robin of all eight (``compare``), every figure kept in ``DATA_DIR/holdem-methods-figures``
   as it is computed; the table written to ``--json`` and printed.

The order prefers what unblocks the most: the short builds, the GS4 source solve (the
strategy build waits on it), then the hour-long builds beside the solves. A step whose result
is stored is skipped (an abstraction in the catalog, a solve's
``run.json``); a solve with a checkpoint resumes it (``--resume``) and a build resumes its
saved rounds, so the same command continues after a stop, a crash or a new session. Each
step's output goes to ``LOGS/STEP.log``; the driver prints one line per step started or ended.
One driver per data directory at a time. Ctrl-C or SIGTERM to the driver stops the running
steps the way Ctrl-C stops them by hand (a solve finishes its chunk and checkpoints, a build
keeps its finished rounds) and waits for them, so the driver can be stopped and re-started
(e.g. with other ``--jobs``) losing seconds, not a checkpoint interval.

    python -m bench.holdem_methods_pipeline --data-dir /work/data-holdem --jobs 2

Cost: the builds took about 5.5 CPU hours as first measured in BENCHMARKS.md ("Abstraction
methods past GS3"); re-measured by this pipeline on 2026-11-26 (BENCHMARKS.md, "Hold'em
comparison, second run") imperfect-recall pa-emd took 20 minutes instead of 61 (the EMD
assignment's E|X - t| bounds) and imperfect-recall ochs 5 instead of 64 (its flop and turn read
from the shared round cache); then 9 CPU hours of solving and 2-3 of evaluation: more than one
session of a 2-core machine, hence resumable. ``--dry-run`` lists what is left.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from abstraction.store import list_abstractions
from etl.lock import try_file_lock
from schema.interrupt import deferred_stop

ROOT = Path(__file__).resolve().parents[1]

FULL = "20,800,4800,28800"
SOLVE_FLAGS = ["--sampler", "public", "--regret", "vanilla", "--averaging", "linear",
               "--hands-per-board", "0",
               "--time-limit", "3600", "--clock", "cpu", "--checkpoint-minutes", "10",
               "--lbr-boards", "50"]
#: (method, recall, buckets, source strategy of a GS4 build)
BUILDS = [("pa", "perfect", FULL, None), ("eb", "perfect", FULL, None),
          ("pa", "perfect", "169,800,4800,28800", None),
          ("eb", "imperfect", "169,9000,9000,9000", None),
          ("pa-emd", "perfect", FULL, None), ("ochs", "perfect", FULL, None),
          ("pa-emd", "imperfect", "169,9000,9000,9000", None),
          ("ochs", "imperfect", "169,9000,9000,28232", None),
          ("strategy", "perfect", FULL, "pa169-pcs-1t")]
#: the comparison's strategies (the reference first) and the GS4 source's
SOLVES = {"pa-pcs-1t": "holdem-pa-" + FULL.replace(",", "-"),
          "eb-pcs-1t": "holdem-eb-" + FULL.replace(",", "-"),
          "pa169-pcs-1t": "holdem-pa-169-800-4800-28800",
          "eb-ir-pcs-1t": "holdem-eb-ir-169-9000-9000-9000",
          "pa-emd-pcs-1t": "holdem-pa-emd-" + FULL.replace(",", "-"),
          "ochs-pcs-1t": "holdem-ochs-" + FULL.replace(",", "-"),
          "pa-emd-ir-pcs-1t": "holdem-pa-emd-ir-169-9000-9000-9000",
          "ochs-ir-pcs-1t": "holdem-ochs-ir-169-9000-9000-28232",
          "strategy-pcs-1t": "holdem-strategy-" + FULL.replace(",", "-")}
#: the order steps start in when several could: what unblocks the most first, then the
#: longest chain (imperfect-recall pa-emd's hour-long flop and turn, which ochs-ir reads) early
PRIORITY = ["etl", "holdem-pa-169-800-4800-28800", "holdem-pa-20-800-4800-28800",
            "pa169-pcs-1t", "holdem-eb-20-800-4800-28800", "holdem-eb-ir-169-9000-9000-9000",
            "holdem-strategy-20-800-4800-28800", "pa-pcs-1t",
            "holdem-pa-emd-ir-169-9000-9000-9000", "holdem-ochs-ir-169-9000-9000-28232",
            "strategy-pcs-1t", "eb-pcs-1t", "eb-ir-pcs-1t", "holdem-pa-emd-20-800-4800-28800",
            "holdem-ochs-20-800-4800-28800", "pa-emd-pcs-1t", "ochs-pcs-1t",
            "pa-emd-ir-pcs-1t", "ochs-ir-pcs-1t"]
COMPARED = ["pa-pcs-1t", "eb-pcs-1t", "pa-emd-pcs-1t", "ochs-pcs-1t", "strategy-pcs-1t",
            "eb-ir-pcs-1t", "pa-emd-ir-pcs-1t", "ochs-ir-pcs-1t"]
PRIORITY += [f"eval-{run}" for run in COMPARED] + ["compare"]
#: the comparison's parameters (each strategy's row and the round robin alike)
EVALUATION = ["--reference", COMPARED[0], "--h2h-deals", "700000", "--lbr-boards", "400"]


@dataclass
class Step:
    name: str
    argv: list[str]
    needs: list[str] = field(default_factory=list)
    threads: int = 1
    memory: float = 7.5  # GB at peak (BENCHMARKS.md), for --memory-gb


#: peak GB of the steps other than the default (BENCHMARKS.md: builds 4.7-8.5, the
#: imperfect-recall OCHS build 13-14.5; solves of a perfect-recall 20/800/4800/28800 game 5.3
#: with their checkpoint evaluations, of the 9,000-bucket imperfect-recall games 2.2, of
#: imperfect-recall OCHS with its per-hand river 7.5; an evaluation and the round robin hold
#: two strategies). Too high an estimate keeps the OCHS build from starting beside a solve.
MEMORY = {"etl": 6.0, "holdem-ochs-20-800-4800-28800": 9.0,
          "holdem-pa-emd-ir-169-9000-9000-9000": 9.0,
          "holdem-ochs-ir-169-9000-9000-28232": 14.5, "compare": 8.0,
          **{f"eval-{run}": 8.0 for run in COMPARED},
          **{run: 5.5 for run, a in SOLVES.items() if "-ir-" not in a},
          "eb-ir-pcs-1t": 2.5, "pa-emd-ir-pcs-1t": 2.5}


def abstraction_name(method: str, recall: str, buckets: str) -> str:
    return ("holdem-" + method + ("-ir" if recall == "imperfect" else "") + "-"
            + buckets.replace(",", "-"))


def figures(ddir: Path) -> Path:
    """Where every figure of the comparison is kept as computed (``--cache``)."""
    return ddir / "holdem-methods-figures"


def steps(ddir: Path, out_json: Path) -> list[Step]:
    cli = [sys.executable, str(ROOT / "cli.py"), "--data-dir", str(ddir)]
    out = [Step("etl", cli + ["etl", "--no-progress"], threads=2)]
    for method, recall, buckets, source in BUILDS:
        argv = cli + ["build-abstraction", "--game", "holdem", "--method", method, "--buckets",
                      buckets, "--workers", "1"]
        if recall == "imperfect":
            argv += ["--recall", "imperfect"]
        needs = ["etl"]
        if method == "ochs" and recall == "imperfect":
            # its flop and turn are imperfect-recall pa-emd's, read from the shared cache
            needs.append(abstraction_name("pa-emd", "imperfect", "169,9000,9000,9000"))
        if source:
            argv += ["--from-strategy", source]
            needs.append(source)
        out.append(Step(abstraction_name(method, recall, buckets), argv, needs))
    for run, abstraction in SOLVES.items():
        argv = cli + ["solve", "--game", "holdem", "--abstraction", abstraction, *SOLVE_FLAGS,
                      "--name", run]
        out.append(Step(run, argv, [abstraction]))
    bench = [sys.executable, "-m", "bench.bench_holdem_methods", "--data-dir",
             str(ddir), "--cache", str(figures(ddir)), *EVALUATION]
    for run in COMPARED:
        out.append(Step(f"eval-{run}", bench + [run, "--json", str(_eval_json(ddir, run))],
                        sorted({run, COMPARED[0]})))
    out.append(Step("compare", bench + [*COMPARED, "--round-robin", "--json", str(out_json)],
                    [f"eval-{run}" for run in COMPARED], threads=2))
    for st in out:
        st.memory = MEMORY.get(st.name, st.memory)
    return sorted(out, key=lambda st: PRIORITY.index(st.name))


def _eval_json(ddir: Path, run: str) -> Path:
    return figures(ddir) / "rows" / f"{run}.json"


def done(step: Step, ddir: Path, out_json: Path) -> bool:
    if step.name == "etl":
        return False  # incremental: seconds when every table is there, and it checks them
    if step.name == "compare":
        return out_json.exists()
    if step.name.startswith("eval-"):
        return _eval_json(ddir, step.name[len("eval-"):]).exists()
    if step.name in SOLVES:
        return (ddir / "strategies" / step.name / "run.json").exists()
    return step.name in {a["name"] for a in list_abstractions(ddir)}


def command(step: Step, ddir: Path) -> list[str]:
    """The step's argv, resuming a solve that has a checkpoint."""
    if step.name in SOLVES and (ddir / "strategies" / step.name / "checkpoint"
                                / "state.json").exists():
        return step.argv + ["--resume"]
    return step.argv


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--jobs", type=int, default=2, help="steps at a time (default 2)")
    ap.add_argument("--logs", type=Path, default=None, help="per-step logs (default "
                                                           "DATA_DIR/pipeline-logs)")
    ap.add_argument("--json", type=Path, default=None,
                    help="the comparison's figures (default DATA_DIR/holdem-methods.json)")
    ap.add_argument("--memory-gb", type=float, default=21.0,
                    help="start a step only while the running steps' peaks (estimated) and its "
                         "own stay under this (default 21 of the machine's 24 GiB)")
    ap.add_argument("--dry-run", action="store_true", help="list the steps left and stop")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    ddir = args.data_dir.resolve()
    ddir.mkdir(parents=True, exist_ok=True)
    logs = args.logs or ddir / "pipeline-logs"
    logs.mkdir(parents=True, exist_ok=True)
    out_json = args.json or ddir / "holdem-methods.json"
    plan = steps(ddir, out_json)
    finished = {s.name for s in plan if done(s, ddir, out_json)}
    left = [s for s in plan if s.name not in finished]
    if args.dry_run:
        for s in left:
            print(f"{s.name}: {' '.join(command(s, ddir))}")
        return 0
    with try_file_lock(ddir / ".locks" / "holdem-methods-pipeline.lock") as mine:
        if not mine:
            print(f"error: another holdem_methods_pipeline.py is driving {ddir}", file=sys.stderr)
            return 2
        with deferred_stop() as stop:
            return drive(plan, left, finished, args, ddir, logs, out_json, stop)


def _default_sigint() -> None:
    """In a step's process before it starts: Ctrl-C (SIGINT) back to its default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def drive(plan: list[Step], left: list[Step], finished: set[str], args, ddir: Path,
          logs: Path, out_json: Path, stop) -> int:
    """Run the steps ``left`` (see the module docstring); on a stop request, Ctrl-C every
    running step, wait for them and return 130."""
    running: dict[str, tuple[subprocess.Popen, float]] = {}
    failed: set[str] = set()
    stopping = False
    while left or running:
        if stop.requested and not stopping:
            stopping = True
            print(f"{time.strftime('%H:%M:%S')} stopping: {', '.join(running) or 'nothing'} "
                  "running (each keeps its work; re-run to resume)", flush=True)
            for proc, _ in running.values():
                proc.send_signal(signal.SIGINT)
        for name, (proc, t0) in list(running.items()):
            if proc.poll() is None:
                continue
            del running[name]
            when = time.strftime("%H:%M:%S")
            if proc.returncode == 0:
                finished.add(name)
                print(f"{when} done {name} ({time.time() - t0:.0f} s)", flush=True)
            elif stopping:
                print(f"{when} stopped {name} (exit {proc.returncode})", flush=True)
            else:
                failed.add(name)
                print(f"{when} FAILED {name} (exit {proc.returncode}; {logs / name}.log)",
                      flush=True)
        if stopping:
            if not running:
                return 130
            time.sleep(1)
            continue
        blocked = [s for s in left if any(n in failed for n in s.needs)]
        for s in blocked:
            failed.add(s.name)
            left.remove(s)
            print(f"skipped {s.name}: needs {', '.join(n for n in s.needs if n in failed)}")
        ready = [s for s in left if all(n in finished for n in s.needs)]
        for s in ready:
            if len(running) >= args.jobs:
                break
            in_use = sum(r.memory for r in plan if r.name in running)
            if running and in_use + s.memory > args.memory_gb:
                continue
            env = {**os.environ, "NUMBA_NUM_THREADS": str(s.threads),
                   "OPENBLAS_NUM_THREADS": str(s.threads), "OMP_NUM_THREADS": str(s.threads)}
            with open(logs / f"{s.name}.log", "a") as log:
                # its own process group: a Ctrl-C at the terminal reaches the driver only,
                # which passes it on (and waits); Ctrl-C restored for the step even when the
                # driver was started in the background (`nohup ... &` ignores SIGINT, and an
                # ignored signal stays ignored across exec)
                proc = subprocess.Popen(command(s, ddir), stdout=log, stderr=subprocess.STDOUT,
                                        env=env, cwd=ROOT, start_new_session=True,
                                        preexec_fn=_default_sigint)
            running[s.name] = (proc, time.time())
            left.remove(s)
            print(f"{time.strftime('%H:%M:%S')} started {s.name}", flush=True)
        if running:
            time.sleep(5)
        elif left:
            break  # nothing can start: every remaining step waits on a failed one
    if failed:
        print(f"failed or skipped: {', '.join(sorted(failed))}")
        return 1
    print(out_json.read_text() if out_json.exists() else "")
    return 0

if __name__ == "__main__":
    sys.exit(main())
