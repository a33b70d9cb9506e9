"""Refresh ``tests/durations.json`` (seconds per test file) from a pytest log.

The file orders the files for ``pytest -n N --dist loadfile`` (``conftest.py``): the longest
first, so that no worker starts a long file while the others run out of work. Only the order
matters; the figures are whatever machine made the log. Usage, from the project root::

    python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=0 > log.txt
    python tests/update_durations.py log.txt
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

LINE = re.compile(r"^([\d.]+)s (?:call|setup|teardown)\s+(tests/[^:\s]+)")


def main(log: str) -> None:
    seconds = collections.Counter()
    for line in Path(log).read_text().splitlines():
        m = LINE.match(line)
        if m:
            seconds[m.group(2)] += float(m.group(1))
    if not seconds:
        sys.exit(f"error: no durations in {log} (run pytest with --durations=0)")
    out = Path(__file__).with_name("durations.json")
    out.write_text(json.dumps({f: round(s, 1) for f, s in seconds.most_common()}, indent=1) + "\n")
    print(f"{len(seconds)} files, {sum(seconds.values()):.0f} s -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
