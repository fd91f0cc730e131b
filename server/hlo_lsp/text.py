"""Positions in dump text: lines and UTF-16 columns, as the editor counts them.

Everything above this module speaks in (line, UTF-16 column) pairs; Python string
indices appear only where a line's text is sliced, and are converted here.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")  # two UTF-16 code units each


@dataclass(frozen=True, slots=True, order=True)
class Position:
    line: int
    character: int  # UTF-16 code units from the start of the line


@dataclass(frozen=True, slots=True)
class Range:
    start: Position
    end: Position

    @staticmethod
    def on_line(line: int, start: int, end: int) -> Range:
        return Range(Position(line, start), Position(line, end))

    def contains(self, position: Position) -> bool:
        return self.start <= position <= self.end

    def shifted(self, lines: int) -> Range:
        """The same range `lines` lines further down."""
        return Range(Position(self.start.line + lines, self.start.character),
                     Position(self.end.line + lines, self.end.character))

    def __str__(self) -> str:
        return f"{self.start.line + 1}:{self.start.character + 1}"


def utf16_column(line_text: str, index: int) -> int:
    """UTF-16 column of the Python index `index` in `line_text`."""
    if line_text.isascii():
        return index
    return index + len(_ASTRAL.findall(line_text, 0, index))


class Utf16Columns:
    """UTF-16 columns of many indices of one line, each in O(log n): a long line with many
    names would otherwise cost a scan of its prefix per name."""

    __slots__ = ("_astral",)

    def __init__(self, line_text: str) -> None:
        self._astral = [] if line_text.isascii() else [match.start() for match in _ASTRAL.finditer(line_text)]

    def column(self, index: int) -> int:
        return index + bisect_left(self._astral, index) if self._astral else index


def python_index(line_text: str, column: int) -> int:
    """Python index of the UTF-16 column `column`, clamped to the line."""
    if line_text.isascii():
        return min(max(column, 0), len(line_text))
    units = 0
    for index, ch in enumerate(line_text):
        if units >= column:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line_text)


def utf16_length(text: str) -> int:
    return utf16_column(text, len(text))
