"""Answers of the IDE layer, in editor terms: sources (paths or URIs) and UTF-16 ranges."""

from __future__ import annotations

from dataclasses import dataclass, field

from hlo_lsp.text import Range


@dataclass(frozen=True, slots=True)
class Location:
    source: str
    range: Range


@dataclass(frozen=True, slots=True)
class Target:
    """What the cursor is on."""

    kind: str  # instruction, computation, value, frame, location, file_name, function_name, allocation, shape, op_name
    name: str  # the instruction/computation name, value id, frame id, allocation index, shape or op_name text
    source: str  # the document the cursor is in
    range: Range  # the text under the cursor that names it
    is_definition: bool = False


@dataclass(frozen=True, slots=True)
class Highlight:
    range: Range
    is_definition: bool


@dataclass(frozen=True, slots=True)
class HoverInfo:
    markdown: str
    range: Range


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    kind: str  # module, namespace, function, variable, field, struct, array, event
    range: Range  # the whole construct
    selection_range: Range  # its name
    detail: str = ""
    children: tuple[Symbol, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class WorkspaceSymbol:
    name: str
    kind: str
    location: Location
    container: str = ""


@dataclass(frozen=True, slots=True)
class Fold:
    start_line: int
    end_line: int
    kind: str = "region"
