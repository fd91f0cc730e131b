"""The check process: a session of its own that mirrors the open files of the large modules the language server
hands it, checks them on the machine's other core, streams back each check's progress and problems, and answers
hovers and definitions from the module it built.

The server's process keeps answering questions meanwhile: a check holds the interpreter it runs in for seconds
at 40 MB, and here that interpreter is not the one answering hovers. Messages (tuples, first item the kind):

    to the worker:   ("open", source, text, version)  ("open from disk", source, version, digest): the text is the
                     file's on disk, whose bytes have that digest (`same_text`)  ("change", source, version, edit,
                     text)  ("close", source)  ("disk", path)  ("check", ticket, source)  ("cancel", ticket)
                     ("ask", ticket, question, source, position): question "hover" or "definition"
    from the worker: ("progress", ticket, done)  ("hlo file", ticket, stem, sources, problems): its problems, before
                     the rest  ("checked", ticket, stem, sources, problems)  ("nothing", ticket)
                     ("cancelled", ticket)  ("failed", ticket, message)  ("answer", ticket, the answer's value or None)
                     ("text wanted", 0, source): the file on disk is not the text; the server sends it whole ("open"),
                     with the changes made since, which the process lets go until then

A reader thread takes messages off the pipe as they come and applies the files' changes at once, in their order, so
that a question sees every change sent before it; checks run in the main thread, one at a time (a check waits for the
texts wanted), and questions in a thread of their own, first (`model.priority`): a cancel reaches a running check at
its next report. A large HLO file's check forks a copy of the process for half of its work (`ForkedPart`), between
two answers.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from hlo_lsp.analysis.run import CheckCancelled
from hlo_lsp.session.cursor import Cursor
from hlo_lsp.session.forked_part import ForkedPart
from hlo_lsp.session.glance_answers import Answer
from hlo_lsp.session.same_text import text_if_same
from hlo_lsp.session.session import Session

PROGRESS_EVERY_SECONDS = 0.1
CHECK_NICENESS = 10
SWITCH_INTERVAL_SECONDS = 0.001  # as the server's (lsp/server.py)
Message = tuple[Any, ...]
# The questions the process answers about the open files it holds, from the modules it built.
QUESTIONS: dict[str, Callable[[Session, str, Cursor], Answer[Any] | None]] = {
    "hover": lambda session, source, cursor: session.hover(source, None, cursor),
    "definition": lambda session, source, cursor: session.definition(source, None, cursor),
}


class _Outbox:
    """The pipe to the server, which the main thread and the question thread both write to."""

    def __init__(self, connection: Connection) -> None:
        self._connection, self._lock = connection, threading.Lock()

    def send(self, message: Message) -> None:
        with self._lock:
            self._connection.send(message)


class _Inbox:
    """Reads the pipe: applies the files' changes, hands checks to the main thread and questions to their own."""

    def __init__(self, connection: Connection, session: Session, outbox: _Outbox, answering: threading.Lock) -> None:
        self.checks: queue.SimpleQueue[Message | None] = queue.SimpleQueue()  # None: the server is gone
        self.cancelled: set[int] = set()
        self._wanted: set[str] = set()  # the open files whose text was asked for, not yet sent
        self._changed = threading.Condition()  # notified when a text wanted comes, a file closes, a check is cancelled
        self._questions: queue.SimpleQueue[Message] = queue.SimpleQueue()
        self._session, self._outbox = session, outbox
        self._answering = answering  # held while a question is answered: a check forks between answers
        threading.Thread(target=self._read, args=(connection,), name="hlo-lsp-check-inbox", daemon=True).start()
        threading.Thread(target=self._answer, name="hlo-lsp-check-questions", daemon=True).start()

    def _read(self, connection: Connection) -> None:
        while True:
            try:
                message = connection.recv()
            except (EOFError, OSError):
                self._note(self._wanted.clear)  # (the server is gone: a check waiting for a text waits no more)
                self.checks.put(None)
                return
            self._take(message)

    def wait_for_texts(self, ticket: int) -> None:
        """Waits until every text wanted has come (or the check of `ticket` is cancelled): a check reads the open
        files as the editor holds them."""
        with self._changed:
            self._changed.wait_for(lambda: not self._wanted or ticket in self.cancelled)

    def _take(self, message: Message) -> None:
        kind, session = message[0], self._session
        if kind == "open from disk":
            text = text_if_same(message[1], message[3])
            if text is not None:
                session.open(message[1], text, message[2])
            else:
                self._note(lambda: self._wanted.add(message[1]))
                self._outbox.send(("text wanted", 0, message[1]))
        elif kind == "open":
            session.open(message[1], message[2], message[3])
            self._note(lambda: self._wanted.discard(message[1]))
        elif kind == "change":
            if message[1] not in self._wanted:  # (else the text sent whole holds it)
                session.change(message[1], message[2], message[3], message[4])
        elif kind == "close":
            session.close(message[1])
            self._note(lambda: self._wanted.discard(message[1]))
        elif kind == "disk":
            session.file_changed(message[1])
        elif kind == "cancel":
            self._note(lambda: self.cancelled.add(message[1]))
        elif kind == "ask":
            self._questions.put(message)
        else:
            self.checks.put(message)

    def _note(self, change: Callable[[], None]) -> None:
        with self._changed:
            change()
            self._changed.notify_all()

    def _answer(self) -> None:
        while True:
            _, ticket, question, source, position = self._questions.get()
            try:
                with self._answering:
                    answer = QUESTIONS[question](self._session, source, Cursor.at(position))
                self._outbox.send(("answer", ticket, answer.value if answer is not None else None))
            except Exception:
                self._outbox.send(("failed", ticket, traceback.format_exc()))


