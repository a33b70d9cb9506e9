"""``cli.py compare``: the four measures of DESIGN.md section 6 for several strategies.

    python cli.py compare --game rhode-island rhode-island-eb-13-25-125 rhode-island-pa-13-25-125
    python cli.py compare --game leduc leduc-full-lp leduc-full-cfr --report out/

Each name is a strategy (``solve_runs``) or an abstraction (``abstractions``); an abstraction
stands for its least exploitable stored strategy, solved first when it has none under
``--target`` (chips, in the abstract game). Then every missing evaluation in the real game
is computed and stored (``queries.evaluations``): best response per seat and exploitability,
head-to-head of every pair, head-to-head against an equilibrium of the real game (``--equilibrium``,
else the game's reference: the LP solution for Kuhn and Leduc, the unabstracted game solved
to ``--equilibrium-target`` chips for Rhode Island Hold'em), and the value of each profile against
the game value. The four tables are printed from the SQL views (``queries/*.sql``);
``--report DIR`` also writes ``DIR/README.md`` and one PNG per measure against granularity.

Games plug in through :func:`game_registry`: a game is a factory ``(data_dir) ->`` object
with the methods of :class:`GameSupport`. Texas Hold'em joins by providing
``queries/holdem_compare.py`` with ``compare_support(data_dir)``.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Callable

import numpy as np

from queries.parallel_solve import solve_parallel
from schema.errors import UserError
from schema.optional import import_optional
from schema.paths import data_dir as resolve_data_dir
from solve.games import registry

SOLVE_ALGORITHMS = registry.CFR_FAMILY


# --------------------------------------------------------------------------- registry

def game_registry() -> dict[str, Callable[[Path], "GameSupport"]]:
    """Game name -> factory of its :class:`GameSupport`, for the games of the game registry
    (``solve.games.registry``) marked ``compare``.

    Games defined by limit poker rules (Kuhn, Leduc, Rhode Island Hold'em, plug-ins) use the
    exact evaluators of ``solve.evaluate`` (:class:`LimitPokerSupport`); Texas Hold'em the
    sampled ones of ``queries/holdem_compare.py`` (``compare_support(data_dir)``).
    """
    reg: dict[str, Callable[[Path], GameSupport]] = {}
    for spec in registry.games().values():
        if not spec.compare:
            continue
        if spec.representation == "rules":
            reg[spec.name] = partial(LimitPokerSupport, spec.name)
        elif spec.representation == "holdem":
            mod = import_optional("queries.holdem_compare")
            if mod is not None:
                reg[spec.name] = mod.compare_support
    return reg


def game_support(game: str, data_dir: Path) -> "GameSupport":
    reg = game_registry()
    if game not in reg:
        raise UserError(f"compare does not support game {game!r}; choose from {', '.join(sorted(reg))}")
    return reg[game](Path(data_dir))


@dataclass
class Options:
    """How missing strategies are solved."""

    target: float = 1.0                 # chips, abstract game: a stored strategy below is reused
    time_limit: float | None = None     # seconds of iterating per solve (then stored as is)
    iterations: int | None = None       # most iterations per solve, in total
    reuse_solved: bool = False          # reuse any stored strategy of an abstraction
    report_only: bool = False           # no solving or evaluating: what is stored
    algorithm: str = "dcfr"
    check_every: int = 25
    equilibrium: str | None = None      # strategy name of the real game's equilibrium
    equilibrium_target: float = 1.0     # chips, for the reference equilibrium
    equilibrium_time_limit: float | None = None
    equilibrium_iterations: int | None = None
    progress: bool = True
    jobs: int = 1                       # solves run side by side (queries.parallel_solve)

    def for_equilibrium(self) -> "Options":
        """These options with the reference equilibrium's target and limits."""
        return replace(self, target=self.equilibrium_target,
                       time_limit=self.equilibrium_time_limit,
                       iterations=self.equilibrium_iterations)


@dataclass
class Entry:
    """A name given to compare, resolved."""

    name: str
    strategy: str | None = None
    abstraction: str | None = None
    method: str | None = None
    buckets: str | None = None
    built: str | None = None


@dataclass
class Loaded:
    """A strategy reduced to what evaluation needs: per-infoset probabilities and the map
    from the real game's (decision node, hand) to them."""

    name: str
    sha: str
    info: np.ndarray
    probs: np.ndarray
    extra: dict = field(default_factory=dict)


class GameSupport:
    """What ``compare`` needs from a game. Values in chips per game.

    - ``resolve(names) -> [Entry]``: UserError (before anything is written) for an unknown name.
    - ``ensure_strategy(entry, options) -> name``: the strategy to evaluate, solving if needed.
    - ``equilibrium(options) -> name``: an (epsilon-)equilibrium of the real game.
    - ``sha(name)``, ``is_exact(name)``: the strategy table's SHA-256; exact equilibrium or not.
    - ``best_responses(name) -> (v1, v2)``: value to the nemesis when ``name`` plays seat 1, 2.
    - ``value(name)``: ``x' A y`` of the strategy's own profile, for player 1.
    - ``head_to_head(a, b) -> (value, ci_low, ci_high, exact)``.
    """

    game: str


# --------------------------------------------------------------------------- limit poker

class LimitPokerSupport(GameSupport):
    """Games of ``solve.games`` (Kuhn, Leduc, Rhode Island Hold'em): exact evaluation."""

    def __init__(self, game: str, data_dir: Path, abstractions: dict | None = None):
        self.game = game
        self.data_dir = Path(data_dir)
        #: in-memory card abstractions by name (e.g. ``solve.abstractions.FunctionAbstraction``)
        #: for strategies of abstracted Kuhn/Leduc; others are loaded from the data directory
        self.abstractions = dict(abstractions or {})
        self._real = None
        self._loaded: dict[str, Loaded] = {}

    def compile(self, abstraction: str | None):
        """The game compiled with ``abstraction`` (None: the real game)."""
        return self._compiled(abstraction)[0]

    def _compiled(self, abstraction: str | None):
        """(compiled game, card abstraction object or None)."""
        if abstraction is None:
            return self.real(), None
        from solve.games.compile import compile_game

        ab = self.card_abstraction(abstraction)
        return compile_game(registry.get(self.game).make_rules(), ab), ab

    def card_abstraction(self, abstraction: str):
        """The card abstraction object named ``abstraction`` (in memory, else built ones)."""
        if abstraction in self.abstractions:
            return self.abstractions[abstraction]
        from solve.abstractions import load_abstraction

        return load_abstraction(abstraction, self.game, self.data_dir)

    # real game, strategies ---------------------------------------------------
    def real(self):
        if self._real is None:
            from solve.games.compile import compile_game

            self._real = compile_game(registry.get(self.game).make_rules())
        return self._real

    def _runs(self) -> dict[str, dict]:
        from schema.catalog import session_scope
        from schema.catalog_solve import SolveRun

        with session_scope(self.data_dir) as s:
            return {r.name: {c: getattr(r, c) for c in ("name", "game", "abstraction", "algorithm",
                                                        "abstract_exploitability", "exploitability",
                                                        "path", "sha256", "iterations", "created")}
                    for r in s.query(SolveRun).all()}

    def _abstractions(self) -> dict[str, dict]:
        from schema.catalog import session_scope

        mod = import_optional("schema.catalog_abstraction")
        if mod is None:
            return {}
        with session_scope(self.data_dir) as s:
            return {a.name: {"name": a.name, "game": a.game, "method": a.method,
                             "buckets": a.buckets, "built": a.built, "created": a.created}
                    for a in s.query(mod.Abstraction).all()}

    def _path(self, run: dict) -> Path:
        from solve.table import strategy_path

        from schema.paths import resolve_stored

        return resolve_stored(self.data_dir, run["path"], strategy_path(self.data_dir, run["name"]))

    def resolve(self, names: list[str]) -> list[Entry]:
        runs, abstractions = self._runs(), self._abstractions()
        out = []
        for name in names:
            if name in runs:
                run = runs[name]
                if run["game"] != self.game:
                    raise UserError(f"strategy {name!r} is for {run['game']}, not {self.game}")
                if not self._path(run).exists():
                    raise UserError(f"strategy {name!r} has no table (looked for {self._path(run)})")
                a = abstractions.get(run["abstraction"] or "", {})
                check_current_build(name, run, a)
                out.append(Entry(name, name, run["abstraction"], a.get("method"), a.get("buckets"),
                                 a.get("built")))
            elif name in abstractions:
                a = abstractions[name]
                if a["game"] != self.game:
                    raise UserError(f"abstraction {name!r} is for {a['game']}, not {self.game}")
                out.append(Entry(name, None, name, a["method"], a["buckets"], a["built"]))
            else:
                raise UserError(f"no strategy or abstraction named {name!r} for {self.game}")
        return out

    def ensure_strategy(self, entry: Entry, options: Options) -> str:
        if entry.strategy is not None:
            return entry.strategy
        # exploitability in the strategy's own game: the abstract one, else the real one
        col = "abstract_exploitability" if entry.abstraction else "exploitability"
        a = self._abstractions().get(entry.abstraction or "", {})
        runs = [r for r in self._runs().values()
                if r["game"] == self.game and r["abstraction"] == entry.abstraction
                and r[col] is not None and self._path(r).exists() and of_current_build(r, a)]
        best = min(runs, key=lambda r: r[col], default=None)
        if best is not None and (best[col] < options.target or options.reuse_solved or (
                options.iterations is not None and best["iterations"] >= options.iterations)):
            entry.strategy = best["name"]
            return best["name"]
        if options.report_only:
            raise UserError(f"{entry.name!r} has no stored strategy (--report-only solves nothing)")
        entry.strategy = self.solve(entry.abstraction, options.algorithm, options.target,
                                    options.time_limit, options.check_every, options.progress,
                                    options.iterations)
        return entry.strategy

    def solve(self, abstraction: str | None, algorithm: str, target: float,
              time_limit: float | None, check_every: int, progress: bool,
              iterations: int | None = None) -> str:
        """Solve (resuming a checkpoint) to ``target`` chips of exploitability in its own game,
        or ``time_limit`` seconds of iterating, or ``iterations`` in total, whichever first;
        stored like ``cli.py solve`` (same default name)."""
        from schema.progress import progress_bar

        from solve.abstract_cfr import make_solver
        from solve.runs import store_strategy
        from solve.evaluate import expected_value, exploitability
        from solve.loop import iterate_until, measure
        from solve.table import strategy_path

        name = f"{self.game}-{abstraction or 'full'}-{algorithm}"
        t0 = time.time()
        game, ab = self._compiled(abstraction)  # the abstraction is loaded once
        abstract = game.abstraction is not None

        def fresh():
            return make_solver(game, algorithm, ab)

        solver = fresh()  # on bucket types when the abstraction allows (solve.abstract_cfr)
        t_iter = time.time()
        ckpt = strategy_path(self.data_dir, name).with_name("checkpoint.npz")
        from solve.abstractions import predates

        # a checkpoint of an earlier build of the abstraction is not resumed
        if ckpt.exists() and not predates(ckpt, getattr(ab, "created", None)):
            try:
                solver.load(ckpt)
            except (ValueError, KeyError, OSError):
                solver = fresh()
        expl = measure(solver, game, abstract) if solver.iteration_ else float("inf")
        bar = progress_bar(desc=f"solve {abstraction or self.game}", unit="it", initial=solver.iteration_,
                   disable=not progress, file=sys.stderr)
        try:
            # the time limit counts from before the checkpoint is loaded and, on a fresh solve,
            # lets one step run
            iterate_until(solver, game, check_every, total=iterations, target=target,
                          time_limit=time_limit, started=t_iter, min_iteration=0, expl=expl,
                          checkpoint=ckpt, bar=bar)
        finally:
            bar.close()
        strategy = solver.average_strategy()
        real_expl = exploitability(game, strategy)
        abs_expl = measure(solver, game, True) if abstract else None
        path, digest = store_strategy(self.data_dir, name, strategy, self.game, game.abstraction,
                              algorithm, solver.iteration_, time.time() - t0, real_expl, abs_expl,
                              expected_value(game, strategy))
        # evaluation needs this game's infoset map: keep it rather than compile again
        self._loaded[name] = Loaded(name, digest, game.info, strategy.probs)
        own = real_expl if abs_expl is None else abs_expl
        print(f"solved {name}: {solver.iteration_} iterations, {time.time() - t0:.0f}s, "
              f"exploitability {own:.4g} in its own game (target {target:g}), "
              f"{real_expl:.4g} in the real game", file=sys.stderr)
        return name

    def equilibrium(self, options: Options) -> str:
        if options.equilibrium:
            (entry,) = self.resolve([options.equilibrium])
            return self.ensure_strategy(entry, options)
        return self.reference_equilibrium(options)

    def reference_equilibrium(self, options: Options) -> str:
        """The game registry's ``reference``: ``lp`` (Kuhn, Leduc): the sequence-form LP
        solution of the real game (``GAME-full-lp``); ``iterative`` (Rhode Island Hold'em: 3.9 M
        information sets over the same public tree, so a CFR iteration costs about what one of
        an abstract game does): the unabstracted game solved to ``--equilibrium-target``
        chips of exploitability (``GAME-full-ALGORITHM``)."""
        if registry.get(self.game).reference == "iterative":
            return self.ensure_strategy(Entry(f"{self.game}-full"), options.for_equilibrium())
        from solve.runs import store_strategy
        from solve.evaluate import expected_value, exploitability
        from solve.lp import solve_lp

        name = f"{self.game}-full-lp"
        run = self._runs().get(name)
        if run is not None and self._path(run).exists():
            return name
        t0 = time.time()
        strategy, value = solve_lp(self.real())
        expl = exploitability(self.real(), strategy)
        store_strategy(self.data_dir, name, strategy, self.game, None, "lp", 0, time.time() - t0, expl,
               None, expected_value(self.real(), strategy))
        return name

    def is_exact(self, name: str) -> bool:
        return self._runs()[name]["algorithm"] == "lp"

    def load(self, name: str) -> Loaded:
        if name in self._loaded:
            return self._loaded[name]
        from schema.storage import file_sha256
        from solve.table import read_strategy

        run = self._runs().get(name)
        if run is None:
            raise UserError(f"no strategy named {name!r}")
        path = self._path(run)
        game = self.compile(run["abstraction"])
        try:
            s = read_strategy(path, game)
        except (ValueError, OSError) as exc:
            raise UserError(f"strategy {name!r}: {exc}") from None
        loaded = Loaded(name, file_sha256(path), game.info, s.probs)
        self._loaded[name] = loaded
        return loaded

    def sha(self, name: str) -> str:
        """SHA-256 of the strategy table (without compiling its game)."""
        if name in self._loaded:
            return self._loaded[name].sha
        from schema.storage import file_sha256

        run = self._runs().get(name)
        if run is None:
            raise UserError(f"no strategy named {name!r}")
        return file_sha256(self._path(run))

    def behaviour(self, name: str) -> np.ndarray:
        from solve import _kernels as K

        g, s = self.real(), self.load(name)
        out = np.zeros((len(g.dnode), 3, g.n_hands))
        K.normalise_average(s.info, s.probs, g.dnode, g.child_count, out)
        return out

    # measures ------------------------------------------------------------------
    def best_responses(self, name: str) -> tuple[float, float]:
        from solve.evaluate import best_response_value

        beh = self.behaviour(name)
        # seat 1 (player index 0) is exploited by a best-responding player 2, and vice versa
        return (best_response_value(self.real(), beh, 1), best_response_value(self.real(), beh, 0))

    def value(self, name: str) -> float:
        from solve.evaluate import expected_value

        return expected_value(self.real(), self.behaviour(name))

    def head_to_head(self, a: str, b: str, beh_a: np.ndarray | None = None):
        from solve.evaluate import head_to_head

        beh_a = self.behaviour(a) if beh_a is None else beh_a
        return head_to_head(self.real(), beh_a, self.behaviour(b)), None, None, True


class RhodeIslandSupport(LimitPokerSupport):
    """Rhode Island Hold'em (its reference equilibrium: the registry's ``iterative``). The
    lossless abstraction (13,205,1774 classes played with the public board visible) is solved
    exactly like the real game, but the reference stays the unabstracted game."""

    def __init__(self, data_dir: Path):
        super().__init__("rhode-island", data_dir)


def of_current_build(run: dict, abstraction: dict) -> bool:
    """Whether stored strategy ``run`` (with ``created``) was solved on the current build of
    its ``abstraction`` (catalog fields, ``created`` among them; {} if none): a rebuild with
    ``--replace`` renumbers the buckets, so strategies of earlier builds are not reused."""
    built = abstraction.get("created")
    return built is None or run["created"] >= built


def check_current_build(name: str, run: dict, abstraction: dict) -> None:
    """A one-line error if strategy ``name`` is of an earlier build (:func:`of_current_build`)."""
    if not of_current_build(run, abstraction):
        raise UserError(f"strategy {name!r} predates abstraction {run['abstraction']!r}, which "
                        "was rebuilt since: solve it again (or compare the abstraction's name)")


def build_abstraction(data_dir: Path, method: str, buckets: str | None, name: str,
                      seed: int = 0, public_board: bool = False) -> None:
    """Build a Rhode Island abstraction the way ``cli.py build-abstraction`` does
    (``public_board``: played with the public cards visible, ``--public-board``)."""
    from abstraction.build import build, summary_lines

    print("\n".join(summary_lines(build(
        game="rhode-island", method=method, buckets=buckets, name=name, seed=seed, workers=1,
        n_init=4, public_board=public_board, data_dir=str(data_dir)))))


def check_report_dir(folder: str | Path) -> Path:
    """Refuse a ``--report`` folder that cannot be written before any work is done.

    Raises:
        UserError: it, or a parent, is a file, or its nearest existing parent is not writable.
    """
    from schema.paths import check_dir

    return check_dir(folder, "--report", writable=True)


# --------------------------------------------------------------------------- evaluation

def evaluate(support: GameSupport, strategies: list[str], equilibrium: str, data_dir: Path,
             progress: bool = True) -> int:
    """Compute and store every missing evaluation of ``strategies`` (and of the equilibrium);
    returns how many were computed."""
    from schema.progress import progress_bar

    from queries.evaluations import Result, stored_keys, write_batch

    names = list(dict.fromkeys(list(strategies) + [equilibrium]))
    have = stored_keys(data_dir, support.game)
    sha = {n: support.sha(n) for n in names}

    def missing(r: Result) -> bool:
        return r.key() not in have

    todo_single = []  # (name, measure list)
    for n in names:
        need = []
        if any(missing(Result(m, n, sha[n], 0.0, seat=seat)) for m, seat in (
                ("best_response", 1), ("best_response", 2), ("exploitability", None))):
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
                v1, v2 = support.best_responses(n)
                sec = time.time() - t0
                batch += [Result("best_response", n, sha[n], v1, seat=1, seconds=sec / 2),
                          Result("best_response", n, sha[n], v2, seat=2, seconds=sec / 2),
                          Result("exploitability", n, sha[n], 0.5 * (v1 + v2))]
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
            write_batch(data_dir, support.game, [r for r in batch if missing(r)])
            done += len(need)
            bar.update(len(need))
        row_of = None
        batch = []
        for a, b in pairs:
            if row_of is None or row_of[0] != a:
                write_batch(data_dir, support.game, batch)
                batch = []
                row_of = (a, support.behaviour(a) if hasattr(support, "behaviour") else None)
            t0 = time.time()
            if row_of[1] is not None:
                v, lo, hi, exact = support.head_to_head(a, b, beh_a=row_of[1])
            else:
                v, lo, hi, exact = support.head_to_head(a, b)
            batch.append(Result("head_to_head", a, sha[a], v, strategy_b=b, sha_b=sha[b], ci_low=lo,
                                ci_high=hi, exact=exact, seconds=time.time() - t0))
            bar.update(1)
            done += 1
        write_batch(data_dir, support.game, batch)
    return done


# --------------------------------------------------------------------------- tables

def measure_tables(data_dir: Path, game: str, strategies: list[str], equilibrium: str) -> dict:
    """The four measures for ``strategies`` (and the equilibrium) from the SQL views, as
    {title: (columns, rows)}."""
    from queries.views import connect, create_views

    create_views(data_dir)
    names = list(dict.fromkeys(list(strategies) + [equilibrium]))
    out = {}
    with connect(data_dir, read_only=True) as con:
        def q(sql, params):
            import duckdb

            try:
                rel = con.execute(sql, params)
            except duckdb.IOException as exc:
                if "No files found" not in str(exc):
                    raise
                raise UserError(f"no evaluations stored in {data_dir / 'evaluations'} "
                                "(compare without --report-only computes them)") from None
            cols = [d[0] for d in rel.description]
            return cols, rel.fetchall()

        out["exploitability"] = q(
            "SELECT strategy, abstraction, abstract_exploitability, exploitability_seat1, "
            "exploitability_seat2, exploitability FROM exploitability "
            "WHERE game = ? AND list_contains(?, strategy) ORDER BY exploitability", [game, names])
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


TITLES = {
    "exploitability": "Exploitability in the real game (chips per game; per seat and mean)",
    "head_to_head": "Head-to-head in the real game (chips per game for the row; seats averaged)",
    "vs_equilibrium": "Against an equilibrium of the real game (chips per game)",
    "value_error": "Value of the profile vs the game value (chips per game, player 1)",
}


def print_tables(tables: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 250)
    for key, (cols, rows) in tables.items():
        t = Table(title=TITLES[key])
        for c in cols:
            t.add_column(c)
        for r in rows:
            t.add_row(*(_fmt(v) for v in r))
        console.print(t)


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.2e}"
    return str(v)


