"""A part of a check run in a forked copy of this process, on the machine's other core, while the rest runs here.

The check of a large HLO file is half hlo-structure and half the syntax pass with hlo-opcodes, once the file is
scanned and its structure read (`analysis.run._hlo_file_part`). A copy of the process made by fork() holds the
scanned file without it being sent anywhere; each process reads the structure on its own core, then runs its half.
The copy sends back down a pipe its problems and what it derived on the file, its chunks and its structure (a few
hundred kilobytes at 40 MB), so that the check after an edit starts from them here.

Only a process whose other threads run no engine code while it forks may use this: the CLI (no other thread), and
the check process, whose question thread holds `gate` while it answers.
"""

from __future__ import annotations

import contextlib
import gc
import io
import logging
import mmap
import os
import pickle
import select
import signal
import struct
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Generic, NoReturn, TypeVar

from hlo_lsp.model.derived import Derived, DerivedKey
from hlo_lsp.model.priority import let_questions_first, stepping

log = logging.getLogger(__name__)
T = TypeVar("T")
FROM_LINES = 20_000  # an HLO file's lines from which its check is read on two cores (4 MB is 45,000 lines)
_GATE_WAIT_SECONDS = 1.0  # a question answered for longer: the check runs here alone
_POLL_SECONDS = 0.05  # while the other part runs, how often this one asks whether the check is still wanted
# A copy still running this long after this process did its own part, or three times as long as that took, is given
# up (a copy stuck on a lock another thread held at the fork would never end): its part is done here.
PATIENCE_SECONDS = 10.0


class ForkedPart:
    """Runs a part of a check in a forked copy of this process (`analysis.run.Beside`)."""

    def __init__(self, gate: threading.Lock | None = None, from_lines: int = FROM_LINES,
                 patience: float = PATIENCE_SECONDS) -> None:
        self.from_lines = from_lines
        self._gate, self._patience = gate, patience

    def start(self, work: Callable[[Callable[[float], None]], T], owners: Callable[[], Sequence[Derived]],
              shared: Callable[[], Sequence[object]]) -> _Forked[T] | None:
        if not hasattr(os, "fork") or (self._gate is not None and not self._gate.acquire(timeout=_GATE_WAIT_SECONDS)):
            return None
        told = mmap.mmap(-1, _SHARE.size)  # (shared with the copy: where it writes the share it has done)
        try:
            read, write = os.pipe()
            try:
                with warnings.catch_warnings():  # (Python 3.12 warns of forking a process with threads: see `gate`)
                    warnings.simplefilter("ignore", DeprecationWarning)
                    pid = os.fork()
            except OSError:
                os.close(read)
                os.close(write)
                return None
        except OSError:
            return None
        finally:
            if self._gate is not None:
                self._gate.release()
        if pid == 0:
            os.close(read)
            _run_child(lambda: work(lambda share: _SHARE.pack_into(told, 0, share)), owners, shared, write)
        os.close(write)
        _scheduled(pid, _IDLE)
        return _Forked(pid, read, told, owners, shared, self._patience)


def _run_child(work: Callable[[], Any], owners: Callable[[], Sequence[Derived]],
               shared: Callable[[], Sequence[object]], write: int) -> NoReturn:
    """The forked copy: runs `work`, writes its result and what it derived, and ends, never returning."""
    code = 1
    try:
        gc.disable()  # a collection would walk, and so copy, every page of the objects the two processes share
        with stepping(_go_on):  # (the step of the check that forked reports to its server: not from here)
            before = [derived.keys() for derived in owners()]
            result = work()
        added = [(index, new) for index, (derived, keys) in enumerate(zip(owners(), before))
                 if (new := derived.added_since(keys))]
        payload = io.BytesIO()
        _Pickler(payload, shared()).dump((result, added))
        with os.fdopen(write, "wb") as pipe:
            pipe.write(payload.getbuffer())
        code = 0
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        os._exit(code)  # (no cleanup of the parent's: its files, its threads' objects, its exit handlers)


def _go_on() -> None:
    pass


class _Forked(Generic[T]):
    """The part running in the forked copy, seen from here."""

    def __init__(self, pid: int, read: int, told: mmap.mmap, owners: Callable[[], Sequence[Derived]],
                 shared: Callable[[], Sequence[object]], patience: float) -> None:
        self._pid: int | None = pid
        self._read, self._told = read, told
        self._owners, self._shared = owners, shared
        self._started, self._patience = time.monotonic(), patience

    def told(self) -> float:
        return float(_SHARE.unpack_from(self._told, 0)[0])

    def result(self) -> T | None:
        if self._read < 0:  # (stopped)
            return None
        if self._pid is not None:
            _scheduled(self._pid, _OTHER)  # (this process waits for it now)
        data = self._received()
        if data is None:
            log.warning("the forked part of a check did not end in time: it is done here")
            self.stop()
            return None
        self._closed()
        status = self._reaped()
        if status != 0 or not data:
            return None
        try:
            result, added = _Unpickler(io.BytesIO(data), self._shared()).load()
        except Exception:
            return None
        owners = self._owners()
        for index, values in added:
            if index < len(owners):
                owners[index].put_missing({key: value for key, value in values.items() if key is not _GONE})
        return result

    def stop(self) -> None:
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            self._reaped()
        self._closed()

    def _closed(self) -> None:
        if self._read >= 0:
            os.close(self._read)
            self._read = -1

    def _received(self) -> bytes | None:
        """What the copy wrote, once it closed the pipe (None: not in time); meanwhile `let_questions_first`, which
        raises when the check is no longer wanted."""
        now = time.monotonic()
        deadline = now + max(self._patience, 3 * (now - self._started))
        chunks: list[bytes] = []
        while True:
            ready, _, _ = select.select([self._read], [], [], _POLL_SECONDS)
            if not ready:
                if time.monotonic() > deadline:
                    return None
                let_questions_first()
                continue
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)

    def _reaped(self) -> int:
        pid, self._pid = self._pid, None
        if pid is None:
            return -1
        _, status = os.waitpid(pid, 0)
        return status


# The copy runs when no other process wants a core (its CPU time is not taken from the server's answers, on a machine of
# two cores), until this process has done its own part and waits for it.
_IDLE, _OTHER = getattr(os, "SCHED_IDLE", None), getattr(os, "SCHED_OTHER", None)


def _scheduled(pid: int, policy: int | None) -> None:
    with contextlib.suppress(AttributeError, OSError, TypeError):  # (Linux alone has SCHED_IDLE)
        os.sched_setscheduler(pid, policy, os.sched_param(0))  # type: ignore[arg-type]


_GONE = object()  # a key made in one of the two processes only (by an import since the fork)
_SHARE = struct.Struct("d")  # (8 aligned bytes: written and read whole)


class _Pickler(pickle.Pickler):
    """Keys and the objects both processes hold are sent as references, their values only by the copy."""

    def __init__(self, file: io.BytesIO, shared: Sequence[object]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._shared = {id(thing): index for index, thing in enumerate(shared)}

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, DerivedKey):
            return ("key", obj.number, obj.name)
        index = self._shared.get(id(obj))
        return None if index is None else ("shared", index)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, shared: Sequence[object]) -> None:
        super().__init__(file)
        self._shared = shared

    def persistent_load(self, pid: Any) -> Any:
        if pid[0] == "key":
            key = DerivedKey.numbered(pid[1], pid[2])
            return _GONE if key is None else key
        return self._shared[pid[1]]
