"""Raw JSON-RPC sessions with the server, for what the pytest-lsp client cannot send or does not let a
test see: positions that are not LSP positions, requests after shutdown, exit codes, the other ways to
start the server (flags, the `hlo-lsp` script, TCP).

    async with raw_session() as server:
        await server.initialize("neovim")
        await server.notify("initialized", {})
        ...
        await server.shut_down(2)
    assert server.returncode == 0
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter
from pytest_lsp import client_capabilities

from helpers.paths import DATA

Message = dict[str, Any]
SERVER_COMMAND = (sys.executable, "-m", "hlo_lsp")
EXIT_SECONDS = 10  # how long a server may take to exit after `exit`


def framed(message: Message) -> bytes:
    """One JSON-RPC message with its Content-Length header, as it goes over stdio."""
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


async def read_message(reader: asyncio.StreamReader) -> Message:
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, value = line.decode().split(":", 1)
        headers[name.strip().lower()] = value.strip()
    if "content-length" not in headers:
        raise EOFError("the server closed its output")
    return json.loads(await reader.readexactly(int(headers["content-length"])))


async def answer_to(reader: asyncio.StreamReader, request_id: int, timeout: float = 30) -> Message:
    """The response to request `request_id`, skipping the notifications (logs, diagnostics) before it."""
    async def answered() -> Message:
        while True:
            message = await read_message(reader)
            if message.get("id") == request_id and "method" not in message:
                return message
    return await asyncio.wait_for(answered(), timeout)


def initialize_message(request_id: int, profile: str) -> Message:
    """`initialize` as the client `profile` sends it, rooted at tests/data."""
    params = types.InitializeParams(capabilities=client_capabilities(profile), process_id=None,
                                    root_uri=DATA.as_uri())
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
            "params": get_converter().unstructure(params)}


class RawSession:
    """A started server, spoken to in JSON-RPC messages a test writes itself. `returncode` is set when
    the `raw_session` block ends: what the server exited with after `exit`, None when it had to be killed."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.reader: asyncio.StreamReader | None = process.stdout
        self.writer: asyncio.StreamWriter | None = process.stdin
        self.exit_sent = False
        self.returncode: int | None = None

    async def send(self, message: Message) -> None:
        assert self.writer is not None
        self.writer.write(framed(message))
        await self.writer.drain()
        if message.get("method") == "exit":
            self.exit_sent = True

    async def request(self, request_id: int, method: str, params: object = None) -> None:
        """Sends a request (read its answer with `answer`)."""
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": method,
                         **({} if params is None else {"params": params})})

    async def notify(self, method: str, params: object = None) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})})

    async def answer(self, request_id: int, timeout: float = 30) -> Message:
        """The response to request `request_id` (notifications before it are skipped)."""
        assert self.reader is not None
        return await answer_to(self.reader, request_id, timeout)

    async def answer_if_any(self, request_id: int, timeout: float = 3) -> Message:
        """The response to request `request_id`, or {} when none comes within `timeout` seconds."""
        try:
            return await self.answer(request_id, timeout)
        except asyncio.TimeoutError:
            return {}

    async def initialize(self, profile: str = "visual-studio-code", request_id: int = 1) -> Message:
        """Sends `initialize` as the client `profile` (rooted at tests/data); returns the server's response."""
        await self.send(initialize_message(request_id, profile))
        return await self.answer(request_id)

    async def did_open(self, path: Path, language: str = "hlo") -> None:
        await self.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": language, "version": 1, "text": path.read_text()}})

    async def shut_down(self, request_id: int) -> Message:
        """The polite end of a session: shutdown, its response (returned), then exit."""
        await self.request(request_id, "shutdown")
        answer = await self.answer(request_id)
        await self.notify("exit")
        return answer


@asynccontextmanager
async def raw_session(*args: str, command: Sequence[str] = SERVER_COMMAND,
                      port: int | None = None) -> AsyncIterator[RawSession]:
    """The server started as `command` with `args`, spoken to over its stdin and stdout, or, with `port`,
    over a TCP connection to that port on 127.0.0.1 (made once the server listens). When the block ends,
    a server sent `exit` has EXIT_SECONDS to exit; any other is killed (this test started it)."""
    pipe = asyncio.subprocess.DEVNULL if port is not None else asyncio.subprocess.PIPE
    process = await asyncio.create_subprocess_exec(*command, *args, stdin=pipe, stdout=pipe,
                                                   stderr=asyncio.subprocess.DEVNULL)
    session = RawSession(process)
    try:
        if port is not None:
            session.reader, session.writer = await _connection(port)
        yield session
    finally:
        if port is not None and session.writer is not None:
            session.writer.close()
        session.returncode = await _ended(process, session.exit_sent)


async def _connection(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    for _ in range(100):  # the server needs a moment to listen
        try:
            return await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
    pytest.fail("the server never listened on its port")


async def _ended(process: asyncio.subprocess.Process, exit_sent: bool) -> int | None:
    """The code the process exited with; None when it had to be killed."""
    if exit_sent:
        try:
            return await asyncio.wait_for(process.wait(), EXIT_SECONDS)
        except asyncio.TimeoutError:
            pass
    if process.returncode is not None:
        return process.returncode
    with contextlib.suppress(ProcessLookupError):  # it ended on its own meanwhile
        process.kill()
    await process.wait()
    return None
