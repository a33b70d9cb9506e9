"""Convergence of Texas Hold'em solve runs (issue 17): the LBR bound and the results against
always-call and always-raise that each checkpoint logged, and head-to-head against a reference
strategy, each against solve time.

    python cli.py evaluate pa-h64 --curve                      # one run against its own end
    python cli.py evaluate pa-h64 --curve --with eb-h64 --reference pa-h64 --out pa-eb.png

The first three measures are the ones the solve computed at each checkpoint (``run.json``, or
the checkpoint's ``state.json`` when that is further on: a run still going is read too); the
head-to-head points are computed here, so they need the checkpoints' weights (``solve
--keep-averages``). Time is solve CPU seconds: for a run begun on the wall clock and resumed
with ``--clock cpu``, the wall-clock stretch is estimated (:func:`cpu_seconds`).

A kept checkpoint (or the final strategy) whose exact best response has been computed
(``evaluate NAME@ITERATIONS --best-response exact``, ``solve.holdem.best_response``) shows its
exact exploitability beside the LBR bound: in the table's "exact" column and as squares on the
picture's LBR panel (read only: an exact figure costs CPU hours, so the curve never computes
one).

Each point's head-to-head and same-board LBR values are kept in the run's ``evaluations/``
folder (``solve.holdem.figures``, keyed by what they depend on: the weights files, the
deals, boards and seeds), so drawing the curve again as a run goes on measures only its new
checkpoints. Deleting the folder measures everything again.
"""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

import numpy as np

from schema.errors import UserError
from schema.progress import progress_bar
from schema.storage import AtomicFile
from solve.holdem.assess import same_boards, stored_board_lbr
from solve.holdem.best_response import stored_exact
from solve.holdem.evaluate import Estimate, Policy, duplicate_match, lbr_estimates, to_mbb
from solve.holdem.figures import FigureStore, file_identity
from solve.holdem.run import (load_policy, run_record, spec_parts, stored_iterations,
                              weights_path)

#: (key of the logged figures, panel title)
MEASURES = (("lbr", "LBR lower bound on exploitability"), ("vs_always_call", "vs always-call"),
            ("vs_always_raise", "vs always-raise"), ("h2h", "head-to-head vs reference"))


def cpu_seconds(log: list[dict]) -> list[float]:
    """Solve CPU seconds at each checkpoint. A run started on the wall clock and resumed with
    ``--clock cpu`` logs wall seconds, then wall + CPU seconds: its wall-clock checkpoints are
    put at ``iterations / rate``, the rate (iterations per CPU second) measured over its first
    CPU-clock stretch, and the later ones shifted by the same amount (an estimate). A run
    logged on one clock throughout is returned as logged."""
    wall = [i for i, e in enumerate(log) if e.get("clock", "wall") != "cpu"]
    cpu = [i for i, e in enumerate(log) if e.get("clock") == "cpu"]
    if not wall or not cpu or cpu[0] < wall[-1]:
        return [e["solve_seconds"] for e in log]
    a, b = log[wall[-1]], log[cpu[0]]
    rate = (b["iterations"] - a["iterations"]) / (b["solve_seconds"] - a["solve_seconds"])
    shift = a["iterations"] / rate - a["solve_seconds"]
    return [e["iterations"] / rate if i in wall else e["solve_seconds"] + shift
            for i, e in enumerate(log)]


def run_points(ddir: Path, name: str) -> list[dict]:
    """The checkpoint evaluations of run ``name``, each a copy of its log entry with
    ``cpu_s`` (:func:`cpu_seconds`) and ``cpu_est`` (True where that is an estimate)."""
    if spec_parts(name)[1:] != (None, None):
        raise UserError(f"a convergence curve is of a run, got {name!r} (no @ITERATIONS or ~TAU)")
    try:
        log = run_record(ddir, name).get("log", [])
    except (OSError, ValueError):
        raise UserError(f"no holdem run {name!r} in {ddir / 'strategies'} (no run.json or "
                        "checkpoint)") from None
    if not log:
        raise UserError(f"run {name!r} has no checkpoint evaluations yet")
    cpu = cpu_seconds(log)
    est = cpu != [e["solve_seconds"] for e in log]
    return [{**e, "cpu_s": c, "cpu_est": est} for e, c in zip(log, cpu)]


