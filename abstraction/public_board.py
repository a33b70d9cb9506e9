"""Rhode Island buckets refined by the public board: what a player who sees the public cards
can tell apart (an abstraction built with ``public_board``, always so for ``lossless``)."""

from __future__ import annotations

import numpy as np

from etl.rhode_island import canonicalize, hand_key, hand_tree


def public_board_buckets(round_buckets: list[np.ndarray], n_ranks: int = 13) -> list[np.ndarray]:
    """Rhode Island buckets per canonical hand refined by the public board: hands share a
    refined bucket when they share the refined parent, the bucket and the board up to suit
    isomorphism. (Two canonical hands with suit-isomorphic boards have suit-renamed versions
    with the same board, and buckets are suit-invariant, so a player who sees the board can
    tell exactly these classes apart.) Refined buckets are numbered in order of (parent,
    board, bucket). ``n_ranks``: the deck of the hand tree the buckets index
    (``etl.rhode_island.hand_tree``)."""
    tree = hand_tree(n_ranks=n_ranks)
    out = []
    for r, b in enumerate(round_buckets):
        b = np.asarray(b, dtype=np.int64)
        if r == 0:
            out.append(np.unique(b, return_inverse=True)[1].ravel())
            continue
        cards = tree[r].cards.astype(np.int64)
        board = hand_key(canonicalize(cards[:, 1:]).astype(np.int64))
        key = np.column_stack([out[-1][tree[r].parent], board, b])
        out.append(np.unique(key, axis=0, return_inverse=True)[1].ravel().astype(np.int64))
    return out
