"""Exact evaluation of the unabstracted 2-7 single draw game (issue 7), without W/S matrices.

The game is :mod:`solve.games.draw27` with no abstraction: a player's information is its hand
(1,330 at 21 cards) before the draw and (hand, drawn card) (23,940) after it, plus the public
betting history. The dense "raw" type game is only built for small decks; here behaviour
strategies indexed by raw information are evaluated directly over all deals (hand 1, hand 2,
drawn card 1, drawn card 2) -- about 228 M at 21 cards, enumerated exactly, no sampling:
expected value for player 1 and both players' exact best-response values, so the
exploitability (mean of the two best-response gains) of any profile -- e.g. the iso or a
bucketed game's solution lifted to raw information by :func:`lift` -- can be measured in the
full game.

Counterfactual values are formed per own (hand, drawn card) as sums over opponent (hand,
drawn card) of the opponent's reach times the payoff, one kernel pass per player
(:func:`solve.games._draw27_raw_kernels.pair_sums`, card removal exact); the betting rounds are
then folded bottom-up in numpy.

Layout of a :class:`RawProfile` (each entry the probability of the *second* action):

- ``p1_r1[h] = (P(bet) at "", P(call) at "cr")``; ``p2_r1[h] = (P(bet) at "c", P(call) at "r")``;
- ``p1_r2[k, h, c] = (P(bet) at "k/", P(call) at "k/cr")``,
  ``p2_r2[k, h, c] = (P(bet) at "k/c", P(call) at "k/r")``, ``k`` indexing the round-1
  histories ``cc``, ``rc``, ``crc`` (:data:`ROUND1`) that reach the draw (pot 1, 2, 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solve.games._draw27_raw_kernels import pair_sums
from solve.games.draw27 import _Deck, _type_maps
from solve.algorithms.treeplex import behaviour

ROUND1 = ("cc", "rc", "crc")
POT = (1, 2, 2)
# infoset histories -> (player, round, node, k)
_NODES = {(0, ""): (1, 0, None), (0, "cr"): (1, 1, None), (1, "c"): (1, 0, None), (1, "r"): (1, 1, None)}
for _k, _h in enumerate(ROUND1):
    _NODES[(0, _h + "/")] = (2, 0, _k)
    _NODES[(0, _h + "/cr")] = (2, 1, _k)
    _NODES[(1, _h + "/c")] = (2, 0, _k)
    _NODES[(1, _h + "/r")] = (2, 1, _k)


@dataclass
class RawProfile:
    """Behaviour strategies of both players over raw information (see the module docstring)."""

    p1_r1: np.ndarray  # (H, 2)
    p2_r1: np.ndarray  # (H, 2)
    p1_r2: np.ndarray  # (3, H, n, 2)
    p2_r2: np.ndarray  # (3, H, n, 2)


@dataclass
class RawResult:
    value: float        # expected value for player 1 (chips per hand)
    br1: float          # player 1's best-response value against player 2's strategy
    br2: float          # value player 2's best response holds player 1 to
    value_check: float  # the value again, from player 2's counterfactual values

    @property
    def exploitability(self) -> float:
        """Mean of both players' best-response gains (docs/design.md section 6)."""
        return 0.5 * (self.br1 - self.br2)


