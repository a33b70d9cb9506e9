"""Comparison support for the games defined by limit poker rules (Kuhn, Leduc, Rhode Island
Hold'em, plug-ins): strategies solved on the compiled (abstract) game with the CFR family or the
LP, evaluated exactly in the real game by ``solve.algorithms.evaluate``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from queries.support import (Entry, GameSupport, Loaded, Options, check_current_build,
                             of_current_build)
from schema.catalog import session_scope
from schema.catalog_solve import SolveRun
from schema.errors import ParameterError, UserError
from schema.optional import import_optional
from schema.paths import resolve_stored
from schema.progress import progress_bar
from schema.storage import file_sha256
from solve.algorithms import _kernels as K
from solve.algorithms.abstract_cfr import make_solver
from solve.abstractions import LOSSLESS_HIDDEN, hidden_lossless, load_abstraction, predates
from solve.algorithms.evaluate import best_response_value, expected_value, exploitability, head_to_head
from solve.algorithms.pairwise import expected_value_matrix, head_to_head_matrix
from solve.games import registry
from solve.games.compile import compile_game
from solve.loop import iterate_until, measure
from solve.algorithms.lp import solve_lp
from solve.runs import store_strategy
from solve.table import read_strategy, strategy_path

SOLVE_ALGORITHMS = registry.CFR_FAMILY


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

        ab = self.card_abstraction(abstraction)
        return compile_game(registry.get(self.game).make_rules(), ab), ab

    def card_abstraction(self, abstraction: str):
        """The card abstraction object named ``abstraction`` (in memory, else built ones)."""
        if abstraction in self.abstractions:
            return self.abstractions[abstraction]

        return load_abstraction(abstraction, self.game, self.data_dir)

    # real game, strategies ---------------------------------------------------
    def real(self):
        if self._real is None:
            self._real = compile_game(registry.get(self.game).make_rules())
        return self._real

    def _runs(self) -> dict[str, dict]:
        with session_scope(self.data_dir) as s:
            return {r.name: {c: getattr(r, c) for c in ("name", "game", "abstraction", "algorithm",
                                                        "abstract_exploitability", "exploitability",
                                                        "path", "sha256", "iterations", "created")}
                    for r in s.query(SolveRun).all()}

    def _abstractions(self) -> dict[str, dict]:
        mod = import_optional("schema.catalog_abstraction")
        if mod is None:
            return {}
        with session_scope(self.data_dir) as s:
            return {a.name: {"name": a.name, "game": a.game, "method": a.method,
                             "buckets": a.buckets, "built": a.built, "created": a.created}
                    for a in s.query(mod.Abstraction).all()}

    def _path(self, run: dict) -> Path:
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
            raise ParameterError(f"{entry.name!r} has no stored strategy (`report_only` solves "
                                 "nothing)")
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
        name = f"{self.game}-{abstraction or 'full'}-{algorithm}"
        t0 = time.time()
        game, ab = self._compiled(abstraction)  # the abstraction is loaded once
        abstract = game.abstraction is not None

        def fresh():
            return make_solver(game, algorithm, ab)

        solver = fresh()  # on bucket types when the abstraction allows (solve.algorithms.abstract_cfr)
        t_iter = time.time()
        ckpt = strategy_path(self.data_dir, name).with_name("checkpoint.npz")

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

        run = self._runs().get(name)
        if run is None:
            raise UserError(f"no strategy named {name!r}")
        return file_sha256(self._path(run))

    def behaviour(self, name: str) -> np.ndarray:
        g, s = self.real(), self.load(name)
        out = np.zeros((len(g.dnode), 3, g.n_hands))
        K.normalise_average(s.info, s.probs, g.dnode, g.child_count, out)
        return out

    # measures ------------------------------------------------------------------
    def best_responses(self, name: str) -> tuple[float, float, bool]:
        beh = self.behaviour(name)
        # seat 1 (player index 0) is exploited by a best-responding player 2, and vice versa
        return (best_response_value(self.real(), beh, 1), best_response_value(self.real(), beh, 0),
                True)

    def value(self, name: str) -> float:
        return expected_value(self.real(), self.behaviour(name))

    def head_to_head(self, a: str, b: str):
        return head_to_head(self.real(), self.behaviour(a), self.behaviour(b)), None, None, True

    def head_to_head_many(self, names: list[str], progress=None) -> np.ndarray:
        """Exact head-to-head of every pair of ``names`` (``M[i, j]``: i against j), from
        the bilinear form (:mod:`solve.algorithms.pairwise`): a few passes per strategy
        instead of two per pair. ``progress``: a tqdm-like bar of the passes."""
        ev = expected_value_matrix(self.real(), lambda i: self.behaviour(names[i]), len(names),
                                   progress=progress)
        return head_to_head_matrix(ev)


class RhodeIslandSupport(LimitPokerSupport):
    """Rhode Island Hold'em (its reference equilibrium: the registry's ``iterative``). The
    lossless abstraction (13,205,1774 classes played with the public board visible) is solved
    exactly like the real game, but the reference stays the unabstracted game."""

    def __init__(self, data_dir: Path):
        super().__init__("rhode-island", data_dir)

    def card_abstraction(self, abstraction: str):
        """As :meth:`LimitPokerSupport.card_abstraction`; ``rhode-island-lossless-hidden``
        (the lossless classes with the board hidden, made from the stored lossless
        abstraction, ``solve.abstractions.hidden_lossless``) too."""
        if abstraction == LOSSLESS_HIDDEN and abstraction not in self.abstractions:
            self.abstractions[abstraction] = hidden_lossless(self.data_dir)
        return super().card_abstraction(abstraction)
