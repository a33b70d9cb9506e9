"""Chance-sampled CFR+ for limit Texas Hold'em on a built abstraction (``HoldemCFR``): one
sampled deal per iteration, the whole betting tree walked in numba per traverser."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np

from schema.storage import AtomicFile
from solve.holdem import _kernels as K

from solve.holdem.buckets import HoldemBuckets, indexer_tables
from solve.holdem.game import BettingTree


class HoldemCFR:
    """Chance-sampled CFR+ on the abstract game (Zinkevich et al. 2007 chance sampling;
    Tammelin et al. 2015 regret-matching+ with alternating updates and linear averaging).

    Each iteration samples one real deal, looks up both players' buckets, and walks the whole
    betting tree twice (once per traverser) in numba, skipping subtrees that neither player
    reaches. Regrets ``regrets_`` and average-strategy sums ``average_`` are float32 arrays
    of length ``size_`` laid out by ``BettingTree.offsets``.

    Args:
        tree: the betting tree; buckets: the abstraction's lookups; seed: the deal stream;
        threads: numba threads sharing the arrays (results reproducible only with 1).
    """

    sampler = "chance"
    #: iterations of the first chunk of a solve run (later chunks adapt to ~2 s)
    first_chunk = 1000

    def __init__(self, tree: BettingTree, buckets: HoldemBuckets, seed: int = 0,
                 threads: int = 1):
        if buckets.n_rounds != tree.rules.n_rounds:
            raise ValueError(f"abstraction has {buckets.n_rounds} rounds, game has "
                             f"{tree.rules.n_rounds}")
        self.tree, self.buckets, self.seed, self.threads = tree, buckets, int(seed), int(threads)
        self.offset_, self.size_ = tree.offsets(buckets.n_buckets)
        self.regrets_ = np.zeros(self.size_, dtype=np.float32)
        self.average_ = np.zeros(self.size_, dtype=np.float32)
        self.iteration_ = 0
        self._tabs = indexer_tables()

    def settings(self) -> dict:
        """What a checkpoint must agree on besides the game and abstraction."""
        return {"sampler": self.sampler}

    def iterate(self, n: int) -> None:
        t = self.tree
        K.cfr_chunk(t.ntype, t.player, t.round, t.nact, t.child, t.size, t.spent, self.offset_,
                    self.buckets.lookup, *self._tabs, t.rules.n_rounds,
                    self.regrets_, self.average_, self.iteration_, int(n), self.seed,
                    self.threads)
        self.iteration_ += int(n)

    def save(self, directory: Path, extra: dict | None = None) -> None:
        """Checkpoint: the two arrays and ``state.json`` (written last, so a checkpoint is
        complete when its state file names it)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for name, arr in (("regrets", self.regrets_), ("average", self.average_)):
            _atomic_npy(directory / f"{name}.npy", arr)
        state = {"iteration": self.iteration_, "seed": self.seed, "size": self.size_,
                 "abstraction": self.buckets.name, "n_buckets": list(self.buckets.n_buckets),
                 "rules": asdict(self.tree.rules), **self.settings()}
        state.update(extra or {})
        tmp = directory / ".state.json.tmp"
        tmp.write_text(json.dumps(state, indent=1))
        tmp.replace(directory / "state.json")

    def load(self, directory: Path) -> dict:
        """Restore a checkpoint written by :meth:`save`; returns its state dict.

        Raises:
            ValueError: the checkpoint belongs to another abstraction or game.
        """
        directory = Path(directory)
        state = json.loads((directory / "state.json").read_text())
        if (state["abstraction"] != self.buckets.name or state["size"] != self.size_
                or state["rules"] != json.loads(json.dumps(asdict(self.tree.rules)))):
            raise ValueError("checkpoint is for another abstraction or game")
        if state.get("sampler", "chance") != self.sampler:
            raise ValueError(f"checkpoint was solved with the {state['sampler']} sampler")
        self.regrets_ = np.load(directory / "regrets.npy")
        self.average_ = np.load(directory / "average.npy")
        if len(self.regrets_) != self.size_ or len(self.average_) != self.size_:
            raise ValueError("checkpoint arrays have the wrong size")
        self.iteration_ = int(state["iteration"])
        self.seed = int(state["seed"])
        return state


def _atomic_npy(path: Path, arr: np.ndarray) -> None:
    with AtomicFile(path, checksum=False) as f, open(f.tmp, "wb") as fh:
        np.save(fh, arr)
