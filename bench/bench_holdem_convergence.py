"""Convergence of Texas Hold'em solve runs (issue 17): the LBR bound, the results against
always-call and always-raise, and head-to-head against a reference strategy (by default the
longest run's final one), each against solve time, from the runs' checkpoint evaluations.

    python bench/bench_holdem_convergence.py --data-dir D holdem-holdem-pa-cfr+ \
        holdem-holdem-pa-pcs-h64 --out docs/holdem-convergence.png

Reads each run's record (``run_record``: its checkpoint's ``state.json`` when that is further
on than its ``run.json``); the head-to-head points need the checkpoints' weights (``solve
--keep-averages``). Time is solve CPU seconds: for a run begun on the wall clock and resumed
with ``--clock cpu`` the wall-clock stretch is estimated (``cpu_seconds``, marked "~"). Prints
one Markdown table per run and saves the four panels as a PNG.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solve.holdem.evaluate import Policy, duplicate_match  # noqa: E402
from solve.holdem.run import load_policy, run_record, stored_iterations  # noqa: E402

MEASURES = (("lbr", "LBR lower bound on exploitability"), ("vs_always_call", "vs always-call"),
            ("vs_always_raise", "vs always-raise"), ("h2h", "head-to-head vs reference"))


def run_log(ddir: Path, name: str) -> list[dict]:
    try:
        return run_record(ddir, name).get("log", [])
    except (OSError, ValueError):
        raise SystemExit(f"error: no run.json or checkpoint for {name!r} in "
                         f"{ddir / 'strategies' / name}") from None


def cpu_seconds(log: list[dict]) -> list[float]:
    """Solve CPU seconds at each checkpoint. A run started on the wall clock and resumed with
    ``--clock cpu`` logs wall seconds, then wall + CPU seconds: its wall-clock checkpoints are
    put at ``iterations / rate``, the rate (iterations per CPU second) measured over its first
    CPU-clock stretch, and the later ones shifted by the same amount (an estimate, printed with
    "~"). A run logged on one clock throughout is returned as logged."""
    wall = [i for i, e in enumerate(log) if e.get("clock", "wall") != "cpu"]
    cpu = [i for i, e in enumerate(log) if e.get("clock") == "cpu"]
    if not wall or not cpu or cpu[0] < wall[-1]:
        return [e["solve_seconds"] for e in log]
    a, b = log[wall[-1]], log[cpu[0]]
    rate = (b["iterations"] - a["iterations"]) / (b["solve_seconds"] - a["solve_seconds"])
    shift = a["iterations"] / rate - a["solve_seconds"]
    return [e["iterations"] / rate if i in wall else e["solve_seconds"] + shift
            for i, e in enumerate(log)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--reference", default=None,
                    help="strategy to play head-to-head (default: the run with most solve time)")
    ap.add_argument("--h2h-deals", type=int, default=20_000)
    ap.add_argument("--out", default=None, help="PNG of the four panels")
    args = ap.parse_args()
    logs = {r: run_log(args.data_dir, r) for r in args.runs}
    for log in logs.values():
        cpu = cpu_seconds(log)
        mixed = cpu != [e["solve_seconds"] for e in log]
        for e, c in zip(log, cpu):
            e["cpu_s"], e["cpu_est"] = c, mixed
    ref_name = args.reference or max(logs, key=lambda r: logs[r][-1]["solve_seconds"]
                                     if logs[r] else 0)
    cache: dict = {}
    ref, tree = load_policy(ref_name, args.data_dir, cache)
    for r, log in logs.items():
        pol, tree_r = load_policy(r, args.data_dir, cache)
        ck = args.data_dir / "strategies" / r / "checkpoint"
        final = stored_iterations(args.data_dir, r)
        for e in log:
            f = ck / f"average-{e['iterations']}.npy"
            if r == ref_name:
                continue
            if e["iterations"] == final:  # the stored strategy
                p = pol
            elif f.exists():
                p = Policy.table(r, tree_r, pol.buckets, np.load(f, mmap_mode="r"))
            else:
                continue
            h = duplicate_match(tree_r, p, ref, args.h2h_deals, seed=4242)
            e["h2h_mbb"], e["h2h_hw"] = round(h.mean, 2), round(h.half_width, 2)
        print(f"\n{r} (head-to-head against {ref_name}, {args.h2h_deals:,} duplicate deals)\n")
        print("| solve CPU s | iterations | LBR | vs always-call | vs always-raise | h2h |")
        print("|---:|---:|---|---|---|---|")
        for e in log:
            cells = [f"{e[k + '_mbb']:+.1f} +- {e[k + '_hw']:.1f}" if k + "_mbb" in e else ""
                     for k, _ in MEASURES]
            t = ("~" if e["cpu_est"] else "") + f"{e['cpu_s']:,.0f}"
            print(f"| {t} | {e['iterations']:,} | " + " | ".join(cells) + " |")
    if args.out:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
        for ax, (k, title) in zip(axes.ravel(), MEASURES):
            for i, (r, log) in enumerate(logs.items()):
                pts = [(e["cpu_s"] / 60, e[k + "_mbb"], e[k + "_hw"]) for e in log
                       if k + "_mbb" in e]
                if pts:
                    x, y, hw = map(np.array, zip(*pts))
                    ax.errorbar(x, y, yerr=hw, marker="o", capsize=3, label=r, color=f"C{i}")
            ax.set_title(title + " (mbb/g, 95%)")
            ax.axhline(0, color="grey", lw=0.5)
            ax.grid(alpha=0.3)
        for ax in axes[1]:
            ax.set_xlabel("solve time (CPU min)")
        fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="lower center", ncol=2,
                   fontsize=8)
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        fig.savefig(args.out, dpi=110)
        print(f"\nsaved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
