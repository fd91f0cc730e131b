"""The server reads a pipe's messages on its event loop, whole however they are cut, and a stdin that is a file as
pygls does: both answer."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hlo_lsp.lsp.stdio import PipeReader, read_by_the_loop

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the loop reads pipes on POSIX systems")


def _framed(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_pipe_and_a_socket_are_read_by_the_loop_and_a_file_is_not(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe, os.fdopen(write_end, "wb"), open(tmp_path / "f", "wb+") as file:
        assert read_by_the_loop(pipe)
        assert not read_by_the_loop(file)


def test_a_message_cut_anywhere_is_read_whole_and_the_end_of_the_pipe_gives_what_was_left() -> None:
    message = _framed({"jsonrpc": "2.0", "method": "x", "params": {"text": "é" * 300_000}})

    async def read_all() -> list[bytes]:
        read_end, write_end = os.pipe()
        with os.fdopen(read_end, "rb") as pipe:
            reader = PipeReader(pipe)
            loop = asyncio.get_running_loop()

            def write() -> None:
                with os.fdopen(write_end, "wb", buffering=0) as sink:
                    for start in range(0, len(message), 7919):  # cut inside the header and the body
                        sink.write(message[start:start + 7919])
                    sink.write(b"Content-Length: 10\r\n\r\nabc")

            writing = loop.run_in_executor(None, write)
            header = await reader.readline()
            blank = await reader.readline()
            body = await reader.readexactly(int(header.split(b":")[1]))
            second = [await reader.readline(), await reader.readline(), await reader.readexactly(10)]
            await writing
            return [header, blank, body, *second, await reader.readline()]

    header, blank, body, *rest = asyncio.run(read_all())
    assert header + blank + body == message
    assert rest == [b"Content-Length: 10\r\n", b"\r\n", b"abc", b""]


def test_a_server_whose_stdin_is_a_file_answers_as_pygls_does(tmp_path: Path) -> None:
    requests = tmp_path / "requests"
    requests.write_bytes(_framed({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                  "params": {"processId": None, "rootUri": None, "capabilities": {}}})
                         + _framed({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
                         + _framed({"jsonrpc": "2.0", "method": "exit"}))
    with open(requests, "rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "hlo_lsp"], stdin=stdin, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert b'"id": 1' in done.stdout and b'"hoverProvider"' in done.stdout and b'"id": 2' in done.stdout
