"""Abstraction builds for the comparisons (``compare``, ``experiment``), made as
``cli.py build-abstraction`` makes them; one at a time or in processes (``parallel_solve``)."""

from __future__ import annotations

from pathlib import Path

from abstraction.build import build, method_options, summary_lines


def build_abstraction(data_dir: Path, method: str, buckets: str | None, name: str,
                      seed: int = 0, public_board: bool = False, from_strategy: str | None = None,
                      recall: str = "perfect", replace: bool = False,
                      game: str = "rhode-island", progress: bool = False) -> None:
    """Build an abstraction of ``game`` (default Rhode Island) on one worker, the way ``cli.py
    build-abstraction`` does (``public_board``: played with the public cards visible,
    ``--public-board``; ``from_strategy``: the solved strategy a ``strategy`` (GS4) build
    clusters by, ``--from-strategy``; ``recall``: ``--recall``; ``replace``: ``--replace``;
    ``progress``: progress bars, or timestamped lines off a terminal)."""
    options = method_options(method, buckets=buckets, seed=seed, workers=1, n_init=4,
                             public_board=public_board, from_strategy=from_strategy, recall=recall)
    print("\n".join(summary_lines(build(game, method, options, name=name, data_dir=data_dir,
                                         replace=replace, progress=progress))))
