"""Problems of an edited document derived from its previous version's, in proportion to the edit."""

from __future__ import annotations

import threading
import weakref
from typing import Generic, TypeVar

from hlo_lsp.model.document import Document, EditedFrom
from hlo_lsp.problems import Problem

T = TypeVar("T")


def spliced(document: Document, edit: EditedFrom, before: list[Problem], first: int,
            found: list[Problem]) -> list[Problem]:
    """The previous version's problems before chunk `first` and after the chunks the edit replaced
    (shifted by the lines it added), around `found`, the problems of the chunks from `first` to
    the end of the edit. Each list is by place: so is the result."""
    start = document.chunk_start(first)
    old_after, new_after = edit.previous.chunk_start(edit.old_end), document.chunk_start(edit.new_end)
    kept = [problem for problem in before if problem.range.start.line < start]
    moved = [problem.shifted(new_after - old_after) for problem in before if problem.range.start.line >= old_after]
    return kept + found + moved


class LastRuns(Generic[T]):
    """What a check derived from the version of each document it last read, for one structure of the
    module: an edit of that version that keeps the structure starts from it. Documents are held
    weakly (a closed file goes), and only the last few sources are kept."""

    def __init__(self, remembered: int = 16) -> None:
        self._runs: dict[str, tuple[object, weakref.ref[Document], T]] = {}
        self._remembered = remembered
        self._lock = threading.RLock()  # a callback that forgets a version may run while it is held

    def after_edit(self, document: Document, structure: object) -> tuple[EditedFrom, T] | None:
        """The edit that made `document` and the last run's result, when that run read the version the
        edit started from, in the same structure."""
        with self._lock:
            last = self._runs.get(document.source)
        edit = document.edited_from
        if last is None or edit is None or last[0] is not structure or last[1]() is not edit.previous:
            return None
        return edit, last[2]

    def remember(self, document: Document, structure: object, result: T) -> None:
        """Keeps `result` for the next version of `document`, as long as `document` lives."""
        source = document.source
        with self._lock:
            if len(self._runs) >= self._remembered:
                self._runs.clear()
            self._runs[source] = (structure, weakref.ref(document, lambda gone: self._forget(source, gone)), result)

    def _forget(self, source: str, gone: weakref.ref[Document]) -> None:
        """Drops what was kept for a version no one holds any more (a closed file's)."""
        with self._lock:
            kept = self._runs.get(source)
            if kept is not None and kept[1] is gone:
                del self._runs[source]
