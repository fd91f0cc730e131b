"""The session's end of the check process (`check_worker`): the checks of large modules run there, on the machine's
other core, while this process answers questions at a glance.

The process starts at the first check of a large module, or before (`start_ahead`: when the workspace holds one). It
is given the open files of each module it checks at that check (read from disk when the file there is the editor's
text: `same_text`; else sent whole), then every change to them, in the order the session applies them (`lock`), so
that it checks what the editor shows; it reads the module's other files from disk itself. It stops when it holds no
open file any more: its memory goes back to the system whole, which a process that freed a gigabyte of objects does
not manage.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from hlo_lsp.analysis.run import CheckCancelled
from hlo_lsp.model.dump_module import module_stem
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.problems import Problem
from hlo_lsp.session.same_text import disk_digest_of
from hlo_lsp.text import Position, Range

log = logging.getLogger(__name__)
_POLL_SECONDS = 0.1  # how often a waiting check asks `report` whether it is still wanted
_STOP_SECONDS = 5.0  # a process that does not end this long after its pipe closed is terminated
# The allocator's settings the server runs under (hlo_lsp.launch): the check process runs without them.
_SERVER_ALLOCATOR = frozenset(("PYTHONMALLOC", "MALLOC_ARENA_MAX"))
ANSWER_WAIT_SECONDS = 1.0  # a question the process has not answered by then is answered here
Message = tuple[Any, ...]
Found = tuple[str, frozenset[str], list[Problem]]  # stem, the files checked, their problems
Asked = tuple["_Worker", int, "queue.SimpleQueue[Message]"]  # a question sent: to whom, its ticket, its answers


class CheckFailed(Exception):
    """The check process failed to check a module, or ended while it did."""


class CheckProcessUnavailable(Exception):
    """The check process cannot be started here."""


class CheckProcess:
    """The check process as the session sees it: which open files it holds, and checks asked of it."""

    def __init__(self, texts: Callable[[str], tuple[str, int | None] | None] = lambda source: None) -> None:
        # Held while the session changes an open file and tells the process: both see the same order of changes.
        self.lock = threading.RLock()
        self._texts = texts  # an open file's text and version now (None: not open), sent when the process asks
        self._ahead = False  # whether a process is kept started before a check needs it
        self._worker: _Worker | None = None
        self._held: set[str] = set()  # the open files the process was given
        self._built: set[str] = set()  # the stems of the modules it checked: it answers questions about them
        self._givings = 0  # files given or changed on disk so far: a check asked before one built no module since
        self._tickets = itertools.count(1)

    def holds(self, source: str) -> bool:
        """Whether the running process holds the open file `source` (given it, and has not ended since)."""
        return source in self._held and self._worker is not None and self._worker.alive

    def start_ahead(self) -> None:
        """Starts the process now, and again whenever it ends with the last file it held (under `lock`): the first
        check of a large module then finds it ready, not half a second away (it imports the engine), and it reads
        the module's files while this process answers the first questions."""
        self._ahead = True
        with contextlib.suppress(CheckProcessUnavailable):
            self._started()

    def stop_ahead(self) -> None:
        """No process is kept started ahead any more (under `lock`); one that holds no file ends."""
        self._ahead = False
        if not self._held and self._worker is not None:
            self._worker.stop()
            self._worker = None

    def _started(self) -> _Worker:
        if self._worker is None or not self._worker.alive:
            try:
                worker = _Worker(self._give_again)
            except (OSError, ValueError) as error:
                raise CheckProcessUnavailable(error) from error
            self._worker, self._held, self._built = worker, set(), set()
        return self._worker

    def give(self, source: str, text: str, version: int | None) -> None:
        """Gives the process an open file, whole (under `lock`): from now on its changes go there too. The process
        reads it from disk when it is the file there (`same_text`)."""
        self._started().send(("give", source, text, version))
        self._held.add(source)
        self._built.discard(module_stem(source))
        self._givings += 1

    def changed(self, source: str, version: int | None, edit: Range | None, text: str) -> None:
        if source in self._held and self._worker is not None:
            self._worker.send(("change", source, version, edit, text))

    def closed(self, source: str) -> None:
        """The file is closed (under `lock`): the process lets it go, and ends when it holds no other."""
        if source not in self._held or self._worker is None:
            return
        self._held.discard(source)
        self._built.discard(module_stem(source))
        self._worker.send(("close", source))
        if not self._held:
            self._worker.stop()
            self._worker = None
            if self._ahead:  # (a fresh one: the memory of the modules checked goes back to the system with the last)
                with contextlib.suppress(CheckProcessUnavailable):
                    self._started()

    def disk_changed(self, path: str) -> None:
        """A file changed on disk: the process reads it again, and its modules are built again when next asked."""
        self._built.clear()
        self._givings += 1
        if self._worker is not None:
            self._worker.send(("disk", path))

    def answers(self, stem: str) -> bool:
        """Whether the process has built the module `stem` (it checked it, and no file of it changed since on disk)."""
        return stem in self._built and self._worker is not None and self._worker.alive

    def ask(self, question: str, source: str, position: Position) -> Asked | None:
        """Asks the process `question` ("hover", "definition") at `position` of the open file `source` (under `lock`:
        it answers after every change sent before); `answer` waits for it."""
        worker, ticket = self._worker, next(self._tickets)
        if worker is None:
            return None
        answers = worker.expect(ticket)
        worker.send(("ask", ticket, question, source, position))
        return worker, ticket, answers

    def _give_again(self, worker: _Worker, source: str) -> None:
        """The process could not read `source` from disk as the editor holds it: it is sent whole, as it is now (with
        the changes the process let go meanwhile)."""
        with self.lock:
            found = self._texts(source)
            if worker is self._worker and source in self._held and found is not None:
                worker.send(("open", source, *found))

    @staticmethod
    def answer(asked: Asked) -> tuple[bool, Any]:
        """(Whether the process answered within ANSWER_WAIT_SECONDS, the value of its answer or None)."""
        worker, ticket, answers = asked
        try:
            message = answers.get(timeout=ANSWER_WAIT_SECONDS)
        except queue.Empty:
            return False, None
        finally:
            worker.forget(ticket)
        if message[0] != "answer":
            log.info("the check process did not answer: %s", message[-1])
            return False, None
        return True, message[2]

    def check(self, source: str, report: Callable[[float], None],
              first: Callable[[Found], None] = lambda found: None) -> Found | None:
        """The check of the module of `source`, made by the process (whose files it holds): its problems, or None
        when the process finds no module. `report` gets the share done and raises CheckCancelled to stop it;
        `first` gets the HLO file's problems when the process sends them, before the rest."""
        with self.lock:
            worker, ticket, givings = self._worker, next(self._tickets), self._givings
            if worker is None or not worker.alive:
                raise CheckFailed("the check process ended before the check was asked")
            answers = worker.expect(ticket)
            worker.send(("check", ticket, source))
        try:
            found = _awaited(answers, report, first)
        except CheckCancelled:
            worker.send(("cancel", ticket))
            raise
        finally:
            worker.forget(ticket)
        with self.lock:
            if found is not None and worker is self._worker and givings == self._givings:
                self._built.add(found[0])
        return found


