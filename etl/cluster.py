"""A Dask distributed client for ``--scheduler``: ``tcp://HOST:PORT`` (an existing cluster whose
workers see the data directory) or ``local:N`` (a ``distributed.LocalCluster`` of N
single-threaded worker processes on this machine, started and stopped around the work)."""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

from schema.errors import ParameterError, UserError

_LOCAL = re.compile(r"^local:(\d+)$")


def check_scheduler(scheduler: str) -> str:
    """``scheduler`` if it is ``tcp://...`` or ``local:N`` (N >= 1), else a one-line error."""
    m = _LOCAL.match(scheduler)
    if (m and int(m.group(1)) >= 1) or scheduler.startswith(("tcp://", "tls://", "inproc://")):
        return scheduler
    raise ParameterError(f"`scheduler` must be tcp://HOST:PORT or local:N, got {scheduler!r}")


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
    try:
        if m:
            cluster = LocalCluster(n_workers=int(m.group(1)), threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            client = Client(cluster)
        else:
            client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        text = (exc.args[0] if exc.args and isinstance(exc.args[0], str)
                else str(exc)).strip() or type(exc).__name__
        raise UserError(f"cannot reach Dask scheduler {scheduler}: {text.splitlines()[0]}") \
            from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
