"""Public-chance-sampling CFR for limit Texas Hold'em on a built abstraction (``HoldemPCS``).

Johanson, Bard, Lanctot, Gibson & Bowling, "Efficient Nash equilibrium approximation through
Monte Carlo counterfactual regret minimization", AAMAS 2012: each iteration samples the
public cards (the five board cards) only, and walks the betting tree once per traverser with
vectors over every private hand of both players (1,081 hands per board), each hand mapped to
its bucket per round. Showdowns cost O(hands) per terminal (hands sorted by strength, card
removal by per-card sums), folds likewise by inclusion-exclusion over the two blocked cards;
the regret and average updates of a bucket sum over its hands.

Regret updates: plain regret matching (``regret="vanilla"``), regret-matching+ (``"plus"``,
the default: each sum floored at zero after the update; with linear averaging this is CFR+,
Tammelin et al. 2015), linear CFR (``"linear"``: iteration t's regrets weighted by
t, which is LCFR's discount of every sum by t / (t + 1) after iteration t; the Linear MCCFR of
Pluribus) or discounted CFR (``"dcfr"``: positive sums times t^1.5 / (t^1.5 + 1), negative ones
times 1/2 after iteration t; Brown & Sandholm, "Solving imperfect-information games via
discounted regret minimization", AAAI 2019, whose gamma = 2 is ``averaging="quadratic"``).
A sampled iteration updates only the buckets of its board's hands, so DCFR's discounts are
applied lazily, to a bucket's sums when it is next updated (one uint32 stamp per information
set) and to all of them at a checkpoint, which therefore holds the exact DCFR sums.
Average-strategy weights ``t ** p`` for ``averaging`` uniform (p=0), linear (1) or quadratic
(2).

``hands=m`` (``0 < m < 1,081``) samples private cards too: each iteration keeps m of its
board's hands, drawn uniformly without replacement, and both players' vectors run over those
only, so an iteration costs about m / 1,081 of a full one. Every compatible pair of hands is
kept with the same probability, so each information set's regret and average increments are
unbiased up to one constant factor (which regret matching and the averages ignore). It
spans the samplers between chance sampling (one hand each, one board) and public chance
sampling (every hand, one board): more boards per CPU second, fewer opponent hands per board.
The default keeps 64 (``PCS_HANDS``, chosen by measurement); ``hands=0`` walks every hand.

Same arrays, layout and checkpoints as :class:`HoldemCFR`, so the tables, evaluators
and ``--resume`` are shared.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solve.holdem import _vector_kernels as P
from solve.holdem.buckets import HoldemBuckets
from solve.holdem.cfr import HoldemCFR
from solve.holdem.game import BettingTree

REGRETS = {"plus": P.CS_PLUS, "vanilla": P.CS_VANILLA, "linear": P.CS_LINEAR, "dcfr": P.CS_DCFR}
DCFR_ALPHA, DCFR_BETA = 1.5, 0.0  # the paper's recommended discounts
AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}
#: the defaults, by measurement (BENCHMARKS.md, issue 17, "regret-matching+ on the default
#: sampler" and after): on pa 20/800/4800/28800 with 64 hands per board, regret-matching+ with
#: linear averaging (CFR+) had an LBR bound of 77.4 +- 14.5 mbb/g after one CPU hour (chance
#: sampling's: 219.4 +- 21.6), 72.7 +- 13.6 after two and 72.8 +- 13.2 after four, levelled
#: off, on the same 400 boards where linear CFR's was 124.1 +- 13.4 and rose with more solving
#: (to 133.4 at four CPU hours); linear CFR plays better head-to-head (its one-hour strategy beat
#: regret-matching+'s by 34.4 +- 1.0 mbb/g, its four-hour one regret-matching+'s four-hour one
#: by 20.2 +- 1.2) and is ``--regret linear``. The lower bound on exploitability decides, as it
#: did for linear CFR over plain regret matching before.
PCS_REGRET, PCS_AVERAGING = "plus", "linear"
#: the hands of a board (C(47, 2)); ``hands`` of this or 0 means all of them
BOARD_HANDS = 1081
#: the default hands kept per board, by measurement (BENCHMARKS.md, issue 17): on pa
#: 20/800/4800/28800 after one CPU hour, 64 and 16 hands per board had LBR bounds of 124.7 and
#: 122.8 +- 14 mbb/g against 140 +- 15 with every hand (linear CFR) and 194.8 +- 20.8 for
#: chance sampling on the same machine, beat the every-hand plain-regret-matching strategy by
#: +14.5 and +12.5 +- 0.9 and the chance-sampled one by +116.0 and +114.8 +- 1.5; 64 beat 16
#: head-to-head by 1.6 +- 0.6 mbb/g
PCS_HANDS = 64
#: a setting's value in checkpoints written before it existed
SETTING_BEFORE = {"sampler": "chance", "hands": 0}


def check_settings(regret: str, averaging: str, hands: int,
                   names: dict[str, str] | None = None) -> None:
    """Raise ValueError naming the first of the sampler's settings out of range (the one check
    of the solver and of ``solve.holdem.run``, which names its own parameters through
    ``names``)."""
    n = {"regret": "regret", "averaging": "averaging", "hands": "hands", **(names or {})}
    for key, value, allowed in (("regret", regret, REGRETS), ("averaging", averaging, AVERAGING)):
        if value not in allowed:
            raise ValueError(f"{n[key]} must be one of {', '.join(allowed)}, got {value!r}")
    if int(hands) != 0 and not 2 <= int(hands) <= BOARD_HANDS:  # one hand makes no deal
        raise ValueError(f"{n['hands']} must be 0 (every hand) or 2..{BOARD_HANDS}, got {hands!r}")


class HoldemPCS(HoldemCFR):
    """Vectorised public-chance-sampling CFR (see the module docstring).

    Args:
        tree, buckets, seed, threads: as :class:`HoldemCFR` (threads take different boards
            and share the arrays lock-free; reproducible only with one).
        regret: ``plus`` (default), ``linear``, ``vanilla`` or ``dcfr``.
        averaging: ``linear`` (default), ``quadratic`` or ``uniform``.
        hands: private hands kept per board (``PCS_HANDS``, 64, by default; 0 or 1,081: all
            of them, the paper's public chance sampling; see the module docstring).
    """

    sampler = "public"
    #: iterations of the first chunk of a solve run (one iteration is ~10^6 deals)
    first_chunk = 1

    def __init__(self, tree: BettingTree, buckets: HoldemBuckets, seed: int = 0,
                 threads: int = 1, regret: str = PCS_REGRET, averaging: str = PCS_AVERAGING,
                 hands: int = PCS_HANDS):
        check_settings(regret, averaging, hands)
        super().__init__(tree, buckets, seed=seed, threads=threads)
        self.regret, self.averaging = regret, averaging
        self.hands = 0 if int(hands) == BOARD_HANDS else int(hands)
        if regret == "dcfr":
            self._ioff, n_info = tree.infoset_offsets(buckets.n_buckets)
            self._stamp = np.ones(n_info, dtype=np.uint32)  # discounts before iteration 1: none
        else:
            self._ioff, self._stamp = self.offset_, np.zeros(1, dtype=np.uint32)
        self._lpos = self._lneg = np.zeros(1)

    def _log_discounts(self, t_end: int) -> tuple[np.ndarray, np.ndarray]:
        """Prefix sums of log d+(u) and log d-(u), u = 1 .. at least ``t_end`` (DCFR)."""
        if self.regret == "dcfr" and len(self._lpos) <= t_end:
            u = np.arange(1, 2 * t_end + 2, dtype=np.float64)
            self._lpos, self._lneg = (
                np.concatenate(([0.0], np.cumsum(np.log(u ** e / (u ** e + 1.0)))))
                for e in (DCFR_ALPHA, DCFR_BETA))
        return self._lpos, self._lneg

    def iterate(self, n: int) -> None:
        t = self.tree
        lpos, lneg = self._log_discounts(self.iteration_ + int(n))
        P.pcs_chunk(t.ntype, t.player, t.round, t.nact, t.child, t.spent, self.offset_,
                    self.buckets.lookup, *self._tabs, t.rules.n_rounds,
                    self.regrets_, self.average_, self.iteration_, int(n), self.seed,
                    self.threads, REGRETS[self.regret], AVERAGING[self.averaging],
                    self._stamp, self._ioff, lpos, lneg, self.hands)
        self.iteration_ += int(n)

    def flush(self) -> None:
        """DCFR: apply every pending discount, so ``regrets_`` holds the exact DCFR sums after
        the last iteration (done before every checkpoint; a no-op for the other updates)."""
        if self.regret != "dcfr":
            return
        t = self.tree
        lpos, lneg = self._log_discounts(self.iteration_ + 1)
        P.dcfr_flush(self.regrets_, self._stamp, t.ntype, t.round, t.nact, self.offset_,
                     self._ioff, np.asarray(self.buckets.n_buckets, dtype=np.int64),
                     np.uint32(self.iteration_), lpos, lneg)

    def save(self, directory: Path, extra: dict | None = None) -> None:
        self.flush()
        super().save(directory, extra)

    def settings(self) -> dict:
        return {"sampler": self.sampler, "regret": self.regret, "averaging": self.averaging,
                "hands": self.hands}

    def load(self, directory: Path) -> dict:
        state = super().load(directory)
        for key, mine in self.settings().items():
            theirs = state.get(key, SETTING_BEFORE.get(key))
            if theirs != mine:
                raise ValueError(f"checkpoint was solved with {key} {theirs!r}, not {mine!r}")
        if self.regret == "dcfr":  # saved flushed: every discount up to its iteration applied
            self._stamp[:] = self.iteration_ + 1
        return state
