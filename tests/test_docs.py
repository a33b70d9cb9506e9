"""The design reference is in the repository (issue 48): docs/design.md.

Every tracked file points to docs/design.md, never to the old upper-case design file that
lived outside the repository, and every "docs/design.md section N" (also "sections N-M",
"sections N and M", "s. N", "section N.M") names a section that docs/design.md has, as does
every "#section-..." link to it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DESIGN = "docs/design.md"
#: The old name, upper case; built so that this file does not contain it.
OLD_NAME = "DESIGN" + ".md"
STALE = re.compile(r"[\w./-]*" + re.escape(OLD_NAME))
#: "docs/design.md section 5", "sections 2-3", "sections 2 and 4", "s. 6", "section 4.4";
#: the number may follow on the next line (after a comment marker).
SEP = r"(?:\s|#)+"
REFERENCE = re.compile(
    re.escape(DESIGN) + SEP + r"(?:sections?|s\.)" + SEP
    + r"(\d+(?:\.\d+)?(?:\s*(?:-|,|and|to)\s*\d+(?:\.\d+)?)*)")
LINK = re.compile(re.escape(DESIGN) + r"#([\w-]+)")
HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", re.MULTILINE)
ANCHOR = re.compile(r'<a id="([\w-]+)"></a>')


def tracked_texts() -> dict[str, str]:
    """Path -> text of every tracked text file (binary files are skipped)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    texts = {}
    for name in out.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def stale_mentions(texts: dict[str, str]) -> list[str]:
    """``path:line: text`` for every mention of the old file name (outside docs/design.md)."""
    return [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for name, text in texts.items() if name != DESIGN
            for m in STALE.finditer(text)]


def sections(design: str) -> tuple[set[str], set[str]]:
    """(section numbers of the numbered headings, anchor ids) of the design text."""
    return set(HEADING.findall(design)), set(ANCHOR.findall(design))


def numbers(spec: str) -> list[str]:
    """Section numbers of a reference: "2-3" -> 2, 3; "2 and 4" -> 2, 4; "4.4" -> 4.4."""
    out = []
    for part in re.split(r"\s*(?:,|and)\s*", spec.strip()):
        m = re.fullmatch(r"(\d+)\s*(?:-|to)\s*(\d+)", part)
        if m:
            out += [str(n) for n in range(int(m.group(1)), int(m.group(2)) + 1)]
        else:
            out.append(part)
    return out


def bad_references(texts: dict[str, str], design: str) -> list[str]:
    """``path: reference`` for every section number or anchor docs/design.md lacks."""
    heads, anchors = sections(design)
    bad = []
    for name, text in texts.items():
        for m in REFERENCE.finditer(text):
            missing = [n for n in numbers(m.group(1)) if n not in heads]
            if missing:
                bad.append(f"{name}: {' '.join(m.group(0).split())} (no section "
                           f"{', '.join(missing)})")
        for m in LINK.finditer(text):
            if m.group(1) not in anchors:
                bad.append(f"{name}: {m.group(0)} (no anchor)")
        if name == DESIGN:
            for target in re.findall(r"\]\(#([\w-]+)\)", text):
                if target not in anchors:
                    bad.append(f"{name}: link #{target} (no anchor)")
    return bad


def test_design_reference_is_in_the_repository():
    texts = tracked_texts()
    assert DESIGN in texts, f"{DESIGN} is not tracked"
    heads, anchors = sections(texts[DESIGN])
    assert {"1", "2", "3", "4", "5", "6"} <= heads
    # every numbered heading has its stable anchor: section-N, section-N-M
    assert {"section-" + h.replace(".", "-") for h in heads} <= anchors


def test_no_file_points_to_the_old_design_file():
    bad = stale_mentions(tracked_texts())
    assert not bad, f"point these to {DESIGN}:\n" + "\n".join(bad)


def test_every_section_reference_exists():
    texts = tracked_texts()
    bad = bad_references(texts, texts[DESIGN])
    assert not bad, "\n".join(bad)


def test_references_are_found_in_every_form():
    """The checks are not vacuous: planted stale mentions and dangling references are caught,
    in each way the code writes them."""
    planted = {"a.py": f'"""See {OLD_NAME} section 2."""\n',
               "b.md": f"x\n[spec](docs/{OLD_NAME})\n",
               DESIGN: f"the old {OLD_NAME} is gone\n"}
    assert stale_mentions(planted) == [f"a.py:1: {OLD_NAME}", f"b.md:2: docs/{OLD_NAME}"]
    design = ('<a id="section-2"></a>\n## 2. Cards\n<a id="section-2-1"></a>\n### 2.1 Codes\n'
              '<a id="section-4"></a>\n## 4. Abstractions\n')
    ok = {"a.py": "docs/design.md section 2, docs/design.md s. 4, docs/design.md section 2.1,"
                  " docs/design.md sections 2 and 4, docs/design.md#section-2-1\n"
                  "    # (docs/design.md section\n    # 4)\n"}
    assert bad_references(ok, design) == []
    # (written with {DESIGN} so that the scan of this very file does not find them)
    bad = {"a.py": f"{DESIGN} sections 2-4; {DESIGN} s. 7\n",
           "b.md": f"{DESIGN} section\n  2.3 and {DESIGN}#section-9\n",
           DESIGN: "[see](#section-5)\n"}
    assert bad_references(bad, design) == [
        f"a.py: {DESIGN} sections 2-4 (no section 3)",
        f"a.py: {DESIGN} s. 7 (no section 7)",
        f"b.md: {DESIGN} section 2.3 (no section 2.3)",
        f"b.md: {DESIGN}#section-9 (no anchor)",
        f"{DESIGN}: link #section-5 (no anchor)"]


