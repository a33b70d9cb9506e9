"""Equilibrium solvers and exact evaluation, one algorithm per module.

- On a compiled game (public tree, vectors over private hands): :mod:`.cfr` (CFR, CFR+, DCFR),
  :mod:`.evaluate` (expected value, best response, exploitability), :mod:`.lp` (sequence-form
  LP with HiGHS); their numba kernels in :mod:`._kernels`.
- On an abstraction's type-level sequence form: :mod:`.abstract_cfr`.
- On a generic game tree's treeplexes: :mod:`.treeplex` (best response, sequence-form CFR),
  :mod:`.egt` (excessive gap technique), :mod:`.ga` (genetic algorithm), :mod:`.lp_exact`
  (exact rational LP); kernels in :mod:`._treeplex_kernels`.

Every iterative solver here runs through :func:`solve.loop.iterate_until`.
"""
