"""An oracle for Rhode Island Hold'em on a reduced deck, written from the rules alone (issue 49).

Nothing here imports the project's game code: the ranking, the betting, the deals and the
classes are re-derived from docs/design.md section 5 in plain Python, so that the project's
GameShrink classes (``abstraction.methods.Lossless``), its compiled games and its evaluators can
be held against them.

- :func:`rank3` -- the showdown ranking of three cards.
- :func:`brute_force_classes` -- strategically identical histories, by brute force: raw
  histories ``(private, public...)`` are merged exactly when there is a bijection between their
  continuations (opponent card, public cards to come) that preserves the payoff and the
  opponent's signal (its class) -- i.e. when the multisets of ``(own class, opponent's class,
  outcome)`` over the continuations are equal -- refined to a fixed point. Exact (multisets are
  sorted tuples of integers, no hashing).
- :func:`type_game_tree` -- the game under any perfect-recall card abstraction (the unabstracted
  game: the suit classes of :func:`canonical`) as an explicit tree with exact payoffs, whose
  sequence-form LP the project's rational solver (``solve.algorithms.lp_exact``) solves exactly.
- :func:`real_game_efg` -- the unabstracted game as a Gambit EFG for OpenSpiel
  (``pyspiel.load_efg_game``), whose C++ best response (``pyspiel.exploitability``) is then the
  independent evaluator. OpenSpiel's ``universal_poker`` cannot be that evaluator: its ACPC hand
  evaluator needs five cards for a straight or a flush, so it ranks Rhode Island's three-card
  hands differently (a straight flush loses to a pair). Deals are dealt up to suit renaming (one
  root outcome per orbit of ``(card 1, card 2, public 1, public 2)``, weighted by the orbit's
  size) and a player's information set is its own view (private card, public cards so far) up
  to suit renaming, plus the betting: suit renaming is a symmetry of the game, so values and
  best responses against suit-symmetric strategies are those of the raw game.

Cards are ``rank * 4 + suit``, ranks 0 .. n_ranks-1 the lowest ranks of the full deck.
"""

from __future__ import annotations

import itertools
from collections import Counter

SUIT_PERMS = list(itertools.permutations(range(4)))
ANTE, BETS, CAP = 500, (1000, 2000, 2000), 3


