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
