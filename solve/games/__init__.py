"""solve.games: what is played, each game the solvers know as data or as a tree.

Two-player limit poker rules (``rules``: Kuhn, Leduc, Rhode Island Hold'em; rule variants in
``rhode_island_rules``) with showdown rankings (``ranking``), compiled into a public tree
vectorised over private hands (``compile``) or made a generic two-player tree with its sequence
form (``tree``, ``limit_tree``); the matrix-free sequence form under a card abstraction
(``abstract_form``); the classic small games (``classic``), 2-7 single draw (``draw27``,
``draw27_raw``) and three-player Kuhn (``kuhn3``); and ``registry``, the one table of every game
that ``solve``, ``evaluate`` and ``compare`` know. Numba kernels are in the ``_*_kernels.py``
modules.
"""
