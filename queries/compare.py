"""``cli.py compare``: the four measures of docs/design.md section 6 for several strategies.

    python cli.py compare --game rhode-island rhode-island-eb-13-25-125 rhode-island-pa-13-25-125
    python cli.py compare --game leduc leduc-full-lp leduc-full-cfr --report out/

Each name is a strategy (``solve_runs``) or an abstraction (``abstractions``); an abstraction
stands for its least exploitable stored strategy, solved first when it has none under
``--target`` (chips, in the abstract game). Then every missing evaluation in the real game
is computed and stored (``queries.evaluations``): best response per seat and exploitability,
head-to-head of every pair (exact games: all pairs from one matrix, ``solve.algorithms.pairwise``),
head-to-head against an equilibrium of the real game (``--equilibrium``,
else the game's reference: the LP solution for Kuhn and Leduc, the unabstracted game solved
to ``--equilibrium-target`` chips for Rhode Island Hold'em), and the value of each profile against
the game value. The four tables are printed from the SQL views (``queries/*.sql``);
``--report DIR`` also writes ``DIR/README.md`` and one PNG per measure against granularity.

Games plug in through :func:`game_registry`: a game is a factory ``(data_dir) ->`` object
with the methods of :class:`GameSupport`. Texas Hold'em joins by providing
``queries/holdem_compare.py`` with ``compare_support(data_dir)``.
"""

from __future__ import annotations

import sys
import time
from functools import partial
from pathlib import Path
from typing import Callable

import duckdb
import numpy as np

from queries import holdem_compare
from queries.evaluations import Result, stored_keys, write_batch
from queries.limit_support import LimitPokerSupport
from queries.parallel_solve import solve_parallel
from queries.support import GameSupport, Options
from queries.views import connect, create_views
from schema.errors import ParameterError, UserError
from schema.paths import check_dir
from schema.progress import progress_bar
from solve.games import registry
from solve.games.backends import HoldemBackend, RulesBackend

SOLVE_ALGORITHMS = registry.CFR_FAMILY  # what Options.algorithm accepts


# --------------------------------------------------------------------------- registry

#: How ``compare`` evaluates each kind of game backend (``solve.games.backends``), the
#: queries layer's half of the game registry: a game whose backend is (or derives from) one of
#: these, marked ``compare`` in the registry, is compared with no other list to edit.
SUPPORTS: tuple[tuple[type, Callable[[str], Callable[[Path], GameSupport]]], ...] = (
    (RulesBackend, lambda name: partial(LimitPokerSupport, name)),
    (HoldemBackend, lambda name: holdem_compare.compare_support),
)


def game_registry() -> dict[str, Callable[[Path], "GameSupport"]]:
    """Game name -> factory of its :class:`GameSupport`, for the games of the game registry
    (``solve.games.registry``) marked ``compare``, by their backend (:data:`SUPPORTS`).

    Games defined by limit poker rules (Kuhn, Leduc, Rhode Island Hold'em, plug-ins) use the
    exact evaluators of ``solve.algorithms.evaluate`` (:class:`LimitPokerSupport`); Texas Hold'em the
    sampled ones of ``queries/holdem_compare.py`` (``compare_support(data_dir)``).
    """
    reg: dict[str, Callable[[Path], GameSupport]] = {}
    for spec in registry.games().values():
        if not spec.compare:
            continue
        for kind, support in SUPPORTS:
            if isinstance(spec.backend, kind):
                reg[spec.name] = support(spec.name)
                break
    return reg


def game_support(game: str, data_dir: Path) -> "GameSupport":
    reg = game_registry()
    if game not in reg:
        raise UserError(f"compare does not support game {game!r}; choose from {', '.join(sorted(reg))}")
    return reg[game](Path(data_dir))

def check_report_dir(folder: str | Path) -> Path:
    """Refuse a ``report`` folder that cannot be written before any work is done.

    Raises:
        ParameterError: it, or a parent, is a file, or its nearest existing parent is not
            writable.
    """
    return check_dir(folder, "`report`", writable=True)


# --------------------------------------------------------------------------- evaluation