def convergence(ddir: Path, runs: list[str], reference: str | None = None,
                h2h_deals: int = 20_000, seed: int = 4242, lbr_boards: int = 0,
                lbr_seed: int = 2024) -> tuple[str, dict[str, list[dict]]]:
    """(reference, {run: points}): :func:`run_points` of each run, with ``h2h_mbb`` /
    ``h2h_hw`` (duplicate match over ``h2h_deals`` deals, the same deals for every point)
    added to every checkpoint whose weights are kept and that is not the reference itself.
    The reference defaults to the final strategy of the run with the most solve time (the
    first given of those tied).

    ``lbr_boards`` > 0: the LBR bound of every point with weights is measured again, over
    the same ``lbr_boards`` boards for all (``board_lbr`` with ``lbr_seed``; 2024 is the
    boards of the 400-board tables in BENCHMARKS.md), replacing the logged one (which was
    over other boards at each checkpoint; points without weights lose it), and
    ``lbr_vs_last_mbb`` / ``_hw`` is each point's LBR minus its run's last point's, paired
    board by board."""
    if h2h_deals < 2:
        raise UserError(f"head-to-head needs at least 2 deals, got {h2h_deals}")
    if lbr_boards < 0 or lbr_boards == 1:
        raise UserError(f"the LBR bound needs 0 (keep the logged one) or at least 2 boards, "
                        f"got {lbr_boards}")
    curves = {r: run_points(ddir, r) for r in dict.fromkeys(runs)}
    ref_name = reference or max(curves, key=lambda r: curves[r][-1]["cpu_s"])
    cache: dict = {}  # the buckets of each abstraction, loaded once
    ref, ref_tree = load_policy(ref_name, ddir, cache)
    if isinstance(ref, str):
        raise UserError(f"the reference must be a stored strategy, got the baseline {ref!r}")
    base, it, tau = spec_parts(ref_name)
    ref_it = int(it) if it is not None else stored_iterations(ddir, base)
    lbr = same_boards(lbr_boards, lbr_seed) if lbr_boards else None
    ref_id = {"spec": ref_name, "weights": file_identity(weights_path(ddir, ref_name))}
    n_points = sum(len(points) for points in curves.values())
    with progress_bar(total=n_points, desc="checkpoints evaluated", unit="point") as bar:
        for r, points in curves.items():
            _evaluate_run(ddir, r, points, (ref, ref_tree), (base, it, tau, ref_it), h2h_deals,
                          seed, lbr, bar, cache, ref_id)
    return ref_name, curves


def _evaluate_run(ddir: Path, r: str, points: list[dict], ref: tuple, ref_key: tuple,
                  h2h_deals: int, seed: int, lbr: tuple | None, bar, cache: dict,
                  ref_id: dict) -> None:
    """:func:`convergence` for the points of run ``r``, in place. ``ref``: (policy, tree) of
    the reference; ``ref_key``: its (run, @ITERATIONS text, ~TAU text, iterations); ``lbr``:
    (boards, deck orders, their part of a key) of the same-board LBR, or None to keep the
    logged one; ``cache``: ``load_policy``'s; ``ref_id``: the reference's part of a
    head-to-head's key."""
    base, at, tau, ref_it = ref_key
    ck = ddir / "strategies" / r / "checkpoint"
    saved = FigureStore(ddir / "strategies" / r / "evaluations")
    final = stored_iterations(ddir, r)
    pol = tree = None
    per_board = {}
    for i, e in enumerate(points):
        n = e["iterations"]
        kept = ck / f"average-{n}.npy"
        if n != final and not kept.exists():
            if lbr is not None:  # logged over other boards: not on this curve
                for k in ("lbr_mbb", "lbr_hw", "lbr_seat0_mbb", "lbr_seat1_mbb"):
                    e.pop(k, None)
            bar.update(1)
            continue
        if pol is None:  # the run's final strategy (or, still going, its first kept one)
            spec = r if final is not None else f"{r}@{n}"
            pol, tree = ref if (base, at, tau) == (spec, None, None) else load_policy(spec, ddir,
                                                                                    cache)
        p = pol if n == final else Policy.table(r, tree, pol.buckets,
                                                np.load(kept, mmap_mode="r"))
        point = r if n == final else f"{r}@{n}"
        weights = file_identity(weights_path(ddir, point))
        _add_exact(ddir, e, [point, f"{r}@{n}"] if n == final else [point], tree)
        if lbr is not None:
            v = stored_board_lbr(ddir, point, *lbr, lambda: (tree, p))
            est, s0, s1 = lbr_estimates(v, tree.rules.big_blind)
            e.update(lbr_mbb=round(est.mean, 2), lbr_hw=round(est.half_width, 2),
                     lbr_seat0_mbb=round(s0.mean, 2), lbr_seat1_mbb=round(s1.mean, 2),
                     lbr_boards=len(lbr[0]), lbr_same_boards=True)
            e.pop("lbr_deals", None)
            per_board[i] = v.mean(axis=1)
        if not (r == base and n == ref_it and tau is None):  # not the reference itself
            h = Estimate(*saved.fetch(
                {"kind": "h2h", "iterations": n, "weights": weights, "reference": ref_id,
                 "deals": h2h_deals, "seed": seed},
                lambda: list(astuple(duplicate_match(tree, p, ref[0], h2h_deals, seed=seed)))))
            e["h2h_mbb"], e["h2h_hw"] = round(h.mean, 2), round(h.half_width, 2)
        bar.update(1)
    if per_board:
        last = per_board[max(per_board)]
        for i, v in per_board.items():
            d = to_mbb(v - last, tree.rules.big_blind)
            points[i]["lbr_vs_last_mbb"] = round(d.mean, 2)
            points[i]["lbr_vs_last_hw"] = round(d.half_width, 2)


