"""Texas Hold'em abstractions compared through their solved strategies (issue 20): per
strategy, its abstraction's method, recall, buckets and information sets (the abstract game's
size, which perfect and imperfect recall share as a measure), the solve's iterations and
seconds, the LBR bound over whole boards and its difference from the reference's (paired board
by board: every strategy meets the same boards, so this separates two strategies whose bounds'
own intervals overlap), the results against always-call / always-raise and head-to-head
against a reference strategy, each with its 95% interval; with ``round_robin`` also every pair
(the same duplicate deals for each), printed as a matrix.

    evaluate_methods(data_dir, Evaluation(("pa-pcs-1t", "eb-pcs-1t", "ochs-pcs-1t"),
                                          reference="pa-pcs-1t", h2h_deals=300_000))

The evaluation step of ``experiment holdem-methods`` (``queries.holdem_methods``); from the
shell, ``python -m bench.bench_holdem_methods`` (its options are the fields of
:class:`Evaluation`). A strategy may be taken at one of its checkpoints as ``NAME@ITERATIONS``
(the weights ``checkpoint/average-ITERATIONS.npy`` that ``solve --keep-averages`` keeps; also
while the run is still going). With a ``cache`` directory every row and head-to-head pair is
kept as it is computed (keyed by the strategies, their iterations and the evaluation's
parameters), so a stopped comparison resumes and a later one with more strategies reuses them
(the pipeline evaluates each strategy as its solve ends and plays the round robin last). The
LBR values per board are kept in each run's ``evaluations/`` folder whatever ``cache`` says,
shared with ``cli.py evaluate --curve --lbr-boards``.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.errors import UserError
from schema.storage import AtomicFile
from solve.holdem.assess import same_boards, stored_board_lbr
from solve.holdem.evaluate import Policy, duplicate_match, lbr_estimates, to_mbb
from solve.holdem.figures import FigureStore
from solve.holdem.game import HoldemRules
from solve.holdem.run import (load_policy, run_record, spec_parts,
                              strategy_identity)


@dataclass(frozen=True)
class Evaluation:
    """One comparison: the strategies (``NAME`` or ``NAME@ITERATIONS``, rows in this order),
    the head-to-head opponent (default: the first strategy), the duplicate deals of each
    head-to-head and of each baseline, the whole boards of the LBR bound (0: none), whether
    every pair also plays (``round_robin``), where the figures go as JSON and where every figure
    is kept as it is computed (``cache``; None: nothing is kept)."""

    strategies: tuple[str, ...]
    reference: str | None = None
    h2h_deals: int = 300_000
    baseline_deals: int = 100_000
    lbr_boards: int = 400
    round_robin: bool = False
    json: Path | None = None
    cache: Path | None = None

    def __post_init__(self):
        if not self.strategies:
            raise UserError("strategies: name at least one")
        for name in ("h2h_deals", "baseline_deals"):
            if getattr(self, name) < 1:
                raise UserError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.lbr_boards < 0:
            raise UserError(f"lbr_boards must be at least 0, got {self.lbr_boards}")


def strategy(spec: str, ddir: Path, cache: dict):
    """(policy, tree, abstraction name, iterations, solve seconds, clock) of ``NAME`` or
    ``NAME@ITERATIONS`` (``load_policy``; a run still going is read from its checkpoint)."""
    pol, tree = load_policy(spec, ddir, cache)
    meta = run_record(ddir, spec_parts(spec)[0])
    iters = identity(spec, ddir)["iterations"]
    entry = next((e for e in meta.get("log", []) if e["iterations"] == iters), {})
    return (pol, tree, meta["abstraction"], iters, entry.get("solve_seconds", float("nan")),
            entry.get("clock", meta.get("clock", "wall")))


def identity(spec: str, ddir: Path) -> dict:
    """What a figure of ``spec`` depends on besides the evaluation's own parameters: the run,
    the iterations and the weights file of the strategy read (a run resumed further, or solved
    again under the same name, is another strategy)."""
    try:
        return {"spec": spec, **strategy_identity(ddir, spec)}
    except (OSError, ValueError) as exc:
        raise UserError(f"no holdem strategy {spec!r} in {ddir / 'strategies'} ({exc})") from None


class Strategies:
    """The compared strategies, each loaded when first needed (a comparison whose figures are
    all stored loads none), at most ``keep`` at a time: the least recently used one is let go
    first, with its abstraction's lookups unless a kept strategy shares them (a round robin
    in row order then loads each row's strategy once and each column's once per row, in the
    memory of two strategies rather than of all of them)."""

    def __init__(self, ddir: Path, keep: int = 2):
        self.ddir, self.keep, self._trees, self._loaded = ddir, max(1, keep), {}, {}

    def __getitem__(self, spec: str):
        if spec in self._loaded:
            self._loaded[spec] = self._loaded.pop(spec)  # most recently used last
        else:
            while len(self._loaded) >= self.keep:
                self._loaded.pop(next(iter(self._loaded)))
            kept = {id(v[0].buckets) for v in self._loaded.values()}
            for key in [k for k, b in self._trees.items() if id(b) not in kept]:
                del self._trees[key]
            self._loaded[spec] = strategy(spec, self.ddir, self._trees)
        return self._loaded[spec]


def pair_match(results: FigureStore, pols: Strategies, ddir: Path, a: str, b: str, deals: int,
               seed: int) -> tuple[float, float]:
    """A's winnings against B (mean, 95% half-width; ``deals`` duplicate deals of ``seed``),
    stored under the unordered pair: a duplicate match of B against A on the same deals is
    exactly the negative."""
    first, second = sorted((a, b))
    key = {"kind": "pair", "a": identity(first, ddir), "b": identity(second, ddir),
           "deals": deals, "seed": seed}
    got = results.get(key)
    if got is None:
        e = duplicate_match(pols[first][1], pols[first][0], pols[second][0], deals, seed=seed)
        got = [e.mean, e.half_width]
        results.put(key, got)
    mean, hw = got
    return (mean, hw) if a == first else (-mean, hw)


def evaluate_row(spec: str, ref_spec: str, ev: Evaluation, ddir: Path, results: FigureStore,
                 pols: Strategies, cat: dict, lbr: tuple | None) -> dict:
    """One strategy's row: its abstraction, size and solve, its LBR bound, the baselines and
    head-to-head against the reference (stored and read back under its parameters)."""
    key = {"kind": "row", "strategy": identity(spec, ddir),
           "lbr_boards": ev.lbr_boards, "baseline_deals": ev.baseline_deals}
    row = results.get(key)
    if row is None:
        t0 = time.perf_counter()
        pol, tree, abstraction, iters, seconds, clock = pols[spec]
        method, built, perfect = cat.get(abstraction, ("?", "?", True))
        row = {"strategy": spec, "abstraction": abstraction, "method": method,
               "recall": "perfect" if perfect else "imperfect", "buckets": built,
               "information_sets": tree.information_sets(pol.buckets.n_buckets),
               "iterations": iters, "solve_seconds": seconds, "clock": clock}
        if ev.lbr_boards:
            est, s0, s1 = lbr_estimates(board_values(spec, lbr, ddir, pols),
                                        tree.rules.big_blind)
            row.update(lbr=est.mean, lbr_hw=est.half_width, lbr_seat0=s0.mean,
                       lbr_seat1=s1.mean)
        for base, make in (("call", Policy.always_call), ("raise", Policy.always_raise)):
            e = duplicate_match(tree, pol, make(tree, pol.buckets), ev.baseline_deals, seed=22)
            row[f"vs_{base}"], row[f"vs_{base}_hw"] = e.mean, e.half_width
        row["eval_seconds"] = round(time.perf_counter() - t0, 1)
        results.put(key, row)
    row = dict(row)
    if spec != ref_spec:
        row["h2h"], row["h2h_hw"] = pair_match(results, pols, ddir, spec, ref_spec,
                                               ev.h2h_deals, H2H_SEED)
        if ev.lbr_boards:
            d = to_mbb((board_values(spec, lbr, ddir, pols)
                        - board_values(ref_spec, lbr, ddir, pols)).mean(axis=1),
                       BIG_BLIND)
            row["lbr_vs_ref"], row["lbr_vs_ref_hw"] = d.mean, d.half_width
    return row


def board_values(spec: str, lbr: tuple, ddir: Path, pols: Strategies) -> np.ndarray:
    """(boards, 2): LBR's chips per board and seat against ``spec`` over the boards of
    ``lbr`` (``same_boards``: the ``--lbr-boards`` boards of :data:`LBR_SEED`), kept in the
    run's ``evaluations/`` (``stored_board_lbr``, shared with ``evaluate --curve
    --lbr-boards``): every strategy meets the same boards and deck orders, so two of them can
    be paired board by board."""
    return stored_board_lbr(ddir, spec, *lbr, lambda: (pols[spec][1], pols[spec][0]))


#: the boards of every LBR bound (the 400-board tables in BENCHMARKS.md)
LBR_SEED = 2024
#: the big blind in chips, for mbb/g: every Hold'em run plays the real game's blinds (``solve``
#: varies only the rounds and the bets per round)
BIG_BLIND = HoldemRules().big_blind

#: the duplicate deals of every head-to-head (against the reference and in the round robin,
#: so the reference's pairs are computed once)
H2H_SEED = 21


def evaluate_methods(data_dir: Path, ev: Evaluation) -> dict:
    """The comparison ``ev`` of strategies stored in ``data_dir``: their rows, printed as a
    Markdown table (progress on stderr), the round robin when asked, the figures written to
    ``ev.json`` when given; returns them (``{"rows": [...], "round_robin": [...]}``).

    Raises:
        UserError: a strategy that is not there, a bad ``NAME@ITERATIONS``.
    """
    ref_spec = ev.reference or ev.strategies[0]
    ddir = Path(data_dir)
    with session_scope(ddir) as s:
        cat = {a.name: (a.method, a.built, a.perfect_recall)
               for a in s.query(Abstraction).all()}
    results, pols = FigureStore(ev.cache), Strategies(ddir)
    lbr = same_boards(ev.lbr_boards, LBR_SEED) if ev.lbr_boards else None
    rows = []
    for spec in ev.strategies:
        t0 = time.perf_counter()
        rows.append(evaluate_row(spec, ref_spec, ev, ddir, results, pols, cat, lbr))
        print(f"{spec}: evaluated in {time.perf_counter() - t0:.0f}s (its row measured in "
              f"{rows[-1]['eval_seconds']:.0f}s)", file=sys.stderr, flush=True)
    print(f"\nhead-to-head against {ref_spec} ({ev.h2h_deals:,} duplicate deals), LBR over "
          f"{ev.lbr_boards} boards, baselines {ev.baseline_deals:,} deals; mbb/g, 95%\n")
    print("| strategy | method | recall | buckets | information sets | iterations | solve s | "
          "LBR (as SB / as BB) | LBR - reference's (paired) | vs always-call | "
          "vs always-raise | h2h |")
    print("|---|---|---|---|---:|---:|---:|---|---|---|---|---|")
    for r in rows:
        def cell(k):
            return f"{r[k]:+.1f} +- {r[k + '_hw']:.1f}" if k in r else ""
        seats = f" ({r['lbr_seat0']:.0f} / {r['lbr_seat1']:.0f})" if "lbr_seat0" in r else ""
        print(f"| {r['strategy']} | {r['method']} | {r['recall']} | {r['buckets']} | "
              f"{r['information_sets']:,} | {r['iterations']:,} | {r['solve_seconds']:.0f} "
              f"({r['clock']}) | {cell('lbr')}{seats} | {cell('lbr_vs_ref')} | {cell('vs_call')} | "
              f"{cell('vs_raise')} | {cell('h2h')} |")
    matrix = (round_robin(list(ev.strategies), results, pols, ddir, ev.h2h_deals)
              if ev.round_robin else [])
    figures = {"rows": rows, "round_robin": matrix}
    if ev.json:
        with AtomicFile(Path(ev.json), checksum=False) as f:  # makes the folder, too
            f.tmp.write_text(json.dumps(figures, indent=1, default=float))
    return figures


def round_robin(specs: list[str], results: FigureStore, pols: Strategies, ddir: Path,
                deals: int) -> list[dict]:
    """Head-to-head of every pair of ``specs`` (row against column, ``deals`` duplicate deals,
    the same for every pair), printed as a Markdown matrix; returns the pairs."""
    out, cells, vals = [], {}, {}
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            t0 = time.perf_counter()
            mean, hw = pair_match(results, pols, ddir, specs[i], specs[j], deals, H2H_SEED)
            cells[i, j] = f"{mean:+.1f} +- {hw:.1f}"
            cells[j, i] = f"{-mean:+.1f} +- {hw:.1f}"
            vals[i, j], vals[j, i] = mean, -mean
            out.append({"a": specs[i], "b": specs[j], "h2h": mean, "h2h_hw": hw})
            print(f"{specs[i]} vs {specs[j]}: {mean:+.1f} +- {hw:.1f} "
                  f"[{time.perf_counter() - t0:.0f}s]", file=sys.stderr, flush=True)
    print(f"\nround robin, row against column ({deals:,} duplicate deals each); "
          "mbb/g, 95%\n")
    print("| | " + " | ".join(specs) + " | mean |")
    print("|---|" + "---|" * (len(specs) + 1))
    for i, spec in enumerate(specs):
        mean = np.mean([vals[i, j] for j in range(len(specs)) if j != i]) if len(specs) > 1 \
            else 0.0
        print(f"| {spec} | " + " | ".join(cells.get((i, j), "") for j in range(len(specs)))
              + f" | {mean:+.1f} |")
    return out
