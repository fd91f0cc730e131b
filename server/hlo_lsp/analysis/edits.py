"""Problems of an edited document derived from its previous version's, in proportion to the edit."""

from __future__ import annotations

from typing import Generic, TypeVar

from hlo_lsp.model.derived import DerivedKey
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
    """What a check derived from a version of a document, for one structure of the module, kept on that
    version (`Document.derived`): the next version, made by an edit that keeps the structure, starts
    from it. A document holds its previous version only (`edited_from`), so at most two are kept."""

    def __init__(self, name: str) -> None:
        self._key: DerivedKey[tuple[object, T]] = DerivedKey(name)

    def after_edit(self, document: Document, structure: object) -> tuple[EditedFrom, T] | None:
        """The edit that made `document` and what the check derived from the version the edit started
        from, when that was for the same structure."""
        edit = document.edited_from
        last = edit.previous.derived.get(self._key) if edit is not None else None
        if edit is None or last is None or last[0] is not structure:
            return None
        return edit, last[1]

    def remember(self, document: Document, structure: object, result: T) -> None:
        """Keeps `result` for the next version of `document`."""
        document.derived.put(self._key, (structure, result))
