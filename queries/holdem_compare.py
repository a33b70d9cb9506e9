"""Texas Hold'em in ``cli.py compare`` (``queries/compare.py`` loads this module's
``compare_support``).

    python cli.py compare --game holdem holdem-holdem-pa-pcs-plus-h64 holdem-holdem-eb-pcs-plus-h64

The real game is too large for an exact equilibrium, so most measures are sampled
(``solve.holdem.evaluate``) and never marked exact:

- ``best_responses``: the exact best responses in the real game (chips) against the strategy
  in seat 1 and seat 2 where ``evaluate NAME --best-response exact`` has computed them for the
  strategy as stored now (``solve.holdem.best_response.stored_exact``; marked exact), else the
  local-best-response values -- lower bounds on the best responses, marked not exact (the
  tables then head those columns "LBR lower bound");
- ``head_to_head``: duplicate matches, with the 95% interval;
- ``value``: the strategy's self-play value for seat 1, over sampled deals;
- the "equilibrium" is ``--equilibrium NAME`` or else the stored Hold'em strategy with the
  smallest LBR bound at its last checkpoint: a reference, not an equilibrium.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from queries.support import Entry, check_current_build, of_current_build
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.catalog_solve import SolveRun
from schema.errors import ParameterError, UserError
from solve.holdem import run as holdem_run
from solve.holdem.best_response import stored_exact
from solve.holdem.evaluate import duplicate_match, local_best_response, sample_deals, seat_value
from solve.holdem.run import HoldemSolveOptions, load_policy

H2H_DEALS = 100_000
LBR_DEALS = 4_000
VALUE_DEALS = 100_000


def compare_support(data_dir: Path):
    return HoldemSupport(Path(data_dir))


class HoldemSupport:
    """``queries.support.GameSupport`` for limit Texas Hold'em (see the module docstring)."""

    game = "holdem"

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self._policies: dict = {}
        self._cache: dict = {}

    def _runs(self) -> dict[str, dict]:
        with session_scope(self.data_dir) as s:
            return {r.name: {"name": r.name, "abstraction": r.abstraction, "sha256": r.sha256,
                             "created": r.created}
                    for r in s.query(SolveRun).filter(SolveRun.game == "holdem").all()}

    def _abstractions(self) -> dict[str, dict]:
        with session_scope(self.data_dir) as s:
            return {a.name: {"method": a.method, "buckets": a.buckets, "built": a.built,
                             "created": a.created}
                    for a in s.query(Abstraction).filter(Abstraction.game == "holdem").all()}

    def resolve(self, names):
        runs, abstractions = self._runs(), self._abstractions()
        out = []
        for name in names:
            if name in runs:
                a = abstractions.get(runs[name]["abstraction"] or "", {})
                check_current_build(name, runs[name], a)
                out.append(Entry(name, name, runs[name]["abstraction"], a.get("method"),
                                 a.get("buckets"), a.get("built")))
            elif name in abstractions:
                a = abstractions[name]
                out.append(Entry(name, None, name, a["method"], a["buckets"], a["built"]))
            else:
                raise UserError(f"no holdem strategy or abstraction named {name!r}")
        return out

    def ensure_strategy(self, entry, options) -> str:
        """A stored strategy of the entry's abstraction (the newest), else solve one for
        ``--time-limit`` seconds (default 100,000 iterations)."""
        if entry.strategy is not None:
            return entry.strategy

        a = self._abstractions().get(entry.abstraction or "", {})
        mine = [r for r in self._runs().values() if r["abstraction"] == entry.abstraction
                and of_current_build(r, a)]
        if mine:
            entry.strategy = max(mine, key=lambda r: r["created"])["name"]
            return entry.strategy

        args = HoldemSolveOptions(
            abstraction=entry.abstraction, iterations=getattr(options, "iterations", None),
            time_limit=options.time_limit, checkpoint_minutes=10.0)
        name = f"holdem-{entry.abstraction}-{holdem_run.algorithm_label(args)}"
        args = replace(args, name=name)
        holdem_run.solve_holdem(args, self.data_dir)  # looked up at call time: tests replace it
        entry.strategy = name
        return name

    def equilibrium(self, options) -> str:
        if options.equilibrium:
            (entry,) = self.resolve([options.equilibrium])
            return self.ensure_strategy(entry, options)
        best, best_lbr = None, float("inf")
        for name in self._runs():
            try:
                log = json.loads((self.data_dir / "strategies" / name / "run.json")
                                 .read_text())["log"]
            except (OSError, KeyError, ValueError):
                continue
            lbr = next((e["lbr_mbb"] for e in reversed(log) if "lbr_mbb" in e), None)
            if lbr is not None and lbr < best_lbr:
                best, best_lbr = name, lbr
        if best is None:
            raise ParameterError("no holdem strategy with an LBR bound to use as the "
                                 "reference (give the `equilibrium` NAME)")
        return best

    def sha(self, name: str) -> str:
        run = self._runs().get(name)
        if run is None:
            raise UserError(f"no holdem strategy named {name!r}")
        return run["sha256"]

    def is_exact(self, name: str) -> bool:
        return False

    def _policy(self, name: str):
        if name not in self._policies:
            self._policies[name] = load_policy(name, self.data_dir, self._cache)
        return self._policies[name]

    def exact_best_responses(self, name: str) -> tuple[float, float] | None:
        """The stored exact best responses' chips against ``name`` in seat 1 and in seat 2,
        or None where none is stored for the strategy as it is now."""
        _, tree = self._policy(name)
        got = stored_exact(self.data_dir, name, tree)
        if got is None:
            return None
        # br_seat1: the responder in seat 2 (index 1) against the strategy in seat 1
        return float(got["br_seat1_chips"]), float(got["br_seat0_chips"])

    def best_responses(self, name: str) -> tuple[float, float, bool]:
        """Chips against ``name`` in seat 1 and in seat 2, and whether they are exact: the
        stored exact best response, else LBR's (lower bounds, not exact)."""
        exact = self.exact_best_responses(name)
        if exact is not None:
            return exact[0], exact[1], True
        pol, tree = self._policy(name)
        _, lbr_vs_seat2, lbr_vs_seat1 = local_best_response(tree, pol, LBR_DEALS, seed=11)
        bb = tree.rules.big_blind / 1000.0
        # LBR in seat 0 plays against the strategy in seat 2, and vice versa
        return lbr_vs_seat1.mean * bb, lbr_vs_seat2.mean * bb, False

    def value(self, name: str) -> float:
        pol, tree = self._policy(name)
        return seat_value(tree, pol, pol, sample_deals(VALUE_DEALS, 12))

    def head_to_head(self, a: str, b: str):
        pa, ta = self._policy(a)
        pb, tb = self._policy(b)
        if ta.rules != tb.rules:
            raise UserError(f"{a!r} and {b!r} are for different betting rules")
        e = duplicate_match(ta, pa, pb, H2H_DEALS, seed=13)
        bb = ta.rules.big_blind / 1000.0
        return e.mean * bb, (e.mean - e.half_width) * bb, (e.mean + e.half_width) * bb, False
