"""An edited document's problems from the previous version's: kept before the edit, moved after it."""

from __future__ import annotations

import gc
import weakref
from unittest import mock

from hlo_lsp.analysis.edits import LastRuns, spliced
from hlo_lsp.model import document as document_module
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

TEXT = "\n".join(f"  %x.{number} = f32[] parameter({number})" for number in range(40))


def problem_on(line: int) -> Problem:
    return Problem("m.txt", Range.on_line(line, 2, 5), Severity.ERROR, "syntax", f"on {line}")


def test_problems_around_an_edit_are_kept_and_those_after_it_move_down() -> None:
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        before = Document(TEXT, FileKind.HLO_MODULE, "m.txt")
        before.chunks  # noqa: B018 - an edit needs the scanned document
        after = before.apply_edit(Range(Position(13, 0), Position(13, 0)), "  %y = f32[] parameter(99)\n")
    edit = after.edited_from
    assert edit is not None and edit.previous is before and edit.first == 3
    found = [problem_on(13)]
    result = spliced(after, edit, [problem_on(0), problem_on(11), problem_on(13), problem_on(30)], edit.first, found)
    assert [problem.range.start.line for problem in result] == [0, 11, 13, 31]
    assert result[-1].message == "on 30" and result[-1].range.end.character == 5


def test_what_is_kept_for_a_version_goes_with_it() -> None:
    """A closed file's last run is not kept: a 40 MB module's opcode pass held its memory after close."""

    class Found:
        pass

    runs: LastRuns[Found] = LastRuns("found")
    document, structure, found = Document(TEXT, FileKind.HLO_MODULE, "m.txt"), object(), Found()
    runs.remember(document, structure, found)
    document.chunks  # noqa: B018 - scanned: only a scanned version's edit keeps `edited_from`
    edited = document.apply_edit(Range(Position(0, 2), Position(0, 2)), "y")
    assert runs.after_edit(edited, structure) == (edited.edited_from, found)
    kept = weakref.ref(found)
    del document, edited, found
    gc.collect()
    assert kept() is None
