"""``cli.py experiment rhode-island-rules``: the Rhode Island value question (issue 14).

    python cli.py experiment rhode-island-rules --target 0.1 --report docs/rhode-island-rules

For every rule variant of :data:`solve.games.rules.RHODE_ISLAND_VARIANTS`: the size of the
sequence-form LP of its GameShrink abstraction (against the published 1,237,238 rows and
50,428,638 nonzeros), and its value bracketed by exact best responses, solved (DCFR on the
type form) to ``--target`` chips of exploitability in two settings -- ``real``: the
unabstracted game (lossless classes refined by the public board) and ``hidden``: the
published LP's game (the same classes, board hidden) -- against the published -64.1987.
Each solve checkpoints after every ``--check-every`` iterations and records its result in
``DATA_DIR/experiments/rhode-island-rules/``; a re-run resumes unfinished solves and reuses
finished ones. Writes ``README.md`` and ``value_brackets.png`` to the report directory.
"""

from __future__ import annotations

import datetime as dt
import json
import platform
from pathlib import Path

from queries.support import Options
from schema.errors import ParameterError
from schema.progress import progress_bar
from schema.storage import AtomicFile
from solve.games.rules import rhode_island
from solve.games.rhode_island_rules import (PUBLISHED, SETTINGS, Bracket, lossless_classes, lp_size,
                                      solve_to, unabstracted_lp_rows, variant_game, variants)

NAME = "rhode-island-rules"
PLOT_RANGE = 10.0  # chips: variants whose value is farther from the published one are not drawn


def _write_json(path: Path, obj: dict) -> None:
    with AtomicFile(path, checksum=False) as f:
        f.tmp.write_text(json.dumps(obj, indent=1) + "\n")


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def run(options: Options, data_dir: Path, variants_run: tuple[str, ...] | None = None,
        report: Path | None = None, command_line: str | None = None) -> int:
    """Run (or resume) the experiment on the rule variants ``variants_run`` (None: every
    one), solved as ``options`` say (target, algorithm, check_every, iterations, report_only,
    progress); print its table; write the report to ``report`` (default
    ``DATA_DIR/reports/rhode-island-rules``), naming ``command_line`` as what made it."""
    names = list(variants())
    if variants_run:
        names = list(variants_run)
        bad = [v for v in names if v not in variants()]
        if bad:
            raise ParameterError(f"`variants`: unknown variant {bad[0]!r}; choose from "
                                 f"{', '.join(variants())}")
    report = Path(report) if report else data_dir / "reports" / NAME
    work = data_dir / "experiments" / NAME
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for v in variants():
        if v not in names:  # not run now: reported as stored (if it ever was)
            size = _read_json(work / f"{v}-lp.json")
            if size is not None:
                rows.append({"variant": v, "description": variants()[v], "lp": size,
                             "scale": scale(v), **{st: _read_json(work / f"{v}-{st}.json")
                                                   for st in SETTINGS}})
            continue
        size_file = work / f"{v}-lp.json"
        size = _read_json(size_file)
        classes = None
        if size is None:
            classes = lossless_classes(v)
            vg = variant_game(v, "hidden", classes, options.algorithm)
            lp = lp_size(vg.form)
            size = dict(vars(lp), unabstracted_rows=unabstracted_lp_rows(vg.form))
            _write_json(size_file, size)
        row = {"variant": v, "description": variants()[v], "lp": size, "scale": scale(v)}
        for setting in SETTINGS:
            row[setting] = _solve(options, work, v, setting, classes,
                                  options.target * scale(v))
        rows.append(row)
        _print_row(row)
    path = write_report(report, rows, options.target, command_line)
    print(f"report: {path}")
    return 0


def scale(variant: str) -> float:
    """Chips of the variant per chip of the published game (its ante over 500): ``target``
    is in published chips, so a scaled variant is solved exactly as tightly."""
    return rhode_island(variant).contributions[0] / rhode_island().contributions[0]


def _solve(options: Options, work: Path, variant: str, setting: str, classes,
           target: float) -> dict | None:
    result_file = work / f"{variant}-{setting}.json"
    got = _read_json(result_file)
    if got is not None and (got["exploitability"] < target or options.report_only):
        return got
    if options.report_only:
        return got
    if classes is None:
        classes = lossless_classes(variant)
    vg = variant_game(variant, setting, classes, options.algorithm)
    cpu_before = got["cpu_seconds"] if got else 0.0
    checkpoint = work / f"{variant}-{setting}.npz"
    if got is not None and not checkpoint.exists():
        cpu_before = 0.0  # checkpoint lost: the solve restarts, so does its CPU time
    bar = progress_bar(desc=f"{variant} {setting}", unit="it", disable=not options.progress)

    def step(b: Bracket) -> None:
        bar.update(b.iterations - bar.n)
        bar.set_postfix(exploitability=f"{b.exploitability:.4g}", value=f"{b.value:.4f}")
        _write_json(result_file, dict(vars(b), algorithm=options.algorithm, target=target,
                                      updated=dt.datetime.now(dt.timezone.utc).isoformat()))

    try:
        b = solve_to(vg, target, every=options.check_every, checkpoint=checkpoint,
                     cpu_before=cpu_before, on_step=step, max_iterations=options.iterations)
    finally:
        bar.close()
    return _read_json(result_file) or dict(vars(b), algorithm=options.algorithm, target=target)


