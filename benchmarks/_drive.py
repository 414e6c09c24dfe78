"""Driving WebSocket clients against a live server: making them, bounding a call, opening many
sessions in batches, closing them however they ended, cutting a connection without a close frame,
and winding an event loop down on Ctrl-C. Shared by bench_server.py and bench_soak.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from _children import on_sigterm, stop_all

DROP_KINDS = ("rst-idle", "rst-inflight", "fin-inflight")


def new_client(
    url: str, kind: str = "generic", timeout_s: float = 60.0, connect_timeout_s: float = 10.0
) -> Any:
    """One client object per connection: OpenEnv's ``GenericEnvClient`` (raw dicts) or ours,
    ``InboxTriageClient`` (``kind="typed"``). Imported here, so that a benchmark that never
    makes one does not pay for the import."""
    kwargs = dict(base_url=url, connect_timeout_s=connect_timeout_s, message_timeout_s=timeout_s)
    if kind == "typed":
        from inbox_triage import InboxTriageClient

        return InboxTriageClient(**kwargs)
    from openenv.core.generic_client import GenericEnvClient

    return GenericEnvClient(**kwargs)


async def _aw(x: Any) -> Any:  # the clients' calls return awaitables, not always coroutines
    return await x


async def call(awaitable: Any, timeout_s: float | None) -> Any:
    """Awaits a client's call, ``timeout_s`` at most (None: no bound)."""
    return await asyncio.wait_for(_aw(awaitable), timeout_s)


async def close_politely(client: Any, timeout_s: float | None) -> None:
    """Closes a client whatever state it is in; a failure to close is not the benchmark's."""
    with contextlib.suppress(Exception, asyncio.TimeoutError):
        await call(client.close(), timeout_s)


async def close_all(clients: Sequence[Any], timeout_s: float | None = None) -> None:
    await asyncio.gather(*(close_politely(c, timeout_s) for c in clients))


async def open_sessions(
    clients: Sequence[Any],
    reset_kwargs: Callable[[int], dict[str, Any]],
    batch: int,
    timeout_s: float | None = None,
    go_on: Callable[[], bool] = lambda: True,
) -> list[Any]:
    """Connects and resets the clients, ``batch`` at once, until ``go_on()`` says stop: the i-th
    client's reset result, or the exception that stopped it, or None where it was not tried.
    A server that runs out of sessions (or threads) shows here, session by session."""

    async def open_one(client: Any, kwargs: dict[str, Any]) -> Any:
        await call(client.connect(), timeout_s)
        return await call(client.reset(**kwargs), timeout_s)

    results: list[Any] = [None] * len(clients)
    for lo in range(0, len(clients), batch):
        if not go_on():
            break
        group = range(lo, min(len(clients), lo + batch))
        results[lo : group.stop] = await asyncio.gather(
            *(open_one(clients[i], reset_kwargs(i)) for i in group), return_exceptions=True
        )
    return results


async def cut(client: Any, kind: str, action: dict[str, Any], rng: random.Random) -> None:
    """Ends a connection without a close frame (``kind``: one of DROP_KINDS). Reaches into the
    client's socket (``_ws``): the public API only closes politely."""
    ws = client._ws
    if kind.endswith("inflight"):
        await ws.send(json.dumps({"type": "step", "data": client._step_payload(action)}))
        await asyncio.sleep(rng.random() * 0.02)  # let the server start on it
    transport = ws.transport
    if kind.startswith("rst"):
        sock = transport.get_extra_info("socket")
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()  # close(2) with linger 0: a TCP RST, nothing else
    else:
        transport.close()  # a FIN after the buffered data, no WebSocket close frame
    client._ws = None  # forget the socket; the client object is dropped by the caller


class Interrupted(Exception):
    """Ctrl-C or SIGTERM while the event loop ran; the phase has wound down."""


@contextlib.contextmanager
def on_signals(callback: Callable[[], None]) -> Iterator[None]:
    """Ctrl-C and SIGTERM call ``callback`` in the event loop instead of raising
    KeyboardInterrupt wherever the code happens to be (inside the websockets library, say, which
    can leave a connection half-updated and a cleanup waiting forever). A second signal stops the
    server and exits at once."""
    loop = asyncio.get_running_loop()
    count = 0

    def handler() -> None:
        nonlocal count
        count += 1
        if count > 1:
            stop_all()
            os._exit(130)
        print("\ninterrupted: winding down (again to quit at once)", file=sys.stderr, flush=True)
        callback()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, handler)
    try:
        yield
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        signal.signal(signal.SIGTERM, on_sigterm)
        signal.signal(signal.SIGINT, signal.default_int_handler)
