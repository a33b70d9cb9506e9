"""The classic small poker games as generic trees (solve.games.tree).

- :func:`kuhn_blinds`: Kuhn poker with blinds. Player 2 posts a small blind X, player 1 a big
  blind Y (X <= Y); player 2 folds (losing X) or calls up to Y; then Kuhn with antes Y and a
  bet of Y, player 1 first (Kuhn 1950; the blinds variant as in the issue).
- :func:`von_neumann`: von Neumann poker (von Neumann & Morgenstern 1944, sec. 19), discrete:
  hands uniform on 1..M independently, ties push; ante a, one bet B; player 1 checks
  (showdown) or bets; player 2 folds or calls. :func:`von_neumann_closed_form` gives the
  continuous game's equilibrium thresholds and value.
- :func:`flop_poker`: von Neumann betting; two hole cards each from 52; showdown on the best
  5-card hand of hole cards + 3 board cards, exact expectation over all flops
  (:func:`flop_equity`), hands grouped into their 169 suit-isomorphism classes (lossless:
  no public card precedes the betting).
- :func:`kuhn`, :func:`leduc`: Kuhn poker and Leduc Hold'em as generic trees, to run the
  sequence-form solvers on them; both made from their one definition in
  :mod:`solve.games.rules` by :func:`solve.games.limit_tree.limit_tree`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from schema.storage import AtomicFile
from solve.games import _classic_kernels as CK
from solve.games import rules
from solve.games.limit_tree import limit_tree
from solve.games.tree import Tree, type_game

KUHN_CARDS = "JQK"


def _as_fraction(v, name: str) -> Fraction:
    try:
        f = Fraction(str(v)) if not isinstance(v, Fraction) else v
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{name} must be a number, got {v!r}") from None
    if f <= 0:
        raise ValueError(f"{name} must be positive, got {v}")
    return f


def kuhn_blinds(small_blind=1, big_blind=1) -> Tree:
    """Kuhn poker with blinds (module docstring). ``small_blind <= big_blind``, both > 0."""
    X = _as_fraction(small_blind, "small blind")
    Y = _as_fraction(big_blind, "big blind")
    if X > Y:
        raise ValueError(f"the small blind ({X}) must not exceed the big blind ({Y})")
    den = X.denominator * Y.denominator // math.gcd(X.denominator, Y.denominator)
    x, y = int(X * den), int(Y * den)
    counts = 1 - np.eye(3, dtype=np.int64)
    sign = np.sign(np.subtract.outer(np.arange(3), np.arange(3))).astype(np.int64)
    ones = np.ones((3, 3), np.int64)
    template = [
        ("d", 1, "", ("fold", "call"), [1, 2]),
        ("t", "f"),
        ("d", 0, "c", ("check", "bet"), [3, 4]),
        ("d", 1, "cc", ("check", "bet"), [5, 6]),
        ("d", 1, "cr", ("fold", "call"), [7, 8]),
        ("t", "ccc"),
        ("d", 0, "ccr", ("fold", "call"), [9, 10]),
        ("t", "crf"), ("t", "crc"), ("t", "ccrf"), ("t", "ccrc"),
    ]
    payoffs = {1: x * ones, 5: y * sign, 7: y * ones, 8: 2 * y * sign, 9: -y * ones, 10: 2 * y * sign}
    name = f"kuhn-blinds-{X}-{Y}".replace("/", "_")
    return type_game(name, counts, list(KUHN_CARDS), list(KUHN_CARDS), template, payoffs, den)


def kuhn() -> Tree:
    """Kuhn poker as a generic tree, made from its one definition (``rules.kuhn``)."""
    return limit_tree(rules.kuhn())


VN_TEMPLATE = [
    ("d", 0, "", ("check", "bet"), [1, 2]),
    ("t", "c"),
    ("d", 1, "r", ("fold", "call"), [3, 4]),
    ("t", "rf"), ("t", "rc"),
]


def _vn_payoffs(a: Fraction, B: Fraction, sign: np.ndarray, den_extra: int = 1):
    """Payoff numerators for VN_TEMPLATE with showdown sign/score matrix ``sign``."""
    den = a.denominator * B.denominator // math.gcd(a.denominator, B.denominator)
    ai, bi = int(a * den), int(B * den)
    ones = np.ones(sign.shape, np.int64)
    return {1: ai * sign, 3: ai * den_extra * ones, 4: (ai + bi) * sign}, den


def von_neumann(ante=1, bet=2, grid: int = 100) -> Tree:
    """Discrete von Neumann poker with hands 1..grid (module docstring)."""
    a = _as_fraction(ante, "ante")
    B = _as_fraction(bet, "bet")
    if not isinstance(grid, (int, np.integer)) or grid < 2:
        raise ValueError(f"grid must be an integer >= 2, got {grid!r}")
    M = int(grid)
    sign = np.sign(np.subtract.outer(np.arange(M), np.arange(M))).astype(np.int64)
    payoffs, den = _vn_payoffs(a, B, sign)
    labels = [str(i + 1) for i in range(M)]
    return type_game(f"von-neumann-{a}-{B}-{M}".replace("/", "_"), np.ones((M, M), np.int64),
                     labels, labels, VN_TEMPLATE, payoffs, den)


def von_neumann_closed_form(ante=1, bet=2) -> dict:
    """Equilibrium of continuous von Neumann poker (hands uniform on [0, 1]).

    Player 1 bluffs below ``alpha``, checks in between, bets above ``beta``; player 2 calls
    above ``c``. Indifference conditions (P2 at c; P1 at alpha and at beta) give
    ``c = B(3a+B) / ((2a+B)^2 + aB)``, ``beta = (1+c)/2``, ``alpha = ((2a+B)c - B) / (2a)``.
    Returns floats ``alpha, beta, c, value`` (value to player 1), exact as Fractions when
    ``ante`` and ``bet`` are rational.
    """
    a = _as_fraction(ante, "ante")
    B = _as_fraction(bet, "bet")
    c = B * (3 * a + B) / ((2 * a + B) ** 2 + a * B)
    beta = (1 + c) / 2
    alpha = ((2 * a + B) * c - B) / (2 * a)
    # value: bluff region, check region (a(2x-1)), value-bet region (ac + (a+B)(2x-1-c))
    v_bluff = alpha * (a * c - (a + B) * (1 - c))
    v_check = a * ((beta ** 2 - beta) - (alpha ** 2 - alpha))
    v_bet = (1 - beta) * (a * c - (a + B) * (1 + c)) + (a + B) * (1 - beta ** 2)
    return {"alpha": alpha, "beta": beta, "c": c, "value": v_bluff + v_check + v_bet}


# ---------------------------------------------------------------------------- flop poker
RANKS = "23456789TJQKA"


def hand_class(c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """169-class id of two-card hands (card = rank*4 + suit): pairs and suited hands on or
    above the diagonal of a 13x13 grid (hi*13 + lo), offsuit below (lo*13 + hi)."""
    r0, r1 = np.asarray(c0) // 4, np.asarray(c1) // 4
    hi, lo = np.maximum(r0, r1), np.minimum(r0, r1)
    suited = (np.asarray(c0) % 4) == (np.asarray(c1) % 4)
    return np.where(suited | (hi == lo), hi * 13 + lo, lo * 13 + hi).astype(np.int64)


def class_labels() -> list:
    out = []
    for k in range(169):
        r, s = divmod(k, 13)
        if r == s:
            out.append(RANKS[r] * 2)
        elif r > s:
            out.append(RANKS[r] + RANKS[s] + "s")
        else:
            out.append(RANKS[s] + RANKS[r] + "o")
    return out


def flop_equity(cache_path=None) -> tuple[np.ndarray, np.ndarray]:
    """Exact showdown scores of flop poker over the 169 x 169 hand classes.

    Returns ``(counts, score)``: ``counts[c1, c2]`` the number of disjoint hole-card pairs of
    the classes; ``score[c1, c2]`` the sum over those pairs and all 17,296 flops disjoint
    from them of (+1 win, 0 tie, -1 loss) for player 1, best 5 of exactly the 2 + 3 cards
    (``etl.evaluator``). Flops are enumerated once per suit-isomorphism orbit and weighted
    by the orbit size (classes are suit-invariant). ``score / (counts * 17296)`` is the
    expected showdown result (2 * equity - 1). With ``cache_path`` the arrays are read
    from / written to that ``.npz`` file (written atomically).
    """
    if cache_path is not None and Path(cache_path).exists():
        with np.load(cache_path) as z:
            return z["counts"].copy(), z["score"].copy()

    hands = np.array(list(itertools.combinations(range(52), 2)), dtype=np.int64)
    cls = hand_class(hands[:, 0], hands[:, 1])
    flops, weight = canonical_flops()
    score = CK.flop_scores(hands, cls, flops, weight)
    counts = np.zeros((169, 169), np.int64)
    disjoint = ~((hands[:, None, 0] == hands[None, :, 0]) | (hands[:, None, 0] == hands[None, :, 1])
                 | (hands[:, None, 1] == hands[None, :, 0]) | (hands[:, None, 1] == hands[None, :, 1]))
    i, j = np.nonzero(disjoint)
    np.add.at(counts, (cls[i], cls[j]), 1)
    if cache_path is not None:
        with AtomicFile(cache_path, checksum=False) as f, open(f.tmp, "wb") as fh:
            np.savez(fh, counts=counts, score=score)
    return counts, score


def canonical_flops() -> tuple[np.ndarray, np.ndarray]:
    """One flop per orbit of the 24 suit permutations, and each orbit's size (sum 22,100)."""
    flops = np.array(list(itertools.combinations(range(52), 3)), dtype=np.int64)
    best = None
    for g in itertools.permutations(range(4)):
        g = np.array(g)
        img = np.sort((flops // 4) * 4 + g[flops % 4], axis=1)
        code = (img[:, 0] * 52 + img[:, 1]) * 52 + img[:, 2]
        best = code if best is None else np.minimum(best, code)
    uniq, size = np.unique(best, return_counts=True)
    canon = np.stack([uniq // 2704, (uniq // 52) % 52, uniq % 52], axis=1)
    return canon.astype(np.int64), size.astype(np.int64)


FLOPS_PER_PAIR = math.comb(48, 3)


def flop_poker(ante=1, bet=2, equity: tuple | None = None, cache_path=None) -> Tree:
    """Flop poker (module docstring); ``equity`` = :func:`flop_equity` output (computed, or
    read from ``cache_path``, if None)."""
    a = _as_fraction(ante, "ante")
    B = _as_fraction(bet, "bet")
    counts, score = equity if equity is not None else flop_equity(cache_path)
    payoffs, den = _vn_payoffs(a, B, score, den_extra=1)
    # showdown payoffs are score / (counts * 17296); the fold payoff is per deal: scale it
    # to the same per-deal denominator
    deal_den = np.maximum(counts, 1) * FLOPS_PER_PAIR
    payoffs[3] = payoffs[3] * deal_den
    labels = class_labels()
    return type_game(f"flop-poker-{a}-{B}".replace("/", "_"), counts, labels, labels, VN_TEMPLATE,
                     payoffs, den * deal_den)


# ---------------------------------------------------------------------------- Leduc
def leduc() -> Tree:
    """Leduc Hold'em as a generic tree, made from its one definition (``rules.leduc``)."""
    return limit_tree(rules.leduc())
