"""Bounded load test of the JSON API's look-up on loopback (issue 18).

    python -m bench.bench_api --data-dir DIR --strategy NAME [--clients 8] [--seconds 20]
        [--workers 2] [--load wrk]

Starts ``cli.py serve`` in a child process, waits for it, opens the strategy once (the first
request), then runs ``--clients`` concurrent HTTP clients (threads with keep-alive connections,
in this process) for ``--seconds``, each asking for look-ups at random deals and histories of the
strategy's game (Texas Hold'em: random hole cards and a random preflop/flop history). Prints
look-ups per second and the p50/p99 latency, side by side with the same look-ups made in
process (no HTTP), so the cost of the web stack shows.

``--load wrk``: the load comes from ``wrk`` (C, Debian package ``wrk``; one thread,
``--clients`` connections) cycling through the same look-up URLs, so the load generator does
not share a Python interpreter with the clients' bookkeeping; ``--workers``: server processes
(``serve --workers``).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import tempfile
import urllib.parse
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from etl.cards import format_card
from solve.lookup import open_lookup
from tests.serving import wait_until_serving

ROOT = Path(__file__).resolve().parent.parent

HISTORIES = [("", 0), ("r", 0), ("c", 0), ("rc/", 3), ("rc/r", 3), ("rc/c", 3), ("cc/", 3),
             ("cc/cr", 3)]  # legal at any bet cap (synthetic strategies use 2)


def requests_for(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        cards = rng.sample(range(52), 5)
        hist, k = rng.choice(HISTORIES)
        out.append({"hole": format_card(cards[0]) + format_card(cards[1]),
                    "board": "".join(format_card(c) for c in cards[2:2 + k]), "history": hist})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--strategy", required=True)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--workers", type=int, default=1, help="server processes (serve --workers)")
    ap.add_argument("--load", choices=("python", "wrk"), default="python",
                    help="load generator: client threads here (python) or wrk")
    args = ap.parse_args()
    if args.load == "wrk" and shutil.which("wrk") is None:
        print("--load wrk needs wrk (apt-get install wrk)", file=sys.stderr)
        return 2

    reqs = requests_for(20_000, 1)
    t0 = time.perf_counter()
    look = open_lookup(args.data_dir, args.strategy)
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    for r in reqs:
        look.at(**r)
    in_process = len(reqs) / (time.perf_counter() - t0)

    server = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "--data-dir", args.data_dir,
                               "serve", "--port", str(args.port), "--workers",
                               str(args.workers)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=os.environ.copy())
    base = f"http://127.0.0.1:{args.port}"
    url = f"{base}/strategies/{args.strategy}/lookup"
    try:
        wait_until_serving(base, server)
        for _ in range(4 * args.workers):  # opens the strategy (in every worker)
            httpx.get(url, params=reqs[0], timeout=600.0).raise_for_status()
        if args.load == "wrk":
            rate, p50, p99 = run_wrk(url, reqs, args.clients, args.seconds)
            print(f"strategy {args.strategy}: opened in {load:.1f}s (in process)")
            print(f"{'':36}{'look-ups/s':>12}{'p50 ms':>10}{'p99 ms':>10}")
            print(f"{'in process (no HTTP)':36}{in_process:>12,.0f}{'-':>10}{'-':>10}")
            label = f"API x{args.workers}, wrk {args.clients} conns, {args.seconds:g}s"
            print(f"{label:36}{rate:>12,.0f}{p50:>10.2f}{p99:>10.2f}")
            return 0
        lat: list[list[float]] = [[] for _ in range(args.clients)]
        stop = time.perf_counter() + args.seconds

        def client(i: int) -> None:
            with httpx.Client(timeout=10.0) as c:
                j = i
                while time.perf_counter() < stop:
                    t = time.perf_counter()
                    c.get(url, params=reqs[j % len(reqs)]).raise_for_status()
                    lat[i].append(time.perf_counter() - t)
                    j += args.clients

        threads = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=30)
    all_lat = np.concatenate([np.array(x) for x in lat]) * 1000
    print(f"strategy {args.strategy}: opened in {load:.1f}s (in process)")
    print(f"{'':28}{'look-ups/s':>12}{'p50 ms':>10}{'p99 ms':>10}")
    print(f"{'in process (no HTTP)':28}{in_process:>12,.0f}{'-':>10}{'-':>10}")
    print(f"{f'API, {args.clients} clients, {args.seconds:g}s':28}{len(all_lat) / wall:>12,.0f}"
          f"{np.percentile(all_lat, 50):>10.2f}{np.percentile(all_lat, 99):>10.2f}")
    return 0


def run_wrk(url: str, reqs: list[dict], conns: int, seconds: float) -> tuple[float, float, float]:
    """wrk (one thread, ``conns`` keep-alive connections) over the look-up URLs of ``reqs`` in
    turn; returns (requests/s, p50 ms, p99 ms). Non-2xx answers make it fail."""
    path = urllib.parse.urlsplit(url).path
    paths = [f"{path}?{urllib.parse.urlencode(r)}" for r in reqs]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write("paths = {" + ",".join(f'"{p}"' for p in paths) + "}\n"
                 "i = 0\n"
                 "request = function()\n  i = i + 1\n"
                 "  return wrk.format('GET', paths[(i % #paths) + 1])\nend\n")
        script = fh.name
    try:
        out = subprocess.run(["wrk", "-t1", f"-c{conns}", f"-d{seconds:g}s", "--latency",
                              "-s", script, url], capture_output=True, text=True,
                             check=True).stdout
    finally:
        os.unlink(script)
    if "Non-2xx" in out:
        raise SystemExit("wrk: some look-ups failed:\n" + out)

    def ms(label: str) -> float:
        v, unit = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(v) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]

    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return rate, ms("50"), ms("99")


if __name__ == "__main__":
    sys.exit(main())
