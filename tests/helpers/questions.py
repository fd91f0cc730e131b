"""A question answered in another thread meanwhile, for what steps aside for questions (`model.priority`)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from hlo_lsp.model.priority import answering


@contextlib.contextmanager
def question_answered_meanwhile() -> Iterator[None]:
    """While inside, another thread is inside `answering()`, as a thread answering a hover is."""
    asked, done = threading.Event(), threading.Event()

    def answer() -> None:
        with answering():
            asked.set()
            done.wait(10)

    thread = threading.Thread(target=answer)
    thread.start()
    asked.wait(10)
    try:
        yield
    finally:
        done.set()
        thread.join()
