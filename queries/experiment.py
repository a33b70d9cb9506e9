"""``cli.py experiment NAME``: named end-to-end comparisons (issue 5).

    python cli.py experiment rhode-island-granularity --report docs/rhode-island-granularity

``rhode-island-granularity``: builds the eb, eb2 and pa abstractions (``--methods`` for others,
e.g. ``eb,eb2,pa,pa-emd,ochs,strategy,eb-ir,pa-emd-ir,ochs-ir``) of Rhode Island Hold'em
at 13,25,125 / 13,50,250 / 13,75,500 / 13,100,750 / 13,125,1000 / 13,150,1250 / 13,205,1774
buckets (named ``rhode-island-METHOD-B1-B2-B3``) and the lossless one, solves the real game
(the reference equilibrium) and each abstract game to ``--target`` chips of exploitability
in its own game (DCFR by default; resuming checkpoints), evaluates the four measures of every
strategy against all the others and against the equilibrium, and writes the report (Markdown + plots). Re-running reuses
every abstraction, strategy and evaluation already stored.

Two kinds of ``--methods`` token need more than a build (issue 20):

- ``strategy`` (GS4, strategy-based): hands clustered by their play in a solved finer game, here
  the lossless abstraction's strategy (``rhode-island-lossless-full`` solved like every abstract
  game, to ``--target``; in the public-board experiment it is the reference equilibrium, solved
  to ``--equilibrium-target``), so that strategy is solved first; the report names it. A GS4
  build made from another strategy, or before its strategy was last solved, is rebuilt.
- ``METHOD-ir`` (``eb-ir``, ``pa-emd-ir``, ``ochs-ir``; board hidden only): the method built with
  ``--recall imperfect`` (``rhode-island-METHOD-ir-B1-B2-B3``), every round clustered on its own
  and the earlier buckets forgotten. The sequence-form LP needs perfect recall; these games are
  solved by the same CFR-family ``--algorithm`` on the type-level form with the infosets of
  an information set tied (``solve.games.abstract_form``; the public tree's CFR iteration for
  iteration, at the form's cost). Under imperfect recall CFR need not converge, and the
  abstract exploitability (the best response computed level by level:
  a valid pure strategy's gain, a lower bound) can level off above ``--target`` (eb-ir at
  13,25,125: ~12 chips from 300 to 500 DCFR iterations), so these solves also stop after
  ``--ir-iterations`` (default 500, about what the perfect-recall builds need for 1 chip).
  The evaluation in the real game is exact, as for every strategy.

``--reference`` (issue 49) chooses the settings the hidden-board strategies are measured in:
``real`` (default) against the real game (its equilibrium the reference, its best responses
the nemesis); ``lossless-hidden`` also against GameShrink's lossless classes played with the
board hidden, the thesis's setting (``queries.lossless_reference``: that game's equilibrium,
solved to ``--lossless-target``, is the reference and its best responses are the nemesis);
``all`` also builds, solves and measures the board-visible builds of
``rhode-island-granularity-public`` in the same data directory. The report then has the
thesis's table and the three settings side by side (hidden board vs real game; hidden board vs
lossless game; board visible vs real game). One command, resuming whatever is stored:

    python cli.py experiment rhode-island-granularity --methods eb,eb2,pa,pa-emd,ochs,strategy,\
        eb-ir,pa-emd-ir,ochs-ir --reference all --equilibrium-target 0.5 --lossless-target 0.1 \
        --jobs 2 --report docs/rhode-island-granularity

The report counts each abstraction's information sets (of the abstract game, from its
strategy table): the size at which abstractions compare fairly. At the same built bucket
counts perfect and imperfect recall have as many (one per betting history and bucket
sequence, respectively the round's own bucket); an imperfect-recall round can build fewer
buckets than asked (eb-ir: a round's hands have only so many distinct equities).

``rhode-island-granularity-public``: the same 21 builds played with the public cards visible
(``--public-board``, names ``...-public``: board visible vs the real game; Gilpin's experiments
play the abstractions with the board hidden, see ``queries.lossless_reference``), the reference
equilibrium the lossless abstraction solved to ``--equilibrium-target``; the report puts both
settings side by side when the hidden-board strategies are stored in the same data directory:

    python cli.py experiment rhode-island-granularity-public --target 0.1 \
        --equilibrium-target 0.05 --report docs/rhode-island-granularity-public

``rhode-island-rules``: the Rhode Island value question of issue 14, one solve per rule
variant and setting (see ``queries.rules_experiment``):

    python cli.py experiment rhode-island-rules --target 0.1 --report docs/rhode-island-rules

``holdem-methods``: issue 20's Texas Hold'em comparison from an empty data directory to its
table (``queries.holdem_methods``): the equity tables, nine abstractions at full size, one CPU
hour of solving each (eight compared and the GS4 source), each strategy evaluated as its solve
ends (400-board LBR, the baselines, 700,000 duplicate deals against ``pa``; every figure kept in
DATA_DIR/holdem-methods-figures), then the round robin; each step a process of its own (log:
DATA_DIR/pipeline-logs/STEP.log), ``--jobs`` at a time, under ``--memory-gb``. Resumable: a
stored result is skipped, a solve resumes its checkpoint, a build its saved rounds; Ctrl-C stops
every step the way Ctrl-C stops it by hand (a solve checkpoints) and re-running continues. About
14 hours of one core; ``--dry-run`` lists what is left. One driver per data directory:

    python cli.py --data-dir /work/data-holdem experiment holdem-methods --jobs 2
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from abstraction.imperfect_recall import KIND_OF_METHOD
from abstraction.methods import METHODS
from queries import rules_experiment
from queries.compare import check_report_dir, compare, game_support
from queries.builds import build_abstraction
from queries.holdem_methods import PipelineOptions, run_pipeline
from queries.limit_support import RhodeIslandSupport
from queries import lossless_reference
from queries.lossless_reference import LOSSLESS
from queries.parallel_solve import build_parallel, solve_parallel
from queries.report import settings_sections, write_report
from queries.support import GameSupport, Options
from queries.tables import print_tables
from queries.views import connect
from schema.catalog import session_scope
from schema.catalog_abstraction import Abstraction
from schema.errors import ParameterError
from solve.loop import check_at_least, check_positive_finite

RI_GRANULARITIES = ("13,25,125", "13,50,250", "13,75,500", "13,100,750", "13,125,1000",
                    "13,150,1250", "13,205,1774")
RI_METHODS = ("eb", "eb2", "pa")  # the published comparison; --methods adds others
IR = "-ir"  # --methods METHOD-ir: METHOD built with --recall imperfect
#: default ``--ir-iterations``: about what DCFR needed for < 1 chip on the perfect-recall builds
#: (325-500 iterations, docs/rhode-island-granularity)
IR_ITERATIONS = 500
#: ``--reference`` of rhode-island-granularity: the settings measured (see :data:`SETTINGS`)
#: (``queries.report.SETTINGS``)
REFERENCES = {"real": ("hidden-real",),
              "lossless-hidden": ("hidden-real", "hidden-lossless"),
              "all": ("hidden-real", "hidden-lossless", "visible-real")}


@dataclass(frozen=True)
class ExperimentOptions:
    """What an experiment of :data:`EXPERIMENTS` takes (``cli.py experiment NAME``'s options,
    the same names). Each experiment reads the fields it needs and checks them before any
    work (one-line ``ParameterError``s)."""

    name: str
    #: how missing strategies are solved (compare's options: target, algorithm, jobs, ...)
    solve: Options = field(default_factory=Options)
    report: Path | None = None          # default DATA_DIR/reports/NAME
    seed: int = 0                       # abstraction seed
    #: rhode-island-granularity(-public): tokens of :func:`method_tokens` (None: RI_METHODS)
    methods: tuple[str, ...] | None = None
    ir_iterations: int = IR_ITERATIONS  # most iterations of an imperfect-recall solve
    reference: str | None = None        # a key of REFERENCES (None: real)
    lossless_target: float | None = None  # None: the equilibrium target
    variants: tuple[str, ...] | None = None  # rhode-island-rules (None: every variant)
    pipeline: PipelineOptions = field(default_factory=PipelineOptions)  # holdem-methods
    #: what reproduces the run, for the report (default ``python cli.py experiment NAME``)
    command_line: str | None = None

    def command(self) -> str:
        """The command line that reproduces these results."""
        return self.command_line or f"python cli.py experiment {self.name}"


def method_tokens(public_board: bool = False) -> tuple[str, ...]:
    """The ``methods`` tokens: every abstraction method but lossless (always the reference)
    and, with the board hidden, ``METHOD-ir`` for each method with an imperfect-recall build."""
    perfect = tuple(m for m in METHODS if m != "lossless")
    return perfect if public_board else perfect + tuple(m + IR for m in KIND_OF_METHOD)


def split_method(token: str) -> tuple[str, str]:
    """A ``methods`` token as (method, recall): ``eb-ir`` -> ("eb", "imperfect")."""
    if token.endswith(IR) and token[:-len(IR)] in KIND_OF_METHOD:
        return token[:-len(IR)], "imperfect"
    return token, "perfect"


def parse_methods(text: str | None, public_board: bool = False) -> tuple[str, ...]:
    """Comma-separated tokens of :func:`method_tokens` (None: eb, eb2 and pa), checked
    (:func:`check_methods`)."""
    return check_methods(None if text is None else split_list(text), public_board)


def split_list(text: str) -> tuple[str, ...]:
    """``" eb, pa ,,eb"`` -> ``("eb", "pa", "eb")``."""
    return tuple(m.strip() for m in text.split(",") if m.strip())


def check_methods(methods, public_board: bool = False) -> tuple[str, ...]:
    """``methods``: tokens of :func:`method_tokens` (None: eb, eb2 and pa), without repeats.

    Raises:
        ParameterError: (one line) an unknown token, an ``-ir`` token of a method without an
            imperfect-recall build, an ``-ir`` token with the public board, no token.
    """
    if methods is None:
        return RI_METHODS
    methods = tuple(dict.fromkeys(methods))
    valid = method_tokens(public_board)
    ir = [m + IR for m in KIND_OF_METHOD]
    for m in methods:
        if m in valid:
            continue
        if m in ir:
            raise ParameterError(f"`methods`: {m} (imperfect recall) is built with the board "
                                 f"hidden, so only for rhode-island-granularity; here choose "
                                 f"from {', '.join(valid)}")
        if m.endswith(IR) and m[:-len(IR)] in METHODS:
            raise ParameterError(f"`methods`: {m[:-len(IR)]} has no imperfect-recall build; "
                                 f"the -ir methods are {', '.join(ir)}")
    bad = [m for m in methods if m not in valid]
    if bad or not methods:
        raise ParameterError(f"`methods`: unknown or unusable method {', '.join(bad) or '(none)'}; "
                        f"choose from {', '.join(valid)} (lossless is always the reference)")
    return methods


def ri_name(method: str, buckets: str) -> str:
    """``rhode-island-METHOD-B1-B2-B3`` (``method`` a ``methods`` token, e.g. ``eb-ir``: the
    name ``build-abstraction --recall imperfect`` gives by default)."""
    return f"rhode-island-{method}-{buckets.replace(',', '-')}"


def rhode_island_granularity(options: ExperimentOptions, data_dir: Path) -> int:
    """The builds played with the board hidden behind the bucket (issue 5), measured in the
    settings of ``reference`` (issue 49): ``real`` (default) against the real game;
    ``lossless-hidden`` also against the hidden-board lossless game, the thesis's setting
    (``queries.lossless_reference``); ``all`` also runs the board-visible builds (as
    ``rhode-island-granularity-public`` does) and puts the three settings side by side."""
    settings = parse_reference(options.reference)
    title = "Rhode Island Hold'em: abstraction granularity ({methods})"
    if "visible-real" not in settings:
        return _granularity(options, data_dir, public_board=False, title=title,
                            settings=settings)
    # all three settings. The lossless game is solved to --equilibrium-target from the start:
    # it is the board-visible setting's reference and the strategy the GS4 builds of both
    # settings cluster by. The hidden board first (its report is written), then the board
    # visible (its own report in the data directory), then the hidden board's report again,
    # re-read with the board-visible strategies beside it.
    hidden = _granularity(options, data_dir, public_board=False, title=title,
                          settings=settings, lossless_solved_tight=True)
    if options.solve.report_only:  # the report of what is stored, as it stands
        return hidden
    visible = tuple(t for t in check_methods(options.methods) if split_method(t)[1] == "perfect")
    _granularity(replace(options, methods=visible,
                         report=data_dir / "reports" / "rhode-island-granularity-public"),
                 data_dir, public_board=True, title=PUBLIC_TITLE)
    reread = replace(options, solve=replace(options.solve, report_only=True, reuse_solved=True))
    return _granularity(reread, data_dir, public_board=False, title=title, settings=settings,
                        lossless_solved_tight=True)


PUBLIC_TITLE = "Rhode Island Hold'em: abstraction granularity with the public cards visible"


def rhode_island_granularity_public(options: ExperimentOptions, data_dir: Path) -> int:
    """Every abstraction played with the public cards visible (``public_board``), each
    abstract game solved to ``target``, the reference equilibrium the lossless abstraction
    (the real game, lossless) solved to ``equilibrium_target``; the report adds the settings
    side by side. (Gilpin's experiments play the abstractions with the board hidden, see
    ``queries.lossless_reference``: this is a different experiment.)"""
    if parse_reference(options.reference) != REFERENCES["real"]:
        raise ParameterError("`reference` applies to rhode-island-granularity (the "
                             "board-visible setting is measured against the real game)")
    return _granularity(options, data_dir, public_board=True, title=PUBLIC_TITLE)


def parse_reference(text: str | None) -> tuple[str, ...]:
    """``reference``: the settings to measure (:data:`REFERENCES`; default ``real``).

    Raises:
        ParameterError: (one line) an unknown reference.
    """
    if text is None:
        return REFERENCES["real"]
    if text not in REFERENCES:
        raise ParameterError(f"`reference`: unknown reference {text!r}; choose from "
                             f"{', '.join(REFERENCES)}")
    return REFERENCES[text]


def _granularity(experiment: ExperimentOptions, data_dir: Path, public_board: bool, title: str,
                 settings: tuple[str, ...] = ("hidden-real",),
                 lossless_solved_tight: bool = False) -> int:
    methods = check_methods(experiment.methods, public_board)
    options = experiment.solve
    ir_options = replace(options, iterations=ir_iterations(experiment.ir_iterations,
                                                           options.iterations))
    report = (Path(experiment.report) if experiment.report
              else data_dir / "reports" / experiment.name)
    check_report_dir(report)
    thesis = "hidden-lossless" in settings
    thesis_options = (lossless_reference_options(experiment.lossless_target, options)
                      if thesis else None)
    t0 = time.time()
    support = RhodeIslandSupport(data_dir)
    have = set(support._abstractions())
    names, gs4, builds = [], [], []
    if LOSSLESS not in have:
        builds.append((LOSSLESS, dict(method="lossless", buckets=None, seed=experiment.seed)))
    for buckets in RI_GRANULARITIES:
        for token in methods:
            name = ri_name(token, buckets) + ("-public" if public_board else "")
            method, recall = split_method(token)
            if method == "strategy":
                gs4.append((buckets, name))  # built below, from the lossless game's strategy
            elif name not in have:
                builds.append((name, dict(method=method, buckets=buckets, seed=experiment.seed,
                                          public_board=public_board, recall=recall)))
            names.append(name)
    build_all(data_dir, builds, options.jobs, options.progress)
    # public board: the lossless game is the real game; solved tighter, it is the reference
    reference = public_board and options.equilibrium is None
    lossless_options = options.for_equilibrium() if reference or lossless_solved_tight else options
    ir = [ri_name(t, b) for b in RI_GRANULARITIES for t in methods
          if split_method(t)[1] == "imperfect"]
    later = {n for _, n in gs4}
    # solved with options of their own before compare, which is then given their strategies
    first = ([(LOSSLESS, lossless_options)] if reference or gs4 or lossless_solved_tight
             else []) \
        + [(n, ir_options) for n in reversed(ir)]
    parallel = options.jobs > 1 and not options.report_only
    if parallel and first:
        # the lossless game first (the longest, and GS4 reads it), the imperfect-recall games,
        # then every other built game
        solve_parallel(game_support, support.game, data_dir,
                       first + [(n, options) for n in reversed(names)
                                if n not in later and n not in ir],
                       options.jobs, options.progress)
    solved: dict[str, str] = {}  # abstraction -> its strategy, for those solved here
    if reference or gs4 or lossless_solved_tight:
        (entry,) = support.resolve([LOSSLESS])
        solved[LOSSLESS] = support.ensure_strategy(entry, lossless_options)
    if gs4:
        build_strategy_abstractions(support, data_dir, gs4, solved[LOSSLESS], seed=experiment.seed,
                                    public_board=public_board, rebuild=not options.report_only,
                                    jobs=options.jobs, progress=options.progress)
        if parallel:
            solve_parallel(game_support, support.game, data_dir,
                           [(n, options) for _, n in reversed(gs4)], options.jobs,
                           options.progress)
    for entry in support.resolve(ir):
        solved[entry.name] = support.ensure_strategy(entry, ir_options)
    if parallel and first:
        # every strategy is stored now: compare need not start a second pool to find that
        options = replace(options, jobs=1)
    if reference:
        options = replace(options, equilibrium=solved[LOSSLESS])
    entries = [solved.get(n, n) for n in names + [LOSSLESS]]
    if thesis:
        # the thesis's setting: (x*, y*) the hidden-board lossless game's equilibrium, the
        # nemesis restricted to that game's information sets (queries.lossless_reference);
        # before the real game's reference equilibrium, the longest solve, is needed
        ref = lossless_reference.reference(support, thesis_options)
        entries = [support.ensure_strategy(e, options) for e in support.resolve(entries)]
        if not options.report_only:
            lossless_reference.evaluate_in_lossless(support, entries, ref, data_dir,
                                                    options.progress)
    result = compare(support, entries, options, data_dir)
    print_tables(result["tables"])
    side: list[str] = []
    if thesis:
        if not options.report_only:  # the real game's equilibrium in the lossless game too
            lossless_reference.evaluate_in_lossless(support, [result["equilibrium"]], ref,
                                                    data_dir, options.progress)
        side = settings_sections(data_dir, support.game, methods, RI_GRANULARITIES, ref)
    if not options.report_only:
        result["wall_seconds"] = time.time() - t0
    # the command that reproduces the results (a report-only re-render only re-reads them)
    result["command"] = experiment.command()
    if public_board:
        side = side_by_side(data_dir, support.game, methods)
    if ir:
        side = side + ir_note(options.algorithm, ir_options)
    path = write_report(report, data_dir, support.game, result,
                        title=title.format(methods=", ".join(methods)), sections=side)
    print(f"report: {path}")
    if "wall_seconds" in result:
        print(f"wall: {result['wall_seconds']:.0f}s")
    return 0


def lossless_reference_options(target: float | None, options: Options) -> Options:
    """The options the hidden-board lossless game's equilibrium is solved with: the reference
    equilibrium's, to ``target`` chips (the ``lossless_target``; None: the
    ``equilibrium_target``) in that game.

    Raises:
        ParameterError: ``lossless_target`` not positive and finite.
    """
    check_positive_finite(lossless_target=target)
    if target is None:
        return options
    return replace(options, equilibrium_target=target)


def ir_iterations(cap: int | None, iterations: int | None) -> int:
    """The most iterations of an imperfect-recall solve: ``cap`` (the ``ir_iterations``;
    None: :data:`IR_ITERATIONS`), or ``iterations`` (the solves') when fewer.

    Raises:
        ParameterError: ``ir_iterations`` under 1.
    """
    cap = IR_ITERATIONS if cap is None else cap
    check_at_least(1, ir_iterations=cap)
    return cap if iterations is None else min(cap, iterations)


def ir_note(algorithm: str, ir_options) -> list[str]:
    """Markdown: how the imperfect-recall games were solved."""
    return [f"Imperfect-recall abstractions (`METHOD-ir`: every round clustered on its own, "
            f"the earlier buckets forgotten) were solved by {algorithm} (on the type-level form "
            f"with each information set's infosets tied; the LP needs perfect recall), to the "
            f"target or for at most "
            f"{ir_options.iterations} iterations: under imperfect recall CFR need not converge, "
            f"and the abstract exploitability (the best response computed level by level, a "
            f"valid pure strategy's gain) is a lower bound. Their real-game measures are "
            f"exact, as for every strategy.", ""]


def strategy_builds(data_dir: Path) -> dict[str, tuple[str | None, object]]:
    """Stored strategy-based (GS4) abstractions: name -> (the strategy it clustered by, when
    it was built)."""
    with session_scope(data_dir) as s:
        return {a.name: (json.loads(a.params or "{}").get("from_strategy"), a.created)
                for a in s.query(Abstraction).filter(Abstraction.method == "strategy").all()}


def build_all(data_dir: Path, builds: list[tuple[str, dict]], jobs: int,
              progress: bool) -> None:
    """Build ``(name, build_abstraction kwargs)`` one after another, or ``jobs`` at a time
    in processes of their own (``queries.parallel_solve.build_parallel``)."""
    if jobs > 1 and len(builds) > 1:
        build_parallel(data_dir, builds, jobs, progress)
        return
    for name, kwargs in builds:
        build_abstraction(data_dir, name=name, **kwargs)


def build_strategy_abstractions(support: GameSupport, data_dir: Path,
                                builds: list[tuple[str, str]], source: str, seed: int = 0,
                                public_board: bool = False, rebuild: bool = True,
                                jobs: int = 1, progress: bool = False) -> None:
    """Build the GS4 abstractions ``builds`` (``(buckets, name)``) from strategy ``source``
    (``build-abstraction --method strategy --from-strategy SOURCE``), ``jobs`` at a time. A
    stored one is kept when it was built from ``source`` after ``source`` was last solved;
    else, with ``rebuild``, it is rebuilt (``replace``; its strategies are then of an
    earlier build and solved again), without, kept as it is."""
    solved = support._runs()[source]["created"]
    stored = strategy_builds(data_dir)
    todo = []
    for buckets, name in builds:
        if name in stored:
            was, built = stored[name]
            if not rebuild or (was == source and built >= solved):
                continue
            print(f"{name}: rebuilt, from {source}"
                  + (f" (it was built from {was})" if was != source
                     else " (solved again since it was built)"))
        todo.append((name, dict(method="strategy", buckets=buckets, seed=seed,
                                public_board=public_board, from_strategy=source,
                                replace=name in stored)))
    build_all(data_dir, todo, jobs, progress)


def side_by_side(data_dir: Path, game: str, methods=RI_METHODS) -> list[str]:
    """Markdown: per method and granularity, real-game exploitability and head-to-head against
    the equilibrium with the board hidden and visible (the strategies stored in ``data_dir``;
    each evaluated against the equilibrium of its own experiment)."""
    with connect(data_dir, read_only=True) as con:
        rows = con.execute(
            "SELECT method, buckets, board, exploitability, vs_equilibrium FROM abstraction_summary "
            "WHERE game = ? AND list_contains(?, method) ORDER BY granularity, method",
            [game, list(methods)]).fetchall()
    cells: dict = {}
    for method, buckets, board, expl, vs_eq in rows:
        cells.setdefault((buckets, method), {})[board] = (expl, vs_eq)
    if not any(len(v) == 2 for v in cells.values()):
        return []

    def fmt(x):
        return "-" if x is None else f"{x:.4g}"

    out = ["## The two settings side by side", "",
           "Real-game exploitability and head-to-head against the equilibrium (chips/game) of "
           "each abstraction played with the board hidden behind the bucket "
           "(`experiment rhode-island-granularity`) and visible (this experiment).", "",
           "| buckets | method | exploitability, hidden | exploitability, public "
           "| vs equilibrium, hidden | vs equilibrium, public |", "|---|---|---|---|---|---|"]
    for (buckets, method), v in cells.items():
        h, p = v.get("hidden", (None, None)), v.get("public", (None, None))
        out.append(f"| {buckets} | {method} | {fmt(h[0])} | {fmt(p[0])} | {fmt(h[1])} "
                   f"| {fmt(p[1])} |")
    return out + [""]


def holdem_methods(options: ExperimentOptions, data_dir: Path) -> int:
    """Issue 20's Texas Hold'em comparison (``queries.holdem_methods``), run as
    ``options.pipeline`` says."""
    return run_pipeline(data_dir, options.pipeline)


def rhode_island_rules(options: ExperimentOptions, data_dir: Path) -> int:
    """The Rhode Island value question (``queries.rules_experiment``) on ``options.variants``."""
    return rules_experiment.run(options.solve, data_dir, options.variants, options.report,
                                options.command())


#: name -> the experiment: ``(ExperimentOptions, data_dir) -> exit status``
EXPERIMENTS = {"rhode-island-granularity": rhode_island_granularity,
               "rhode-island-granularity-public": rhode_island_granularity_public,
               "rhode-island-rules": rhode_island_rules,
               "holdem-methods": holdem_methods}
