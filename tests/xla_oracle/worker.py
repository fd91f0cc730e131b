"""The worker process of `XlaParser`: judges HLO texts with XLA's own parser, one at a time.

Run as a script (`python worker.py`), never imported by the tests. Each request on stdin is an
8-byte big-endian length and that many bytes of UTF-8 text; each answer on stdout is the same
framing around a JSON object. The first answer, before any request, says whether jax imports.
A text that crashes XLA (a CHECK failure, a segfault) kills this process: the parent sees the
pipe close, reads the signal and the tail of stderr, and starts another worker.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

_HEADER = struct.Struct(">Q")


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _send(stream: BinaryIO, answer: dict) -> None:
    data = json.dumps(answer).encode()
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _names(module: Any) -> list:
    """Each computation's name and its instructions' names, in the order XLA created them (the text's
    order, with the anonymous nested instructions before the one that holds them)."""
    return [[computation.name, [instruction.name for instruction in computation.instructions()]]
            for computation in module.computations()]


def judge(parse: Callable[[str], Any], text: str) -> dict:
    """XLA's verdict on `text`; for an accepted text its re-printed text and names."""
    try:
        module = parse(text)
    except Exception as error:  # JaxRuntimeError, or an IndexError from a C++ out_of_range
        prefix = "" if type(error).__name__ == "JaxRuntimeError" else type(error).__name__ + ": "
        return {"accepted": False, "error": prefix + str(error)}
    return {"accepted": True, "printed": module.to_string(), "names": _names(module)}


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but answers on the pipe
    try:
        from jax._src.lib import xla_client
    except Exception as error:  # jax missing or broken: said once, then the worker ends
        _send(stdout, {"ready": False, "error": f"{type(error).__name__}: {error}"})
        return 0
    _send(stdout, {"ready": True, "pid": os.getpid()})
    parse = xla_client.hlo.hlo_module_from_text
    while True:
        header = _read_exactly(stdin, _HEADER.size)
        if header is None:
            return 0
        data = _read_exactly(stdin, _HEADER.unpack(header)[0])
        if data is None:
            return 0
        _send(stdout, judge(parse, data.decode("utf-8", errors="replace")))


if __name__ == "__main__":
    sys.exit(main())