def rank3(a: int, b: int, c: int) -> tuple:
    """Strength of three cards (docs/design.md section 5), a tuple: larger is better."""
    rs = sorted((a // 4, b // 4, c // 4), reverse=True)
    flush = a % 4 == b % 4 == c % 4
    if rs[0] == rs[2]:
        return (4, rs[0])
    if rs[0] == rs[1] or rs[1] == rs[2]:
        pair = rs[1]
        kicker = rs[2] if rs[0] == rs[1] else rs[0]
        return (1, pair, kicker)
    top = None
    if rs[0] - rs[1] == 1 and rs[1] - rs[2] == 1:
        top = rs[0]
    elif rs == [12, 1, 0]:  # A-2-3, the lowest straight (only with the full deck)
        top = 1
    if top is not None:
        return (5 if flush else 3, top)
    return (2 if flush else 0, *rs)


def outcome(p: int, o: int, b1: int, b2: int) -> int:
    """+1, 0, -1: private card ``p`` against ``o`` on the board ``b1 b2``."""
    x, y = rank3(p, b1, b2), rank3(o, b1, b2)
    return (x > y) - (x < y)


def histories(n_ranks: int) -> list[list[tuple]]:
    """Raw histories per round: (private,), (private, public 1), (private, public 1, public 2)."""
    deck = range(4 * n_ranks)
    return [list(itertools.permutations(deck, k)) for k in (1, 2, 3)]


def brute_force_classes(n_ranks: int) -> list[dict]:
    """Per round, raw history -> class id (see module docstring); classes are nested (the key
    holds the parent's class), so a last-round class names the whole path."""
    hist = histories(n_ranks)
    deck = set(range(4 * n_ranks))
    # continuations of every history: (own last-round history, opponent's, outcome)
    cont = []
    for r, hs in enumerate(hist):
        per = {}
        for h in hs:
            rest = deck - set(h)
            out = []
            for o in rest:
                for tail in itertools.permutations(rest - {o}, 2 - r):
                    me = h + tail
                    them = (o,) + me[1:]
                    out.append((me, them, outcome(me[0], o, me[1], me[2])))
            per[h] = out
        cont.append(per)
    cls = [{h: 0 for h in hs} for hs in hist]
    while True:
        new = []
        for r, hs in enumerate(hist):
            keys = {}
            for h in hs:
                sig = tuple(sorted((cls[2][me], cls[2][them], w) for me, them, w in cont[r][h]))
                parent = new[r - 1][h[:-1]] if r else 0
                keys[h] = (parent, cls[r][h], sig)
            ids = {k: i for i, k in enumerate(sorted(set(keys.values())))}
            new.append({h: ids[keys[h]] for h in hs})
        if all(len(set(a.values())) == len(set(b.values())) for a, b in zip(new, cls)):
            return new
        cls = new


def canonical(cards: tuple) -> tuple:
    """The suit renaming of ``cards`` that is smallest as a tuple (a function of the set of
    renamings, so equal for suit-isomorphic tuples)."""
    return min(tuple(c // 4 * 4 + p[c % 4] for c in cards) for p in SUIT_PERMS)


def deal_orbits(n_ranks: int) -> Counter:
    """Canonical deals (card 1, card 2, public 1, public 2) -> number of raw deals."""
    return Counter(canonical(d) for d in itertools.permutations(range(4 * n_ranks), 4))


def betting(rnd: int, first: int = 0):
    """The betting of one round (3 bets at most, the first player to act ``first``): yields
    (letters, kind, player, bets) for every node; kind "d" decision, "f" fold, "n" round over.
    Letters: c check/call, r bet/raise, f fold (as the ACPC history)."""
    def walk(seq, player, bets, facing):
        if seq.endswith("f"):
            yield seq, "f", 1 - player, bets
            return
        if seq == "cc" or seq.endswith("rc"):  # check, check or a call: the round is over
            yield seq, "n", None, bets
            return
        yield seq, "d", player, bets
        if facing:
            yield from walk(seq + "f", 1 - player, bets, True)
            yield from walk(seq + "c", 1 - player, bets, False)
        else:
            yield from walk(seq + "c", 1 - player, bets, False)
        if bets < CAP:
            yield from walk(seq + "r", 1 - player, bets + 1, True)
    return walk("", first, 0, False)


class _Efg:
    def __init__(self):
        self.lines = []
        self.infosets = [{}, {}]   # player -> name -> number
        self.outcomes = {}

    def infoset(self, p: int, name: str) -> int:
        return self.infosets[p].setdefault(name, len(self.infosets[p]) + 1)

    def outcome(self, u: int) -> int:
        return self.outcomes.setdefault(u, len(self.outcomes) + 1)


def real_game_efg(n_ranks: int) -> tuple[str, dict]:
    """The unabstracted reduced game as EFG text and, per player, information set name ->
    number. A name is ``"<view>|<history>"``: the player's canonical view (cards as integers,
    ``-`` separated) and the betting so far (rounds separated by ``/``)."""
    orbits = deal_orbits(n_ranks)
    total = sum(orbits.values())
    efg = _Efg()
    out = efg.lines
    deals = sorted(orbits)
    kids = " ".join(f'"{"-".join(map(str, d))}" {orbits[d]}/{total}' for d in deals)
    out.append(f'EFG 2 R "rhode-island-{n_ranks}" {{ "P1" "P2" }}')
    out.append(f'c "" 1 "deal" {{ {kids} }} 0')
    round_trees = [list(betting(r)) for r in range(3)]
    for d in deals:
        views = [[canonical((d[p],) + d[2:2 + r]) for r in range(3)] for p in (0, 1)]
        w = outcome(d[0], d[1], d[2], d[3])
        _emit_round(efg, round_trees, 0, "", [ANTE, ANTE], views, w)
    return "\n".join(out) + "\n", efg.infosets


def _emit_round(efg, trees, rnd, prefix, pot, views, w):
    tree = trees[rnd]
    out = efg.lines
    # depth-first order of betting() is the EFG's preorder
    for seq, kind, player, bets in tree:
        hist = prefix + seq
        # chips: the bettor of each r adds the bet, a call matches
        contrib = list(pot)
        p = 0
        for ch in seq:
            if ch == "r":
                contrib[p] = max(contrib) + BETS[rnd]
            elif ch == "c":
                contrib[p] = max(contrib)
            p = 1 - p
        if kind == "d":
            view = "-".join(map(str, views[player][rnd]))
            num = efg.infoset(player, f"{view}|{hist}")
            facing = seq.endswith("r")
            acts = (["f", "c"] if facing else ["c"]) + (["r"] if bets < CAP else [])
            names = " ".join(f'"{a}"' for a in acts)
            out.append(f'p "" {player + 1} {num} "{view}|{hist}" {{ {names} }} 0')
        elif kind == "f":
            loser = player
            u = -contrib[0] if loser == 0 else contrib[1]
            out.append(f't "" {efg.outcome(u)} "" {{ {u} {-u} }}')
        elif rnd == 2:
            u = w * contrib[0]
            out.append(f't "" {efg.outcome(u)} "" {{ {u} {-u} }}')
        else:
            _emit_round(efg, trees, rnd + 1, hist + "/", contrib, views, w)


def _action_ids(game) -> dict:
    """(player, action names) -> OpenSpiel's action ids. The EFG loader numbers actions by
    name, not by position (a capped ``f c`` is ``0 2``), so read them off the first deal's
    betting tree, which has every betting situation of both players."""
    ids = {}

    def walk(s):
        if s.is_terminal():
            return
        if s.is_chance_node():
            return walk(s.child(s.chance_outcomes()[0][0]))
        acts = s.legal_actions()
        ids[(s.current_player(), tuple(s.action_to_string(a) for a in acts))] = tuple(acts)
        for a in acts:
            walk(s.child(a))
    walk(game.new_initial_state())
    return ids


def openspiel_policy(game, infosets: list, probs) -> "object":
    """A ``pyspiel.TabularPolicy`` for :func:`real_game_efg`'s game: ``probs(player, cards,
    history)`` gives ``{letter: probability}`` at the information set whose canonical view is
    ``cards`` (private card first, then the public cards so far)."""
    import pyspiel

    ids = _action_ids(game)
    table = {}
    for p in (0, 1):
        for name, num in infosets[p].items():
            view, hist = name.split("|")
            cards = tuple(int(c) for c in view.split("-"))
            pr = probs(p, cards, hist)
            facing = hist.endswith("r")
            bets = len(hist.split("/")[-1].replace("c", "").replace("f", ""))
            acts = (["f", "c"] if facing else ["c"]) + (["r"] if bets < CAP else [])
            table[f"{p}-{p}-{num}-{name}"] = [(i, float(pr[a])) for i, a in
                                               zip(ids[(p, tuple(acts))], acts)]
    return pyspiel.TabularPolicy(table)


def best_response_values(game, policy) -> tuple[float, float]:
    """OpenSpiel's exact best-response values (C++ ``TabularBestResponse``): what player 1
    wins against player 2's part of ``policy``, and what player 2 wins against player 1's."""
    import pyspiel

    root = game.new_initial_state()
    return tuple(pyspiel.TabularBestResponse(game, p, policy).value_from_state(root)
                 for p in (0, 1))


def betting_template() -> list:
    """The three betting rounds as one public tree, the ``template`` of
    ``solve.games.tree.type_game``: entries ``("d", player, history, actions, children, round)``
    or ``("t", history)`` in topological order; ``stakes[i]`` of a terminal is what the loser
    pays -- (folder, chips) or (None, chips) at a showdown. Returns (template, stakes)."""
    template, stakes = [], {}

    def add(rnd, prefix, contrib):
        nodes = list(betting(rnd))
        index = {}
        for seq, kind, player, bets in nodes:  # preorder: a node before its children
            i = len(template)
            index[seq] = i
            if seq:
                parent = template[index[seq[:-1]]]
                parent[4].append(i)
            c = list(contrib)
            p = 0
            for ch in seq:
                if ch == "r":
                    c[p] = max(c) + BETS[rnd]
                elif ch == "c":
                    c[p] = max(c)
                p = 1 - p
            hist = prefix + seq
            if kind == "d":
                acts = (["f", "c"] if seq.endswith("r") else ["c"]) + (["r"] if bets < CAP else [])
                template.append(["d", player, hist, acts, [], rnd])
            elif kind == "f":
                template.append(["t", hist])
                stakes[i] = (player, c[player])
            elif rnd == 2:
                template.append(["t", hist])
                stakes[i] = (None, c[0])
            else:  # the round is over: the next round's root takes index i
                add(rnd + 1, hist + "/", c)
    add(0, "", [ANTE, ANTE])
    return [tuple(e) for e in template], stakes


def type_game_tree(n_ranks: int, classes: list):
    """The reduced game under a perfect-recall card abstraction as an explicit
    ``solve.games.tree.Tree`` (exact payoffs: rational LP): chance deals both players' final
    classes jointly (counting every raw deal), each decision sees its round's class, the betting
    is :func:`betting_template`. ``classes[r]``: raw history (private, public...) -> label,
    nested (a final label fixes the earlier ones). The showdown pays the exact mean of the
    deals behind each pair of final classes."""
    import numpy as np

    from solve.games.tree import type_game

    final = sorted(set(classes[2].values()))
    tid = {lab: i for i, lab in enumerate(final)}
    T = len(final)
    counts = np.zeros((T, T), np.int64)
    signs = np.zeros((T, T), np.int64)
    views = {}
    for r in (0, 1):
        labs = sorted(set(classes[r].values()))
        views[r] = [None] * T, labs
    for d in itertools.permutations(range(4 * n_ranks), 4):
        me, them = d[:1] + d[2:], d[1:]
        t1, t2 = tid[classes[2][me]], tid[classes[2][them]]
        counts[t1, t2] += 1
        signs[t1, t2] += outcome(d[0], d[1], d[2], d[3])
        for r in (0, 1):
            for t, h in ((t1, me), (t2, them)):
                v = views[r][1].index(classes[r][h[:r + 1]])
                if views[r][0][t] not in (None, v):
                    raise ValueError("the classes are not nested (no perfect recall)")
                views[r][0][t] = v
    template, stakes = betting_template()
    den = np.where(counts > 0, counts, 1)
    payoffs = {}
    for i, (folder, chips) in stakes.items():
        if folder is None:
            payoffs[i] = chips * signs
        else:
            payoffs[i] = (-chips if folder == 0 else chips) * counts
    labels = [str(x) for x in final]
    vmaps = {r: (np.array(m), [str(x) for x in labs], np.array(m), [str(x) for x in labs])
             for r, (m, labs) in views.items()}
    return type_game(f"rhode-island-{n_ranks}-types", counts, labels, labels, template,
                     payoffs, den, views=vmaps)
