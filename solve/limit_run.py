"""Solving and evaluating a game defined by limit poker rules on its compiled form: Kuhn,
Leduc, Rhode Island Hold'em (real or on a card abstraction) and plug-ins, with the LP or the
CFR family (``solve.algorithms``); the strategy table is ``solve.table``'s ``compiled`` format.

    solve("leduc", rules, SolveRequest(algorithm="cfr+", target_exploitability=1e-3), data_dir, print)
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

from schema.errors import ParameterError, UserError
from schema.progress import progress_bar
from solve.abstractions import load_abstraction, refuse_stale_checkpoint
from solve.algorithms.abstract_cfr import make_solver
from solve.algorithms.evaluate import expected_value, exploitability
from solve.algorithms.lp import solve_lp
from solve.games.backend import Report, SolveRequest
from solve.games.compile import compile_game
from solve.loop import iterate_until
from solve.runs import NAME_PATTERN, check_catalog, store_strategy
from solve.table import read_strategy, strategy_path, table_training_counts, training_lines


def compile_with(rules, game_name: str, abstraction: str | None, data_dir: Path):
    """(the game compiled from ``rules`` with card abstraction ``abstraction`` (None: the real
    game), the card abstraction object or None)."""
    ab = None if abstraction is None else load_abstraction(abstraction, game_name, data_dir)
    return compile_game(rules, ab), ab


def solve(game_name: str, rules, request: SolveRequest, check_every: int, data_dir: Path,
          seat_name, report: Report) -> Path:
    """Solve the game of ``rules`` (on ``request.abstraction`` if given) with the LP or the
    CFR family; store the table and its catalog row; report the summary; returns its path.
    The algorithm, stopping options and abstraction were checked by the caller; the name is
    checked here."""
    name = request.name or f"{game_name}-{request.abstraction or 'full'}-{request.algorithm}"
    if not NAME_PATTERN.match(name):
        raise UserError(f"strategy name {name!r} must be letters, digits, '_', '.', '+', '-'")
    check_catalog(data_dir)
    t0 = time.time()
    game, card_abstraction = compile_with(rules, game_name, request.abstraction, data_dir)
    abstract = game.abstraction is not None
    ckpt = strategy_path(data_dir, name).with_name("checkpoint.npz")
    if request.algorithm == "lp":
        if not getattr(card_abstraction, "perfect_recall", True):
            raise ParameterError(f"`algorithm` lp needs perfect recall; {request.abstraction!r} "
                                 "was built with imperfect recall (solve it with cfr, cfr+ or "
                                 "dcfr)")
        if request.resume:
            raise ParameterError("`resume` applies to cfr, cfr+ and dcfr")
        strategy, _ = solve_lp(game)
        iterations = 0
    else:
        try:
            solver = make_solver(game, request.algorithm, card_abstraction, request.engine)
        except ValueError as exc:
            raise ParameterError(f"`engine` form: {exc}") from None
        if request.resume:
            if not ckpt.exists():
                raise UserError(f"no checkpoint to resume for {name!r} ({ckpt})")

            refuse_stale_checkpoint(ckpt, getattr(card_abstraction, "created", None), name,
                                    request.abstraction)

            try:
                solver.load(ckpt)
            except (zipfile.BadZipFile, EOFError) as exc:  # e.g. a truncated checkpoint.npz
                raise ParameterError(f"cannot resume {name!r}: damaged checkpoint {ckpt} ({exc}); "
                                     "solve without `resume`") from None
            except (ValueError, KeyError, OSError) as exc:
                raise UserError(f"cannot resume {name!r}: {exc}") from None
        default_iters = (1000 if request.target_exploitability is None
                         and request.time_limit is None else None)
        total = request.iterations if request.iterations is not None else default_iters
        every = request.check_every or check_every
        bar = progress_bar(total=total, initial=solver.iteration_ if total else 0, unit="it",
                           desc=f"{request.algorithm} {game_name}")
        try:
            iterate_until(solver, game, every, total=total, target=request.target_exploitability,
                          time_limit=request.time_limit, started=t0, checkpoint=ckpt, bar=bar)
        finally:
            bar.close()
        strategy = solver.average_strategy()
        iterations = solver.iteration_
    real_expl = exploitability(game, strategy)
    abs_expl = exploitability(game, strategy, abstract=True) if abstract else None
    value = expected_value(game, strategy)
    wall = time.time() - t0
    path, digest = store_strategy(data_dir, name, strategy, game_name, game.abstraction,
                                  request.algorithm, iterations, wall, real_expl, abs_expl, value)
    report(f"{name}: game={game_name} abstraction={game.abstraction or '-'} "
           f"algorithm={request.algorithm} iterations={iterations} wall={wall:.1f}s "
           f"value={value:.6g} exploitability={real_expl:.6g}"
           + (f" abstract_exploitability={abs_expl:.6g}" if abs_expl is not None else "")
           + f"\n{path}")
    for line in unreached_report(strategy, seat_name):
        report(line)
    return path


def unreached_report(strategy, seat_name, show: int = 12) -> list[str]:
    """One console line per player with information sets its own strategy never reaches
    (``Strategy.reached`` false): the count and the first ``show`` as "cards history";
    ``seat_name(player)`` names the seat."""
    g = strategy.game
    un = strategy.unreached()
    if not len(un):
        return []
    labels, hists = g.infoset_labels(), g.infoset_histories()
    lines = []
    for p in (0, 1):
        mine = un[g.info_player[un] == p]
        if len(mine):
            names = [f"{labels[I]} {hists[I]}" for I in mine[:show]]
            lines.append(f"{seat_name(p)}: {len(mine)} information sets never reached by its own strategy "
                         f"(no behaviour defined; stored with reached = false, probability uniform "
                         f"as a playable default): {', '.join(names)}{' ...' if len(mine) > show else ''}")
    return lines


def evaluate(game_name: str, rules, path: Path, abstraction: str | None, data_dir: Path,
             report: Report) -> None:
    """Report the training of compiled table ``path`` (first), then its value and its
    exploitability in the real game (and in its abstract game)."""
    game, _ = compile_with(rules, game_name, abstraction, data_dir)
    try:
        strategy = read_strategy(path, game)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for text in training_lines(table_training_counts(path)):  # first: the figures stay last
        report(text)
    expl = exploitability(game, strategy)
    line = (f"game={game_name} abstraction={abstraction or '-'} "
            f"value={expected_value(game, strategy):.9g} exploitability={expl:.9g}")
    if abstraction:
        line += f" abstract_exploitability={exploitability(game, strategy, abstract=True):.9g}"
    report(line)
