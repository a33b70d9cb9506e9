"""solve: games compiled to arrays, equilibrium solvers, exact evaluation, strategy tables.

Public API (issue 3; docs/design.md sections 5-6)::

    from solve.games.rules import kuhn, leduc, rhode_island, LimitPokerRules
    from solve.games.compile import compile_game          # rules (+ abstraction) -> CompiledGame
    from solve.algorithms.cfr import CFRSolver                       # "cfr", "cfr+", "dcfr"; save/load
    from solve.algorithms.lp import solve_lp                         # sequence-form LP (HiGHS)
    from solve.algorithms.evaluate import (exploitability, best_response_value, expected_value,
                                head_to_head)
    from solve.strategy import Strategy                   # per-infoset probabilities
    from solve.table import write_strategy, read_strategy # Parquet strategy tables
    from solve.abstractions import FunctionAbstraction, load_abstraction
    from solve.games import kuhn3  # 3-player Kuhn, NashConv

Example::

    >>> from solve.games.rules import kuhn
    >>> from solve.games.compile import compile_game
    >>> from solve.algorithms.lp import solve_lp
    >>> from solve.algorithms.evaluate import exploitability
    >>> game = compile_game(kuhn())
    >>> strategy, value = solve_lp(game)
    >>> round(value, 9), round(exploitability(game, strategy), 9)
    (-0.055555556, 0.0)

Card abstractions: any object with ``name`` and ``bucket(round, hands (H, k), board (m,)) ->
(H,) int`` (suit-invariant) passed as ``compile_game(rules, abstraction)``; the abstracted
game's infosets are (bucket sequence, betting history). The public tree is the same as the
real game's, so an abstract :class:`~solve.strategy.Strategy` is evaluated in the real game
by ``exploitability(game, s)`` and within the abstraction by ``exploitability(game, s,
abstract=True)``; ``expected_value(game, a, b)`` / ``head_to_head`` take profiles from any
compilations of the same rules (abstracted or not).
"""
