"""Document links (textDocument/documentLink) from a dump to the user's Python source.

- `source_file="…"` in metadata (older XLA): the path, opening the file at `source_line=`.
- `stack_frame_id=N` (JAX 0.10.2): the key `stack_frame_id` opens the innermost frame's file
  at its line, read through the `StackFrames` → `FileLocations` → `FileNames` tables (the
  number itself still goes to the frame's row with go-to-definition).
- The tables' rows: a `FileNames` path, a `FileLocations` row's `line=N`, a `StackFrames`
  row's `file_location_id` key.

The file a path names is found by the `find` function the caller passes (it may look on
disk; this module does not); a path it cannot find gets no link. A document gets at most
`MAX_LINKS` links: a 40 MB module has one per instruction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import printed_parent_frame
from hlo_lsp.text import Range, Utf16Columns

MAX_LINKS = 20_000
_MAX_STACK = 64

# find(printed path, path of the dump that prints it) -> the file's path, or None.
FindSource = Callable[[str, str], str | None]

_SOURCE_FILE = re.compile(r'source_file="((?:[^"\\]|\\.)*)"')
_SOURCE_LINE = re.compile(r"source_line=([0-9]{1,9})")
_STACK_FRAME = re.compile(r"(?<![\w])(stack_frame_id)=([0-9]{1,18})")
_FIELD = re.compile(r"([a-z_]+)=([0-9]{1,18})")


@dataclass(frozen=True, slots=True)
class Link:
    range: Range
    path: str  # the file found
    line: int | None  # 1-based line in it
    tooltip: str


@dataclass(frozen=True, slots=True)
class Frame:
    """One resolved stack frame: where in the user's program."""

    file_name: str
    line: int | None
    function_name: str | None
    parent: int | None

    def text(self) -> str:
        where = self.file_name + (f":{self.line}" if self.line is not None else "")
        return where + (f" in {self.function_name}" if self.function_name else "")


class FrameTables:
    """The FileNames / FunctionNames / FileLocations / StackFrames tables of an HLO module."""

    def __init__(self, document: Document | None) -> None:
        self.files: dict[int, str] = {}
        self.functions: dict[int, str] = {}
        self.locations: dict[int, dict[str, int]] = {}
        self.frames: dict[int, dict[str, int]] = {}
        self.rows: list[tuple[int, str, int]] = []  # (line, table, row id)
        if document is None or document.kind is not FileKind.HLO_MODULE:
            return
        for line, scan in document.lines_of_kind("table_row"):
            table, row = scan.data[0], int(scan.data[1])
            text = document.line(line).rstrip("\r")
            body = text[scan.data[2]:]
            if table in ("FileNames", "FunctionNames"):
                value = body.strip()[1:-1] if body.strip().startswith('"') else body.strip()
                (self.files if table == "FileNames" else self.functions).setdefault(row, _unescape(value))
            else:
                fields = {key: int(number) for key, number in _FIELD.findall(body)}
                (self.locations if table == "FileLocations" else self.frames).setdefault(row, fields)
            self.rows.append((line, table, row))

    def location(self, location_id: int | None) -> Frame | None:
        where = self.locations.get(location_id) if location_id is not None else None
        if where is None:
            return None
        file_name = self.files.get(where.get("file_name_id", -1))
        if file_name is None:
            return None
        return Frame(file_name, where.get("line"), self.functions.get(where.get("function_name_id", -1)), None)

    def frame(self, frame_id: int) -> Frame | None:
        fields = self.frames.get(frame_id)
        if fields is None:
            return None
        where = self.location(fields.get("file_location_id"))
        if where is None:
            return None
        printed = fields.get("parent_frame_id")
        parent = printed_parent_frame(printed) if printed is not None else None
        return Frame(where.file_name, where.line, where.function_name, parent if parent != frame_id else None)

    def stack(self, frame_id: int) -> list[Frame]:
        """The frame and its callers, innermost first."""
        frames: list[Frame] = []
        seen: set[int] = set()
        current: int | None = frame_id
        while current is not None and current not in seen and len(frames) < _MAX_STACK:
            seen.add(current)
            frame = self.frame(current)
            if frame is None:
                break
            frames.append(frame)
            current = frame.parent
        return frames