class RawDraw27:
    """The unabstracted game on a ``n_ranks`` x ``n_suits`` deck (default 21 cards)."""

    def __init__(self, n_ranks: int = 7, n_suits: int = 3):
        self.deck = deck = _Deck(n_ranks, n_suits)
        self.n_ranks, self.n_suits = n_ranks, n_suits
        self.H, self.n = len(deck.hands), deck.n
        self.hand_mask = (np.int64(1) << deck.hands).sum(axis=1).astype(np.int64)
        self.hand_ok = np.ascontiguousarray(deck.hand_ok)
        self.final_val = np.ascontiguousarray(deck.final_val)
        fv = np.where(deck.drawable, deck.final_val, np.iinfo(np.int64).max)
        self.order = np.ascontiguousarray(np.argsort(fv, axis=1, kind="stable")[:, :self.n - 3])
        self.draws = (self.n - 6) * (self.n - 7)            # (drawn 1, drawn 2) per hand pair
        self.deals = int(self.hand_ok.sum()) * self.draws   # all deals, equally likely
        self._ok_f = self.hand_ok.astype(np.float64)

    # -- profiles -------------------------------------------------------------------------
    def uniform(self) -> RawProfile:
        H, n = self.H, self.n
        return RawProfile(np.full((H, 2), 0.5), np.full((H, 2), 0.5), np.full((3, H, n, 2), 0.5),
                          np.full((3, H, n, 2), 0.5))

    def random(self, seed: int = 0) -> RawProfile:
        rng = np.random.default_rng(seed)
        H, n = self.H, self.n
        return RawProfile(rng.random((H, 2)), rng.random((H, 2)), rng.random((3, H, n, 2)),
                          rng.random((3, H, n, 2)))

    def lift(self, sf, x, y, buckets) -> RawProfile:
        """Behaviour strategies over raw information of realization plans ``x``, ``y`` of the
        draw27 game over ``buckets`` (``"raw"``, ``"iso"`` or an int) on this deck, as a tree
        sequence form (``sequence_form(draw27(...))``) or the matrix-free
        ``draw27_sequence_form``: every raw (hand) / (hand, drawn card) plays its bucket's
        strategy. Information sets the player's own plan never reaches get 1/2 (irrelevant to
        the value and to both best-response values)."""
        deck = self.deck
        H, n = self.H, self.n
        hh, cc = np.nonzero(deck.drawable)
        _, t_full, r1_full, lab2, lab1 = _type_maps(buckets, deck)
        key2 = {lab: k for k, lab in lab2.items()}
        key1 = {lab: k for k, lab in lab1.items()}
        if len(key2) != len(lab2) or len(key1) != len(lab1):
            raise ValueError("bucket labels are not unique")
        # members of each key (raw hands / raw (hand, card) pairs)
        by2: dict = {}
        for i, k in enumerate(t_full.tolist()):
            by2.setdefault(k, []).append(i)
        by1: dict = {}
        r1_of_hand = np.full(H, -1, np.int64)
        r1_of_hand[hh] = r1_full
        for h, k in enumerate(r1_of_hand.tolist()):
            by1.setdefault(k, []).append(h)
        by2 = {k: np.array(v, np.int64) for k, v in by2.items()}
        by1 = {k: np.array(v, np.int64) for k, v in by1.items()}
        prof = self.uniform()
        done = [np.zeros((H, 2), bool), np.zeros((H, 2), bool), np.zeros((3, H, n, 2), bool),
                np.zeros((3, H, n, 2), bool)]
        for p, plan in ((0, x), (1, y)):
            b = behaviour(sf, p, np.asarray(plan, dtype=np.float64))
            r1 = prof.p1_r1 if p == 0 else prof.p2_r1
            r2 = prof.p1_r2 if p == 0 else prof.p2_r2
            d1, d2 = done[p], done[2 + p]
            for I, label in enumerate(b.labels):
                typ, hist = label.split("|", 1)
                rnd, node, k = _NODES[(p, hist)]
                pr = 0.5 if b.unreached[I] else float(b.probs[I, 1])
                if rnd == 1:
                    members = by1[key1[typ]]
                    r1[members, node] = pr
                    d1[members, node] = True
                else:
                    idx = by2[key2[typ]]
                    r2[k, hh[idx], cc[idx], node] = pr
                    d2[k, hh[idx], cc[idx], node] = True
            if not d1.all() or not d2[:, hh, cc].all():
                raise ValueError("the sequence form does not cover every raw information set")
        return prof

    # -- evaluation -----------------------------------------------------------------------
    def _sums(self, Qf, Qs):
        H, n = self.H, self.n
        out_f = np.zeros((H, n, Qf.shape[2]))
        out_s = np.zeros((H, n, Qs.shape[2]))
        pair_sums(self.hand_mask, self.hand_ok, self.final_val, self.order,
                  np.ascontiguousarray(Qf), np.ascontiguousarray(Qs), out_f, out_s)
        return out_f, out_s

    def evaluate(self, prof: RawProfile) -> RawResult:
        """Value for player 1 and both best-response values of ``prof`` (two kernel passes)."""
        drawable = self.deck.drawable
        D, N = self.draws, self.deals
        ok = self._ok_f
        b1, q1 = prof.p1_r1[:, 0], prof.p1_r1[:, 1]
        d1, e1 = prof.p2_r1[:, 0], prof.p2_r1[:, 1]
        b, q = prof.p1_r2[..., 0], prof.p1_r2[..., 1]        # (3, H, n)
        d, e = prof.p2_r2[..., 0], prof.p2_r2[..., 1]
        pot = np.array(POT, np.float64)[:, None, None]

        # ---- player 1's counterfactual values (opponent = player 2) ----
        R2 = np.stack([1 - d1, e1, d1])[:, :, None]           # P2's round-1 reach per k
        Qf = np.concatenate([R2 * (1 - e), R2 * d])            # fold terminals rf, crf
        Qs = np.concatenate([R2 * (1 - d), R2 * e, R2 * d])    # showdowns cc, rc, crc
        Ff, Ss = self._sums(Qf.transpose(1, 2, 0), Qs.transpose(1, 2, 0))
        Ff, Ss = Ff.transpose(2, 0, 1), Ss.transpose(2, 0, 1)  # (channels, H, n)
        u_rf, u_crf = pot * Ff[0:3], -pot * Ff[3:6]
        u_cc, u_rc, u_crc = pot * Ss[0:3], (pot + 1) * Ss[3:6], (pot + 1) * Ss[6:9]
        ev2 = (1 - b) * (u_cc + (1 - q) * u_crf + q * u_crc) + b * (u_rf + u_rc)
        br2 = np.maximum(u_cc + np.maximum(u_crf, u_crc), u_rf + u_rc)
        ev2 = np.where(drawable[None], ev2, 0.0).sum(axis=2)   # (3, H): sum over own draws
        br2 = np.where(drawable[None], br2, 0.0).sum(axis=2)
        f_rf, f_crf = D * (ok @ (1 - e1)), -D * (ok @ d1)
        ev1 = (1 - b1) * (ev2[0] + (1 - q1) * f_crf + q1 * ev2[2]) + b1 * (f_rf + ev2[1])
        best1 = np.maximum(br2[0] + np.maximum(f_crf, br2[2]), f_rf + br2[1])
        value, br_1 = ev1.sum() / N, best1.sum() / N

        # ---- player 2's counterfactual values (opponent = player 1); payoffs to player 1 ----
        R1 = np.stack([1 - b1, b1, (1 - b1) * q1])[:, :, None]
        Qf = np.concatenate([R1 * b, R1 * (1 - b) * (1 - q)])
        Qs = np.concatenate([R1 * (1 - b), R1 * b, R1 * (1 - b) * q])
        Ff, Ss = self._sums(Qf.transpose(1, 2, 0), Qs.transpose(1, 2, 0))
        Ff, Ss = Ff.transpose(2, 0, 1), Ss.transpose(2, 0, 1)
        u_rf, u_crf = pot * Ff[0:3], -pot * Ff[3:6]
        u_cc, u_rc, u_crc = -pot * Ss[0:3], -(pot + 1) * Ss[3:6], -(pot + 1) * Ss[6:9]
        ev2 = (1 - d) * u_cc + d * (u_crf + u_crc) + (1 - e) * u_rf + e * u_rc
        br2 = np.minimum(u_cc, u_crf + u_crc) + np.minimum(u_rf, u_rc)
        ev2 = np.where(drawable[None], ev2, 0.0).sum(axis=2)
        br2 = np.where(drawable[None], br2, 0.0).sum(axis=2)
        f_rf, f_crf = D * (ok @ b1), -D * (ok @ ((1 - b1) * (1 - q1)))
        ev = (1 - d1) * ev2[0] + d1 * (f_crf + ev2[2]) + (1 - e1) * f_rf + e1 * ev2[1]
        best = np.minimum(br2[0], f_crf + br2[2]) + np.minimum(f_rf, br2[1])
        return RawResult(value=float(value), br1=float(br_1), br2=float(best.sum() / N),
                         value_check=float(ev.sum() / N))
