"""``solve`` for the classic games and the sequence-form solvers (issue 7).

Hooked into :mod:`solve.cli.commands` by :func:`add_arguments` (extra options of ``solve``,
the fields of :class:`solve.games.backend.TreeParams`); the games' backends
(``solve.games.backends``) build the trees and ``solve.tree_run`` solves them. Games:
``kuhn-blinds``, ``von-neumann``, ``flop-poker``, ``draw27`` (2-7 single draw; ``--buckets``)
(and ``kuhn``, ``leduc`` as generic trees when a sequence-form solver or ``--exact`` is asked
for). Algorithms: ``lp`` (``--exact`` for rational arithmetic),
``cfr``, ``cfr+``, ``dcfr``, ``egt``, ``ga``.

    python cli.py solve --game kuhn --algorithm lp --exact
    python cli.py solve --game kuhn-blinds --small-blind 1 --big-blind 2 --algorithm lp --exact
    python cli.py solve --game von-neumann --ante 1 --bet 2 --grid 100 --algorithm lp
    python cli.py solve --game flop-poker --algorithm cfr+ --iterations 2000
    python cli.py solve --game draw27 --buckets 10 --algorithm lp
    python cli.py solve --game draw27 --buckets iso --algorithm cfr+ --iterations 200
    python cli.py solve --game leduc --algorithm egt --target-exploitability 1e-3
    python cli.py solve --game von-neumann --grid 20 --algorithm ga --generations 50 --seed 1

Strategy tables: ``solve.tree_run`` (the game with its parameters in the Parquet metadata,
so ``cli.py evaluate`` rebuilds the game).
"""

from __future__ import annotations


def add_arguments(p) -> None:
    """Extra ``solve`` options (all optional; ignored by the other games)."""
    g = p.add_argument_group("classic games (--game kuhn-blinds, von-neumann, flop-poker, draw27; kuhn and "
                              "leduc as generic trees) and solvers (--algorithm egt, ga; lp --exact)")
    g.add_argument("--small-blind", default="1", help="kuhn-blinds: player 2's small blind X (default 1)")
    g.add_argument("--big-blind", default="1", help="kuhn-blinds: player 1's big blind Y (default 1)")
    g.add_argument("--ante", default="1", help="von-neumann, flop-poker: ante a (default 1)")
    g.add_argument("--bet", default="2", help="von-neumann, flop-poker: bet B (default 2)")
    g.add_argument("--grid", type=int, default=100, help="von-neumann: hands 1..M (default 100)")
    g.add_argument("--buckets", default="10",
                   help="draw27: buckets per round (int), or 'iso' (unabstracted up to suit "
                        "isomorphism, lossless; cfr family only) (default 10)")
    g.add_argument("--exact", action="store_true", help="lp: rational arithmetic, value as a fraction")
    g.add_argument("--population", type=int, default=40, help="ga: individuals per seat (default 40)")
    g.add_argument("--generations", type=int, default=50, help="ga: generations (default 50)")
    g.add_argument("--hands", type=int, default=200, help="ga: hands per individual per generation")
    g.add_argument("--survivors", type=int, default=10, help="ga: elite kept per generation (default 10)")
    g.add_argument("--mutation", type=float, default=0.02, help="ga: per-gene mutation rate (default 0.02)")
    g.add_argument("--seed", type=int, default=0, help="ga: random seed (default 0)")
