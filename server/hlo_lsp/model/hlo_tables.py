"""The part of an HLO module view that reads its header's attributes and its stack-frame tables.

The tables (StackFrames, FileLocations, FileNames, FunctionNames) are read a row at a time, from
the line the structure found for it: a hover follows a whole Python stack through them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_lines import text_over_lines
from hlo_lsp.parsing.hlo_scanner import printed_parent_frame
from hlo_lsp.parsing.syntax import Attribute
from hlo_lsp.parsing.validation import module_header_attribute


@dataclass(frozen=True, slots=True)
class StackFrame:
    frame_id: int
    file_name: str | None
    function_name: str | None
    line: int | None  # source line
    column: int | None
    parent_id: int | None
    table_line: int  # where the StackFrames row is


@dataclass(frozen=True, slots=True)
class FileLocation:
    file_name: str | None
    function_name: str | None
    line: int | None  # source line
    column: int | None
    table_line: int  # where the FileLocations row is


class HeaderAndTables:
    """What an HLO module view reads of its header and of the stack-frame tables' rows."""

    document: Document
    header_line: int | None
    _table_row_lines: dict[tuple[str, int], int]  # (table, row id) -> line
    _rows_in_order: list[tuple[str, int, int]]  # (table, row id, line), in file order

    # ---- module header -------------------------------------------------------------

    def _header_text(self) -> str | None:
        if self.header_line is None:
            return None
        text = self.document.line(self.header_line)
        line = self.header_line + 1
        while line < self.document.line_count and self.document.scan(line).kind == "continuation":
            text += "\n" + self.document.line(line)
            line += 1
        return text

    def header_attribute(self, key: str) -> Attribute | None:
        """An attribute of a valid module header (a long header is not parsed whole for it)."""
        text = self._header_text()
        return module_header_attribute(text, key) if text is not None else None

    @property
    def is_scheduled(self) -> bool:
        attribute = self.header_attribute("is_scheduled")
        return attribute is not None and any(name == "true" for name, _ in attribute.names)

    def aliased_parameters(self) -> frozenset[tuple[int, tuple[int, ...]]]:
        """(parameter number, parameter index) pairs listed in input_output_alias."""
        attribute = self.header_attribute("input_output_alias")
        if attribute is None:
            return frozenset()
        start, end = attribute.value_span
        text = self.document.line(self.header_line or 0)[start:end]
        return frozenset(_alias_pairs(text))

    # ---- stack frames ------------------------------------------------------------------

    def stack_frame(self, frame_id: int) -> StackFrame | None:
        rows = self._table_rows("StackFrames", frame_id)
        if rows is None:
            return None
        line, fields = rows
        location = self.file_location(fields.get("file_location_id", -1))
        parent = fields.get("parent_frame_id")
        return StackFrame(frame_id, location.file_name if location else None,
                          location.function_name if location else None, location.line if location else None,
                          location.column if location else None,
                          printed_parent_frame(parent) if parent is not None else None, line)

    def file_location(self, location_id: int) -> FileLocation | None:
        """A row of the FileLocations table, with its file and function names."""
        rows = self._table_rows("FileLocations", location_id)
        if rows is None:
            return None
        line, where = rows
        return FileLocation(self._table_string("FileNames", where.get("file_name_id", -1)),
                            self._table_string("FunctionNames", where.get("function_name_id", -1)),
                            where.get("line"), where.get("column"), line)

    def table_rows(self) -> list[tuple[str, int, int]]:
        """(table, row id, line) of every row of the stack-frame tables, in file order."""
        return self._rows_in_order

    def file_names(self) -> list[str]:
        """The paths of the FileNames table, as printed."""
        rows = [row_id for table, row_id in self._table_row_lines if table == "FileNames"]
        return [name for row_id in rows if (name := self._table_string("FileNames", row_id)) is not None]

    def stack(self, frame_id: int, limit: int = 64) -> list[StackFrame]:
        """The frame and its callers, innermost first (stops at the outermost frame or a cycle)."""
        frames: list[StackFrame] = []
        seen: set[int] = set()
        current: int | None = frame_id
        while current is not None and current not in seen and len(frames) < limit:
            seen.add(current)
            frame = self.stack_frame(current)
            if frame is None:
                break
            frames.append(frame)
            current = frame.parent_id if frame.parent_id != current else None
        return frames

    def _table_rows(self, table: str, row_id: int) -> tuple[int, dict[str, int]] | None:
        line = self._table_row_line(table, row_id)
        return (line, _record_fields(text_over_lines(self.document, line))) if line is not None else None

    def _table_string(self, table: str, row_id: int) -> str | None:
        line = self._table_row_line(table, row_id)
        if line is None:
            return None
        text = text_over_lines(self.document, line)
        start = text.find('"')
        return text[start + 1 : text.rfind('"')] if start >= 0 else None

    def _table_row_line(self, table: str, row_id: int) -> int | None:
        """The line of a row of a stack-frame table (a hover follows a whole Python stack through them)."""
        return self._table_row_lines.get((table, row_id))


_ALIAS_ENTRY = re.compile(r"\(\s*([0-9]+)\s*,\s*\{([0-9,\s]*)\}")


def _record_fields(text: str) -> dict[str, int]:
    fields = {}
    for part in text[text.find("{") + 1 : text.rfind("}")].split():
        key, _, value = part.partition("=")
        if value.isdigit():
            fields[key] = int(value)
    return fields


def _alias_pairs(text: str) -> list[tuple[int, tuple[int, ...]]]:
    """Reads `{ {0}: (0, {}, may-alias), ... }` into (parameter, index) pairs."""
    pairs = []
    for match in _ALIAS_ENTRY.finditer(text):
        index = tuple(int(digits) for part in match.group(2).split(",") if (digits := "".join(part.split())))
        pairs.append((int(match.group(1)), index))
    return pairs