def _print_row(row: dict) -> None:
    lp = row["lp"]
    parts = [f"{row['variant']:<18} LP {lp['rows']:>10,} rows {lp['nonzeros']:>11,} nnz"]
    for s in SETTINGS:
        r = row[s]
        if r:
            parts.append(f"{s} [{r['lower']:.3f}, {r['upper']:.3f}]")
    print("  ".join(parts))


def _bracket_cell(r: dict | None) -> str:
    if not r:
        return "not solved"
    return f"[{r['lower']:.3f}, {r['upper']:.3f}]"


def _contains(r: dict | None, value: float) -> str:
    if not r:
        return "-"
    return "yes" if r["lower"] <= value <= r["upper"] else "no"


def write_report(folder: Path, rows: list[dict], target: float,
                 command: str | None = None) -> Path:
    """``README.md`` and ``value_brackets.png`` in ``folder`` (written atomically): the
    ``rows`` solved to ``target`` chips by ``command`` (default ``python cli.py experiment
    rhode-island-rules``)."""
    folder.mkdir(parents=True, exist_ok=True)
    pub = PUBLISHED
    command = command or f"python cli.py experiment {NAME}"
    lines = [
        "# Rhode Island Hold'em: which rules give the published value?",
        "",
        f"Generated {dt.date.today().isoformat()} on {platform.machine()} "
        f"({platform.system()}) by `{command}`.",
        "",
        f"Published (Gilpin & Sandholm 2005/2007): value **{pub['value']}** chips for player 1, "
        f"LP of the GameShrink abstraction {pub['lp_rows']:,} rows, {pub['lp_nonzeros']:,} "
        f"nonzeros; LP of the unabstracted game {pub['lp_rows_unabstracted']:,} rows.",
        "",
        "Each variant changes one detail of the default rules (`published`). *LP* is the "
        "sequence-form LP of the variant's GameShrink (ordered-game) classes with the board "
        "hidden, as the published LP is built; *real* is the unabstracted game (the classes "
        "refined by the public board, a lossless abstraction), *hidden* the published LP's game. "
        "Value brackets are [min over player 2's best responses to x, max over player 1's best "
        "responses to y] of a DCFR profile, so the true value lies inside; each solve is run "
        f"until the bracket is narrower than 2 x {target:g} chips (of the published "
        f"amounts: a variant with other amounts is solved as tightly, and held against "
        f"-64.1987 in its own chips).",
        "",
        "| variant | classes | LP rows | LP nonzeros | LP = published | unabstracted LP rows "
        "| real game value bracket | hidden game value bracket | holds -64.1987 (real / hidden) "
        "| CPU s (real / hidden) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lp, real, hid = row["lp"], row["real"], row["hidden"]
        same = lp["rows"] == pub["lp_rows"] and lp["nonzeros"] == pub["lp_nonzeros"]
        cpu = " / ".join(f"{r['cpu_seconds']:.0f}" if r else "-" for r in (real, hid))
        lines.append(
            f"| `{row['variant']}` | {'/'.join(str(c) for c in lp['classes'])} | {lp['rows']:,} "
            f"| {lp['nonzeros']:,} | {'**yes**' if same else 'no'} | {lp['unabstracted_rows']:,} "
            f"| {_bracket_cell(real)} | {_bracket_cell(hid)} "
            f"| {_contains(real, pub['value'] * row['scale'])} / "
            f"{_contains(hid, pub['value'] * row['scale'])} | {cpu} |")
    lines += ["", "Variants:", ""]
    lines += [f"- `{row['variant']}`: {row['description']}" for row in rows]
    far = [row["variant"] for row in rows if not any(
        row[s] and abs(row[s]["value"] - pub["value"]) < PLOT_RANGE for s in SETTINGS)]
    lines += ["", "![value brackets](value_brackets.png)", ""]
    if far:
        lines += [f"Not drawn (value more than {PLOT_RANGE:g} chips from the published one): "
                  + ", ".join(f"`{v}`" for v in far) + ".", ""]
    path = folder / "README.md"
    with AtomicFile(path, checksum=False) as f:
        f.tmp.write_text("\n".join(lines))
    _plot(folder / "value_brackets.png", rows)
    return path


def _plot(path: Path, rows: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def near(row: dict) -> bool:  # other units, or tens of chips away: not on this axis
        return any(row[s] and abs(row[s]["value"] - PUBLISHED["value"]) < PLOT_RANGE
                   for s in SETTINGS)

    scaled = [r for r in rows if near(r)]
    if not scaled:
        return
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(scaled) + 1.5))
    for i, row in enumerate(scaled):
        for k, (setting, colour) in enumerate((("real", "tab:blue"), ("hidden", "tab:orange"))):
            r = row[setting]
            if not r:
                continue
            y = i + (k - 0.5) * 0.25
            ax.plot([r["lower"], r["upper"]], [y, y], color=colour, lw=4,
                    label=setting if i == 0 else None)
    ax.axvline(PUBLISHED["value"], color="k", ls="--", label="published -64.1987")
    ax.set_yticks(range(len(scaled)))
    ax.set_yticklabels([r["variant"] for r in scaled])
    ax.set_xlabel("value of the game for player 1 (chips/game): bracket [min_v x'Av, max_u u'Ay]")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    with AtomicFile(path, checksum=False) as f:
        fig.savefig(f.tmp, format="png", dpi=110)
    plt.close(fig)