def main() -> None:
    """`python -m hlo_lsp.session.check_worker`: messages come on stdin and go out on stdout, which nothing else
    writes to (print goes to stderr)."""
    incoming = Connection(os.dup(sys.stdin.fileno()), writable=False)
    outgoing = Connection(os.dup(sys.stdout.fileno()), readable=False)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    with contextlib.suppress(OSError, AttributeError):  # answers first: the server gets a core whenever it has work
        os.nice(CHECK_NICENESS)
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)  # and a question here does not wait 5 ms turns behind a check
    serve(incoming, outgoing)
    os._exit(0)  # at once: freeing the modules object by object on the way out takes seconds, for nothing


def serve(incoming: Connection, connection: Connection) -> None:
    """The check process's main loop, until the server closes its end of the pipe."""
    answering = threading.Lock()
    session, outbox = Session(beside=ForkedPart(answering)), _Outbox(connection)
    inbox = _Inbox(incoming, session, outbox, answering)
    while (message := inbox.checks.get()) is not None:
        outbox.send(_checked(session, inbox, outbox, message[1], message[2]))


def _checked(session: Session, inbox: _Inbox, outbox: _Outbox, ticket: int, source: str) -> Message:
    """What the check of the module of `source` found, as the message that answers it."""
    last = [0.0]

    def report(done: float) -> None:
        if ticket in inbox.cancelled:
            raise CheckCancelled
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_SECONDS:
            last[0] = now
            outbox.send(("progress", ticket, done))

    try:
        inbox.wait_for_texts(ticket)
        report(0.0)
        checked = session.check(source, report, lambda found: outbox.send(
            ("hlo file", ticket, found.stem, found.sources, found.problems)))
    except CheckCancelled:
        return ("cancelled", ticket)
    except Exception:
        return ("failed", ticket, traceback.format_exc())
    finally:
        inbox.cancelled.discard(ticket)
    if checked is None:
        return ("nothing", ticket)
    return ("checked", ticket, checked.stem, checked.sources, checked.problems)


if __name__ == "__main__":
    main()
