"""Limit Texas Hold'em on a built abstraction: the solve run behind ``solve --game holdem``
(``solve.cli.holdem``) and ``compare --game holdem`` (``queries.holdem_compare``), and the
policy loader of ``evaluate`` / ``compare``. A run writes ``<data_dir>/strategies/<name>/``:
``strategy.parquet``, ``average.npy``, ``run.json`` and ``checkpoint/`` (for ``resume``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from etl.lock import try_file_lock
from schema.errors import ParameterError, UserError
from schema.listing import human_bytes
from schema.interrupt import deferred_stop
from schema.progress import progress_bar
from solve.abstractions import built_at, refuse_stale_checkpoint
from solve.holdem.buckets import load_buckets, synthetic_buckets
from solve.holdem.cfr import HoldemCFR, _atomic_npy
from solve.holdem.pcs import (BOARD_HANDS, PCS_AVERAGING, PCS_HANDS, PCS_REGRET, SETTING_BEFORE,
                              HoldemPCS, check_settings)
from solve.holdem.evaluate import (Policy, board_lbr, duplicate_match, local_best_response,
                                   sample_deals, seat_value)
from solve.holdem.figures import file_identity
from solve.holdem.game import HoldemRules, build_tree
from solve.holdem.threshold import threshold
from solve.holdem.table import write_strategy_table
from solve.loop import check_at_least, check_positive_finite
from solve.runs import NAME_PATTERN as _NAME
from solve.runs import check_catalog, record_run
from solve.table import table_format, table_game

BASELINES = ("always-call", "always-raise")
#: ``--sampler``: the solver class of each (one place to add one)
SAMPLERS = {"chance": HoldemCFR, "public": HoldemPCS}
#: measured in BENCHMARKS.md (issue 17): at equal solve time public chance sampling beats
#: chance sampling head-to-head and on the LBR bound (its regret update: see
#: ``solve.holdem.pcs.PCS_REGRET``)
DEFAULT_SAMPLER = "public"


def _buckets(spec: str, ddir: Path):
    if spec.startswith("synthetic:"):
        try:
            k = tuple(int(x) for x in spec.split(":", 1)[1].split(","))
        except ValueError:
            raise ParameterError(f"`abstraction` {spec!r}: expected synthetic:K0,K1,...") from None
        if not 1 <= len(k) <= 4 or min(k) < 1 or any(k[r + 1] % k[r] for r in range(len(k) - 1)):
            raise ParameterError(f"`abstraction` {spec!r}: 1..4 positive counts, each a "
                                 "multiple of the one before")
        return synthetic_buckets(k, n_rounds=len(k), name=spec.replace(":", "-").replace(",", "-"))
    return load_buckets(spec, ddir)


@dataclass
class HoldemSolveOptions:
    """What ``solve --game holdem`` takes (its options, same names; see ``solve.cli.holdem``)."""

    abstraction: str
    algorithm: str = "cfr+"
    iterations: int | None = None
    time_limit: float | None = None
    checkpoint_minutes: float = 10.0
    threads: int = 1
    lbr_deals: int = 2000
    lbr_boards: int = 0
    h2h_deals: int = 20000
    max_bets: int = 4
    name: str | None = None
    resume: bool = False
    seed: int = 0
    keep_averages: bool = False
    keep_checkpoint: bool = False  # a finished run's regrets stay for a later --resume
    sampler: str | None = None  # None: the checkpoint's when resuming, else DEFAULT_SAMPLER
    regret: str | None = None  # None: the checkpoint's, else the sampler's default
    averaging: str | None = None
    hands_per_board: int | None = None  # None: the checkpoint's, else PCS_HANDS; 0: every hand
    clock: str = "wall"  # what --time-limit and --checkpoint-minutes count; see CLOCKS


#: ``--clock``: how a solve step's seconds are counted. ``cpu`` (the process's CPU time over
#: the step, all threads) makes runs on a shared or loaded machine comparable at equal work.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _sampler_options(options: HoldemSolveOptions) -> tuple[str, dict]:
    """The sampler and its keyword options, checked (one-line errors)."""
    sampler = options.sampler or DEFAULT_SAMPLER
    if sampler not in SAMPLERS:
        raise ParameterError(f"`sampler` must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
    opts = {k: v for k, v in (("regret", options.regret), ("averaging", options.averaging),
                              ("hands", options.hands_per_board)) if v is not None}
    if sampler == "chance" and opts:
        raise ParameterError("`regret`, `averaging` and `hands_per_board` apply to `sampler` "
                             "public (chance sampling is CFR+ with linear averaging, one deal "
                             "at a time)")
    try:
        check_settings(opts.get("regret", PCS_REGRET), opts.get("averaging", PCS_AVERAGING),
                       opts.get("hands", PCS_HANDS),
                       names={"regret": "`regret`", "averaging": "`averaging`",
                              "hands": "`hands_per_board`"})
    except ValueError as exc:
        raise ParameterError(str(exc)) from None
    return sampler, opts


def make_solver(options: HoldemSolveOptions, tree, buckets):
    """The solver ``options`` ask for."""
    sampler, opts = _sampler_options(options)
    return SAMPLERS[sampler](tree, buckets, seed=options.seed, threads=options.threads, **opts)


def algorithm_label(options: HoldemSolveOptions) -> str:
    """``cfr+`` (chance sampling) or ``pcs-<regret>``, then ``-<averaging>`` unless linear,
    then ``-h<M>`` when it keeps M hands per board (the default 64 included; every hand, the
    paper's PCS, has no suffix): names and catalog rows. The default is ``pcs-plus-h64``
    (until regret-matching+ became the default, ``pcs-h64`` meant linear CFR: such runs
    resume, with their own settings, by ``--name``)."""
    if (options.sampler or DEFAULT_SAMPLER) == "chance":
        return "cfr+"
    regret, averaging = options.regret or PCS_REGRET, options.averaging or PCS_AVERAGING
    hands = PCS_HANDS if options.hands_per_board is None else options.hands_per_board
    # "linear" by name, not PCS_AVERAGING: a name must not change meaning with a default
    return (f"pcs-{regret}" + ("" if averaging == "linear" else f"-{averaging}")
            + (f"-h{hands}" if 0 < hands < BOARD_HANDS else ""))


def _settings_of_checkpoint(options: HoldemSolveOptions, ckpt: Path) -> HoldemSolveOptions:
    """A resumed run keeps its sampler and settings unless they are given again."""
    try:
        state = json.loads((ckpt / "state.json").read_text())
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read checkpoint {ckpt}: {exc}") from None
    sampler = options.sampler or state.get("sampler", SETTING_BEFORE["sampler"])
    hands = options.hands_per_board
    if hands is None and sampler == "public":  # written before --hands-per-board: every hand
        hands = state.get("hands", SETTING_BEFORE["hands"])
    return replace(options, sampler=sampler, regret=options.regret or state.get("regret"),
                   averaging=options.averaging or state.get("averaging"), hands_per_board=hands)


def solve_holdem(options: HoldemSolveOptions, data_dir: Path) -> int:
    """Solve limit Texas Hold'em on an abstraction with CFR+, checkpointing and evaluating
    every ``checkpoint_minutes``; store the strategy (table, weights, run.json, catalog row)
    in ``data_dir``."""
    if not options.abstraction:
        raise ParameterError("holdem needs an `abstraction` NAME (see `cli.py abstractions`)")
    if options.algorithm != "cfr+":
        raise ParameterError("holdem is solved with `algorithm` cfr+ (choose the `sampler`)")
    check_at_least(1, iterations=options.iterations, threads=options.threads,
                   max_bets=options.max_bets)
    check_positive_finite(time_limit=options.time_limit,
                          checkpoint_minutes=options.checkpoint_minutes)
    if options.clock not in CLOCKS:
        raise ParameterError(f"`clock` must be one of {', '.join(CLOCKS)}, got {options.clock!r}")
    clock = CLOCKS[options.clock]
    unit = "CPU s" if options.clock == "cpu" else "s"
    if options.lbr_deals < 0 or options.h2h_deals < 1 or options.lbr_boards < 0:
        raise ParameterError("`lbr_deals` and `lbr_boards` must be >= 0 and `h2h_deals` >= 1")
    ddir = Path(data_dir)

    check_catalog(ddir)
    label = algorithm_label(options)
    name = options.name or (f"holdem-{options.abstraction.replace(':', '-').replace(',', '-')}-"
                         f"{label}")

    if not _NAME.match(name):
        raise UserError(f"strategy name {name!r} must be letters, digits, '_', '.', '+', '-'")
    with try_file_lock(ddir / ".locks" / f"solve-{name}.lock") as mine:
        if not mine:
            raise UserError(f"another solve of {name!r} is running in this data directory "
                            "(wait for it, or stop it: it checkpoints on Ctrl-C)")
        return _solve_locked(options, ddir, name, label, clock, unit)


def _solve_locked(options: HoldemSolveOptions, ddir: Path, name: str, label: str, clock,
                  unit: str) -> int:
    """:func:`solve_holdem` once it holds the run's lock (one solve per name at a time)."""
    ckpt = ddir / "strategies" / name / "checkpoint"
    if options.resume and not (ckpt / "state.json").exists():
        raise ParameterError(f"no checkpoint to resume for {name!r} ({ckpt}; a finished run "
                             "keeps its checkpoint only when solved with `keep_checkpoint`)")
    if options.resume:
        options = _settings_of_checkpoint(options, ckpt)
        label = algorithm_label(options)
    _sampler_options(options)  # before the lookups load (minutes at full size)
    run = _HoldemRun(options, ddir, name, label, clock, unit)
    run.solve()
    return run.finish()


class _HoldemRun:
    """One Hold'em solve run under its lock: the lookups, tree and solver (resumed from the
    checkpoint if asked), the evaluation log and the seconds spent solving and otherwise.

    ``clock`` counts the solving seconds (``CLOCKS``), ``unit`` names them.
    :meth:`solve` iterates, evaluating and checkpointing on the ``--checkpoint-minutes``
    grid; :meth:`finish` stores the strategy.
    """

    def __init__(self, options: HoldemSolveOptions, ddir: Path, name: str, label: str, clock,
                 unit: str):
        self.options, self.ddir, self.name, self.label = options, ddir, name, label
        self.clock, self.unit = clock, unit
        self.out_dir = ddir / "strategies" / name
        self.ckpt = self.out_dir / "checkpoint"
        self.wall0 = time.time()
        t0 = time.perf_counter()
        self.buckets = _buckets(options.abstraction, ddir)
        load_seconds = time.perf_counter() - t0
        self.tree = build_tree(HoldemRules(n_rounds=self.buckets.n_rounds,
                                           max_bets=options.max_bets))
        self.solver = make_solver(options, self.tree, self.buckets)
        self.log, self.solve_seconds = [], 0.0
        if options.resume:
            self._resume()
        self._announce(load_seconds)
        # Wall seconds of what is not solving, named in the final summary (issue 47).
        self.overhead = {"loading": load_seconds, "evaluating": 0.0, "checkpointing": 0.0}

    def _resume(self) -> None:
        """The solver's arrays, the log and the solving seconds from the run's checkpoint."""
        options, name = self.options, self.name
        if ":" not in options.abstraction:  # a stored abstraction, not synthetic:K0,K1,...
            refuse_stale_checkpoint(self.ckpt / "state.json",
                                    built_at(options.abstraction, self.ddir), name,
                                    options.abstraction)
        try:
            state = self.solver.load(self.ckpt)
        except (ValueError, KeyError, OSError) as exc:
            raise UserError(f"cannot resume {name!r}: {exc}") from None
        self.log, self.solve_seconds = (state.get("log", []),
                                        float(state.get("solve_seconds", 0.0)))

    def _announce(self, load_seconds: float) -> None:
        """One line: the abstraction, the game's size and the memory the solver holds."""
        buckets, solver = self.buckets, self.solver
        gib = 2 * solver.size_ * 4 / 2 ** 30
        print(f"{self.name}: abstraction {buckets.name} buckets "
              f"{'/'.join(map(str, buckets.n_buckets))}, "
              f"{self.tree.n_nodes} betting nodes, {solver.size_:,} (infoset, action) pairs, "
              f"{gib:.2f} GiB of regrets + averages; lookups loaded in {load_seconds:.1f}s")

    def state(self) -> dict:
        """What a checkpoint records beside the arrays."""
        return {"log": self.log, "solve_seconds": self.solve_seconds,
                "spec": self.options.abstraction}

    def checkpoint(self) -> None:
        """Save the solver's state (and, with ``--keep-averages``, this average strategy)."""
        tc = time.perf_counter()
        solver = self.solver
        solver.save(self.ckpt, self.state())
        if self.options.keep_averages:
            _atomic_npy(self.ckpt / f"average-{solver.iteration_}.npy", solver.average_)
        self.overhead["checkpointing"] += time.perf_counter() - tc

    def evaluate(self) -> dict:
        """The average strategy against the baselines (duplicate matches) and its LBR bound,
        appended to the log as one entry, which is returned."""
        te = time.perf_counter()
        options, tree, buckets, solver = self.options, self.tree, self.buckets, self.solver
        pol = Policy.table(self.name, tree, buckets, solver.average_)
        entry = {"iterations": solver.iteration_, "solve_seconds": round(self.solve_seconds, 1),
                 "clock": options.clock, "wall_seconds": round(time.time() - self.wall0, 1)}
        seed = 1000 + len(self.log)
        for base, make in (("always_call", Policy.always_call),
                           ("always_raise", Policy.always_raise)):
            e = duplicate_match(tree, pol, make(tree, buckets), options.h2h_deals, seed=seed)
            entry[f"vs_{base}_mbb"] = round(e.mean, 2)
            entry[f"vs_{base}_hw"] = round(e.half_width, 2)
        lbr = lbr_estimate(tree, pol, options.lbr_deals, options.lbr_boards, seed)
        if lbr is not None:
            (lbr, s0, s1), lbr_unit = lbr
            entry.update(lbr_mbb=round(lbr.mean, 2), lbr_hw=round(lbr.half_width, 2),
                         lbr_seat0_mbb=round(s0.mean, 2), lbr_seat1_mbb=round(s1.mean, 2))
            entry[f"lbr_{lbr_unit}"] = lbr.n
        entry["eval_seconds"] = round(time.perf_counter() - te, 1)
        self.overhead["evaluating"] += entry["eval_seconds"]
        self.log.append(entry)
        return entry

    def solve(self) -> None:
        """Iterate in chunks of about 2 s (wall) up to ``--iterations`` or ``--time-limit``
        (totals, a resumed run's earlier ones included; 100,000 iterations if neither),
        evaluating and checkpointing every ``--checkpoint-minutes``. Ctrl-C / SIGTERM finish
        the chunk, checkpoint and raise KeyboardInterrupt."""
        options, solver = self.options, self.solver
        limit = options.time_limit
        target = options.iterations if options.iterations is not None else (
            None if limit is not None else 100_000)
        every = options.checkpoint_minutes * 60.0
        bar = self._progress_bar(limit, target)
        # checkpoints stay on the --checkpoint-minutes grid when a run resumes from between two
        chunk, last_ckpt = solver.first_chunk, (self.solve_seconds // every) * every
        with bar, deferred_stop() as stop:
            while True:
                if target is not None and solver.iteration_ >= target:
                    break
                if limit is not None and self.solve_seconds >= limit:
                    break
                step = chunk if target is None else min(chunk, target - solver.iteration_)
                took, took_wall = self._iterate(step)
                # ~2 s (wall) chunks
                chunk = int(min(max(step * 2.0 / max(took_wall, 1e-3), 1), 5_000_000))
                self._show(bar, step, took, limit, every - (self.solve_seconds - last_ckpt))
                if stop.requested:
                    self._stop(bar)
                if self.solve_seconds - last_ckpt >= every:
                    last_ckpt = (self.solve_seconds // every) * every
                    e = self.evaluate()
                    self.checkpoint()
                    bar.write(_line(e))

    def _progress_bar(self, limit: float | None, target: int | None):
        """Seconds of solving towards ``limit`` if given, else iterations towards ``target``."""
        return progress_bar(
            total=round(limit) if limit else target, unit="s" if limit else "it",
            desc=f"{self.label} holdem {self.buckets.name}",
            initial=(min(round(self.solve_seconds), round(limit)) if limit
                     else self.solver.iteration_))

    def _iterate(self, step: int) -> tuple[float, float]:
        """``step`` iterations; their seconds on the run's clock (added to the solving
        seconds) and on the wall clock."""
        ts, tw = self.clock(), time.perf_counter()
        self.solver.iterate(step)
        took, took_wall = self.clock() - ts, time.perf_counter() - tw
        self.solve_seconds += took
        return took, took_wall

    def _show(self, bar, step: int, took: float, limit: float | None,
              to_checkpoint: float) -> None:
        """Advance the bar by a chunk of ``step`` iterations that took ``took`` seconds."""
        unit = self.unit
        bar.update(min(round(self.solve_seconds), round(limit)) - bar.n if limit else step)
        bar.set_postfix(it=f"{self.solver.iteration_:,}",
                        rate=f"{step / max(took, 1e-9):,.0f} it/{unit}",
                        checkpoint_in=f"{max(to_checkpoint, 0):,.0f} {unit}")

    def _stop(self, bar) -> None:
        """A stop was requested: save the checkpoint (no evaluation: stop promptly), say so
        and raise KeyboardInterrupt."""
        self.solver.save(self.ckpt, self.state())
        bar.write(f"{self.name}: stopped at {self.solver.iteration_:,} iterations, "
                  f"{self.solve_seconds:,.0f} {self.unit}; checkpoint saved "
                  "(--resume continues)")
        raise KeyboardInterrupt

    def finish(self) -> int:
        """Evaluate the last iterations if not yet, store the strategy, drop the checkpoint
        unless ``--keep-checkpoint`` and print where the time went; the exit status."""
        options, solver = self.options, self.solver
        if not self.log or self.log[-1]["iterations"] != solver.iteration_:
            print(_line(self.evaluate()))
        if options.keep_checkpoint:
            self.checkpoint()
        # Without --keep-checkpoint the last periodic checkpoint stays until the table is
        # stored (a stop while storing resumes from it), then goes: regrets and averages are
        # twice the table's size, and a finished run rarely continues.
        ts = time.perf_counter()
        rc = _store(self.ddir, self.name, self.out_dir, self.tree, self.buckets, solver,
                    self.log, self.solve_seconds, time.time() - self.wall0, options)
        self.overhead["storing"] = time.perf_counter() - ts
        if not options.keep_checkpoint:
            _remove_checkpoint(self.ckpt)
        _summary(self.name, self.out_dir, time.time() - self.wall0, self.solve_seconds,
                 self.unit, self.overhead, kept=options.keep_checkpoint)
        return rc


def _remove_checkpoint(ckpt: Path) -> None:
    """A finished run's resumable state (``state.json`` first: without it the folder is no
    checkpoint), keeping the ``average-<iterations>.npy`` that ``--keep-averages`` asked for."""
    for f in ("state.json", "regrets.npy", "average.npy"):
        (ckpt / f).unlink(missing_ok=True)
    if ckpt.is_dir() and not any(ckpt.iterdir()):
        ckpt.rmdir()


def _summary(name: str, out_dir: Path, wall: float, solve_seconds: float, unit: str,
             overhead: dict, kept: bool) -> None:
    """Where the wall time went, and the disk the run holds."""
    named = sum(overhead.values())
    parts = " + ".join(f"{k} {v:,.1f} s" for k, v in overhead.items())
    print(f"{name}: {wall:,.1f} s wall = solving {solve_seconds:,.1f} {unit} + {parts}"
          f" (+ {max(wall - named - (solve_seconds if unit == 's' else 0), 0):,.1f} s other)")
    files = sorted((p for p in out_dir.rglob("*") if p.is_file()), key=lambda p: -p.stat().st_size)
    total = sum(p.stat().st_size for p in files)
    big = ", ".join(f"{p.relative_to(out_dir)} {human_bytes(p.stat().st_size)}" for p in files[:3])
    print(f"{name}: {human_bytes(total)} on disk in {out_dir} ({big})"
          + ("; checkpoint kept for --resume" if kept else
             "; checkpoint removed (--keep-checkpoint keeps it for a later --resume)"))


def lbr_estimate(tree, pol, deals: int, boards: int, seed: int):
    """The LBR bound over ``boards`` whole boards (exact over the hole cards of each) if
    given, else over ``deals`` sampled deals; None if both are 0. Returns the three estimates
    (mean, seat 0, seat 1) and the unit ("boards" or "deals")."""
    if boards:
        return board_lbr(tree, pol, boards, seed=seed), "boards"
    if deals:
        return local_best_response(tree, pol, deals, seed=seed), "deals"
    return None


def _line(e: dict) -> str:
    s = (f"  it={e['iterations']:,} solve={e['solve_seconds']:.0f}s "
         f"vs always-call {e['vs_always_call_mbb']:+.1f}+-{e['vs_always_call_hw']:.1f} "
         f"vs always-raise {e['vs_always_raise_mbb']:+.1f}+-{e['vs_always_raise_hw']:.1f}")
    if "lbr_mbb" in e:
        s += f" LBR {e['lbr_mbb']:.1f}+-{e['lbr_hw']:.1f} mbb/g"
    return s


def _store(ddir, name, out_dir, tree, buckets, solver, log, solve_seconds, wall, options) -> int:
    _atomic_npy(out_dir / "average.npy", solver.average_)
    meta = {"abstraction": buckets.name, "spec": options.abstraction,
            "n_buckets": list(buckets.n_buckets),
            "max_bets": tree.rules.max_bets, "iterations": solver.iteration_,
            "solve_seconds": round(solve_seconds, 1), "clock": options.clock,
            "threads": options.threads, "seed": options.seed,
            "lbr_deals": options.lbr_deals, "lbr_boards": options.lbr_boards,
            "h2h_deals": options.h2h_deals, **solver.settings(),
            "log": log}
    tmp = out_dir / ".run.json.tmp"
    tmp.write_text(json.dumps(meta, indent=1))
    tmp.replace(out_dir / "run.json")
    t0 = time.perf_counter()
    path = out_dir / "strategy.parquet"
    digest = write_strategy_table(path, name, tree, buckets, solver.average_, solver.offset_)
    pol = Policy.table(name, tree, buckets, solver.average_)
    value = seat_value(tree, pol, pol, sample_deals(options.h2h_deals, 99))
    abstraction = None if buckets.name.startswith("synthetic") else buckets.name
    label = algorithm_label(options)
    record_run(ddir, name, "holdem", abstraction, label, solver.iteration_, wall, None, None,
               value, path, digest)
    print(f"{name}: game=holdem abstraction={buckets.name} algorithm={label} "
          f"iterations={solver.iteration_} solve={solve_seconds:.1f}s wall={wall:.1f}s "
          f"value={value:.4g} (table written in {time.perf_counter() - t0:.1f}s)\n{path}")
    return 0


def run_record(ddir: Path, name: str) -> dict:
    """What a Hold'em run recorded, the furthest record first: its checkpoint's ``state.json``
    when that is further on than its ``run.json`` (a run still going, or resumed past where it
    first finished), else its ``run.json``. Raises OSError or ValueError when neither reads."""
    d = ddir / "strategies" / name
    run_file, state_file = d / "run.json", d / "checkpoint" / "state.json"
    if not run_file.exists():
        return json.loads(state_file.read_text())
    run = json.loads(run_file.read_text())
    if state_file.exists():
        state = json.loads(state_file.read_text())
        if state["iteration"] > run["iterations"]:
            return state
    return run


def stored_iterations(ddir: Path, name: str) -> int | None:
    """Iterations of the strategy a finished run stored (its ``run.json``), None if none."""
    f = ddir / "strategies" / name / "run.json"
    return json.loads(f.read_text())["iterations"] if f.exists() else None


def _run_rules(ddir: Path, name: str) -> tuple[str, int]:
    """(abstraction spec, max bets a round) of run ``name``; UserError if it has no record."""
    try:
        meta = run_record(ddir, name)
        return (meta.get("spec", meta["abstraction"]),
                meta.get("max_bets", meta.get("rules", {}).get("max_bets", 4)))
    except (OSError, ValueError, KeyError) as exc:
        raise UserError(f"no holdem run {name!r} in {ddir / 'strategies'} ({exc})") from None


def run_spec(ddir: Path, name: str) -> str:
    """The abstraction spec run ``name`` was solved on (``--abstraction``: a stored
    abstraction's name or ``synthetic:K0,...``)."""
    return _run_rules(ddir, name)[0]


def run_max_bets(ddir: Path, name: str) -> int:
    """The bets a round of run ``name``'s betting tree allows."""
    return _run_rules(ddir, name)[1]


def run_game(name: str, ddir: Path, tree_cache: dict):
    """(betting tree, buckets) of run ``name`` (finished or still going); the buckets are
    loaded once per abstraction into ``tree_cache``."""
    key, max_bets = _run_rules(ddir, name)
    if key not in tree_cache:
        tree_cache[key] = _buckets(key, ddir)
    buckets = tree_cache[key]
    return build_tree(HoldemRules(n_rounds=buckets.n_rounds, max_bets=max_bets)), buckets


def parse_threshold(text: str) -> float:
    """The threshold of a ``~TAU`` suffix or ``--threshold``: a probability in (0, 1], 1 or
    ``pure`` being purification. Raises ValueError naming the text otherwise."""
    try:
        tau = 1.0 if text == "pure" else float(text)
    except ValueError:
        tau = float("nan")
    if not 0.0 < tau <= 1.0:  # nan fails too
        raise ValueError(f"threshold must be in (0, 1] or 'pure', got {text!r}")
    return tau


def spec_parts(spec: str) -> tuple[str, str | None, str | None]:
    """(NAME, ITERATIONS, TAU) of a strategy spec ``NAME[@ITERATIONS][~TAU]`` (see
    :func:`load_policy`), the texts as given, None where a part is absent."""
    base, tilde, tau = spec.partition("~")
    name, at, it = base.partition("@")
    return name, (it if at else None), (tau if tilde else None)


def weights_path(ddir: Path, spec: str) -> Path:
    """The weights file behind strategy ``NAME[@ITERATIONS][~TAU]`` (:func:`load_policy`):
    the average a checkpoint kept, else, at the iterations a finished run stored (or with no
    @ITERATIONS), the run's ``average.npy``. Raises ValueError for a malformed spec and
    OSError for a run that stored no strategy; the file itself may be missing."""
    name, it, _ = spec_parts(spec)
    d = ddir / "strategies" / name
    if it is None:
        if not (d / "run.json").exists():
            raise OSError(f"{d / 'run.json'} does not exist (a run still going: NAME@ITERATIONS)")
        return d / "average.npy"
    if not it.isdigit():
        raise ValueError(f"expected NAME@ITERATIONS, got {spec!r}")
    kept = d / "checkpoint" / f"average-{int(it)}.npy"
    if not kept.exists() and int(it) == stored_iterations(ddir, name):
        return d / "average.npy"
    return kept


def strategy_identity(ddir: Path, spec: str) -> dict:
    """What a stored figure of strategy ``NAME[@ITERATIONS][~TAU]`` depends on besides the
    evaluation's parameters and the threshold: its iterations and its weights file's identity
    (``file_identity``: a run resumed further, or solved again under the same name, is another
    strategy). Raises as :func:`weights_path`, and OSError for a missing file."""
    name, it, _ = spec_parts(spec)
    return {"iterations": int(it) if it is not None else stored_iterations(ddir, name),
            "weights": file_identity(weights_path(ddir, spec))}


def _refuse_other_game(ddir: Path, spec: str) -> None:
    """Raise a UserError naming the game when ``spec``'s name is a stored strategy of another
    game (a strategy table, no Hold'em run); return otherwise."""
    name = spec_parts(spec)[0]
    table = ddir / "strategies" / name / "strategy.parquet"
    if (ddir / "strategies" / name / "run.json").exists() or not table.exists():
        return
    game = table_game(table, table_format(table))
    if game != "holdem":
        raise UserError(f"{name!r} is a {game} strategy, not a limit Hold'em one")


def load_policy(spec: str, ddir: Path, tree_cache: dict):
    """A stored strategy or a baseline, with the tree of its run. ``NAME`` is the strategy a
    finished run stored; ``NAME@ITERATIONS`` its average strategy at that checkpoint (kept by
    ``solve --keep-averages``; also while the run is still going); either followed by
    ``~TAU`` is that strategy thresholded at TAU, ``~pure`` purified
    (``solve.holdem.threshold``)."""
    if spec in BASELINES:
        return spec, None
    name, _, tau_text = spec_parts(spec)
    try:
        tau = parse_threshold(tau_text) if tau_text is not None else None
    except ValueError as exc:
        raise UserError(f"holdem strategy {spec!r}: {exc}") from None
    try:
        weights = np.load(weights_path(ddir, spec), mmap_mode="r")
    except (OSError, ValueError, KeyError) as exc:
        _refuse_other_game(ddir, spec)
        raise UserError(f"no holdem strategy {spec!r} in {ddir / 'strategies'} ({exc})") from None
    tree, buckets = run_game(name, ddir, tree_cache)
    try:
        pol = Policy.table(spec, tree, buckets, np.asarray(weights))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if tau is not None:
        pol = Policy.table(spec, tree, buckets,
                           threshold(tree, buckets.n_buckets, pol.weights, tau))
    return pol, tree
