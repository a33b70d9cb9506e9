"""Mixed concurrent load on ``cli.py serve`` (issue 50): look-ups, catalog lists and SQL at once.

    python -m bench.bench_api_load --data-dir DIR --strategy NAME [--requests 400]
        [--workers 2] [--slow 4] [--seconds 180] [--warm 16]

Starts ``cli.py serve --workers N`` on loopback (127.0.0.1, a free port) in a child process,
waits for it, then sends ``--requests`` requests all at once (one HTTP connection each, from
one client address): look-ups of ``--strategy`` (60%), ``/strategies`` and ``/abstractions``
(20%), ``/sql`` with a quick query (15%) and ``--slow`` queries that run to the server's SQL
time limit. Bounded: the whole batch is given ``--seconds``. Prints the count per status, the
5xx, the wrong answers (a look-up unlike the library's answer in process, a catalog list
unlike the first one, a quick query not answering 42), the 400s, the 429s (more SQL queries
at once from one client than the server allows: expected here, all the load comes from one
address) and the p50/p99 latency of the look-ups. Spots for Kuhn, Leduc and Texas Hold'em
strategies; a full-size Hold'em strategy is opened by each server worker and by the bench
itself (its reference answers): several GB each.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import numpy as np

from solve.lookup import open_lookup
from tests.serving import wait_until_serving

ROOT = Path(__file__).resolve().parent.parent

#: Look-up parameters per game (small games: a few fixed spots).
SPOTS = {
    "kuhn": [{"hole": h, "history": x} for h in "JQK" for x in ("", "c", "r", "cr")],
    "leduc": [{"hole": "Qb", "board": "Ka", "history": "rc/r"},
              {"hole": "Ka", "history": ""}, {"hole": "Jb", "history": "r"}],
    "holdem": [{"hole": "AsKd", "history": ""}, {"hole": "7h2c", "history": "r"},
               {"hole": "AsKd", "board": "7c8h9s", "history": "rc/cr"},
               {"hole": "AcAd", "board": "2c2d2h", "history": "rc/r"},
               {"hole": "QsJs", "board": "Ts9s2d4h", "history": "rc/cc/r"},
               {"hole": "9c9d", "board": "Ah7d3c8s2h", "history": "rc/cc/cc/cr"}],
}
SLOW_SQL = "SELECT sum(hash(range)) FROM range(100000000000) AS a"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spots_for(data_dir: Path, strategy: str) -> tuple[list[dict], list[dict]]:
    """Look-up parameters and the library's answers to them (the reference)."""
    look = open_lookup(data_dir, strategy)
    for spots in SPOTS.values():
        try:
            answers = [look.at(s["hole"], s.get("board", ""), s.get("history", "")).as_dict()
                       for s in spots]
            return spots, answers
        except Exception:  # noqa: BLE001 (not this game's cards)
            continue
    raise SystemExit(f"error: no look-up spots known for strategy {strategy!r} "
                     f"(games: {', '.join(SPOTS)})")


async def one(client: httpx.AsyncClient, kind: str, path: str, params: dict, expect):
    t0 = time.perf_counter()
    try:
        r = await client.get(path, params=params)
    except httpx.HTTPError as exc:
        return kind, None, time.perf_counter() - t0, f"transport: {type(exc).__name__}", None, path
    dt = time.perf_counter() - t0
    wrong = None
    if r.status_code == 200 and expect is not None:
        body = r.json()
        if kind == "sql":
            if body.get("rows") != [{"x": 42}]:
                wrong = f"sql: {str(body)[:80]}"
        elif kind == "lookup":
            if body != expect:
                wrong = f"lookup: {str(body)[:80]}"
    return kind, r.status_code, dt, wrong, (r.json() if r.status_code == 200 and
                                            kind == "catalog" else None), path


async def load(base: str, strategy: str, spots, answers, n: int, slow: int, seconds: float,
               seed: int):
    rng = random.Random(seed)
    jobs = []
    for i in range(n):
        u = rng.random()
        if i < slow:
            jobs.append(("slow", "/sql", {"q": SLOW_SQL}, None))
        elif u < 0.6:
            k = rng.randrange(len(spots))
            jobs.append(("lookup", f"/strategies/{strategy}/lookup", spots[k], answers[k]))
        elif u < 0.8:
            jobs.append(("catalog", rng.choice(["/strategies", "/abstractions"]), {}, None))
        else:
            jobs.append(("sql", "/sql", {"q": "SELECT 42 AS x"}, True))
    jobs = jobs[:slow] + rng.sample(jobs[slow:], len(jobs) - slow)  # the slow ones first
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(base_url=base, timeout=seconds, limits=limits) as client:
        tasks = [one(client, kind, path, params, expect) for kind, path, params, expect in jobs]
        return await asyncio.wait_for(asyncio.gather(*tasks), timeout=seconds)


async def warm(base: str, strategy: str, spot: dict, n: int, seconds: float) -> None:
    """``n`` look-ups at once, not counted: every worker opens the strategy first (minutes at
    full size), so the batch measures a warm server."""
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base, timeout=seconds, limits=limits) as client:
        await asyncio.gather(*[client.get(f"/strategies/{strategy}/lookup", params=spot)
                               for _ in range(n)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--strategy", required=True)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--slow", type=int, default=4, help="SQL queries that run to the time limit")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=180.0, help="bound on the whole batch")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warm", type=int, default=0,
                    help="look-ups at once before the batch, not counted (0: a cold server)")
    args = ap.parse_args()
    data_dir = args.data_dir.absolute()
    spots, answers = spots_for(data_dir, args.strategy)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--data-dir", str(data_dir),
                             "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--workers", str(args.workers)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until_serving(base, proc)
        if args.warm:
            tw = time.perf_counter()
            asyncio.run(warm(base, args.strategy, spots[0], args.warm, args.seconds))
            print(f"warm-up: {args.warm} look-ups at once in {time.perf_counter() - tw:.1f} s")
        t0 = time.perf_counter()
        results = asyncio.run(load(base, args.strategy, spots, answers, args.requests, args.slow,
                                   args.seconds, args.seed))
        wall = time.perf_counter() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    statuses = Counter(r[1] for r in results)
    wrong = [r[3] for r in results if r[3]]
    first_catalog: dict[str, object] = {}
    for r in results:
        if r[0] == "catalog" and r[4] is not None:
            if first_catalog.setdefault(r[5], r[4]) != r[4]:
                wrong.append(f"catalog {r[5]} differs")
    lookups = np.array([r[2] for r in results if r[0] == "lookup" and r[1] == 200])
    by_kind = Counter((r[0], r[1]) for r in results)
    print(f"{len(results)} requests in {wall:.1f} s against {args.workers} worker(s) on "
          f"127.0.0.1:{port}")
    print("status counts: " + ", ".join(f"{k}: {v}" for k, v in sorted(
        statuses.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))))
    print("by kind: " + ", ".join(f"{k}/{s}: {v}" for (k, s), v in sorted(
        by_kind.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))))
    print(f"5xx: {sum(v for k, v in statuses.items() if k and k >= 500)}, "
          f"wrong answers: {len(wrong)}, 400s: {statuses.get(400, 0)} "
          f"(slow queries at their time limit: {by_kind.get(('slow', 400), 0)}), "
          f"429s: {statuses.get(429, 0)}")
    if len(lookups):
        print(f"look-ups: {len(lookups)} answered, p50 {np.percentile(lookups, 50) * 1e3:.1f} ms, "
              f"p99 {np.percentile(lookups, 99) * 1e3:.1f} ms")
    for w in wrong[:5]:
        print(f"  wrong: {w}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
