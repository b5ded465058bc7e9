"""The listener several workers share (api/workers.py TcpListener): a TCP socket by name, so asyncio turns
Nagle's algorithm off on every connection it accepts (else each answer on a kept-alive connection waits ~40 ms for
the client's delayed ACK: uvicorn issue #3149)."""

from __future__ import annotations

import asyncio
import socket

from grimoire.api.workers import TcpListener


def test_connections_accepted_on_the_shared_listener_have_nagle_off() -> None:
    config = TcpListener("grimoire.api.app:create_app", host="127.0.0.1", port=0, workers=2)
    sock = config.bind_socket()
    assert sock.proto == socket.IPPROTO_TCP and sock.get_inheritable()
    nodelay: list[int] = []

    class Seen(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            accepted = transport.get_extra_info("socket")
            nodelay.append(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    async def run() -> None:
        server = await asyncio.get_running_loop().create_server(Seen, sock=sock)
        async with server:
            host, port = sock.getsockname()[:2]
            reader, writer = await asyncio.open_connection(host, port)
            await reader.read()  # the server closes it once seen
            writer.close()

    asyncio.run(run())
    assert nodelay == [1]