# --------------------------------------------------------------------------- CLI

def add_solve_options(p: argparse.ArgumentParser, target_default: float = 1.0) -> None:
    p.add_argument("--target", type=float, default=target_default,
                   help=f"abstract-game exploitability (chips) a strategy of an abstraction must be "
                        f"under to be reused; else it is solved (default {target_default:g})")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds of iterating per solve; a solve stopped by it is stored above "
                        "the target and reported so (default: no limit)")
    p.add_argument("--iterations", type=int, default=None,
                   help="most iterations per solve, in total (a resumed solve counts its "
                        "earlier ones); stored above the target if it stops it (default: no cap)")
    p.add_argument("--reuse-solved", action="store_true",
                   help="use an abstraction's stored strategy even above --target (no more solving)")
    p.add_argument("--algorithm", default="dcfr", help="cfr, cfr+ or dcfr (default dcfr)")
    p.add_argument("--check-every", type=int, default=25,
                   help="iterations between exploitability checks and checkpoints (default 25)")
    p.add_argument("--equilibrium", default=None,
                   help="strategy to use as the real game's equilibrium (default: the game's "
                        "reference, see above)")
    p.add_argument("--equilibrium-target", type=float, default=1.0,
                   help="exploitability (chips) the reference equilibrium is solved to (default 1)")
    p.add_argument("--equilibrium-time-limit", type=float, default=None,
                   help="seconds for solving the reference equilibrium (default: no limit)")
    p.add_argument("--equilibrium-iterations", type=int, default=None,
                   help="most iterations for the reference equilibrium (default: no cap)")
    p.add_argument("--report-only", action="store_true",
                   help="solve and evaluate nothing: tables (and report) of what is stored, "
                        "each abstraction by its stored strategy")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--jobs", type=int, default=1,
                   help="solves run side by side, each in its own process on cores/jobs "
                        "threads (default 1)")


