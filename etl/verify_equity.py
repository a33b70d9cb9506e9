"""Exact checks of the stored equity tables (``cli.py etl verify --checks equity``).

Every check is an identity that holds exactly (integers, no tolerance):

- each table has one row per canonical hand: rows = distinct ``idx`` = the canonical count, and
  the class sizes (``weight``) add up to the raw count;
- every row's ``wins + ties + losses`` is its number of outcomes;
- the four tables agree: summed over the rows of a preflop class ``p`` (``n_p`` raw hole-card
  pairs), ``sum(wins * weight)`` on the river equals ``n_p`` times the preflop wins, and is 1/5
  of the turn sum and 1/10 of the flop sum (a five-card board is a turn board plus one river in
  5 ways, a flop plus two cards in 10); the same for ties. The river table comes from one kernel
  and the turn table from another, so this ties independent computations together;
- every histogram row counts each completion once;
- sampled river rows equal a brute force over the 990 opponent hands.
"""

from __future__ import annotations

from math import comb
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from etl import storage
from etl._eval_kernels import eval_hand

SIZES = {"equity_flop": 1_286_792, "equity_turn": 13_960_050, "equity_river": 123_156_254,
         "hist_flop": 1_286_792, "hist_turn": 13_960_050}
RAW = {"equity_flop": comb(52, 2) * comb(50, 3), "equity_turn": comb(52, 2) * comb(50, 4),
       "equity_river": comb(52, 2) * comb(50, 5)}
TOTALS = {"equity_flop": 1_081 * 990, "equity_turn": 46 * 990, "equity_river": 990,
          "equity_preflop": comb(50, 5) * 990}
COMPLETIONS = {"hist_flop": 1_081, "hist_turn": 46}
#: per table: how many times the preflop sums count each (hole, five-card board) deal
MULTIPLICITY = {"equity_river": 1, "equity_turn": 5, "equity_flop": 10}


def _glob(data_dir: Path, name: str) -> str:
    files = storage.partition_files(data_dir, name)
    if not files:
        raise FileNotFoundError(f"table {name} is not built (run `cli.py etl`)")
    return "read_parquet([" + ", ".join(f"'{p}'" for p in sorted(files.values())) + "])"


def check_equity(data_dir: Path, samples: int = 20, seed: int = 0) -> list[tuple[str, Any, Any]]:
    """``[(what, expected, found)]`` for the equity tables of ``data_dir``."""
    con = duckdb.connect()
    rows: list[tuple[str, Any, Any]] = []
    src = {n: _glob(data_dir, n) for n in list(SIZES) + ["equity_preflop"]}
    for name, size in SIZES.items():
        n, distinct, lo, hi = con.execute(f"SELECT count(*), count(DISTINCT idx), min(idx), "
                                      f"max(idx) FROM {src[name]}").fetchone()
        rows += [(f"{name}: rows", size, n), (f"{name}: distinct idx", size, distinct),
                 (f"{name}: idx range", f"0..{size - 1}", f"{lo}..{hi}")]
        if name in RAW:
            weight, bad = con.execute(
                f"SELECT sum(weight::BIGINT), count(*) FILTER (WHERE wins::BIGINT + ties "
                f"+ losses <> {TOTALS[name]}) FROM {src[name]}").fetchone()
            rows += [(f"{name}: sum of class sizes", RAW[name], int(weight)),
                     (f"{name}: rows with wins+ties+losses != {TOTALS[name]:,}", 0, bad)]
        else:
            cols = [d[0] for d in con.execute(f"SELECT * FROM {src[name]} LIMIT 0").description
                    if d[0] != "idx"]
            total = " + ".join(f"{c}::BIGINT" for c in cols)
            bad = con.execute(f"SELECT count(*) FROM {src[name]} WHERE {total} <> "
                          f"{COMPLETIONS[name]}").fetchone()[0]
            rows.append((f"{name}: rows not summing to {COMPLETIONS[name]:,} completions", 0,
                         bad))
    pre = con.execute(f"SELECT idx, weight::BIGINT AS weight, wins, ties, losses FROM {src['equity_preflop']}"
                  f" ORDER BY idx").fetchnumpy()
    rows.append(("equity_preflop: rows", 169, len(pre["idx"])))
    bad = int(np.sum(pre["wins"] + pre["ties"] + pre["losses"] != TOTALS["equity_preflop"]))
    rows.append(("equity_preflop: rows with wins+ties+losses != total", 0, bad))
    n_p = pre["weight"].astype(object)
    expect_w = [int(a) * int(b) for a, b in zip(n_p, pre["wins"])]
    expect_t = [int(a) * int(b) for a, b in zip(n_p, pre["ties"])]
    for name, mult in MULTIPLICITY.items():
        got = con.execute(f"SELECT preflop, sum(wins::HUGEINT * weight), sum(ties::HUGEINT * weight)"
                      f" FROM {src[name]} GROUP BY preflop ORDER BY preflop").fetchall()
        agree = sum(1 for (p, w, t) in got
                    if int(w) == mult * expect_w[p] and int(t) == mult * expect_t[p])
        rows.append((f"{name} summed per preflop class = {mult} x equity_preflop "
                     f"(classes)", 169, agree))
    rows.append((f"equity_river: sampled rows equal to brute force", samples,
                 _brute_force_agreement(con, src["equity_river"], samples, seed)))
    return rows


def _brute_force_agreement(con, src: str, samples: int, seed: int) -> int:
    n = con.execute(f"SELECT count(*) FROM {src}").fetchone()[0]
    picks = np.random.default_rng(seed).choice(n, samples, replace=False)
    picked = ", ".join(str(int(p)) for p in picks)
    rows = con.execute(f"SELECT hole1, hole2, board1, board2, board3, board4, board5, wins, ties, "
                   f"losses FROM (SELECT *, row_number() OVER () - 1 AS rn FROM {src}) "
                   f"WHERE rn IN ({picked})").fetchall()
    ok = 0
    for r in rows:
        cards = np.array(r[:7], np.int64)
        me = eval_hand(cards)
        used = set(r[:7])
        w = t = loss = 0
        other = cards.copy()
        for a in range(52):
            for b in range(a + 1, 52):
                if a in used or b in used:
                    continue
                other[0], other[1] = a, b
                v = eval_hand(other)
                w += me > v
                t += me == v
                loss += me < v
        ok += (w, t, loss) == tuple(r[7:])
    return ok
