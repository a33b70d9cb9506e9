"""The JSON API: stored strategies and abstractions, look-ups, range grids and read-only SQL.

    python cli.py serve                      # http://127.0.0.1:8000, OpenAPI docs at /docs
    python cli.py serve --host 0.0.0.0 --token SECRET   # off loopback a token is required

Endpoints (all GET, JSON):

- ``/strategies``, ``/abstractions``: what the catalog holds;
- ``/strategies/{name}/lookup?hole=AsKd&board=7c8h9s&history=rc/r``: what the strategy plays
  there (:mod:`solve.lookup`; the same fields as ``cli.py strategy --format json``: ``seat``,
  ``reached``, ``trained`` and ``training``, "never trained" where the probabilities are only
  the uniform default);
- ``/strategies/{name}/range?history=rc/&board=7c8h9s``: the 13x13 grid of a Texas Hold'em
  strategy (:mod:`queries.range_grid`; cells every combination of which is blocked or never
  trained are null, ``never_trained`` / ``barely_trained`` count them per cell);
- ``/sql?q=SELECT...&limit=100``: one read-only statement in the SQL sandbox
  (:mod:`queries.sandbox`: SELECT only, no files outside the data directory, a time limit and
  a row limit);
- ``/``: one HTML page that draws the range grid of a chosen strategy and history.

Bad input is a 400 with ``{"error": "<one line>"}``; an unknown strategy a 404; more than
``SQL_PER_CLIENT`` SQL queries at once from one client a 429. Every ``/sql`` query runs in a
process of its own (:mod:`queries.sandbox`: its own DuckDB instance, memory and time limits),
so a slow or greedy one never holds up the catalog lists or look-ups. With a token,
every request needs ``Authorization: Bearer TOKEN``. Opened strategies are kept (a few, least
recently used dropped first) so repeated look-ups cost microseconds, not a load.
"""

from __future__ import annotations

import ipaddress
import math
import secrets
from collections import OrderedDict
from pathlib import Path
from threading import BoundedSemaphore, Lock

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool

from queries import sandbox
from queries.range_grid import range_grid
from schema.errors import UserError
from solve.lookup import open_lookup

#: Row and time limits of ``/sql`` (a caller may ask for fewer rows, not more).
SQL_MAX_ROWS = 10_000
SQL_TIMEOUT = 10.0  # seconds
SQL_MAX_CHARS = 10_000
OPEN_STRATEGIES = 4
SQL_MEMORY = "1GB"  # per query
#: SQL queries running at once per server process (each a process of its own, SQL_MEMORY at
#: most), and per client (more at once from one client: 429). As many processes as one client
#: may run queries: one client's queries never wait for a process (and time out, 503), only
#: many clients at once can find the server busy.
SQL_PROCESSES = 4
SQL_PER_CLIENT = SQL_PROCESSES


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Lookups:
    """The strategies opened so far, at most ``size``, least recently used dropped first."""

    def __init__(self, data_dir: Path, size: int = OPEN_STRATEGIES):
        self.data_dir, self.size = data_dir, size
        self.open: OrderedDict = OrderedDict()
        self.loading: dict[str, Lock] = {}
        self.lock = Lock()

    def get_open(self, name: str):
        """The strategy if it is open already, else None (never loads)."""
        with self.lock:
            return self.open.get(name)

    def get(self, name: str):
        with self.lock:
            if name in self.open:
                self.open.move_to_end(name)
                return self.open[name]
            loading = self.loading.setdefault(name, Lock())
        # one load per strategy however many first look-ups arrive at once; other strategies
        # and open ones are not held up (the global lock is not held while loading)
        with loading:
            with self.lock:
                if name in self.open:
                    self.open.move_to_end(name)
                    return self.open[name]
            try:
                look = open_lookup(self.data_dir, name)
            except BaseException:
                with self.lock:
                    self.loading.pop(name, None)
                raise
            with self.lock:
                self.open[name] = look
                self.loading.pop(name, None)
                while len(self.open) > self.size:
                    self.open.popitem(last=False)
        return look