def _as_given(source: str, text: str, version: int | None) -> Message:
    """How an open file is given to the process: to be read from disk when the file there holds its text."""
    digest = disk_digest_of(source, text)
    return ("open", source, text, version) if digest is None else ("open from disk", source, version, digest)


def _awaited(answers: queue.SimpleQueue[Message], report: Callable[[float], None],
             first: Callable[[Found], None]) -> Found | None:
    done = 0.0
    while True:
        try:
            message = answers.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            report(done)
            continue
        kind = message[0]
        if kind == "progress":
            done = message[2]
            report(done)
        elif kind == "hlo file":
            first((message[2], message[3], message[4]))
        elif kind == "checked":
            return message[2], message[3], message[4]
        elif kind == "nothing":
            return None
        elif kind == "cancelled":
            raise CheckCancelled
        elif kind == "failed":
            raise CheckFailed(f"the check process failed:\n{message[2]}")
        else:  # "gone"
            raise CheckFailed(f"the check process ended (exit code {message[1]}) while checking")


class _Worker:
    """One check process: pipes to it, a thread writing to it (no caller waits for the pipe: a 40 MB file takes
    tens of milliseconds to send) and one reading the answers, each handed to the check that waits for it."""

    def __init__(self, give_again: Callable[[_Worker, str], None]) -> None:
        self._give_again = give_again  # called on a thread of its own when the process asks for a file's text
        # A process of the same interpreter, started afresh: a fork would copy the locks the server's threads hold,
        # and multiprocessing's spawn would start a resource tracker that outlives it.
        # Under CPython's allocator, whichever the server's (hlo_lsp.launch): faster at building a module, and
        # all its memory goes back when it ends.
        environment = {name: value for name, value in os.environ.items() if name not in _SERVER_ALLOCATOR}
        self._process = subprocess.Popen([sys.executable, "-m", "hlo_lsp.session.check_worker"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment)
        assert self._process.stdin is not None and self._process.stdout is not None
        self._to = Connection(os.dup(self._process.stdin.fileno()), readable=False)
        self._from = Connection(os.dup(self._process.stdout.fileno()), writable=False)
        self._process.stdin.close()
        self._process.stdout.close()
        self._outbox: queue.SimpleQueue[Message | None] = queue.SimpleQueue()
        self._answers: dict[int, queue.SimpleQueue[Message]] = {}
        self._answers_lock = threading.Lock()
        self.alive = True
        threading.Thread(target=self._write, name="hlo-lsp-check-out", daemon=True).start()
        threading.Thread(target=self._read, name="hlo-lsp-check-in", daemon=True).start()
        log.info("check process %d started", self._process.pid)

    def send(self, message: Message) -> None:
        self._outbox.put(message)

    def expect(self, ticket: int) -> queue.SimpleQueue[Message]:
        answers: queue.SimpleQueue[Message] = queue.SimpleQueue()
        with self._answers_lock:
            self._answers[ticket] = answers
        if not self.alive:
            answers.put(("gone", self._process.returncode))
        return answers

    def forget(self, ticket: int) -> None:
        with self._answers_lock:
            self._answers.pop(ticket, None)

    def stop(self) -> None:
        """Closes the pipe once what was sent before is written: the process then ends, and is waited for."""
        self._outbox.put(None)

    def _write(self) -> None:
        while (message := self._outbox.get()) is not None:
            if message[0] == "give":
                message = _as_given(*message[1:])
            if message[0] == "open":
                let_questions_first()  # (pickling 40 MB holds the interpreter: not while a first hover is answered)
            try:
                self._to.send(message)
            except (OSError, ValueError):
                break
        self._to.close()  # the process reads the end, and ends

    def _read(self) -> None:
        while True:
            try:
                message = self._from.recv()
            except (EOFError, OSError, ValueError):
                break
            if message[0] == "text wanted":
                threading.Thread(target=self._give_again, args=(self, message[2]), daemon=True).start()
                continue
            with self._answers_lock:
                answers = self._answers.get(message[1])
            if answers is not None:
                answers.put(message)
        self._from.close()
        self.alive = False
        self._reap()
        with self._answers_lock:
            waiting = list(self._answers.values())
        for answers in waiting:
            answers.put(("gone", self._process.returncode))

    def _reap(self) -> None:
        try:
            self._process.wait(_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        log.info("check process %d ended (exit code %s)", self._process.pid, self._process.returncode)
