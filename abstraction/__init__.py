"""Card abstractions (Gilpin & Sandholm): hands -> buckets per round, as a perfect-recall tree.

Public API:
    ``abstraction.methods``: ``ExpectationBased``, ``ExpectationSquared``, ``PotentialAware``,
        ``Lossless`` (``Method(buckets=..., random_state=0).fit(hands).bucket_of(rows, r)``).
    ``abstraction.games``: ``rhode_island()``; ``abstraction.holdem.holdem_hands(data_dir)``.
    ``abstraction.allocation``: the bucket-allocation integer program.
    ``abstraction.store``: bucket tables + catalog rows; ``abstraction.commands``: the CLI.
"""