def document_links(module: ModuleDump, document: Document, find: FindSource) -> list[Link]:
    hlo_document = module.hlo_document
    tables = FrameTables(hlo_document if hlo_document is not None else None)
    found: dict[str, str | None] = {}

    def resolve(printed: str) -> str | None:
        if printed not in found:
            found[printed] = find(printed, document.source)
        return found[printed]

    links: list[Link] = []
    if document is hlo_document:
        links.extend(_table_links(document, tables, resolve))
    for line, text in _lines_with_sources(document):
        columns = None if text.isascii() else Utf16Columns(text)
        for match in _SOURCE_FILE.finditer(text):
            path = resolve(_unescape(match.group(1)))
            if path is None:
                continue
            number = _SOURCE_LINE.search(text, match.end())
            source_line = int(number.group(1)) if number and number.start() - match.end() < 200 else None
            tooltip = _tooltip(_unescape(match.group(1)), source_line, None, path)
            links.append(Link(_range(columns, line, match.start(1), match.end(1)), path, source_line, tooltip))
        for match in _STACK_FRAME.finditer(text):
            stack = tables.stack(int(match.group(2)))
            path = resolve(stack[0].file_name) if stack else None
            if path is None:
                continue
            callers = f" (and {len(stack) - 1} caller{'s' if len(stack) > 2 else ''})" if len(stack) > 1 else ""
            tooltip = _tooltip(stack[0].file_name, stack[0].line, stack[0].function_name, path) + callers
            links.append(Link(_range(columns, line, match.start(1), match.end(1)), path, stack[0].line, tooltip))
        if len(links) >= MAX_LINKS:
            return links[:MAX_LINKS]
    return links


def _lines_with_sources(document: Document):  # type: ignore[no-untyped-def]
    line = 0
    for chunk in document.chunks:
        for text in chunk.lines:
            if "source_file=" in text or "stack_frame_id=" in text:
                yield line, text.rstrip("\r")
            line += 1


def _table_links(document: Document, tables: FrameTables, resolve: Callable[[str], str | None]) -> list[Link]:
    links = []
    for line, table, row in tables.rows:
        text = document.line(line).rstrip("\r")
        columns = None if text.isascii() else Utf16Columns(text)
        if table == "FileNames":
            printed = tables.files[row]
            path = resolve(printed)
            start = text.find('"')
            end = text.rfind('"')
            if path is not None and 0 <= start < end:
                links.append(Link(_range(columns, line, start + 1, end), path, None,
                                  _tooltip(printed, None, None, path)))
        elif table == "FileLocations":
            where = tables.location(row)
            field = re.search(r"(?<![\w])line=[0-9]+", text)
            path = resolve(where.file_name) if where is not None else None
            if where is not None and path is not None and field is not None:
                links.append(Link(_range(columns, line, field.start(), field.end()), path, where.line,
                                  _tooltip(where.file_name, where.line, where.function_name, path)))
        elif table == "StackFrames":
            frame = tables.frame(row)
            key = text.find("file_location_id")
            path = resolve(frame.file_name) if frame is not None else None
            if frame is not None and path is not None and key >= 0:
                links.append(Link(_range(columns, line, key, key + len("file_location_id")), path, frame.line,
                                  _tooltip(frame.file_name, frame.line, frame.function_name, path)))
    return links


def _tooltip(printed: str, line: int | None, function: str | None, path: str) -> str:
    text = Frame(printed, line, function, None).text()
    return text if path == printed else f"{text} (found at {path})"


def _range(columns: Utf16Columns | None, line: int, start: int, end: int) -> Range:
    if columns is None:
        return Range.on_line(line, start, end)
    return Range.on_line(line, columns.column(start), columns.column(end))


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r"\\(.)", lambda match: match.group(1), text)
