"""Edits of a text not scanned yet: where an edit falls in the text, and the text with edits spliced in."""

from __future__ import annotations

from collections.abc import Iterable

from hlo_lsp.model.scanning import clamp_edit
from hlo_lsp.parsing.text_search import LineIndex
from hlo_lsp.text import Position, Range, python_index


def text_offsets(lines: LineIndex, edit: Range) -> tuple[int, int]:
    """Where the edit's start and end (UTF-16 positions, clamped as `Document.apply_edit` clamps them) are in
    the text of `lines`."""

    def offset(position: Position) -> int:
        line_start = lines.line_start(position.line)
        line_text = lines.text[line_start : lines.line_end(line_start)]
        return line_start + python_index(line_text, position.character)

    start, end = clamp_edit(edit, lines.line_count)
    return offset(start), offset(end)


def spliced(lines: LineIndex, edits: Iterable[tuple[Range, str]]) -> LineIndex:
    """The text of `lines` with `edits` (each on the text the ones before it left) spliced in, and its line index
    (shifted by each edit, not read again)."""
    for edit, new_text in edits:
        start, end = text_offsets(lines, edit)
        text = "".join((lines.text[:start], new_text, lines.text[end:]))
        lines = lines.spliced(text, start, end, len(new_text))
    return lines