class _BearerToken:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer TOKEN`` (401
    otherwise). Plain ASGI rather than ``@app.middleware``: Starlette's BaseHTTPMiddleware costs
    a task and a stream per request."""

    def __init__(self, app, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            got = dict(scope["headers"]).get(b"authorization", b"")
            if not secrets.compare_digest(got, self.expected):
                await JSONResponse({"error": "missing or wrong token"}, status_code=401)(
                    scope, receive, send)
                return
        await self.app(scope, receive, send)


def _json_safe(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, list):
        return [_json_safe(x) for x in v]
    if isinstance(v, dict):
        return {k: _json_safe(x) for k, x in v.items()}
    return v


def create_app(data_dir: str | Path, token: str | None = None) -> FastAPI:
    """The API over ``data_dir`` (module docstring); ``token``: required bearer token."""
    data_dir = Path(data_dir).absolute()
    # FastAPIOffline: /docs and /redoc serve Swagger UI's and ReDoc's files from the package
    # (FastAPI's load them from a CDN: a blank page without internet)
    app = FastAPIOffline(title="poker abstraction and strategy service",
                         description=__doc__.split("\n\n")[0])
    if token is not None:
        app.add_middleware(_BearerToken, token=token)
    app.add_exception_handler(RequestValidationError, _bad_parameters)
    app.add_exception_handler(UserError, _user_error)
    routes = _Routes(data_dir)
    app.get("/strategies", summary="stored strategies (catalog)")(routes.strategies)
    app.get("/abstractions", summary="built abstractions (catalog)")(routes.abstractions)
    app.get("/strategies/{name}/lookup",
            summary="what a strategy plays at real cards")(routes.lookup)
    app.get("/strategies/{name}/range", summary="13x13 range grid (Texas Hold'em)")(routes.grid)
    app.get("/sql", summary="one read-only SQL statement (SELECT only; row and time limits)"
            )(routes.sql)
    app.get("/", response_class=HTMLResponse, include_in_schema=False)(routes.page)
    return app


async def _bad_parameters(request: Request, exc: RequestValidationError):
    """A parameter FastAPI refused: 400 with the first problem on one line."""
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(x) for x in first.get("loc", ()) if x != "query")
    return JSONResponse({"error": f"{where}: {first.get('msg', 'invalid')}"},
                        status_code=400)


async def _user_error(request: Request, exc: UserError):
    """A domain error: 404 for an unknown strategy, else 400; its first line."""
    msg = str(exc).splitlines()[0] if str(exc) else "bad request"
    status = 404 if msg.startswith("no strategy") else 400
    return JSONResponse({"error": msg}, status_code=status)


class _Routes:
    """The route handlers of one app (:func:`create_app` registers them) and the state they
    share: the data directory, the strategies opened so far and the SQL query slots (per
    server process, and the queries running per client). The public methods are the
    handlers; they carry no docstring, which FastAPI would publish as the endpoint's OpenAPI
    description (each is described by its ``summary`` and the module docstring)."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.lookups = _Lookups(data_dir)
        self.limits = sandbox.Limits(timeout=SQL_TIMEOUT, memory_limit=SQL_MEMORY, threads=1)
        self.running: dict[str, int] = {}
        self.running_lock = Lock()
        self.processes = BoundedSemaphore(SQL_PROCESSES)

    def _catalog(self, sql: str) -> list[dict]:
        """Rows of our own fixed query over catalog tables: a plain read-only connection here
        (user SQL runs in a process of its own, queries.sandbox); none before a stage has
        recorded anything."""
        if not (self.data_dir / "poker.duckdb").exists():
            return []
        try:
            return _json_safe(sandbox.catalog_rows(self.data_dir, sql))
        except UserError as exc:
            if "does not exist" in str(exc):  # that stage has recorded nothing yet
                return []
            raise

    def strategies(self) -> list[dict]:
        return self._catalog("SELECT name, game, abstraction, algorithm, iterations, "
                             "exploitability, abstract_exploitability, value FROM solve_runs "
                             "ORDER BY name")

    def abstractions(self) -> list[dict]:
        return self._catalog("SELECT name, game, method, buckets, built FROM abstractions "
                             "ORDER BY name")

    async def lookup(self, name: str, hole: str, board: str = "", history: str = "") -> dict:
        # a look-up of an open strategy takes microseconds: answered on the event loop (a
        # thread-pool hop would cost more than the look-up); opening one takes seconds and
        # goes to the thread pool
        lookups = self.lookups
        look = lookups.get_open(name) or await run_in_threadpool(lookups.get, name)
        return look.at(hole, board, history).as_dict()

    def grid(self, name: str, history: str = "", board: str = "") -> dict:
        return _json_safe(range_grid(self.data_dir, name, history, board,
                                     look=self.lookups.get(name)))

    async def sql(self, request: Request, q: str = Query(..., max_length=SQL_MAX_CHARS),
                  limit: int = Query(SQL_MAX_ROWS, ge=0, le=SQL_MAX_ROWS)):
        if not (self.data_dir / "poker.duckdb").exists():
            raise UserError("no database yet in the data directory")
        sandbox.check_statement(q)  # a refused statement costs no process
        client = request.client.host if request.client else "unknown"
        if not self._admit(client):
            return JSONResponse(
                {"error": f"too many SQL queries at once from {client} (at most "
                          f"{SQL_PER_CLIENT} per client); retry when one has finished"},
                status_code=429, headers={"Retry-After": "1"})
        try:
            table = await run_in_threadpool(self._run_limited, q, limit)
            if table is None:
                return JSONResponse({"error": "the server is busy with other SQL queries; "
                                              "retry later"},
                                    status_code=503, headers={"Retry-After": "5"})
        finally:
            self._release(client)
        return {"rows": _json_safe(table.to_pylist()), "limit": limit}

    def _admit(self, client: str) -> bool:
        """Count one more query of ``client`` running, unless it runs ``SQL_PER_CLIENT``."""
        with self.running_lock:
            if self.running.get(client, 0) >= SQL_PER_CLIENT:
                return False
            self.running[client] = self.running.get(client, 0) + 1
            return True

    def _release(self, client: str) -> None:
        """One query of ``client`` has finished."""
        with self.running_lock:
            self.running[client] -= 1
            if not self.running[client]:
                del self.running[client]

    def _run_limited(self, q: str, limit: int):
        """``q``'s result, or None if no query slot freed up within the time limit."""
        if not self.processes.acquire(timeout=SQL_TIMEOUT):
            return None
        try:
            return sandbox.run(self.data_dir, q, self.limits, limit)
        finally:
            self.processes.release()

    def page(self) -> str:
        return PAGE


PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>range grid</title>
<style>
body{font-family:sans-serif;margin:1.5em}
table{border-collapse:collapse;margin-top:1em}
td{width:2.6em;height:1.8em;text-align:center;font-size:11px;border:1px solid #ddd}
</style></head>
<body>
<h1>Range grid</h1>
<label>strategy <select id="strategy"></select></label>
<label>history <input id="history" value="" size="12"></label>
<label>board <input id="board" value="" size="12"></label>
<label>action <select id="action"></select></label>
<button id="show">show</button>
<p id="status"></p>
<table id="grid"></table>
<script>
let last = null;
async function api(path) {
  const r = await fetch(path);
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}
function draw() {
  const t = document.getElementById('grid');
  t.innerHTML = '';
  if (!last) return;
  const a = Math.max(0, last.actions.indexOf(document.getElementById('action').value));
  for (let r = 0; r < 13; r++) {
    const tr = t.insertRow();
    for (let c = 0; c < 13; c++) {
      const td = tr.insertCell();
      const p = last.probabilities[a][r][c];
      td.dataset.cell = last.cells[r][c];
      td.dataset.p = p === null ? '' : p.toFixed(4);
      const untrained = last.never_trained && last.never_trained[r][c] > 0
        && last.never_trained[r][c] === last.combos[r][c];
      td.title = td.dataset.cell + ': ' + (p === null ? (untrained ? 'never trained' : 'blocked')
                                                      : p.toFixed(3));
      td.textContent = last.cells[r][c];
      td.style.background = p === null ? '#eee' : `rgba(40,90,200,${p})`;
      td.style.color = p !== null && p > 0.5 ? 'white' : 'black';
    }
  }
}
async function show() {
  const s = document.getElementById('strategy').value;
  const h = document.getElementById('history').value;
  const b = document.getElementById('board').value;
  const st = document.getElementById('status');
  st.textContent = 'loading...';
  try {
    last = await api(`/strategies/${encodeURIComponent(s)}/range?history=${encodeURIComponent(h)}&board=${encodeURIComponent(b)}`);
    const sel = document.getElementById('action');
    const keep = sel.value;
    sel.innerHTML = last.actions.map(x => `<option>${x}</option>`).join('');
    if (last.actions.includes(keep)) sel.value = keep;
    const seat = last.seat && last.seat !== `player ${last.player}` ? ` (${last.seat})` : '';
    st.textContent = `player ${last.player}${seat} to act`;
    draw();
  } catch (e) { last = null; draw(); st.textContent = 'error: ' + e.message; }
}
document.getElementById('show').onclick = show;
document.getElementById('action').onchange = draw;
api('/strategies').then(rows => {
  document.getElementById('strategy').innerHTML = rows.filter(r => r.game === 'holdem')
    .map(r => `<option>${r.name}</option>`).join('');
});
</script>
</body></html>
"""
