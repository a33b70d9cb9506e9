"""Waiting for a freshly started ``cli.py serve`` (a helper module, not a test file).

Used by the API tests that start the server in a child process and by ``bench/bench_api.py``
(which puts ``tests/`` on ``sys.path``); library code never imports it.
"""

import subprocess
import time

import httpx


def wait_until_serving(base_url: str, proc: subprocess.Popen | None = None,
                       timeout: float = 300.0) -> None:
    """Poll ``base_url`` (``http://HOST:PORT``) until the server answers over HTTP (any status:
    a token-protected server answers 401, which is enough).

    ``proc``: the server's process; if it exits before answering, fail with its standard error
    (when it was piped). Raises ``TimeoutError`` when nothing answers within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(f"{base_url}/openapi.json", timeout=1.0)
            return
        except httpx.TransportError:
            if proc is not None and proc.poll() is not None:
                err = proc.stderr.read() if proc.stderr is not None else b""
                if isinstance(err, bytes):
                    err = err.decode(errors="replace")
                raise RuntimeError(f"the server exited with status {proc.returncode} before "
                                   "answering" + (f":\n{err}" if err else "")) from None
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{base_url} did not answer within {timeout:g} s") from None
            time.sleep(0.1)
