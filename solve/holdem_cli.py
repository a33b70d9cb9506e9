"""``solve --game holdem`` and ``evaluate`` of a Hold'em strategy (issue 6); ``compare --game
holdem`` goes through ``solve/holdem_compare.py``.

    python cli.py solve --game holdem --abstraction holdem-pa --time-limit 3600
    python cli.py solve --game holdem --abstraction holdem-pa --time-limit 7200 --resume
    python cli.py solve --game holdem --abstraction synthetic:20,800,4800,28800 --iterations 100000
    python cli.py compare --game holdem holdem-holdem-pa-cfr+ holdem-holdem-eb-cfr+
    python cli.py evaluate holdem-holdem-pa-cfr+

A run writes ``<data_dir>/strategies/<name>/``: ``strategy.parquet`` (one row per information
set and action, ``cards`` = bucket sequence; query it with ``cli.py sql``), ``average.npy``
(the average-strategy weights, read back by ``compare`` / ``evaluate``), ``run.json`` (settings
and the evaluation at every checkpoint) and ``checkpoint/`` (for ``--resume``).
``--abstraction synthetic:K0,K1,...`` uses a hand-strength bucketing built on the fly (no
equity tables needed; its length sets the number of betting rounds), for tests and benchmarks.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from schema.errors import UserError
from schema.paths import data_dir as resolve_data_dir

BASELINES = ("always-call", "always-raise")


def add_arguments(p) -> None:
    g = p.add_argument_group("holdem (limit Texas Hold'em on a built abstraction)")
    g.add_argument("--checkpoint-minutes", type=float, default=10.0,
                   help="holdem: minutes of solving between checkpoints + evaluations (default 10)")
    g.add_argument("--threads", type=int, default=1,
                   help="holdem: solver threads sharing the arrays (default 1; >1 is not "
                        "bit-reproducible)")
    g.add_argument("--lbr-deals", type=int, default=2000,
                   help="holdem: deals (x2 seats) of the local-best-response bound at each "
                        "checkpoint (default 2000; 0 = skip)")
    g.add_argument("--h2h-deals", type=int, default=20000,
                   help="holdem: duplicate deals against always-call/always-raise at each "
                        "checkpoint (default 20000)")
    g.add_argument("--keep-averages", action="store_true",
                   help="holdem: also keep each checkpoint's average weights as "
                        "checkpoint/average-<iterations>.npy (strategies at equal solve times)")
    g.add_argument("--max-bets", type=int, default=4,
                   help="holdem: bets per round cap (default 4, the real game)")


def _buckets(spec: str, ddir: Path):
    from solve.holdem import load_buckets, synthetic_buckets

    if spec.startswith("synthetic:"):
        try:
            k = tuple(int(x) for x in spec.split(":", 1)[1].split(","))
        except ValueError:
            raise UserError(f"--abstraction {spec!r}: expected synthetic:K0,K1,...") from None
        if not 1 <= len(k) <= 4 or min(k) < 1 or any(k[r + 1] % k[r] for r in range(len(k) - 1)):
            raise UserError(f"--abstraction {spec!r}: 1..4 positive counts, each a multiple "
                            "of the one before")
        return synthetic_buckets(k, n_rounds=len(k), name=spec.replace(":", "-").replace(",", "-"))
    return load_buckets(spec, ddir)


def run_solve(args) -> int:
    from tqdm import tqdm

    from solve.holdem import HoldemCFR, HoldemRules, build_tree

    if not args.abstraction:
        raise UserError("--game holdem needs --abstraction NAME (see `cli.py abstractions`)")
    if args.algorithm != "cfr+":
        raise UserError("--game holdem is solved with --algorithm cfr+ (chance-sampled)")
    for flag in ("iterations", "threads", "max_bets"):
        v = getattr(args, flag)
        if v is not None and v < 1:
            raise UserError(f"--{flag.replace('_', '-')} must be at least 1")
    from solve.loop import check_positive_finite

    check_positive_finite(args, "time_limit", "checkpoint_minutes")
    if args.lbr_deals < 0 or args.h2h_deals < 1:
        raise UserError("--lbr-deals must be >= 0 and --h2h-deals >= 1")
    ddir = resolve_data_dir()
    from solve.commands import check_catalog

    check_catalog(ddir)
    name = args.name or f"holdem-{args.abstraction.replace(':', '-').replace(',', '-')}-cfr+"
    from solve.commands import _NAME

    if not _NAME.match(name):
        raise UserError(f"strategy name {name!r} must be letters, digits, '_', '.', '+', '-'")
    out_dir = ddir / "strategies" / name
    ckpt = out_dir / "checkpoint"
    if args.resume and not (ckpt / "state.json").exists():
        raise UserError(f"no checkpoint to resume for {name!r} ({ckpt})")

    wall0 = time.time()
    t0 = time.perf_counter()
    buckets = _buckets(args.abstraction, ddir)
    load_seconds = time.perf_counter() - t0
    tree = build_tree(HoldemRules(n_rounds=buckets.n_rounds, max_bets=args.max_bets))
    solver = HoldemCFR(tree, buckets, seed=args.seed, threads=args.threads)
    log, solve_seconds = [], 0.0
    if args.resume:
        from solve.abstractions import built_at, refuse_stale_checkpoint

        if ":" not in args.abstraction:  # a stored abstraction, not synthetic:K0,K1,...
            refuse_stale_checkpoint(ckpt / "state.json", built_at(args.abstraction, ddir), name,
                                    args.abstraction)
        try:
            state = solver.load(ckpt)
        except (ValueError, KeyError, OSError) as exc:
            raise UserError(f"cannot resume {name!r}: {exc}") from None
        log, solve_seconds = state.get("log", []), float(state.get("solve_seconds", 0.0))
    gib = 2 * solver.size_ * 4 / 2 ** 30
    print(f"{name}: abstraction {buckets.name} buckets {'/'.join(map(str, buckets.n_buckets))}, "
          f"{tree.n_nodes} betting nodes, {solver.size_:,} (infoset, action) pairs, "
          f"{gib:.2f} GiB of regrets + averages; lookups loaded in {load_seconds:.1f}s")

    def evaluate():
        from solve.holdem_eval import Policy, duplicate_match, local_best_response

        te = time.perf_counter()
        pol = Policy.table(name, tree, buckets, solver.average_)
        entry = {"iterations": solver.iteration_, "solve_seconds": round(solve_seconds, 1),
                 "wall_seconds": round(time.time() - wall0, 1)}
        seed = 1000 + len(log)
        for base, make in (("always_call", Policy.always_call),
                           ("always_raise", Policy.always_raise)):
            e = duplicate_match(tree, pol, make(tree, buckets), args.h2h_deals, seed=seed)
            entry[f"vs_{base}_mbb"] = round(e.mean, 2)
            entry[f"vs_{base}_hw"] = round(e.half_width, 2)
        if args.lbr_deals:
            lbr, s0, s1 = local_best_response(tree, pol, args.lbr_deals, seed=seed)
            entry.update(lbr_mbb=round(lbr.mean, 2), lbr_hw=round(lbr.half_width, 2),
                         lbr_seat0_mbb=round(s0.mean, 2), lbr_seat1_mbb=round(s1.mean, 2),
                         lbr_deals=lbr.n)
        entry["eval_seconds"] = round(time.perf_counter() - te, 1)
        log.append(entry)
        return entry

    limit = args.time_limit  # total seconds of solving, a resumed run's earlier ones included
    target = args.iterations if args.iterations is not None else (
        None if limit is not None else 100_000)  # total iterations, likewise
    every = args.checkpoint_minutes * 60.0
    bar = tqdm(total=round(limit) if limit else target, unit="s" if limit else "it",
               desc=f"cfr+ holdem {buckets.name}",
               initial=min(round(solve_seconds), round(limit)) if limit else solver.iteration_)
    chunk, last_ckpt = 1000, solve_seconds
    try:
        while True:
            if target is not None and solver.iteration_ >= target:
                break
            if limit is not None and solve_seconds >= limit:
                break
            step = chunk if target is None else min(chunk, target - solver.iteration_)
            ts = time.perf_counter()
            solver.iterate(step)
            took = time.perf_counter() - ts
            solve_seconds += took
            chunk = int(min(max(step * 2.0 / max(took, 1e-3), 100), 5_000_000))  # ~2 s chunks
            bar.update(min(round(solve_seconds), round(limit)) - bar.n if limit else step)
            bar.set_postfix(it=f"{solver.iteration_:,}",
                            rate=f"{step / max(took, 1e-9):,.0f} it/s")
            if solve_seconds - last_ckpt >= every:
                last_ckpt = solve_seconds
                e = evaluate()
                solver.save(ckpt, {"log": log, "solve_seconds": solve_seconds})
                if args.keep_averages:
                    from solve.holdem import _atomic_npy

                    _atomic_npy(ckpt / f"average-{solver.iteration_}.npy", solver.average_)
                bar.write(_line(e))
    finally:
        bar.close()
    if not log or log[-1]["iterations"] != solver.iteration_:
        print(_line(evaluate()))
    solver.save(ckpt, {"log": log, "solve_seconds": solve_seconds})
    return _store(ddir, name, out_dir, tree, buckets, solver, log, solve_seconds,
                  time.time() - wall0, args)


def _line(e: dict) -> str:
    s = (f"  it={e['iterations']:,} solve={e['solve_seconds']:.0f}s "
         f"vs always-call {e['vs_always_call_mbb']:+.1f}+-{e['vs_always_call_hw']:.1f} "
         f"vs always-raise {e['vs_always_raise_mbb']:+.1f}+-{e['vs_always_raise_hw']:.1f}")
    if "lbr_mbb" in e:
        s += f" LBR {e['lbr_mbb']:.1f}+-{e['lbr_hw']:.1f} mbb/g"
    return s


def _store(ddir, name, out_dir, tree, buckets, solver, log, solve_seconds, wall, args) -> int:
    from solve.commands import record_run
    from solve.holdem import _atomic_npy, write_strategy_table
    from solve.holdem_eval import Policy, sample_deals, seat_value

    _atomic_npy(out_dir / "average.npy", solver.average_)
    meta = {"abstraction": buckets.name, "spec": args.abstraction,
            "n_buckets": list(buckets.n_buckets),
            "max_bets": tree.rules.max_bets, "iterations": solver.iteration_,
            "solve_seconds": round(solve_seconds, 1), "threads": args.threads, "seed": args.seed,
            "lbr_deals": args.lbr_deals, "h2h_deals": args.h2h_deals, "log": log}
    tmp = out_dir / ".run.json.tmp"
    tmp.write_text(json.dumps(meta, indent=1))
    tmp.replace(out_dir / "run.json")
    t0 = time.perf_counter()
    path = out_dir / "strategy.parquet"
    digest = write_strategy_table(path, name, tree, buckets, solver.average_, solver.offset_)
    pol = Policy.table(name, tree, buckets, solver.average_)
    value = seat_value(tree, pol, pol, sample_deals(args.h2h_deals, 99))
    abstraction = None if buckets.name.startswith("synthetic") else buckets.name
    record_run(ddir, name, "holdem", abstraction, "cfr+", solver.iteration_, wall, None, None,
               value, path, digest)
    print(f"{name}: game=holdem abstraction={buckets.name} algorithm=cfr+ "
          f"iterations={solver.iteration_} solve={solve_seconds:.1f}s wall={wall:.1f}s "
          f"value={value:.4g} (table written in {time.perf_counter() - t0:.1f}s)\n{path}")
    return 0


def load_policy(spec: str, ddir: Path, tree_cache: dict):
    """A stored strategy (by name) or a baseline, with the tree of its run."""
    from solve.holdem import HoldemRules, build_tree
    from solve.holdem_eval import Policy

    if spec in BASELINES:
        return spec, None
    d = ddir / "strategies" / spec
    try:
        meta = json.loads((d / "run.json").read_text())
        weights = np.load(d / "average.npy", mmap_mode="r")
    except (OSError, ValueError) as exc:
        raise UserError(f"no holdem strategy {spec!r} in {ddir / 'strategies'} ({exc})") from None
    key = meta.get("spec", meta["abstraction"])
    if key not in tree_cache:
        tree_cache[key] = _buckets(key, ddir)
    buckets = tree_cache[key]
    tree = build_tree(HoldemRules(n_rounds=buckets.n_rounds, max_bets=meta.get("max_bets", 4)))
    try:
        return Policy.table(spec, tree, buckets, np.asarray(weights)), tree
    except ValueError as exc:
        raise UserError(str(exc)) from None


def run_evaluate(path: Path) -> int:
    """``evaluate`` of a Hold'em strategy: the LBR bound and duplicate results against the
    baselines, over the numbers of deals its solve run used (fresh seeds)."""
    from solve.holdem_eval import Policy, duplicate_match, local_best_response

    ddir = resolve_data_dir()
    name = path.parent.name
    pol, tree = load_policy(name, ddir, {})
    meta = json.loads((ddir / "strategies" / name / "run.json").read_text())
    h2h, n_lbr = max(int(meta.get("h2h_deals", 20000)), 2), int(meta.get("lbr_deals", 2000))
    for b in (Policy.always_call, Policy.always_raise):
        opp = b(tree, pol.buckets)
        print(f"vs {opp.name}: {duplicate_match(tree, pol, opp, h2h, seed=7)}")
    if n_lbr:
        lbr, s0, s1 = local_best_response(tree, pol, n_lbr, seed=8)
        print(f"local best response (lower bound on exploitability): {lbr} "
              f"[as seat 0: {s0.mean:+.1f}, as seat 1: {s1.mean:+.1f}]")
    return 0
