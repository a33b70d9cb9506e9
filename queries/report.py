"""The comparison report: ``DIR/README.md`` with the four measure tables, a per-granularity
table of which method wins on each measure, and one PNG per measure against granularity
(one line per abstraction method), drawn with matplotlib from the SQL views.

An abstraction built with imperfect recall is shown as method ``METHOD-ir`` (its own line and
rival of the others at its buckets); each abstraction's size is its number of information
sets (``infosets``: of its abstract game, counted exactly from its strategy table,
:func:`count_infosets`); the strategy a strategy-based (GS4) build clustered by is named."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import duckdb
import numpy as np

from queries.tables import TITLES, fmt
from queries.views import connect
from schema.paths import resolve_stored
from schema.strategy import strategy_path

#: measure -> (column of abstraction_summary, label, better: "low" | "high" | "abs-low")
PLOTS = {
    "exploitability": ("exploitability", "exploitability in the real game (chips/game)", "low"),
    "head_to_head": ("h2h_same_granularity",
                     "head-to-head vs the other methods at the same granularity (chips/game)", "high"),
    "vs_equilibrium": ("vs_equilibrium", "head-to-head vs the real game's equilibrium (chips/game)",
                       "high"),
    "value_error": ("value_error", "|value estimate - game value| (chips/game)", "abs-low"),
}


def summary_rows(data_dir: Path, game: str, strategies: list[str]) -> list[dict]:
    """``abstraction_summary`` rows of ``strategies`` with their solve run, ``method`` suffixed
    ``-ir`` for an imperfect-recall build, ``infosets`` (:func:`count_infosets`) and
    ``from_strategy`` (a GS4 build's source strategy, else None)."""
    with connect(data_dir, read_only=True) as con:
        rel = con.execute("SELECT s.*, r.iterations, r.algorithm, r.wall_seconds AS solve_seconds, "
                          "r.path AS strategy_path, a.params "
                          "FROM abstraction_summary s "
                          "JOIN solve_runs r ON r.name = s.strategy "
                          "JOIN abstractions a ON a.name = s.abstraction "
                          "WHERE s.game = ? AND list_contains(?, s.strategy) "
                          "ORDER BY granularity, method", [game, strategies])
        cols = [d[0] for d in rel.description]
        rows = [dict(zip(cols, r)) for r in rel.fetchall()]
        sizes: dict[str, int] = {}  # per abstraction: every strategy of it has the same
        for r in rows:
            params = json.loads(r.pop("params") or "{}")
            if params.get("recall") == "imperfect":
                r["method"] += "-ir"
            r["from_strategy"] = params.get("from_strategy")
            path = resolve_stored(data_dir, r.pop("strategy_path"),
                                  strategy_path(data_dir, r["strategy"]))
            if r["abstraction"] not in sizes:
                sizes[r["abstraction"]] = count_infosets(con, path)
            r["infosets"] = sizes[r["abstraction"]]
    rows.sort(key=lambda r: (r["granularity"] is None, r["granularity"] or 0, r["method"]))
    return rows


def count_infosets(con, path: Path) -> int | None:
    """Information sets of a strategy's game, exactly, from its table (one row per information
    set and action, every information set of the compiled game written): in limit poker every
    decision has exactly one passive action (check, or call facing a bet), so the rows of
    check and call are the information sets. A scan of the action column (dictionary-encoded),
    where compiling the abstract game takes seconds; None if the table is missing."""
    if not Path(path).exists():
        return None
    return int(con.execute("SELECT count(*) FROM read_parquet(?) "
                           "WHERE action IN ('check', 'call')", [str(path)]).fetchone()[0])


def winners(rows: list[dict]) -> list[dict]:
    """Per granularity (requested buckets and board visibility), the best method on each
    measure; granularities with a single method (e.g. the lossless abstraction: its buckets
    with the public board visible) have no contest and no row."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["buckets"], r.get("board", "hidden")), []).append(r)
    out = []
    for (buckets, board), group in groups.items():
        if len({r["method"] for r in group}) < 2:
            continue
        line = {"buckets": buckets + (" (board public)" if board == "public" else ""),
                "infosets": _size_range([r.get("infosets") for r in group])}
        for key, (col, _, better) in PLOTS.items():
            vals = [(r[col], r["method"]) for r in group if r[col] is not None]
            if len(vals) < 2:
                line[key] = "-"
                continue
            if better == "low":
                v, m = min(vals)
            elif better == "high":
                v, m = max(vals)
            else:
                v, m = min((abs(x), m) for x, m in vals)
            line[key] = f"{m} ({v:.4g})"
        out.append(line)
    return out


def _size_range(sizes: list) -> str:
    """The information-set counts of a granularity's abstractions: one number if all equal,
    else min-max."""
    known = [s for s in sizes if s is not None]
    if not known:
        return "-"
    lo, hi = min(known), max(known)
    return f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"


def plot(rows: list[dict], key: str, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    col, label, better = PLOTS[key]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for method in sorted({r["method"] for r in rows}):
        pts = sorted((r["granularity"], r[col]) for r in rows
                     if r["method"] == method and r[col] is not None)
        if not pts:
            continue
        x, y = np.array(pts, dtype=float).T
        ax.plot(x, np.abs(y) if better == "abs-low" else y, marker="o", label=method)
    ax.set_xscale("log")
    # label the granularities themselves, not the log axis' crowded minor ticks
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    xs = sorted({r["granularity"] for r in rows if r[col] is not None})
    if xs:
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.tick_params(axis="x", labelsize=7, labelrotation=45)
    ys = [abs(r[col]) for r in rows if r[col] is not None]
    if better in ("low", "abs-low") and ys and min(ys) > 0:
        ax.set_yscale("log")
    ax.set_xlabel("last-round buckets (granularity)")
    ax.set_ylabel(label, fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _sources(data_dir: Path, rows: list[dict], game: str) -> list[str]:
    """Markdown: the strategy each strategy-based (GS4) abstraction clustered hands by, with
    that strategy's abstraction, algorithm, iterations and exploitability as stored now."""
    used: dict[str, list[str]] = {}
    for r in rows:
        if r.get("from_strategy"):
            used.setdefault(r["from_strategy"], []).append(r["abstraction"])
    if not used:
        return []
    with connect(data_dir, read_only=True) as con:
        runs = {n: (a, alg, it, ax, x) for n, a, alg, it, ax, x in con.execute(
            "SELECT name, abstraction, algorithm, iterations, abstract_exploitability, "
            "exploitability FROM solve_runs WHERE list_contains(?, name)",
            [list(used)]).fetchall()}
    out = []
    for source, abstractions in used.items():
        shown = ", ".join(f"`{_short(a, game)}`" for a in dict.fromkeys(abstractions))
        if source in runs:
            a, alg, it, ax, x = runs[source]
            own = ax if ax is not None else x
            about = (f" (abstraction `{a or '-'}` solved by {alg}, {it} iterations, "
                     f"exploitability {fmt(own)} in its own game)")
        else:
            about = " (no longer stored)"
        out.append(f"Strategy-based (GS4) abstractions {shown} clustered the hands by their "
                   f"play in strategy `{source}`{about}.")
    return out + [""]


def _short(name: str, game: str) -> str:
    while game and name.startswith(game + "-"):
        name = name[len(game) + 1:]
    return name


def _md_table(cols, rows, game: str = "") -> str:
    def cell(v):
        if isinstance(v, str) and game:  # strategy names: drop the repeated game prefix
            while v.startswith(game + "-"):
                v = v[len(game) + 1:]
        return fmt(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def write_report(folder: Path, data_dir: Path, game: str, result: dict, title: str | None = None,
                 sections: list[str] = ()) -> Path:
    """Write ``folder/README.md`` and the PNG plots; returns the Markdown path. ``sections``:
    extra Markdown lines placed after the per-strategy table."""
    folder.mkdir(parents=True, exist_ok=True)
    options = result["options"]
    rows = summary_rows(data_dir, game, result["strategies"])
    eq = result["equilibrium"]
    eq_row = next((r for r in result["tables"]["exploitability"][1] if r[0] == eq), None)
    gv = next((r[3] for r in result["tables"]["value_error"][1] if r[0] == eq), None)
    md = [f"# {title or 'Comparison: ' + game}", "",
          f"Generated {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC by `cli.py compare` "
          f"(queries/compare.py). All values are in chips per game, computed exactly (no "
          f"sampling) in the real, unabstracted game.", "",
          f"Equilibrium of the real game used as the reference: `{eq}`"
          + (f", itself exploitable by {eq_row[-1]:.4g} chips per game" if eq_row else "")
          + (f"; its value for player 1, the game value used below: {gv:.4g}" if gv is not None
             else "") + ". Measures against it (per-seat exploitability, head-to-head against "
          "the equilibrium, value error) carry an error of that order.", ""]
    if "wall_seconds" in result:
        md += [f"Wall time of this run: {result['wall_seconds']:.0f} s.", ""]
    above = [r for r in rows if r["abstract_exploitability"] is not None
             and r["abstract_exploitability"] >= options.target]
    if rows:
        md += ["## Winners per granularity", "",
               "Best method at each granularity on each measure: lowest real-game exploitability; "
               "highest mean head-to-head against the other methods at the same granularity; "
               "highest head-to-head against the equilibrium; smallest |value error|.", ""]
        w = winners(rows)
        md += [_md_table(["buckets", "infosets"] + list(PLOTS),
                         [[x["buckets"], x["infosets"]] + [x[k] for k in PLOTS] for x in w]),
               ""]
        md += ["## Plots", ""]
        for key in PLOTS:
            name = f"{key}.png"
            plot(rows, key, folder / name, PLOTS[key][1])
            md += [f"![{key}]({name})", ""]
        md += ["## Abstractions and their strategies", "",
               f"Target: exploitability under {options.target:g} chips per game in the strategy's "
               f"own abstract game. Each strategy's algorithm, iterations and reached abstract "
               f"exploitability are in the table; `exploitability` is in the real game.", ""]
        if above:
            md += [f"**{len(above)} of {len(rows)} strategies did not reach the target** (their "
                   f"abstract exploitability is in the table); their measures carry that much "
                   f"extra error.", ""]
        cols = ["abstraction", "method", "built", "infosets", "board", "ip_objective",
                "build_seconds", "algorithm", "iterations", "solve_seconds",
                "abstract_exploitability", "exploitability", "vs_equilibrium", "value_error",
                "h2h_same_granularity"]
        md += [_md_table(cols, [[r[c] for c in cols] for r in rows], game), ""]
        md += ["`infosets`: information sets of the abstraction's abstract game (both players, "
               "every round; counted from its strategy table), the size at which abstractions "
               "compare fairly: at the same built bucket counts perfect recall (`METHOD`) and "
               "imperfect recall (`METHOD-ir`, every round clustered on its own, earlier "
               "buckets forgotten) have as many; an imperfect-recall round may build fewer "
               "buckets than asked (`built`).", ""]
        md += _sources(data_dir, rows, game)
    md += list(sections)
    md += [f"Below, strategy and abstraction names are shown without their `{game}-` prefixes "
           f"(strategy `{game}-{game}-eb-13-25-125-dcfr` is abstraction `{game}-eb-13-25-125` "
           f"solved by dcfr).", ""]
    for key, (cols, trows) in result["tables"].items():
        md += [f"## {TITLES[key]}", "", _md_table(cols, trows, game), ""]
    md += ["## Reproduce", "", "```sh",
           result.get("command") or
           ("python cli.py compare --game " + game + " " + " ".join(result["strategies"][:3])
            + (" ..." if len(result["strategies"]) > 3 else "") + " --report DIR"),
           "python cli.py sql \"SELECT * FROM abstraction_summary ORDER BY granularity, method\"",
           "```", ""]
    path = folder / "README.md"
    path.write_text("\n".join(md))
    return path


#: the three settings of ``experiment rhode-island-granularity --reference all``, named plainly
SETTINGS = {"hidden-real": "hidden board vs real game",
            "hidden-lossless": "hidden board vs lossless game (the thesis's)",
            "visible-real": "board visible vs real game"}
#: measure -> (column of abstraction_settings, heading)
SETTING_MEASURES = {
    "vs_nemesis": ("vs_nemesis", "Against the nemesis (minus the exploitability; the nemesis "
                                 "best-responds in the setting's game)"),
    "vs_equilibrium": ("vs_equilibrium", "Head-to-head against the setting's equilibrium"),
    "value_error": ("value_error", "Value error (the profile's value minus the value of the "
                                   "setting's equilibrium)"),
    "head_to_head": ("h2h_same_granularity", "Head-to-head, mean against the other methods of "
                                             "the same buckets and board"),
}


def setting_rows(data_dir: Path, game: str, methods, granularities) -> dict:
    """``abstraction_settings`` rows of ``methods`` (``--methods`` tokens) at
    ``granularities`` (requested buckets): {(setting, buckets, method): row}, the strategy
    least exploitable in its own game where an abstraction has several."""
    with connect(data_dir, read_only=True) as con:
        try:
            rel = con.execute("SELECT * FROM abstraction_settings WHERE game = ? "
                              "AND list_contains(?, method) AND list_contains(?, buckets) "
                              "ORDER BY abstract_exploitability NULLS LAST, strategy",
                              [game, list(methods), list(granularities)])
        except duckdb.CatalogException:  # nothing evaluated yet: no view
            return {}
        cols = [d[0] for d in rel.description]
        out: dict = {}
        for r in rel.fetchall():
            row = dict(zip(cols, r))
            out.setdefault((row["setting"], row["buckets"], row["method"]), row)
    return out


def settings_sections(data_dir: Path, game: str, methods, granularities,
                      reference: str) -> list[str]:
    """Markdown: the thesis's setting (every strategy's four measures against the hidden-board
    lossless game, equilibrium ``reference``) and the three settings side by side for every
    method and granularity (``-`` where one is not stored)."""
    cells = setting_rows(data_dir, game, methods, granularities)
    with connect(data_dir, read_only=True) as con:
        ref = con.execute("SELECT exploitability, game_value FROM lossless_measures "
                          "WHERE strategy = ?", [reference]).fetchone()
        ref_run = con.execute("SELECT algorithm, iterations, abstract_exploitability "
                              "FROM solve_runs WHERE name = ?", [reference]).fetchone()
    thesis = [r for (s, _, _), r in cells.items() if s == "hidden-lossless"]
    inside = sum(1 for r in thesis if r["in_lossless_game"])
    md = ["## The thesis's setting: hidden board against the hidden-board lossless game", "",
          "Gilpin's thesis evaluates an abstraction \"in the full game\" by taking GameShrink's "
          "lossless abstraction as the full game, and plays every abstraction with the public "
          "cards inside the bucket. Here the reference game is GameShrink's 13/205/1,774 "
          "classes played with the public cards hidden inside the class (an information set is "
          "the betting history and the classes so far); its equilibrium (x\\*, y\\*) is the "
          "reference strategy and its best responses are the nemesis. Chips per game at "
          "ante 500, bets 1,000 / 2,000; every value exact (all deals, no sampling).", ""]
    if ref is not None and ref_run is not None:
        md += [f"Reference: `{_short(reference, game)}`, solved by {ref_run[0]} "
               f"({ref_run[1]} iterations), exploitable by {fmt(ref[0])} chips per game in the "
               f"lossless game (the error of the measures that use it); the lossless game's "
               f"value for player 1, from it: {fmt(ref[1])}.", ""]
    md += ["How a method's strategy is played in the lossless game: where each of the lossless "
           "game's information sets lies inside one of the method's (the method's buckets are "
           "unions of lossless classes), the method's strategy is a strategy of the lossless "
           "game and the measures are exactly the thesis's. Where a lossless class holds "
           "situations the method buckets apart, the strategy is not one of the lossless game; "
           "it is played in the real game, which has the same tree, deals and payoffs, and the "
           "lossless game supplies the reference equilibrium and the nemesis's information "
           "(`queries/lossless_reference.py`). Column `in lossless game`: which case; "
           f"{inside} of {len(thesis)} strategies below are strategies of the lossless game.",
           ""]
    cols = ["buckets", "method", "in lossless game", "vs nemesis", "vs equilibrium", "value",
            "value error", "head-to-head"]
    rows = [[r["buckets"], r["method"], "yes" if r["in_lossless_game"] else "no",
             r["vs_nemesis"], r["vs_equilibrium"], r["value"], r["value_error"],
             r["h2h_same_granularity"]]
            for r in sorted(thesis, key=lambda r: (r["granularity"], r["method"]))]
    md += [_md_table(cols, rows), ""]
    md += ["## The three settings side by side", "",
           "Every method and granularity in each setting: "
           + "; ".join(f"**{SETTINGS[s]}**" for s in SETTINGS) + ". The board-visible builds "
           "are `experiment rhode-island-granularity-public`'s (measured against the lossless "
           "game with the board visible, which is the real game); `-` where a setting was not "
           "run or a build has no board-visible form (the imperfect-recall ones).", ""]
    keys = sorted({(b, m) for (_, b, m) in cells},
                  key=lambda k: (int(k[0].split(",")[-1]), k[1]))
    for key, (col, heading) in SETTING_MEASURES.items():
        md += [f"### {heading}", "",
               _md_table(["buckets", "method"] + [SETTINGS[s] for s in SETTINGS],
                         [[b, m] + [cells.get((s, b, m), {}).get(col) for s in SETTINGS]
                          for b, m in keys]), ""]
    return md
