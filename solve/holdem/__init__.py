"""Heads-up limit Texas Hold'em on a built card abstraction (issue 6).

- :mod:`.game`: the rules and the betting tree (the module docstring describes the game).
- :mod:`.buckets`: a real hand -> its bucket, per round, from a built abstraction.
- :mod:`.cfr`: the chance-sampled CFR+ solver.
- :mod:`.pcs`: the public-chance-sampling solver (vectors over every private hand).
- :mod:`.evaluate`: local best response, duplicate head-to-head, baselines; per deal or per
  whole board.
- :mod:`.table`: a solved strategy as a strategy table.
- :mod:`.run`: a solve run (checkpoints, stop rules, storage) and the policy loader.
- :mod:`.assess`: ``evaluate`` of a stored strategy, and the LBR figures kept beside it.
- :mod:`._kernels`: their numba kernels (per deal); :mod:`._vector_kernels` (per board).
"""