# BENCHMARKS.md opens with one table of the current figure of each headline measure (issue 48)

BENCHMARKS = "BENCHMARKS.md"
TABLE_HEAD = ["measure", "current figure", "date (UTC)", "machine", "command", "section"]
#: a few of the headline measures the table must have a row for (words of the measure column)
HEADLINE = ("main job", "handval", "equity_river", "equity_turn", "equity_flop", "equity_preflop",
            "hist_turn", "evaluator", "card index", "abstraction build, `pa`",
            "abstraction build, `eb`", "Rhode Island Hold'em, full game", "value of the game",
            "Leduc", "throughput", "LBR bound of the default", "`pa` against `eb`",
            "eight abstraction methods", "thresholding", "exact best response",
            "JSON API look-ups", "JSON API under", "streamed", "numba compile")


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the Markdown headings of ``text``: lower case, every character
    but letters, digits, ``_``, ``-`` and spaces dropped, spaces made ``-``; a repeated
    anchor gets ``-1``, ``-2``, ... Headings inside code blocks are not headings."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6} (.+?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def table_cells(line: str) -> list[str]:
    """The cells of a Markdown table row (``|`` inside backticks does not split)."""
    cells, cur, code = [], "", False
    for ch in line.strip().strip("|"):
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return cells + [cur.strip()]


def opening_table(text: str) -> list[list[str]]:
    """The rows (cells) of the table that must follow the title directly."""
    lines = text.splitlines()
    assert lines[0] == "# Benchmarks", "BENCHMARKS.md must start with its title"
    rest = list(lines[1:])
    while rest and not rest[0].strip():
        rest.pop(0)
    rows = []
    for x in rest:
        if not x.startswith("|"):
            break
        rows.append(table_cells(x))
    return rows


def opening_table_problems(text: str) -> list[str]:
    rows = opening_table(text)
    if len(rows) < 3:
        return ["no table right after the title"]
    head, rule, body = rows[0], rows[1], rows[2:]
    bad = [] if head == TABLE_HEAD else [f"header {head} is not {TABLE_HEAD}"]
    if not all(re.fullmatch(r":?-+:?", c) for c in rule):
        bad.append("the second line is not the table's rule")
    anchors = heading_anchors(text)
    for cells in body:
        if len(cells) != len(TABLE_HEAD):
            bad.append(f"row {cells[:1]} has {len(cells)} cells")
            continue
        measure, figure, date, machine, command, section = cells
        if not figure or not machine:
            bad.append(f"{measure}: no figure or machine")
        if not re.search(r"\b2\d{3}-\d\d-\d\d\b", date):
            bad.append(f"{measure}: no date")
        if "`" not in command and "as the row above" not in command:
            bad.append(f"{measure}: no command")
        links = re.findall(r"\]\(#([\w-]+)\)", section)
        if not links:
            bad.append(f"{measure}: no link to a section")
        bad += [f"{measure}: #{a} is no section" for a in links if a not in anchors]
    for words in HEADLINE:
        if not any(words in cells[0] for cells in body):
            bad.append(f"no row for {words!r}")
    return bad


def test_benchmarks_open_with_the_table_of_current_figures():
    text = (ROOT / BENCHMARKS).read_text(encoding="utf-8")
    bad = opening_table_problems(text)
    assert not bad, "\n".join(bad)


def test_the_opening_table_check_is_not_vacuous():
    row = ("| m | 1 s | 2026-11-24 | 2-core | `python cli.py etl` | [s](#a-section) |\n")
    good = ("# Benchmarks\n\n| " + " | ".join(TABLE_HEAD) + " |\n|---|---|---|---|---|---|\n"
            + row + "\n## A section\n\nfigures\n")
    assert opening_table_problems(good) == [f"no row for {w!r}" for w in HEADLINE]
    assert heading_anchors("## Hold'em: `pa` vs eb, 20/800 (issue 6)\n## x\n## x\n") == {
        "holdem-pa-vs-eb-20800-issue-6", "x", "x-1"}
    assert opening_table_problems("# Benchmarks\n\nprose first\n\n" + good[14:])[0] == \
        "no table right after the title"
    dangling = good.replace("(#a-section)", "(#no-such-section)")
    assert "m: #no-such-section is no section" in opening_table_problems(dangling)
    undated = good.replace("2026-11-24", "recently")
    assert "m: no date" in opening_table_problems(undated)
