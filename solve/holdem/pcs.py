"""Public-chance-sampling CFR for limit Texas Hold'em on a built abstraction (``HoldemPCS``).

Johanson, Bard, Lanctot, Gibson & Bowling, "Efficient Nash equilibrium approximation through
Monte Carlo counterfactual regret minimization", AAMAS 2012: each iteration samples the
public cards (the five board cards) only, and walks the betting tree once per traverser with
vectors over every private hand of both players (1,081 hands per board), each hand mapped to
its bucket per round. Showdowns cost O(hands) per terminal (hands sorted by strength, card
removal by per-card sums), folds likewise by inclusion-exclusion over the two blocked cards;
the regret and average updates of a bucket sum over its hands.

Regret updates: plain regret matching (``regret="vanilla"``, the default) or regret-matching+
(``"plus"``, Tammelin et al. 2015); average-strategy weights ``t ** p`` for ``averaging`` uniform (p=0),
linear (1) or quadratic (2). Same arrays, layout and checkpoints as :class:`HoldemCFR`, so
the tables, evaluators and ``--resume`` are shared.
"""

from __future__ import annotations

from pathlib import Path

from solve.holdem import _vector_kernels as P
from solve.holdem.buckets import HoldemBuckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.game import BettingTree

REGRETS = {"plus": P.CS_PLUS, "vanilla": P.CS_VANILLA}
AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}
#: the defaults, by measurement (BENCHMARKS.md, issue 17): plain regret matching reached a
#: lower exact exploitability than regret-matching+ under public sampling in a small game, and
#: a lower LBR bound at full size
PCS_REGRET, PCS_AVERAGING = "vanilla", "linear"


class HoldemPCS(HoldemCFR):
    """Vectorised public-chance-sampling CFR (see the module docstring).

    Args:
        tree, buckets, seed, threads: as :class:`HoldemCFR` (threads take different boards
            and share the arrays lock-free; reproducible only with one).
        regret: ``vanilla`` (default) or ``plus``.
        averaging: ``linear`` (default), ``quadratic`` or ``uniform``.
    """

    sampler = "public"
    #: iterations of the first chunk of a solve run (one iteration is ~10^6 deals)
    first_chunk = 1

    def __init__(self, tree: BettingTree, buckets: HoldemBuckets, seed: int = 0,
                 threads: int = 1, regret: str = PCS_REGRET, averaging: str = PCS_AVERAGING):
        if regret not in REGRETS:
            raise ValueError(f"regret must be one of {sorted(REGRETS)}, got {regret!r}")
        if averaging not in AVERAGING:
            raise ValueError(f"averaging must be one of {sorted(AVERAGING)}, got {averaging!r}")
        super().__init__(tree, buckets, seed=seed, threads=threads)
        self.regret, self.averaging = regret, averaging

    def iterate(self, n: int) -> None:
        t = self.tree
        chunk_seed = (self.seed * 1_000_003 + self.iteration_) % (2 ** 31 - 1)
        P.pcs_chunk(t.ntype, t.player, t.round, t.nact, t.child, t.spent, self.offset_,
                    self.buckets.lookup, *self._tabs, t.rules.n_rounds,
                    self.regrets_, self.average_, self.iteration_, int(n), chunk_seed,
                    self.threads, REGRETS[self.regret], AVERAGING[self.averaging])
        self.iteration_ += int(n)

    def settings(self) -> dict:
        return {"sampler": self.sampler, "regret": self.regret, "averaging": self.averaging}

    def load(self, directory: Path) -> dict:
        state = super().load(directory)
        for key, mine in self.settings().items():
            if state.get(key, "chance" if key == "sampler" else None) != mine:
                raise ValueError(f"checkpoint was solved with {key} {state.get(key)!r}, not "
                                 f"{mine!r}")
        return state
