"""The port forwarder of a run with services, run inside the network namespace the tests share with it.

    python3 -c "$(cat forwarder.py)" 5432=postgres:5432 6379=redis:6379

Each `LOCAL=HOST:PORT` listens on 127.0.0.1:LOCAL (and ::1 where the namespace has it) and forwards every
connection to HOST:PORT on the run's internal network, so tests reach a service at `localhost:PORT` as a
job that maps the port does on GitHub. Prints `ready` once every port listens. Standard library only.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import Awaitable, Callable

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


def _handler(host: str, port: int) -> Handler:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.close()  # as a refused connection: the service is not there
            return
        await asyncio.gather(_pump(reader, upstream_writer), _pump(upstream_reader, writer))
    return handle


async def serve(routes: list[str]) -> None:
    """Listen on every route's local port, then say `ready` and serve until killed."""
    servers = []
    for route in routes:
        local, _, target = route.partition("=")
        host, _, port = target.rpartition(":")
        servers.append(await asyncio.start_server(_handler(host, int(port)), "127.0.0.1", int(local)))
        with contextlib.suppress(OSError):  # no IPv6 loopback in this namespace
            servers.append(await asyncio.start_server(_handler(host, int(port)), "::1", int(local),
                                                      family=socket.AF_INET6))
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1:]))