def options_from(args) -> Options:
    if args.algorithm not in SOLVE_ALGORITHMS:
        raise UserError(f"unknown algorithm {args.algorithm!r}; choose from {', '.join(SOLVE_ALGORITHMS)}")
    from solve.loop import check_positive_finite

    check_positive_finite(args, "target", "equilibrium_target", "time_limit",
                          "equilibrium_time_limit")
    if args.check_every < 1:
        raise UserError("--check-every must be at least 1")
    if args.jobs < 1:
        raise UserError("--jobs must be at least 1")
    for flag in ("iterations", "equilibrium_iterations"):
        v = getattr(args, flag)
        if v is not None and v < 1:
            raise UserError(f"--{flag.replace('_', '-')} must be at least 1")
    return Options(target=args.target, time_limit=args.time_limit,
                   reuse_solved=args.reuse_solved or args.report_only, report_only=args.report_only,
                   algorithm=args.algorithm, check_every=args.check_every,
                   equilibrium=args.equilibrium, equilibrium_target=args.equilibrium_target,
                   equilibrium_time_limit=args.equilibrium_time_limit,
                   iterations=args.iterations, equilibrium_iterations=args.equilibrium_iterations,
                   progress=not args.no_progress, jobs=args.jobs)


def register(subparsers) -> None:
    p = subparsers.add_parser("compare", help="compare strategies or abstractions on the four "
                              "measures (exploitability, head-to-head, vs equilibrium, value)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help=f"one of {', '.join(game_registry())}")
    p.add_argument("names", nargs="+", help="strategy or abstraction names")
    p.add_argument("--report", default=None, metavar="DIR",
                   help="write DIR/README.md and PNG plots of each measure against granularity")
    add_solve_options(p)
    p.add_argument("--deals", type=int, default=100_000,
                   help="sampled games (holdem): duplicate deals per match (default 100000)")
    p.add_argument("--seed", type=int, default=0, help="sampled games (holdem): deal seed")
    p.set_defaults(func=run_compare)


def run_compare(args) -> int:
    options = options_from(args)
    if args.report:
        check_report_dir(args.report)
    data_dir = resolve_data_dir()
    support = game_support(args.game, data_dir)
    result = compare(support, args.names, options, data_dir)
    print_tables(result["tables"])
    if args.report:
        from queries.report import write_report

        path = write_report(Path(args.report), data_dir, support.game, result)
        print(f"report: {path}")
    return 0


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