def evaluate(support: GameSupport, strategies: list[str], equilibrium: str, data_dir: Path,
             progress: bool = True) -> int:
    """Compute and store every missing evaluation of ``strategies`` (and of the equilibrium);
    returns how many were computed."""
    names = list(dict.fromkeys(list(strategies) + [equilibrium]))
    have = stored_keys(data_dir, support.game)
    sha = {n: support.sha(n) for n in names}

    def missing(r: Result) -> bool:
        return r.key() not in have

    todo_single = []  # (name, measure list)
    for n in names:
        need = []
        br_keys = [Result(m, n, sha[n], 0.0, seat=seat).key() for m, seat in (
            ("best_response", 1), ("best_response", 2), ("exploitability", None))]
        if any(k not in have for k in br_keys) or (
                not all(have[k] for k in br_keys) and exact_since(support, n)):
            need.append("best_response")
        if missing(Result("value", n, sha[n], 0.0)):
            need.append("value")
        if n != equilibrium and missing(Result("vs_equilibrium", n, sha[n], 0.0, strategy_b=equilibrium,
                                               sha_b=sha[equilibrium])):
            need.append("vs_equilibrium")
        if n == equilibrium and missing(Result("game_value", n, sha[n], 0.0)):
            need.append("game_value")
        if need:
            todo_single.append((n, need))
    ordered = sorted(n for n in names)
    pairs = [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]
             if missing(Result("head_to_head", a, sha[a], 0.0, strategy_b=b, sha_b=sha[b]))]
    total = sum(len(m) for _, m in todo_single) + len(pairs)
    done = 0
    with progress_bar(total=total, desc=f"evaluate {support.game}", unit="eval", disable=not progress,
              file=sys.stderr) as bar:
        for n, need in todo_single:
            batch = []
            if "best_response" in need:
                t0 = time.time()
                v1, v2, exact = support.best_responses(n)
                sec = time.time() - t0
                batch += [Result("best_response", n, sha[n], v1, seat=1, exact=exact,
                                 seconds=sec / 2),
                          Result("best_response", n, sha[n], v2, seat=2, exact=exact,
                                 seconds=sec / 2),
                          Result("exploitability", n, sha[n], 0.5 * (v1 + v2), exact=exact)]
            if "value" in need or "game_value" in need:
                t0 = time.time()
                v = support.value(n)
                sec = time.time() - t0
                batch.append(Result("value", n, sha[n], v, seconds=sec))
                if n == equilibrium:
                    batch.append(Result("game_value", n, sha[n], v, exact=support.is_exact(n)))
            if "vs_equilibrium" in need:
                t0 = time.time()
                v, lo, hi, exact = support.head_to_head(n, equilibrium)
                batch.append(Result("vs_equilibrium", n, sha[n], v, strategy_b=equilibrium,
                                    sha_b=sha[equilibrium], ci_low=lo, ci_high=hi, exact=exact,
                                    seconds=time.time() - t0))
            write_batch(data_dir, support.game, [r for r in batch if missing(r) or (
                r.exact and not have[r.key()])])
            done += len(need)
            bar.update(len(need))
        if pairs and hasattr(support, "head_to_head_many"):  # exact games: one matrix
            _pairs_at_once(support, data_dir, pairs, sha, bar, progress)
            done += len(pairs)
        else:  # sampled games: pair by pair, stored a row at a time
            batch = []
            for k, (a, b) in enumerate(pairs):
                if k and pairs[k - 1][0] != a:
                    write_batch(data_dir, support.game, batch)
                    batch = []
                t0 = time.time()
                v, lo, hi, exact = support.head_to_head(a, b)
                batch.append(Result("head_to_head", a, sha[a], v, strategy_b=b, sha_b=sha[b],
                                    ci_low=lo, ci_high=hi, exact=exact,
                                    seconds=time.time() - t0))
                bar.update(1)
                done += 1
            write_batch(data_dir, support.game, batch)
    return done


def exact_since(support: GameSupport, name: str) -> bool:
    """Whether a game whose best responses are sampled lower bounds has an exact figure for
    ``name`` now (``exact_best_responses``, optional), which supersedes the sampled rows."""
    exact = getattr(support, "exact_best_responses", None)
    return exact is not None and exact(name) is not None


def _pairs_at_once(support: GameSupport, data_dir: Path, pairs: list[tuple[str, str]],
                   sha: dict[str, str], bar, progress: bool) -> None:
    """Store the head-to-head of ``pairs`` from one matrix over the strategies they involve
    (``support.head_to_head_many``); each result's seconds are its share of the matrix's."""
    names = sorted({n for pair in pairs for n in pair})
    at = {n: i for i, n in enumerate(names)}
    t0 = time.time()
    with progress_bar(desc=f"head-to-head of {len(names)} strategies (passes)", unit="pass",
                      disable=not progress, file=sys.stderr) as passes:
        m = support.head_to_head_many(names, progress=passes)
    sec = (time.time() - t0) / len(pairs)
    write_batch(data_dir, support.game, [
        Result("head_to_head", a, sha[a], float(m[at[a], at[b]]), strategy_b=b, sha_b=sha[b],
               exact=True, seconds=sec) for a, b in pairs])
    bar.update(len(pairs))


