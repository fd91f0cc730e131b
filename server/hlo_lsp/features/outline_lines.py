"""What the outlines of every file kind read their lines with: numbered line scans, spans, short shapes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hlo_lsp.model.document import Document
from hlo_lsp.parsing.line_scan import LineScan
from hlo_lsp.text import Position, Range, utf16_column

_DETAIL_SHAPE_LIMIT = 120
_INDEX_COMMENT = re.compile(r"/\*index=[0-9]+\*/")
_INDENT = re.compile(r"\s*")



def numbered_lines(document: Document) -> Iterator[tuple[int, str, LineScan]]:
    """(line number, text, scan) of every line, without a lookup per line."""
    line = 0
    for chunk in document.chunks:
        for text, scan in zip(chunk.lines, chunk.scans):
            yield line, text, scan
            line += 1


def content_kind(kind: str, text: str) -> str:
    """The scan kind, except that a whitespace-only line inside open brackets counts as blank."""
    return "blank" if kind == "continuation" and not text.strip() else kind


def span(start_line: int, start_text: str, end_line: int, end_text: str) -> Range:
    """From the first non-blank character of one line to the last of another."""
    # Instruction lines can be thousands of characters long: find the ends without copying them.
    indent = _INDENT.match(start_text).end()  # type: ignore[union-attr]
    end = len(end_text)
    while end and end_text[end - 1].isspace():
        end -= 1
    return Range(Position(start_line, indent), Position(end_line, utf16_column(end_text, end)))


def short_shape(shape: str) -> str:
    """A shape for a one-line detail: without `/*index=N*/` comments, cut if very long."""
    if "/*" in shape:
        shape = _INDEX_COMMENT.sub("", shape)
    return shape if len(shape) <= _DETAIL_SHAPE_LIMIT else shape[: _DETAIL_SHAPE_LIMIT - 1] + "…"


def counted(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def prefix_selection(line: int, text: str, name: str) -> Range:
    """The range of `name`, which the line starts with (after its indentation)."""
    indent = len(text) - len(text.lstrip())
    return Range.on_line(line, utf16_column(text, indent), utf16_column(text, indent + len(name)))
