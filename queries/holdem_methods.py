"""``cli.py experiment holdem-methods``: issue 20's Texas Hold'em comparison from an empty data
directory to its table, resumable.

Every step runs in a process of its own (``python -m queries.holdem_methods DATA_DIR STEP
OUT_JSON``: this module's :func:`run_step`, which calls the library function of the step), at
most ``jobs`` at a time, one numba thread each unless said otherwise, in an order that respects
what each needs:

1. the equity tables (``etl.runner.run``, as ``cli.py etl``);
2. the abstractions at full size (``queries.builds.build_abstraction``, as ``cli.py
   build-abstraction --game holdem --workers 1``): perfect recall ``pa``, ``eb``, ``pa-emd``,
   ``ochs`` at 20/800/4800/28800; imperfect recall ``eb`` and ``pa-emd`` at 169/9000/9000/9000
   and ``ochs`` at 169/9000/9000/28232 (the perfect-recall game's information-set count); the
   GS4 source game ``pa`` 169/800/4800/28800;
3. one CPU hour of solving each (``solve.holdem.run.solve_holdem``, as ``cli.py solve --game
   holdem``: the public sampler on every hand, plain regret matching, linear averaging,
   10-minute checkpoints with a 50-board evaluation): the GS4 source first, then ``strategy``
   20/800/4800/28800 built from its strategy and solved like the others;
4. each strategy evaluated as its solve ends (``eval-RUN``, ``queries.holdem_methods_eval``:
   400-board LBR, the baselines, 700,000-deal duplicate head-to-head against ``pa``), then the
   round robin of all eight (``compare``), every figure kept in
   ``DATA_DIR/holdem-methods-figures`` as it is computed; the table written to ``json`` (default
   ``DATA_DIR/holdem-methods.json``) and printed.

The order prefers what unblocks the most: the short builds, the GS4 source solve (the strategy
build waits on it), then the hour-long builds beside the solves. A step whose result is stored
is skipped (an abstraction in the catalog, a solve's ``run.json``, an evaluation's JSON); a
solve with a checkpoint resumes it and a build resumes its saved rounds, so the same command
continues after a stop, a crash or a new session. Each step's output goes to
``LOGS/STEP.log`` (default ``DATA_DIR/pipeline-logs``); the driver prints one line per step
started or ended. One driver per data directory at a time. Ctrl-C or SIGTERM to the driver
stops the running steps the way Ctrl-C stops them by hand (a solve finishes its chunk and
checkpoints, a build keeps its finished rounds) and waits for them, so the driver can be
stopped and re-started (e.g. with another ``jobs``) losing seconds, not a checkpoint interval.

    python cli.py --data-dir /work/data-holdem experiment holdem-methods --jobs 2

Cost: the builds took about 5.5 CPU hours as first measured in BENCHMARKS.md ("Abstraction
methods past GS3"); re-measured by this pipeline on 2026-11-26 (BENCHMARKS.md, "Hold'em
comparison, second run") imperfect-recall pa-emd took 20 minutes instead of 61 (the EMD
assignment's E|X - t| bounds) and imperfect-recall ochs 5 instead of 64 (its flop and turn read
from the shared round cache); then 9 CPU hours of solving and 2-3 of evaluation: more than one
session of a 2-core machine, hence resumable. ``dry_run`` lists what is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from abstraction.store import list_abstractions
from etl.lock import try_file_lock
from etl.runner import run as run_etl
from etl.tables import all_tables
from queries.builds import build_abstraction
from queries.holdem_methods_eval import Evaluation, evaluate_methods
from queries.views import create_views
from schema.errors import ParameterError, UserError
from schema.interrupt import deferred_stop
from solve.holdem.run import HoldemSolveOptions, solve_holdem

#: the project's root: the steps' working directory, so ``-m queries.holdem_methods`` imports
ROOT = Path(__file__).resolve().parents[1]
MODULE = "queries.holdem_methods"

FULL = "20,800,4800,28800"
#: every solve's options (``HoldemSolveOptions``), besides its abstraction, name and resume
SOLVE = dict(sampler="public", regret="vanilla", averaging="linear", hands_per_board=0,
             time_limit=3600.0, clock="cpu", checkpoint_minutes=10.0, lbr_boards=50)
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
EVALUATION = dict(reference=COMPARED[0], h2h_deals=700_000, lbr_boards=400)


@dataclass(frozen=True)
class PipelineOptions:
    """How the pipeline runs: ``jobs`` steps at a time; a step starts only while the running
    steps' estimated peaks and its own stay under ``memory_gb``; each step's output in
    ``logs`` (default ``DATA_DIR/pipeline-logs``); the table in ``json`` (default
    ``DATA_DIR/holdem-methods.json``); ``dry_run``: list the steps left and stop."""

    jobs: int = 2
    memory_gb: float = 21.0  # of the machine's 24 GiB
    logs: Path | None = None
    json: Path | None = None
    dry_run: bool = False

    def __post_init__(self):
        if self.jobs < 1:
            raise ParameterError(f"`jobs` must be at least 1, got {self.jobs}")
        if not self.memory_gb > 0:
            raise ParameterError(f"`memory_gb` must be positive, got {self.memory_gb}")


@dataclass
class Step:
    """One step: its name, the child process that runs it (``argv``), the steps it waits
    for, its numba threads, its peak memory and what the child does (:func:`run_step`:
    ``(kind, keyword arguments)``, a kind of :data:`KINDS`)."""

    name: str
    argv: list[str]
    needs: list[str] = field(default_factory=list)
    threads: int = 1
    memory: float = 7.5  # GB at peak (BENCHMARKS.md), for memory_gb
    call: tuple[str, dict] | None = None


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
    """Where every figure of the comparison is kept as computed (the evaluation's cache)."""
    return ddir / "holdem-methods-figures"


def default_json(ddir: Path) -> Path:
    return ddir / "holdem-methods.json"


def steps(ddir: Path, out_json: Path) -> list[Step]:
    """The whole plan, in :data:`PRIORITY` order."""
    out = [Step("etl", [], threads=2, call=("etl", {}))]
    for method, recall, buckets, source in BUILDS:
        name = abstraction_name(method, recall, buckets)
        needs = ["etl"]
        if method == "ochs" and recall == "imperfect":
            # its flop and turn are imperfect-recall pa-emd's, read from the shared cache
            needs.append(abstraction_name("pa-emd", "imperfect", "169,9000,9000,9000"))
        if source:
            needs.append(source)
        out.append(Step(name, [], needs, call=("build", dict(
            method=method, buckets=buckets, name=name, recall=recall, from_strategy=source))))
    for run, abstraction in SOLVES.items():
        out.append(Step(run, [], [abstraction],
                        call=("solve", dict(abstraction=abstraction, **SOLVE, name=run))))
    common = dict(EVALUATION, cache=str(figures(ddir)))
    for run in COMPARED:
        out.append(Step(f"eval-{run}", [], sorted({run, COMPARED[0]}), call=("evaluate", dict(
            strategies=[run], **common, json=str(_eval_json(ddir, run))))))
    out.append(Step("compare", [], [f"eval-{run}" for run in COMPARED], threads=2,
                    call=("evaluate", dict(strategies=COMPARED, **common, round_robin=True,
                                           json=str(out_json)))))
    for st in out:
        st.memory = MEMORY.get(st.name, st.memory)
        st.argv = [sys.executable, "-m", MODULE, str(ddir), st.name, str(out_json)]
    return sorted(out, key=lambda st: PRIORITY.index(st.name))


def _eval_json(ddir: Path, run: str) -> Path:
    return figures(ddir) / "rows" / f"{run}.json"


def done(step: Step, ddir: Path, out_json: Path) -> bool:
    """Whether the step's result is stored (the etl step never is: it is incremental, seconds
    when every table is there, and it checks them)."""
    if step.name == "etl":
        return False
    if step.name == "compare":
        return out_json.exists()
    if step.name.startswith("eval-"):
        return _eval_json(ddir, step.name[len("eval-"):]).exists()
    if step.name in SOLVES:
        return (ddir / "strategies" / step.name / "run.json").exists()
    return step.name in {a["name"] for a in list_abstractions(ddir)}


def resumes(step: Step, ddir: Path) -> bool:
    """A solve with a checkpoint continues it."""
    return step.name in SOLVES and (ddir / "strategies" / step.name / "checkpoint"
                                    / "state.json").exists()


def describe(step: Step, ddir: Path) -> str:
    """What the step calls, for ``dry_run``: ``kind(key=value, ...)``."""
    kind, kwargs = step.call if step.call else ("run", {"argv": " ".join(step.argv)})
    if resumes(step, ddir):
        kwargs = {**kwargs, "resume": True}
    return f"{kind}({', '.join(f'{k}={v!r}' for k, v in kwargs.items() if v is not None)})"


def run_pipeline(data_dir: Path, options: PipelineOptions = PipelineOptions()) -> int:
    """The pipeline on ``data_dir`` (created if missing): the steps left, ``options.jobs`` at a
    time (see the module docstring). Returns 0 when every step has finished (the table printed),
    1 when some failed or waited on a failed one, 130 when stopped (Ctrl-C or SIGTERM).

    Raises:
        UserError: another driver holds the data directory.
    """
    ddir = Path(data_dir).resolve()
    ddir.mkdir(parents=True, exist_ok=True)
    logs = Path(options.logs) if options.logs else ddir / "pipeline-logs"
    out_json = Path(options.json).resolve() if options.json else default_json(ddir)
    plan = steps(ddir, out_json)
    finished = {s.name for s in plan if done(s, ddir, out_json)}
    left = [s for s in plan if s.name not in finished]
    if options.dry_run:
        for s in left:
            print(f"{s.name}: {describe(s, ddir)}")
        return 0
    logs.mkdir(parents=True, exist_ok=True)
    with try_file_lock(ddir / ".locks" / "holdem-methods-pipeline.lock") as mine:
        if not mine:
            raise UserError(f"another holdem-methods pipeline is driving {ddir}")
        with deferred_stop() as stop:
            return drive(plan, left, finished, options, logs, out_json, stop)


def _default_sigint() -> None:
    """In a step's process before it starts: Ctrl-C (SIGINT) back to its default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(s: Step, logs: Path) -> subprocess.Popen:
    """The step's process: its output appended to its log, its threads set, in a session of
    its own."""
    env = {**os.environ, "NUMBA_NUM_THREADS": str(s.threads),
           "OPENBLAS_NUM_THREADS": str(s.threads), "OMP_NUM_THREADS": str(s.threads)}
    with open(logs / f"{s.name}.log", "a") as log:
        # its own process group: a Ctrl-C at the terminal reaches the driver only, which
        # passes it on (and waits); Ctrl-C restored for the step even when the driver was
        # started in the background (`nohup ... &` ignores SIGINT, and an ignored signal
        # stays ignored across exec)
        return subprocess.Popen(s.argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                cwd=ROOT, start_new_session=True, preexec_fn=_default_sigint)


#: Seconds between the driver's looks at its steps and at a stop request (a step that ends
#: is followed by the next within this; the looks cost nothing beside hour-long steps).
POLL = 0.5


def drive(plan: list[Step], left: list[Step], finished: set[str], options: PipelineOptions,
          logs: Path, out_json: Path, stop) -> int:
    """Run the steps ``left`` (see the module docstring); on a stop request, Ctrl-C every
    running step, wait for them and return 130."""
    ddir = out_json.parent
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
        _reap(running, finished, failed, stopping, logs)
        if stopping:
            if not running:
                return 130
            time.sleep(POLL)
            continue
        blocked = [s for s in left if any(n in failed for n in s.needs)]
        for s in blocked:
            failed.add(s.name)
            left.remove(s)
            print(f"skipped {s.name}: needs {', '.join(n for n in s.needs if n in failed)}")
        for s in [s for s in left if all(n in finished for n in s.needs)]:
            if len(running) >= options.jobs:
                break
            in_use = sum(r.memory for r in plan if r.name in running)
            if running and in_use + s.memory > options.memory_gb:
                continue
            running[s.name] = (_start(s, logs), time.time())
            left.remove(s)
            print(f"{time.strftime('%H:%M:%S')} started {s.name}", flush=True)
        if running:
            time.sleep(POLL)
        elif left:
            break  # nothing can start: every remaining step waits on a failed one
    if failed:
        print(f"failed or skipped: {', '.join(sorted(failed))}")
        return 1
    print(out_json.read_text() if out_json.exists() else "")
    return 0


def _reap(running: dict, finished: set[str], failed: set[str], stopping: bool,
          logs: Path) -> None:
    """Take the ended steps out of ``running``, into ``finished`` or ``failed`` (a step
    stopped on request is neither), one line each."""
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


def etl_step(ddir: Path) -> None:
    """Every equity table (what is missing), as ``cli.py etl`` without progress bars.

    Raises:
        UserError: a partition that failed or is damaged, a table blocked by another.
    """
    report = run_etl(ddir, all_tables({}), progress=False)
    for t in report.tables:
        print(f"{t.name}: {t.partitions:,} partitions, {t.built:,} built, {t.rows:,} rows, "
              f"{t.compute_seconds:.1f} s", flush=True)
    for t in report.tables:
        if t.failures:
            key, msg = t.failures[0]
            raise UserError(f"{t.name} partition {key} failed: {msg}")
        if t.damaged:
            raise UserError(f"{t.name}: damaged partition(s) {', '.join(t.damaged[:5])}")
        if t.blocked_by:
            raise UserError(f"{t.name} not built: dependency {t.blocked_by} is not complete")


def build_step(ddir: Path, **kwargs) -> None:
    """One Hold'em abstraction on one worker (a stopped build resumes its saved rounds)."""
    build_abstraction(ddir, game="holdem", progress=True, **kwargs)


def solve_step(ddir: Path, resume: bool = False, **kwargs) -> None:
    """One solve (``solve_holdem`` in ``ddir``). Ctrl-C: it finishes its chunk, saves its
    checkpoint and raises KeyboardInterrupt."""
    solve_holdem(HoldemSolveOptions(**kwargs, resume=resume), ddir)


def evaluate_step(ddir: Path, **kwargs) -> None:
    """One evaluation (:class:`Evaluation`'s fields; paths as strings)."""
    for key in ("json", "cache"):
        kwargs[key] = Path(kwargs[key])
    evaluate_methods(ddir, Evaluation(strategies=tuple(kwargs.pop("strategies")), **kwargs))


#: what a step's process calls, by the kind of its :attr:`Step.call`
KINDS = {"etl": etl_step, "build": build_step, "solve": solve_step, "evaluate": evaluate_step}


def run_step(ddir: Path, name: str, out_json: Path) -> None:
    """Run step ``name`` of the plan in this process (a solve with a checkpoint resumes it);
    the views are refreshed after a build or a solve, for other DuckDB clients.

    Raises:
        UserError: no such step, or the step's own error.
    """
    by_name = {s.name: s for s in steps(ddir, out_json)}
    if name not in by_name:
        raise UserError(f"no step {name!r}; the steps are {', '.join(by_name)}")
    step = by_name[name]
    kind, kwargs = step.call
    if kind == "solve":
        kwargs = {**kwargs, "resume": resumes(step, ddir)}
    KINDS[kind](ddir, **kwargs)
    if kind in ("build", "solve"):
        try:
            create_views(ddir)
        except (duckdb.Error, OSError, UserError):  # best effort: `sql` refreshes them again
            pass


def main(argv: list[str]) -> int:
    """A step's process: ``DATA_DIR STEP OUT_JSON``. Exit 0 when it finished, 2 on a one-line
    ``error:``, 130 when stopped (its completed work kept)."""
    if len(argv) != 3:
        print(f"error: expected DATA_DIR STEP OUT_JSON, got {len(argv)} arguments",
              file=sys.stderr)
        return 2
    ddir = Path(argv[0]).resolve()
    try:
        run_step(ddir, argv[1], Path(argv[2]))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the environment: permission denied, disk full
        print(f"error: {exc.strerror or exc}"
              + (f": {exc.filename}" if exc.filename else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: completed work is kept; re-run to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
