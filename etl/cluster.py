"""A Dask distributed client for ``--scheduler``: ``tcp://HOST:PORT`` (an existing cluster whose
workers see the data directory) or ``local:N`` (a ``distributed.LocalCluster`` of N
single-threaded worker processes on this machine, started and stopped around the work)."""

from __future__ import annotations

import re
import socket
from contextlib import contextmanager
from typing import Iterator
from urllib.parse import urlsplit

from schema.errors import ParameterError, UserError

_LOCAL = re.compile(r"^local:(\d+)$")


def check_scheduler(scheduler: str) -> str:
    """``scheduler`` if it is ``tcp://...`` or ``local:N`` (N >= 1), else a one-line error."""
    m = _LOCAL.match(scheduler)
    if (m and int(m.group(1)) >= 1) or scheduler.startswith(("tcp://", "tls://", "inproc://")):
        return scheduler
    raise ParameterError(f"`scheduler` must be tcp://HOST:PORT or local:N, got {scheduler!r}")


def _refused(scheduler: str) -> str | None:
    """Why a ``tcp://`` scheduler cannot be reached at once (nothing listens on its port),
    else None: a slow or distant one is left to the client's 10 s timeout, which a refused
    port would otherwise sit through too."""
    if not scheduler.startswith("tcp://"):
        return None
    try:
        url = urlsplit(scheduler)
        host, port = url.hostname, url.port
    except ValueError:
        return None
    if not host or port is None:
        return None
    try:
        with socket.create_connection((host, port), timeout=2):
            return None
    except ConnectionRefusedError:
        return f"connection refused by {host}:{port}"
    except OSError:
        return None


def connect(scheduler: str) -> object:
    """A ``distributed.Client`` of the running scheduler at address ``scheduler``.

    Raises:
        UserError: the scheduler cannot be reached (one line: the address and why).
    """
    from distributed import Client

    refused = _refused(scheduler)
    if refused is not None:
        raise UserError(f"cannot reach Dask scheduler {scheduler}: {refused}")
    try:
        return Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise UserError(f"cannot reach Dask scheduler {scheduler}: {_first_line(exc)}") \
            from None


def _first_line(exc: BaseException) -> str:
    text = (exc.args[0] if exc.args and isinstance(exc.args[0], str)
            else str(exc)).strip() or type(exc).__name__
    return text.splitlines()[0]


@contextmanager
def dask_client(scheduler: str) -> Iterator[object]:
    """A connected ``distributed.Client`` (see module docstring); closed on exit.

    Raises:
        UserError: a malformed address, or a scheduler that cannot be reached.
    """
    from distributed import Client, LocalCluster

    check_scheduler(scheduler)
    m = _LOCAL.match(scheduler)
    cluster = None
    if not m:
        client = connect(scheduler)
    else:
        try:
            cluster = LocalCluster(n_workers=int(m.group(1)), threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            client = Client(cluster)
        except (OSError, TimeoutError, ValueError) as exc:
            if cluster is not None:
                cluster.close()
            raise UserError(f"cannot start Dask cluster {scheduler}: {_first_line(exc)}") \
                from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
