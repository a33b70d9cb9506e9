"""Texas Hold'em adapter: the equity tables as a ``GameHands`` tree (four rounds).

Not built yet: see ``holdem_hands``.
"""

from __future__ import annotations

from schema.errors import UserError


def holdem_hands(data_dir=None, workers: int = 1, progress: bool = False):
    """Texas Hold'em hands for the abstraction builder, read from the equity tables."""
    raise UserError("Texas Hold'em abstractions are not available yet (the holdem adapter over "
                    "the equity tables is not built); use --game rhode-island")