# --------------------------------------------------------------------------- tables

def measure_tables(data_dir: Path, game: str, strategies: list[str], equilibrium: str) -> dict:
    """The four measures for ``strategies`` (and the equilibrium) from the SQL views, as
    {title: (columns, rows)}."""
    create_views(data_dir)
    names = list(dict.fromkeys(list(strategies) + [equilibrium]))
    out = {}
    with connect(data_dir, read_only=True) as con:
        def q(sql, params):
            try:
                rel = con.execute(sql, params)
            except duckdb.IOException as exc:
                if "No files found" not in str(exc):
                    raise
                raise ParameterError(f"no evaluations stored in {data_dir / 'evaluations'} "
                                     "(compare without `report_only` computes them)") from None
            cols = [d[0] for d in rel.description]
            return cols, rel.fetchall()

        out["exploitability"] = exploitability_table(*q(
            "SELECT strategy, abstraction, abstract_exploitability, exploitability_seat1, "
            "exploitability_seat2, exploitability, exact FROM exploitability "
            "WHERE game = ? AND list_contains(?, strategy) ORDER BY exploitability", [game, names]))
        cols, rows = q("SELECT strategy, opponent, value FROM head_to_head "
                       "WHERE game = ? AND list_contains(?, strategy) AND list_contains(?, opponent)",
                       [game, names, names])
        cell = {(r[0], r[1]): r[2] for r in rows}
        mean = {n: (np.mean([v for (s, _), v in cell.items() if s == n]) if any(s == n for s, _ in cell)
                    else None) for n in names}
        order = sorted(names, key=lambda n: -(mean[n] if mean[n] is not None else -1e300))
        out["head_to_head"] = (["strategy", "mean"] + [f"vs {i + 1}" for i in range(len(order))],
                               [[f"{i + 1} {a}", mean[a]] + [cell.get((a, b)) for b in order]
                                for i, a in enumerate(order)])
        out["vs_equilibrium"] = q(
            "SELECT strategy, abstraction, equilibrium, value, ci_low, ci_high, "
            "equilibrium_exploitability FROM vs_equilibrium "
            "WHERE game = ? AND list_contains(?, strategy) ORDER BY value DESC", [game, names])
        out["value_error"] = q(
            "SELECT strategy, abstraction, value_estimate, game_value, error, abs_error "
            "FROM value_error WHERE game = ? AND list_contains(?, strategy) ORDER BY abs_error",
            [game, names])
    return out


def exploitability_table(cols: list[str], rows: list) -> tuple[list[str], list]:
    """The exploitability table with its last column (``exact``) turned into what the headers
    say: all exact, the headers unchanged; all sampled (Texas Hold'em's LBR), the three
    figures headed "(LBR lower bound)"; mixed, a ``best response`` column before the figures
    says which per row."""
    *cols, _ = cols
    kinds = {bool(r[-1]) for r in rows}
    if kinds == {False}:
        return ([c if not c.startswith("exploitability") else f"{c} (LBR lower bound)"
                 for c in cols], [list(r[:-1]) for r in rows])
    if kinds == {True, False}:  # before the figures: the last column stays exploitability
        return (cols[:3] + ["best response"] + cols[3:],
                [list(r[:3]) + ["exact" if r[-1] else "LBR lower bound"] + list(r[3:-1])
                 for r in rows])
    return cols, [list(r[:-1]) for r in rows]


# --------------------------------------------------------------------------- compare

def compare(support: GameSupport, names: list[str], options: Options, data_dir: Path) -> dict:
    """Resolve, solve what is missing, evaluate what is missing; the tables and entries."""
    entries = support.resolve(list(dict.fromkeys(names)))  # fails before anything is written
    if options.equilibrium:
        support.resolve([options.equilibrium])
    if options.jobs > 1 and not options.report_only:
        solve_parallel(game_support, support.game, data_dir,
                       [(e.name, options) for e in entries if e.strategy is None],
                       options.jobs, options.progress)
    equilibrium = support.equilibrium(options)
    strategies = [support.ensure_strategy(e, options) for e in entries]
    if not options.report_only:
        evaluate(support, strategies, equilibrium, data_dir, options.progress)
    tables = measure_tables(data_dir, support.game, strategies, equilibrium)
    return {"entries": entries, "strategies": strategies, "equilibrium": equilibrium,
            "tables": tables, "options": options}
