"""What the cursor is on: an instruction, a computation, a value, a stack frame, an allocation, a shape."""

from __future__ import annotations

import re

from hlo_lsp.features.types import Target
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.line_scan import DEFINITION_ROLES, Ref, Role
from hlo_lsp.text import Position, Range, Utf16Columns, utf16_column

_KIND_OF_ROLE = {
    Role.INSTRUCTION_DEF: "instruction",
    Role.INSTRUCTION_USE: "instruction",
    Role.INSTRUCTION_MENTION: "instruction",
    Role.COMPUTATION_DEF: "computation",
    Role.COMPUTATION_USE: "computation",
    Role.COMPUTATION_MENTION: "computation",
    Role.VALUE_DEF: "value",
    Role.VALUE_MENTION: "value",
    Role.FRAME_DEF: "frame",
    Role.FRAME_USE: "frame",
    Role.LOCATION_DEF: "location",
    Role.LOCATION_USE: "location",
    Role.FILE_NAME_DEF: "file_name",
    Role.FILE_NAME_USE: "file_name",
    Role.FUNCTION_NAME_DEF: "function_name",
    Role.FUNCTION_NAME_USE: "function_name",
}

# Roles, by target kind, of every occurrence of that kind of name.
ROLES_OF_KIND: dict[str, frozenset[Role]] = {}
for _role, _kind in _KIND_OF_ROLE.items():
    ROLES_OF_KIND[_kind] = ROLES_OF_KIND.get(_kind, frozenset()) | {_role}

# An element type starts a word (a shape never starts inside one): matching stays linear in the line.
_SHAPE = re.compile(r"(?<![a-z0-9])\(?[a-z][a-z0-9]{0,15}\[[0-9,<=?]*\](?:\{[^{}]*\})?")
_ALLOCATION_HEADER = re.compile(r"[ \t]*(allocation ([0-9]+)):")


def target_at(document: Document, position: Position) -> Target | None:
    """The named thing under `position`, or None (blank space, punctuation, a line past the end)."""
    if not 0 <= position.line < document.line_count:
        return None
    ref = document.ref_at(position)
    if ref is not None:
        return _from_ref(document, position.line, ref)
    scan = document.scan(position.line)
    text = document.line(position.line).rstrip("\r")
    if scan.kind == "allocation":
        header = _ALLOCATION_HEADER.match(text)
        if header and _within(text, header.span(1), position.character):
            return _target("allocation", header.group(2), document, position.line, text, header.span(1))
    if scan.kind == "breakdown_frame":
        label_start = scan.data[2]
        span = (label_start, label_start + len(scan.data[1]))
        if _within(text, span, position.character):
            return _target("op_name", scan.data[1], document, position.line, text, span)
    return _shape_at(document, position, text)


def _from_ref(document: Document, line: int, ref: Ref) -> Target:
    return Target(_KIND_OF_ROLE[ref.role], ref.name, document.source, Range.on_line(line, ref.start, ref.end),
                  ref.role in DEFINITION_ROLES)


def _shape_at(document: Document, position: Position, text: str) -> Target | None:
    columns = Utf16Columns(text)  # one pass over a long non-ASCII line, not one per shape
    for match in _SHAPE.finditer(text):
        start = match.start() + (1 if match.group(0).startswith("(") else 0)
        if columns.column(start) > position.character:
            return None  # the shapes after it
        if position.character <= columns.column(match.end()):
            return _target("shape", text[start : match.end()], document, position.line, text, (start, match.end()))
    return None


def _within(text: str, span: tuple[int, int], character: int) -> bool:
    return utf16_column(text, span[0]) <= character <= utf16_column(text, span[1])


def _target(kind: str, name: str, document: Document, line: int, text: str, span: tuple[int, int]) -> Target:
    return Target(kind, name, document.source,
                  Range.on_line(line, utf16_column(text, span[0]), utf16_column(text, span[1])))
