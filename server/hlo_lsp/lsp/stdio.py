"""Serving over stdio with the messages read by the event loop itself.

pygls reads stdin in a worker thread, one call for each header line and one for each body: three thread hops
a message, each a wake-up of the pool and then of the loop (about 2 ms a round trip for a hover that answers
nothing, on a 2-core machine). Where stdin is a pipe or a socket, as an editor starts a server, the loop reads
it instead (`asyncio.StreamReader`), and a message already received is read without waiting for anyone; pygls's
own message loop (`pygls.io_.run_async`) reads from it. A stdin of another kind (a file) is served as pygls does.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from typing import BinaryIO

from pygls.io_ import StdoutWriter, run_async
from pygls.server import JsonRPCServer

log = logging.getLogger(__name__)

HEADER_LIMIT = 1 << 20  # bytes of one header line at most (a header is a few dozen)


class PipeReader:
    """pygls's `AsyncReader` over a pipe or a socket, read by the running event loop."""

    def __init__(self, stdin: BinaryIO) -> None:
        self._stdin = stdin
        self._stream: asyncio.StreamReader | None = None

    async def readline(self) -> bytes:
        return await (await self._opened()).readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await (await self._opened()).readexactly(n)
        except asyncio.IncompleteReadError as ended:  # (as reading a closed stdin gives what was left)
            return ended.partial

    async def _opened(self) -> asyncio.StreamReader:
        if self._stream is None:
            stream = asyncio.StreamReader(limit=HEADER_LIMIT)
            await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream),
                                                               self._stdin)
            self._stream = stream
        return self._stream


def read_by_the_loop(stdin: BinaryIO) -> bool:
    """Whether the event loop can read `stdin` (a pipe or a socket, on a POSIX system)."""
    if os.name != "posix":
        return False
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def serve_stdio(server: JsonRPCServer) -> None:
    """Serves over stdio until the client exits (pygls's `start_io`, its messages read by the event loop)."""
    stdin = sys.stdin.buffer
    if not read_by_the_loop(stdin):
        server.start_io()
        return
    server._stop_event = threading.Event()  # (what pygls's shutdown sets)
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(run_async(stop_event=server._stop_event, reader=PipeReader(stdin), protocol=server.protocol,
                              logger=log, error_handler=server.report_server_error))
    except BrokenPipeError:
        log.error("the connection to the client is lost: the server stops")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
