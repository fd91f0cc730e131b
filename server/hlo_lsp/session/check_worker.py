"""The check process: a session of its own that mirrors the open files of the large modules the language server
hands it, checks them on the machine's other core, and streams back each check's progress and problems.

The server's process keeps answering questions meanwhile: a check holds the interpreter it runs in for seconds
at 40 MB, and here that interpreter is not the one answering hovers. Messages (tuples, first item the kind):

    to the worker:   ("open", source, text, version)  ("change", source, version, edit, text)  ("close", source)
                     ("disk", path)  ("check", ticket, source)  ("cancel", ticket)
    from the worker: ("progress", ticket, done)  ("checked", ticket, stem, sources, problems)  ("nothing", ticket)
                     ("cancelled", ticket)  ("failed", ticket, message)

A reader thread takes messages off the pipe as they come, so that a cancel reaches a running check (it stops at its
next report) and the server never waits for the pipe; the main thread applies them in order.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

from hlo_lsp.analysis.run import CheckCancelled
from hlo_lsp.session.session import Session

PROGRESS_EVERY_SECONDS = 0.1
Message = tuple[Any, ...]


class _Inbox:
    """The messages read so far, in order, and the tickets cancelled among them."""

    def __init__(self, connection: Connection) -> None:
        self.messages: queue.SimpleQueue[Message | None] = queue.SimpleQueue()  # None: the server is gone
        self.cancelled: set[int] = set()
        threading.Thread(target=self._read, args=(connection,), name="hlo-lsp-check-inbox", daemon=True).start()

    def _read(self, connection: Connection) -> None:
        while True:
            try:
                message = connection.recv()
            except (EOFError, OSError):
                self.messages.put(None)
                return
            if message[0] == "cancel":
                self.cancelled.add(message[1])
            else:
                self.messages.put(message)


def main() -> None:
    """`python -m hlo_lsp.session.check_worker`: messages come on stdin and go out on stdout, which nothing else
    writes to (print goes to stderr)."""
    incoming = Connection(os.dup(sys.stdin.fileno()), writable=False)
    outgoing = Connection(os.dup(sys.stdout.fileno()), readable=False)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    serve(incoming, outgoing)
    os._exit(0)  # at once: freeing the modules object by object on the way out takes seconds, for nothing


def serve(incoming: Connection, connection: Connection) -> None:
    """The check process's main loop, until the server closes its end of the pipe."""
    session, inbox = Session(), _Inbox(incoming)
    while (message := inbox.messages.get()) is not None:
        kind = message[0]
        if kind == "open":
            session.open(message[1], message[2], message[3])
        elif kind == "change":
            session.change(message[1], message[2], message[3], message[4])
        elif kind == "close":
            session.close(message[1])
        elif kind == "disk":
            session.file_changed(message[1])
        elif kind == "check":
            connection.send(_checked(session, inbox, connection, message[1], message[2]))


def _checked(session: Session, inbox: _Inbox, connection: Connection, ticket: int, source: str) -> Message:
    """What the check of the module of `source` found, as the message that answers it."""
    last = [0.0]

    def report(done: float) -> None:
        if ticket in inbox.cancelled:
            raise CheckCancelled
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_SECONDS:
            last[0] = now
            connection.send(("progress", ticket, done))

    try:
        report(0.0)
        checked = session.check(source, report)
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
