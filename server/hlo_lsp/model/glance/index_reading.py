"""A glance's indexes read in a thread of its own, once a first question is answered.

A glance's first question reads only what it needs; the questions after it read the files' whole texts for their
indexes (names, braces, sections, the peak list): most of a second at 40 MB. Read by the second question, that
question would wait for all of it. An editor asks its second question seconds after its first (the cursor moves):
read in between, nothing waits. A question asked while they are being read waits for the rest: they share one
interpreter, and both would take longer side by side.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import Protocol

from hlo_lsp.model.priority import waiting


class Indexed(Protocol):
    def read_index(self, step: int) -> bool:
        """Reads the index of `step` (0, 1, ...); False when there is no such step, or the rest is declined."""


class IndexReading:
    """When the indexes of one glance (and of the glances carried past its edits while they are read) are read."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answering = 0
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def question(self, glance: Indexed) -> Iterator[None]:
        """Around each question about `glance`: waits for the indexes while they are being read; once no question
        is being answered any more, starts reading them if nothing has yet."""
        with self._lock:
            self._answering += 1
            thread = self._thread
        try:
            if thread is not None and thread.is_alive():
                with waiting():  # (the reader steps aside for questions: not for one that waits for it)
                    thread.join()
            yield
        finally:
            with self._lock:
                self._answering -= 1
                start = self._thread is None and not self._answering
                if start:
                    self._thread = threading.Thread(target=_read, args=(weakref.ref(glance),), daemon=True,
                                                    name="hlo-lsp-glance-indexes")
            if start:
                self._thread.start()  # type: ignore[union-attr]

    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def reading(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Waits for the indexes started being read; whether none is being read any more."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.reading


def _read(glance: weakref.ref[Indexed]) -> None:
    """Reads the glance's indexes one step at a time, while the glance is held: a glance let go (its module closed,
    or built) reads nothing more."""
    step = 0
    while (held := glance()) is not None and held.read_index(step):
        del held
        step += 1
