"""A limit poker game's rules (:class:`solve.games.rules.LimitPokerRules`) as a generic tree.

The sequence-form solvers (:mod:`solve.algorithms.egt`, :mod:`solve.algorithms.ga`, the exact LP of
:mod:`solve.algorithms.lp_exact`, :mod:`solve.algorithms.treeplex`) work on :class:`solve.games.tree.Tree`; the
CFR family and the float LP on the compiled arrays of :mod:`solve.games.compile`. Both are
made from the same rules, so a game is defined once (Kuhn and Leduc included): this module
walks the deals and the betting that the rules describe and emits the tree, with exact chance
probabilities and payoffs. For small games only (one private card each; the tree holds every
deal): Kuhn has 58 nodes, Leduc 9,457, a Kuhn with 4 cards a few hundred.

Information sets are named ``"<private card><public cards>|<history>"`` with the history in
ACPC letters (``c`` check/call, ``r`` bet/raise, ``f`` is never a prefix; rounds joined by
``/``). When the ranking ignores suits (``ranking.SUIT_BLIND``) cards are named by rank only,
so the suits of a deck that only exist to make ranks repeat (Leduc) add no information sets.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from solve.games import ranking
from solve.games.rules import LimitPokerRules
from solve.games.tree import Tree, TreeBuilder


def limit_tree(rules: LimitPokerRules) -> Tree:
    """The game tree of ``rules`` (module docstring). ValueError for two private cards."""
    if rules.private_cards != 1:
        raise ValueError(f"{rules.name}: the generic tree holds games with one private card")
    n = rules.n_cards
    strength = ranking.RANKINGS[rules.ranking]
    suit_blind = rules.ranking in ranking.SUIT_BLIND

    def name(card: int) -> str:
        s = rules.card_str(card)
        return s[0] if suit_blind else s

    b = TreeBuilder(rules.name)
    root = b.chance()

    def start_round(parent, prob, rnd, hist, contrib, hands, board):
        bets = rules.blind_bets if rnd == 0 else 0
        betting(parent, prob, rnd, hist, contrib, bets, rules.first_to_act[rnd], 0, hands, board)

    def betting(parent, prob, rnd, hist, contrib, bets, p, acted, hands, board):
        label = name(hands[p]) + "".join(name(c) for c in board) + "|" + hist
        o = 1 - p
        can_raise = bets < rules.bet_caps[rnd]
        size = rules.bet_sizes[rnd]
        if contrib[p] < contrib[o]:
            node = b.decision(p, label, ("fold", "call") + (("raise",) if can_raise else ()),
                              parent, prob)
            b.terminal(-contrib[0] if p == 0 else contrib[1], node)  # the folder loses its chips
            called = list(contrib)
            called[p] = contrib[o]
            if rnd == 0 and acted == 0 and rules.blind_bets:  # the big blind keeps its option
                betting(node, (1, 1), rnd, hist + "c", called, bets, o, 1, hands, board)
            else:
                after(node, rnd, hist + "c", called, hands, board)
            if can_raise:
                raised = list(contrib)
                raised[p] = contrib[o] + size
                betting(node, (1, 1), rnd, hist + "r", raised, bets + 1, o, acted + 1, hands, board)
        else:
            node = b.decision(p, label, ("check", "bet") if can_raise else ("check",), parent, prob)
            if acted:
                after(node, rnd, hist + "c", contrib, hands, board)
            else:
                betting(node, (1, 1), rnd, hist + "c", contrib, bets, o, 1, hands, board)
            if can_raise:
                raised = list(contrib)
                raised[p] = contrib[p] + size
                betting(node, (1, 1), rnd, hist + "r", raised, bets + 1, o, acted + 1, hands, board)

    def after(parent, rnd, hist, contrib, hands, board):
        if rnd + 1 < rules.rounds:
            k = rules.public_cards[rnd + 1]
            rest = [c for c in range(n) if c not in hands and c not in board]
            deals = list(combinations(rest, k))
            ch = b.chance(parent, (1, 1)) if k else parent
            for cards in deals:
                start_round(ch, (1, len(deals)) if k else (1, 1), rnd + 1, hist + "/", contrib,
                            hands, board + cards)
            return
        hs = np.array([[hands[0]], [hands[1]]], dtype=np.int64)
        s = strength(hs, np.array(board, dtype=np.int64), rules.n_suits)
        b.terminal(int(np.sign(s[0] - s[1])) * contrib[0], parent)  # equal contributions

    deals = [(c1, c2) for c1 in range(n) for c2 in range(n) if c1 != c2]
    first = rules.public_cards[0]
    for hands in deals:
        if first:
            ch = b.chance(root, (1, len(deals)))
            rest = [c for c in range(n) if c not in hands]
            boards = list(combinations(rest, first))
            for board in boards:
                start_round(ch, (1, len(boards)), 0, "", list(rules.contributions), hands, board)
        else:
            start_round(root, (1, len(deals)), 0, "", list(rules.contributions), hands, ())
    return b.build()
