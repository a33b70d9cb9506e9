"""``evaluate`` of a stored Texas Hold'em strategy (``python cli.py evaluate NAME``): how well
its information sets were trained, its results against always-call and always-raise, and its
LBR lower bound on exploitability; and the LBR figures kept beside every strategy.

An LBR bound over whole boards (``--lbr-boards N``, or the run's own setting) is kept in the
run's ``evaluations/`` folder (``solve.holdem.figures``): LBR's chips per board and seat,
under the strategy's identity (iterations, weights file), the number of boards and the seed.
So ``evaluate`` a second time reads it back instead of measuring again, the convergence curve
(``solve.holdem.curve``), the methods comparison (``bench/bench_holdem_methods.py``) and the
2,000-board bench (``bench/bench_lbr_fulldeck.py``) share the same figures, and SQL sees every
board measured (the ``holdem_lbr_boards`` and ``holdem_lbr`` views, ``queries/holdem_figures.sql``),
beside the exact best response where one has been computed (``holdem_exact_best_response``).
An LBR bound over sampled deals (``--lbr-deals``, a run with ``--lbr-boards 0``) is printed
only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np

from schema.errors import ParameterError
from schema.strategy import BARELY_TRAINED
from solve.holdem.evaluate import (Policy, board_lbr_values, duplicate_match, lbr_estimates,
                                   lbr_runouts, sample_boards)
from solve.holdem.figures import FigureStore
from solve.holdem.run import lbr_estimate, load_policy, spec_parts, strategy_identity
from solve.holdem.table import training_counts
from solve.loop import check_at_least

#: The most deals or boards an evaluation samples: they are drawn up front (9 bytes a deal,
#: so at most about 1 GB), and 10^8 is already days of LBR or head-to-head.
MAX_SAMPLES = 10 ** 8

#: the seeds of ``evaluate``'s samples: its duplicate matches and its LBR deals or boards
MATCH_SEED, LBR_SEED = 7, 8


def same_boards(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, dict]:
    """(boards, deck orders, their part of a key) of an LBR bound over ``n`` boards of
    ``seed`` (:func:`solve.holdem.evaluate.board_lbr`'s), for :func:`stored_board_lbr`."""
    return sample_boards(n, seed), lbr_runouts(n, seed), {"boards": n, "seed": seed}


def stored_board_lbr(ddir: Path, spec: str, boards: np.ndarray, perms: np.ndarray, key: dict,
                     load: Callable[[], tuple]) -> np.ndarray:
    """(boards, 2): LBR's chips per board and seat against the stored strategy ``spec``
    (``NAME[@ITERATIONS][~TAU]``) on ``boards`` with the deck orders ``perms``
    (``board_lbr_values``; ``load()`` gives the (tree, policy), called only when the values
    are not stored yet). They are kept in the run's ``evaluations/`` under ``key`` (the
    boards' and seeds' part; :func:`same_boards` gives all three, a later block of the same
    seed adds ``"first"``, its first board's index) with the strategy's
    ``strategy_identity``: ``evaluate``, the curve's points and the comparison's rows share
    them, and two strategies' values on the same boards can be paired."""
    name, _, tau = spec_parts(spec)
    full = {"kind": "lbr", **strategy_identity(ddir, spec), **key}
    if tau is not None:
        full["tau"] = tau
    return np.asarray(FigureStore(ddir / "strategies" / name / "evaluations").fetch(
        full, lambda: board_lbr_values(*load(), boards, perms).tolist()))


def evaluate_run(path: Path, data_dir: Path, lbr_boards: int | None, lbr_deals: int | None,
                 h2h_deals: int | None, tau: str | None, report) -> None:
    """``evaluate`` of a Hold'em strategy: its training (:func:`training_report`), then the
    LBR bound and duplicate results against the baselines, over the numbers of deals
    (boards) given, else those its solve run used (fresh seeds); with ``tau``, of the
    strategy thresholded at ``tau`` (``load_policy``'s ``~TAU``). Each line goes to
    ``report``. LBR over boards is kept (:func:`stored_board_lbr`, the boards of
    :data:`LBR_SEED`): asked again, it is read back."""
    check_at_least(0, lbr_boards=lbr_boards, lbr_deals=lbr_deals)
    check_at_least(2, h2h_deals=h2h_deals)
    for name, v in (("lbr_boards", lbr_boards), ("lbr_deals", lbr_deals),
                    ("h2h_deals", h2h_deals)):
        if v is not None and v > MAX_SAMPLES:  # before any evaluation runs
            raise ParameterError(f"`{name}` must be at most {MAX_SAMPLES:,}, got {v:,}")
    ddir = Path(data_dir)
    name = path.parent.name
    spec = name if tau is None else f"{name}~{tau}"
    cache: dict = {}
    pol, tree = load_policy(spec, ddir, cache)
    raw = pol if tau is None else load_policy(name, ddir, cache)[0]
    for line in training_report(tree, raw):
        report(line)
    meta = json.loads((ddir / "strategies" / name / "run.json").read_text())
    h2h = h2h_deals if h2h_deals is not None else max(int(meta.get("h2h_deals", 20000)), 2)
    n_lbr = lbr_deals if lbr_deals is not None else int(meta.get("lbr_deals", 2000))
    boards = lbr_boards if lbr_boards is not None else int(meta.get("lbr_boards", 0))
    for b in (Policy.always_call, Policy.always_raise):
        opp = b(tree, pol.buckets)
        report(f"vs {opp.name}: {duplicate_match(tree, pol, opp, h2h, seed=MATCH_SEED)}")
    if boards:  # kept; over deals (or none) as the solve's own checkpoints do
        values = stored_board_lbr(ddir, spec, *same_boards(boards, LBR_SEED),
                                  lambda: (tree, pol))
        got = lbr_estimates(values, tree.rules.big_blind), "boards"
    else:
        got = lbr_estimate(tree, pol, n_lbr, 0, seed=LBR_SEED)
    if got is None:
        return
    (lbr, s0, s1), unit = got
    report(f"local best response (lower bound on exploitability): {lbr} over {unit} "
           f"[as small blind: {s0.mean:+.1f}, as big blind: {s1.mean:+.1f}]")


def training_report(tree, pol) -> list[str]:
    """Lines of ``evaluate``: per round (from 1) and seat, the information sets the solver never
    trained (average-strategy weight 0, or an average still exactly the uniform strategy every
    information set starts at: the table holds the uniform default there,
    ``schema.strategy``) and barely trained (``schema.strategy.BARELY_TRAINED`` of the round's
    mean weight)."""
    rows = training_counts(tree, pol.buckets, pol.weights, pol.offset)
    lines = [f"information sets never trained (weight 0, or an average still at the uniform "
             f"start) / barely trained (weight below {BARELY_TRAINED:g} x the round's mean) of "
             f"{pol.name}:"]

    def line(head, rs):
        uni = sum(r["uniform start"] for r in rs)
        return (f"  {head}: {sum(r['never trained'] for r in rs):,} never trained, "
                f"{sum(r['barely trained'] for r in rs):,} barely trained, of "
                f"{sum(r['infosets'] for r in rs):,}"
                + (f" ({uni:,} of them hold weight, their average still the uniform start)"
                   if uni else ""))

    for r in rows:
        lines.append(line(f"round {r['round']} {r['seat']}", [r]))
    for rnd in sorted({r["round"] for r in rows}):
        lines.append(line(f"round {rnd}", [r for r in rows if r["round"] == rnd]))
    return lines
