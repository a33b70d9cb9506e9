"""Rhode Island Hold'em measured as Gilpin's thesis measures it (issue 49): the hidden-board
lossless game as the reference.

Gilpin's thesis (CMU 2009, ch. 5-6; Gilpin & Sandholm, AAAI 2008) compares abstractions of
Rhode Island Hold'em "in the full game" by taking GameShrink's lossless abstraction as the
full game. Its abstractions are filters over the pair (private signal, public signal): a
player sees only the bucket, the public cards are inside it. The reference game ``L`` is so
GameShrink's 13/205/1,774 classes (``rhode-island-lossless-full``'s classes) played with the
public cards hidden inside the class: an information set of ``L`` is a betting history and
the sequence of classes so far (``rhode-island-lossless-hidden``, ``solve.abstractions.hidden_lossless``).
With ``(x*, y*)`` an equilibrium of ``L`` and ``A`` the payoff matrix:

- head-to-head: ``1/2 x1 A y2 - 1/2 x2 A y1`` (no reference in it: the same number as in the
  real game, ``head_to_head`` of ``queries.compare``);
- against the equilibrium: ``1/2 x A y* - 1/2 x* A y`` (``vs_lossless_equilibrium``);
- against the nemesis: ``1/2 min_v x A v - 1/2 max_u u A y``, the best responses taken
  inside ``L`` (a responder who sees only ``L``'s information sets); stored as its negative,
  the exploitability in ``L`` (``exploitability_lossless``, per seat ``best_response_lossless``);
- the value ``x A y`` of the strategy's own profile (``value``) and its error against the
  value of ``L`` (``lossless_game_value``, from ``x* A y*``).

How a method's strategy is played in ``L``. A method's abstract game and ``L`` partition the
same (history, private card, public cards) situations of the real game. When every
information set of ``L`` lies inside one information set of the method (the method's buckets
are unions of lossless classes, history by history), the method's strategy *is* a strategy of
``L`` and the four measures are exactly the thesis's. When some lossless class holds
situations the method buckets apart, the method's strategy is not a strategy of ``L``: it is
then played in the real game (where every abstraction's strategy is defined), ``A`` is the
real game's payoff, and ``L`` supplies the reference ``(x*, y*)`` and the nemesis's
information. Both cases are one computation: ``L``'s game has the real game's tree, chance
and payoffs and only coarser information sets, so ``x A y`` computed in the real game is the
same number as in ``L`` whenever both strategies are strategies of ``L``; the measure
``in_lossless_game`` (1 or 0) records which case each strategy is in.

Everything is exact (no sampling): values and best responses are computed over every deal on
the compiled public tree (``solve.algorithms.evaluate``). ``(x*, y*)`` itself is solved by the
experiment's CFR-family algorithm to ``--equilibrium-target`` chips of exploitability in ``L``
(the sequence-form LP of ``L``, 1,237,238 rows and 50,428,638 nonzeros, is out of reach of
the project's LP); its exploitability bounds the error of the two measures that use it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from queries.evaluations import Result, stored_keys, write_batch
from queries.limit_support import RhodeIslandSupport
from queries.support import Entry, Options
from schema.progress import progress_bar
from solve.abstractions import LOSSLESS, LOSSLESS_HIDDEN  # noqa: F401 (re-exported)
from solve.algorithms.evaluate import best_response_value, expected_value, head_to_head


def reference(support: RhodeIslandSupport, options: Options) -> str:
    """The equilibrium ``(x*, y*)`` of ``L``, solved (resuming its checkpoint) to
    ``options.equilibrium_target`` chips of exploitability in ``L`` unless stored so."""
    return support.ensure_strategy(Entry(LOSSLESS_HIDDEN, None, LOSSLESS_HIDDEN),
                                   options.for_equilibrium())


def plays_in(info: np.ndarray, coarse_info: np.ndarray) -> bool:
    """Whether a strategy on information sets ``info`` ((D, H) of the real game's decision
    nodes and hands, -1 where a hand meets the board) is a strategy of the game with
    information sets ``coarse_info``: every information set of the latter lies inside one
    of the former."""
    ok = coarse_info >= 0
    coarse, fine = coarse_info[ok], info[ok]
    one = np.full(int(coarse.max(initial=-1)) + 1, -1, dtype=np.int64)
    one[coarse] = fine  # one of each coarse set's own information sets (the last written)
    return bool(np.array_equal(one[coarse], fine))


def evaluate_in_lossless(support: RhodeIslandSupport, strategies: list[str], ref: str,
                         data_dir: Path, progress: bool = True) -> int:
    """Compute and store every missing thesis measure of ``strategies`` against ``ref``, the
    equilibrium of ``L`` (:func:`reference`); returns how many were computed."""
    have = stored_keys(data_dir, support.game)
    names = list(dict.fromkeys(list(strategies) + [ref]))
    sha = {n: support.sha(n) for n in names}

    def missing(measure, n, seat=None, b=None):
        return (measure, seat, n, sha[n], b, None if b is None else sha[b]) not in have

    todo = [n for n in names if any((
        missing("in_lossless_game", n), missing("best_response_lossless", n, 1),
        missing("best_response_lossless", n, 2), missing("exploitability_lossless", n),
        n != ref and missing("vs_lossless_equilibrium", n, b=ref),
        n == ref and missing("lossless_game_value", n)))]
    if not todo:
        return 0
    game = support.compile(LOSSLESS_HIDDEN)  # the seconds of a compile only when needed
    real = support.real()
    beh_ref = support.behaviour(ref)
    with progress_bar(total=len(todo), desc="evaluate in the hidden-board lossless game",
                      unit="strategy", disable=not progress, file=sys.stderr) as bar:
        for n in todo:
            t0 = time.time()
            beh = beh_ref if n == ref else support.behaviour(n)
            inside = plays_in(support.load(n).info, game.info)
            # seat 1 (player index 0) is exploited by a best-responding player 2, and vice versa
            v1 = best_response_value(game, beh, 1, abstract=True)
            v2 = best_response_value(game, beh, 0, abstract=True)
            sec = time.time() - t0
            batch = [Result("in_lossless_game", n, sha[n], float(inside)),
                     Result("best_response_lossless", n, sha[n], v1, seat=1, seconds=sec / 2),
                     Result("best_response_lossless", n, sha[n], v2, seat=2, seconds=sec / 2),
                     Result("exploitability_lossless", n, sha[n], 0.5 * (v1 + v2))]
            if n == ref:
                batch.append(Result("lossless_game_value", n, sha[n],
                                    expected_value(real, beh), exact=False))
            else:
                t0 = time.time()
                batch.append(Result("vs_lossless_equilibrium", n, sha[n],
                                    head_to_head(real, beh, beh_ref), strategy_b=ref,
                                    sha_b=sha[ref], seconds=time.time() - t0))
            write_batch(data_dir, support.game, [r for r in batch if missing(
                r.measure, r.strategy_a, r.seat, r.strategy_b)])
            bar.update(1)
    return len(todo)