def _add_exact(ddir: Path, e: dict, specs: list[str], tree) -> None:
    """Add to point ``e`` the exact best response stored for the first of ``specs`` (names of
    its strategy) that has one: ``exact_mbb`` (exploitability) and each responder seat's."""
    for spec in specs:
        try:
            ex = stored_exact(ddir, spec, tree)
        except (OSError, UserError):  # no such weights kept
            continue
        if ex is not None:
            e.update(exact_mbb=round(ex["exploitability_mbb"], 2),
                     exact_seat0_mbb=round(ex["br_seat0_mbb"], 2),
                     exact_seat1_mbb=round(ex["br_seat1_mbb"], 2))
            return


def markdown(name: str, points: list[dict]) -> str:
    """One run's points as a Markdown table (mbb/g, 95% half-widths; "~" marks estimated
    CPU seconds; an "exact" column, exploitability, where any point has one)."""
    keys = [k for k, _ in MEASURES]
    head = ["LBR", "vs always-call", "vs always-raise", "h2h"]
    if any("lbr_vs_last_mbb" in e for e in points):
        keys.insert(1, "lbr_vs_last")
        head.insert(1, "LBR - last (paired)")
    if any("exact_mbb" in e for e in points):
        keys.insert(0, "exact")
        head.insert(0, "exact")
    rows = ["| solve CPU s | iterations | " + " | ".join(head) + " |",
            "|---:|---:|" + "---|" * len(head)]
    for e in points:
        cells = ["" if k + "_mbb" not in e else f"{e[k + '_mbb']:+.1f}" if k == "exact" else
                 f"{e[k + '_mbb']:+.1f} +- {e[k + '_hw']:.1f}" for k in keys]
        t = ("~" if e["cpu_est"] else "") + f"{e['cpu_s']:,.0f}"
        rows.append(f"| {t} | {e['iterations']:,} | " + " | ".join(cells) + " |")
    return f"{name}\n\n" + "\n".join(rows)


def plot(curves: dict[str, list[dict]], reference: str, out: Path) -> Path:
    """The four measures against solve CPU minutes, one line per run, saved as a PNG at
    ``out`` (atomically: ``schema.storage.AtomicFile``); exact exploitability, where computed,
    as squares on the LBR panel."""
    import matplotlib  # heavy: loaded only when a picture is drawn
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    same = {e["lbr_boards"] for pts in curves.values() for e in pts if "lbr_same_boards" in e}
    titles = dict(MEASURES)
    if same:
        titles["lbr"] += f", the same {same.pop():,} boards"
    if any("exact_mbb" in e for pts in curves.values() for e in pts):
        titles["lbr"] = titles["lbr"].replace("LBR lower bound", "LBR lower bound (o) and exact "
                                              "(s)")
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    for ax, (k, _) in zip(axes.ravel(), MEASURES):
        for i, (r, points) in enumerate(curves.items()):
            pts = [(e["cpu_s"] / 60, e[k + "_mbb"], e[k + "_hw"]) for e in points
                   if k + "_mbb" in e]
            if pts:
                x, y, hw = map(np.array, zip(*pts))
                ax.errorbar(x, y, yerr=hw, marker="o", capsize=3, label=r, color=f"C{i}")
            exact = [(e["cpu_s"] / 60, e["exact_mbb"]) for e in points if "exact_mbb" in e]
            if k == "lbr" and exact:
                x, y = map(np.array, zip(*exact))
                ax.plot(x, y, marker="s", ls="--", color=f"C{i}", label=f"{r} exact")
        ax.set_title(titles[k] + (f" {reference}" if k == "h2h" else "") + " (mbb/g, 95%)",
                     fontsize=10)
        ax.axhline(0, color="grey", lw=0.5)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("solve time (CPU min)")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    try:
        with AtomicFile(out, checksum=False) as f:
            fig.savefig(f.tmp, dpi=110, format="png")
    finally:
        plt.close(fig)
    return out
