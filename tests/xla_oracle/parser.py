"""XLA's own HLO text parser as a test oracle, in a worker process that a crash or a hang cannot take down
with the tests.

    with XlaParser() as xla:
        verdict = xla.judge(text)   # Verdict(accepted, message, line, column, printed, ...)

`XlaParser.unavailable()` is the reason the oracle cannot run (jax not importable), or None. The worker
runs `HLO_LSP_XLA_PYTHON` when set (an interpreter with jax), else this interpreter.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

_WORKER = Path(__file__).with_name("worker.py")
_HEADER = struct.Struct(">Q")
_ENTRY = re.compile(r"was parsing (\d+):(\d+): error: (.*)")
_GLOG = re.compile(r"^[FEWI]\d{4} [\d:.]+\s+\d+ ")  # a log line's prefix: level, date, time, thread
_WRAPPER = re.compile(r"^(?:INVALID_ARGUMENT: )?(?:Syntax error when trying to parse the text as a [A-Za-z ]+:\n?)?")


@dataclass(frozen=True)
class Verdict:
    """XLA's verdict on one text. `line` and `column` are 1-based (XLA prints a 0-based column on the
    first line only: corrected here); both are None where XLA names no place (a crash, a check after
    the parse, a silent failure). `printed` is XLA's re-printed module (`to_string()`) of an accepted text."""

    accepted: bool
    message: str
    line: int | None = None
    column: int | None = None
    printed: str | None = None
    names: tuple[tuple[str, tuple[str, ...]], ...] = ()  # per computation, instruction names in creation order
    crashed: bool = False
    timed_out: bool = False


def _rejected(error: str) -> Verdict:
    """The verdict of XLA's error text: its first entry that says more than "cannot parse as ...:"."""
    entries = list(_ENTRY.finditer(error))
    entry = next((e for e in entries if not e.group(3).rstrip().endswith(":")), entries[0] if entries else None)
    if entry is None:
        message = _WRAPPER.sub("", error).strip().splitlines()
        return Verdict(False, message[0] if message else error.strip() or "rejected without a message")
    line, column = int(entry.group(1)), int(entry.group(2))
    return Verdict(False, entry.group(3).strip(), line, column + 1 if line == 1 else column)


def _verdict(answer: dict) -> Verdict:
    if not answer["accepted"]:
        return _rejected(answer["error"])
    names = tuple((computation, tuple(instructions)) for computation, instructions in answer["names"])
    return Verdict(True, "", printed=answer["printed"], names=names)


class _Worker:
    """One worker process, its stderr kept in a file (what XLA logs before it dies)."""

    def __init__(self, python: str) -> None:
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed with the worker)
        self.process = subprocess.Popen([python, str(_WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr)

    def send(self, data: bytes) -> bool:
        try:
            self.process.stdin.write(_HEADER.pack(len(data)) + data)
            self.process.stdin.flush()
        except BrokenPipeError:
            return False
        return True

    def read(self, seconds: float) -> dict | str | None:
        """The worker's next answer; None when it died, "timeout" when it did not answer in time."""
        header = self._read_exactly(_HEADER.size, seconds)
        if not isinstance(header, bytes):
            return header
        body = self._read_exactly(_HEADER.unpack(header)[0], seconds)
        return json.loads(body) if isinstance(body, bytes) else body

    def _read_exactly(self, size: int, seconds: float) -> bytes | str | None:
        data = b""
        while len(data) < size:
            ready, _, _ = select.select([self.process.stdout], [], [], seconds)
            if not ready:
                return "timeout"
            chunk = os.read(self.process.stdout.fileno(), size - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def stderr_tail(self) -> str:
        """The last meaningful line XLA wrote before dying (a failed CHECK, a fatal log)."""
        self.stderr.seek(0)
        lines = [line.strip() for line in self.stderr.read().decode(errors="replace").splitlines() if line.strip()]
        fatal = [line for line in lines if line[:1] in "FE" and _GLOG.match(line) or "terminate" in line]
        return _GLOG.sub("", (fatal or lines or [""])[-1])[:400]

    def signal_name(self) -> str:
        code = self.process.wait()
        return signal.Signals(-code).name if code < 0 and -code in signal.Signals._value2member_map_ else str(code)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()  # the worker this parser started, by its handle
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.stderr):
            stream.close()


@dataclass
class XlaParser:
    """Judges texts with `hlo_module_from_text` in a persistent worker, with a spare worker started ahead
    (importing jax takes a second) to take over after a crash or a timeout (`seconds` per text)."""

    seconds: float = 20.0
    python: str = field(default_factory=lambda: os.environ.get("HLO_LSP_XLA_PYTHON", sys.executable))
    restarts: int = 0
    _worker: _Worker | None = None
    _spare: _Worker | None = None

    @staticmethod
    def unavailable(python: str | None = None) -> str | None:
        """Why XLA's parser cannot be run here, or None when it can."""
        parser = XlaParser(python=python) if python else XlaParser()
        try:
            parser.start()
        except RuntimeError as error:
            return str(error)
        finally:
            parser.close()
        return None

    def judge(self, text: str) -> Verdict:
        worker = self._worker or self.start()
        answer = worker.read(self.seconds) if worker.send(text.encode("utf-8", errors="replace")) else None
        if isinstance(answer, dict):
            return _verdict(answer)
        self._worker, self.restarts = None, self.restarts + 1
        if answer == "timeout":
            worker.close()
            return Verdict(False, f"timeout: XLA took more than {self.seconds:g} s", timed_out=True)
        verdict = Verdict(False, f"crash ({worker.signal_name()}): {worker.stderr_tail()}", crashed=True)
        worker.close()
        return verdict

    def start(self) -> _Worker:
        """Starts the worker (judge does when it must); raises RuntimeError when XLA cannot be run."""
        worker, self._spare = self._spare or _Worker(self.python), None
        hello = worker.read(120.0)
        if not isinstance(hello, dict) or not hello.get("ready"):
            why = hello.get("error") if isinstance(hello, dict) else worker.stderr_tail() or "the worker did not start"
            worker.close()
            raise RuntimeError(f"XLA's HLO parser is not available ({self.python}): {why}")
        self._worker, self._spare = worker, _Worker(self.python)
        return worker

    def close(self) -> None:
        for worker in (self._worker, self._spare):
            if worker is not None:
                worker.close()
        self._worker = self._spare = None

    def __enter__(self) -> XlaParser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
