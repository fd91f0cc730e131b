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
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Chunk, Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import HloModule, StackFrame
from hlo_lsp.text import Range, Utf16Columns

MAX_LINKS = 20_000
_MAX_STACK = 64

# find(printed path, path of the dump that prints it) -> the file's path, or None.
FindSource = Callable[[str, str], str | None]

_SOURCE_FILE = re.compile(r'source_file="((?:[^"\\]|\\.)*)"')
_SOURCE_FILE_ON_A_LINE = re.compile(r'source_file="((?:[^"\\\n]|\\[^\n])*)"')  # in the text of many lines
_SOURCE_LINE = re.compile(r"source_line=([0-9]{1,9})")
_STACK_FRAME = re.compile(r"(?<![\w])(stack_frame_id)=([0-9]{1,18})")
# A chunk's (whether it names a stack frame, the source files it names)
_DERIVED_KEY: DerivedKey[tuple[bool, frozenset[str]]] = DerivedKey("links")


@dataclass(frozen=True, slots=True)
class Link:
    range: Range
    path: str  # the file found
    line: int | None  # 1-based line in it
    tooltip: str


def document_links(module: ModuleDump, document: Document, find: FindSource) -> list[Link]:
    hlo = module.hlo
    found: dict[str, str | None] = {}

    def resolve(printed: str) -> str | None:
        if printed not in found:
            found[printed] = find(printed, document.source)
        return found[printed]

    # A module names a few hundred frames on 300,000 lines: each frame's target is read once.
    frames: dict[int, tuple[str, int | None, str] | None] = {}

    def frame_target(frame_id: int) -> tuple[str, int | None, str] | None:
        if frame_id not in frames:
            frames[frame_id] = _frame_target(hlo, frame_id, resolve) if hlo is not None else None
        return frames[frame_id]

    links: list[Link] = []
    if hlo is not None and document is module.hlo_document:
        links.extend(_table_links(document, hlo, resolve))
    # When no file of the module is found, no frame links anywhere: its lines are not read for them.
    frames_found = hlo is not None and any(resolve(name) is not None for name in hlo.file_names())
    for line, text in _lines_with_sources(document, frames_found, resolve):
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
            target = frame_target(int(match.group(2)))
            if target is not None:
                path, source_line, tooltip = target
                links.append(Link(_range(columns, line, match.start(1), match.end(1)), path, source_line, tooltip))
        if len(links) >= MAX_LINKS:
            return links[:MAX_LINKS]
    return links


def _frame_target(hlo: HloModule, frame_id: int, resolve: Callable[[str], str | None]
                  ) -> tuple[str, int | None, str] | None:
    """(path found, line, tooltip) of a frame's innermost file, or None when no file is found."""
    stack = _located_stack(hlo, frame_id)
    path = resolve(stack[0].file_name) if stack else None  # type: ignore[arg-type]
    if path is None:
        return None
    callers = f" (and {len(stack) - 1} caller{'s' if len(stack) > 2 else ''})" if len(stack) > 1 else ""
    innermost = stack[0]
    tooltip = _tooltip(innermost.file_name, innermost.line, innermost.function_name, path) + callers  # type: ignore[arg-type]
    return path, innermost.line, tooltip


def _located_stack(hlo: HloModule, frame_id: int) -> list[StackFrame]:
    """The frame and its callers, up to the first that names no file."""
    stack = []
    for frame in hlo.stack(frame_id, _MAX_STACK):
        if frame.file_name is None:
            break
        stack.append(frame)
    return stack


def _lines_with_sources(document: Document, with_frames: bool,
                        resolve: Callable[[str], str | None]) -> Iterator[tuple[int, str]]:
    """The lines that may link: those naming a source file, and a stack frame `with_frames`. A chunk
    none of whose source files is found is passed over after one search of its text (older XLA
    prints `source_file=` on every instruction)."""
    line = 0
    for chunk in document.chunks:
        names_frames, sources = _chunk_sources(chunk)
        if not (with_frames and names_frames) and not any(resolve(printed) is not None for printed in sources):
            line += len(chunk.lines)
            continue
        for text in chunk.lines:
            if "source_file=" in text or (with_frames and "stack_frame_id=" in text):
                yield line, text.rstrip("\r")
            line += 1


def _chunk_sources(chunk: Chunk) -> tuple[bool, frozenset[str]]:
    """Whether a chunk names a stack frame, and the source files it names: read once per chunk, which
    edits share between versions (VS Code asks for the links again after every edit)."""
    kept = chunk.derived.get(_DERIVED_KEY)
    if kept is None:
        joined = "\n".join(chunk.lines)
        kept = ("stack_frame_id=" in joined,
                frozenset(_unescape(printed) for printed in _SOURCE_FILE_ON_A_LINE.findall(joined)))
        chunk.derived.put(_DERIVED_KEY, kept)
    return kept


def _table_links(document: Document, hlo: HloModule, resolve: Callable[[str], str | None]) -> list[Link]:
    links = []
    for table, row, line in hlo.table_rows():
        text = document.line(line).rstrip("\r")
        columns = None if text.isascii() else Utf16Columns(text)
        if table == "FileNames":
            start, end = text.find('"'), text.rfind('"')
            printed = _unescape(text[start + 1:end]) if 0 <= start < end else None
            path = resolve(printed) if printed else None
            if path is not None and printed is not None:
                links.append(Link(_range(columns, line, start + 1, end), path, None,
                                  _tooltip(printed, None, None, path)))
        elif table in ("FileLocations", "StackFrames"):
            where = hlo.file_location(row) if table == "FileLocations" else hlo.stack_frame(row)
            field = (re.search(r"(?<![\w])line=[0-9]+", text) if table == "FileLocations"
                     else re.search("file_location_id", text))
            path = resolve(where.file_name) if where is not None and where.file_name is not None else None
            if where is not None and path is not None and field is not None:
                links.append(Link(_range(columns, line, field.start(), field.end()), path, where.line,
                                  _tooltip(where.file_name, where.line, where.function_name, path)))  # type: ignore[arg-type]
    return links


def _tooltip(printed: str, line: int | None, function: str | None, path: str) -> str:
    text = printed + (f":{line}" if line is not None else "") + (f" in {function}" if function else "")
    return text if path == printed else f"{text} (found at {path})"


def _range(columns: Utf16Columns | None, line: int, start: int, end: int) -> Range:
    if columns is None:
        return Range.on_line(line, start, end)
    return Range.on_line(line, columns.column(start), columns.column(end))


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return re.sub(r"\\(.)", lambda match: match.group(1), text)
