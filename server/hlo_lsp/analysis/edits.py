"""Problems of an edited document derived from its previous version's, in proportion to the edit."""

from __future__ import annotations

from hlo_lsp.model.document import Document, EditedFrom
from hlo_lsp.problems import Problem


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
