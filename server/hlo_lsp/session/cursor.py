"""Where a question is asked: a line, and the column in whichever document holds that line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hlo_lsp.model.document import Document
from hlo_lsp.text import Position, Range


@dataclass(frozen=True)
class Cursor:
    """`line`, and `column_in(document)`: the position in a document that holds the line (an editor's column
    converts through the line's text; a glance holds that one line alone)."""

    line: int
    column_in: Callable[[Document], Position]

    def position(self, document: Document) -> Position:
        return self.column_in(document)

    @staticmethod
    def at(position: Position) -> Cursor:
        """A cursor given in the engine's own columns (UTF-16), as scripts and tests give it."""
        return Cursor(position.line, lambda _document: position)


@dataclass(frozen=True)
class Span:
    """Lines `start` to `end` (a screen), and `range_in(document)`: the range in a document that holds them."""

    start: int
    end: int
    range_in: Callable[[Document], Range]

    @staticmethod
    def of(lines: Range) -> Span:
        """A span given in the engine's own columns (UTF-16), as scripts and tests give it."""
        return Span(lines.start.line, lines.end.line, lambda _document: lines)
