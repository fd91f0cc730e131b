"""The HLO module view of a Document: computations, instructions, stack frames.

Built from the line scans in one pass over the scans (no lark); an instruction's
full syntax is parsed with the grammar only when someone asks for it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived
from hlo_lsp.model.document import Chunk, Document
from hlo_lsp.model.lazy import lazy
from hlo_lsp.parsing.hlo_scanner import (
    blank_comments,
    comment_end_blanked,
    continued_end,
    goes_on_from_above,
    item_text,
    printed_parent_frame,
)
from hlo_lsp.parsing.hlo_syntax import parse_instruction, parse_shape
from hlo_lsp.parsing.line_scan import LineScan, Ref, Role, as_one_line
from hlo_lsp.parsing.syntax import Attribute, Instruction, ParseError, Shape
from hlo_lsp.parsing.validation import module_header_attribute
from hlo_lsp.text import Range

_INSTRUCTION_DEF = frozenset((Role.INSTRUCTION_DEF,))
_COMPUTATION_DEF = frozenset((Role.COMPUTATION_DEF,))


@dataclass(frozen=True, slots=True)
class Computation:
    name: str
    line: int  # header line
    end_line: int | None  # the closing `}` (None when missing)
    is_entry: bool
    name_range: Range
    instruction_lines: tuple[int, ...]
    root_lines: tuple[int, ...]


_Opened = tuple[int, str, bool, Range]  # an open computation: header line, name, is ENTRY, name range


@dataclass(frozen=True, slots=True)
class InstructionSite:
    """Where an instruction is defined, with what the scanner read off its line."""

    name: str
    line: int
    name_range: Range
    opcode: str
    is_root: bool
    computation: str | None


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


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """Where in the user's program an instruction comes from."""

    file_name: str
    line: int | None
    function_name: str | None = None
    stack: tuple[StackFrame, ...] = ()  # innermost first, when the dump has StackFrames tables


class HloModule:
    """Read-only view of one HLO module document."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.name: str | None = None
        self.header_line: int | None = None
        self.computations: dict[str, Computation] = {}
        self._computation_starts: list[int] = []
        self._computation_order: list[Computation] = []
        self._first_definition: dict[str, int] = {}  # in a computation
        self._irregular: set[str] = set()  # names defined twice, or outside any computation
        self._later_definitions: dict[str, list[int]] = {}  # in a computation, after the first
        self._table_row_lines: dict[tuple[str, int], int] = {}  # (table, row id) -> line
        self._rows_in_order: list[tuple[str, int, int]] = []  # (table, row id, line), in file order
        self._row_names: dict[Role, set[str]] = {}  # the rows' ids as printed, by the role of the table's rows
        self._defined_names: dict[Role, frozenset[str]] | None = None
        # Shared by the versions of an edited module whose structure is the same (see `edited`), with
        # what was derived from that structure.
        self.structure_id = object()
        self.derived = Derived()
        with paused_collector():
            self._read_structure()

    def edited(self, document: Document) -> HloModule:
        """The view of `document`, a later version of this module's document. When the edit changed
        no name, no line's kind and no instruction's shape (an op_name, an attribute value), the
        structure read from the old version still holds and is shared, with its `structure_id`."""
        if not _same_structure(self.document, document):
            return HloModule(document)
        view = HloModule.__new__(HloModule)
        view.__dict__.update(self.__dict__)
        view.document = document
        return view

    def _read_structure(self) -> None:
        open_computation: tuple[int, str, bool, Range] | None = None
        instructions: list[int] = []
        roots: list[int] = []
        first, irregular = self._first_definition, self._irregular
        for line, scan in self.document.scans():
            kind = scan.kind
            if kind == "instruction":
                instructions.append(line)
                if scan.data[4]:
                    roots.append(line)
                name = scan.data[0]
                if open_computation is not None and name not in first:
                    first[name] = line
                else:  # inlined: a method call per instruction costs a tenth of a second at 40 MB
                    irregular.add(name)
                    if open_computation is not None:
                        self._later_definitions.setdefault(name, []).append(line)
            elif kind == "computation" or kind == "computation_end":
                open_computation, instructions, roots = self._read_bound(line, scan, open_computation, instructions,
                                                                         roots)
            elif kind == "items":
                for _, item in scan.data:
                    if item.kind == "instruction":
                        self._read_item_instruction(line, item, open_computation is not None, instructions, roots)
                    elif item.kind in ("computation", "computation_end"):
                        open_computation, instructions, roots = self._read_bound(line, item, open_computation,
                                                                                 instructions, roots)
            elif kind == "table_row":
                for ref in scan.refs:
                    self._row_names.setdefault(ref.role, set()).add(ref.name)
                table, row, _ = scan.data
                if row.isdigit():
                    self._table_row_lines.setdefault((table, int(row)), line)
                    self._rows_in_order.append((table, int(row), line))
            elif kind == "module_header" and self.header_line is None:
                self.header_line = line
                self.name = scan.data[0] if scan.data else None
        if open_computation is not None:
            self._add(open_computation, None, instructions, roots)

    def _read_bound(self, line: int, scan: LineScan, opened: _Opened | None, instructions: list[int],
                    roots: list[int]) -> tuple[_Opened | None, list[int], list[int]]:
        """A computation header or closing `}`: the computation open before it is added."""
        if scan.kind == "computation_end":
            if opened is None:
                return opened, instructions, roots
            self._add(opened, line, instructions, roots)
            return None, [], []
        if opened is not None:
            self._add(opened, None, instructions, roots)
        ref = scan.refs[0]
        return (line, scan.data[0], scan.data[1], Range.on_line(line, ref.start, ref.end)), [], []

    def _read_item_instruction(self, line: int, scan: LineScan, in_computation: bool, instructions: list[int],
                               roots: list[int]) -> None:
        """An instruction among the items of a line that holds several."""
        instructions.append(line)
        if scan.data[4]:
            roots.append(line)
        name = scan.data[0]
        if in_computation and name not in self._first_definition:
            self._first_definition[name] = line
        else:
            self._irregular.add(name)
            if in_computation:
                self._later_definitions.setdefault(name, []).append(line)

    def _add(self, opened: tuple[int, str, bool, Range], end: int | None, lines: list[int], roots: list[int]) -> None:
        line, name, is_entry, name_range = opened
        computation = Computation(name, line, end, is_entry, name_range, tuple(lines), tuple(roots))
        self.computations.setdefault(name, computation)
        self._computation_starts.append(line)
        self._computation_order.append(computation)

    # ---- computations -------------------------------------------------------------

    @property
    def entry(self) -> Computation | None:
        """The ENTRY computation; without one, the last computation (XLA's parser takes that)."""
        entries = [c for c in self._computation_order if c.is_entry]
        if entries:
            return entries[0]
        return self._computation_order[-1] if self._computation_order else None

    def computation_at(self, line: int, character: int | None = None) -> Computation | None:
        """The computation holding `line` (at `character`, on a line that holds several items)."""
        index = bisect.bisect_right(self._computation_starts, line) - 1
        if character is not None:  # computations that open on this line after `character` hold it not
            while index > 0 and self._computation_starts[index] == line and \
                    self._computation_order[index].name_range.start.character > character:
                index -= 1
        if index < 0:
            return None
        computation = self._computation_order[index]
        if computation.end_line is not None and line > computation.end_line:
            return None
        return computation

    def all_computations(self) -> list[Computation]:
        return list(self._computation_order)

    @lazy
    def lone_instruction(self) -> int | None:
        """The line of the one instruction of a text that holds nothing else (see lone_instruction_line)."""
        if self.header_line is not None or self._computation_order:
            return None
        return lone_instruction_line(self.document)

    def defined_names(self) -> dict[Role, frozenset[str]]:
        """Every name the module defines, by the role of its definition (from the structure: only
        instruction and computation headers and the tables' rows define names)."""
        if self._defined_names is None:
            with paused_collector():
                found = {Role.INSTRUCTION_DEF: frozenset(self._first_definition).union(self._irregular),
                         Role.COMPUTATION_DEF: frozenset(self.computations)}
                found.update((role, frozenset(names)) for role, names in self._row_names.items())
            self._defined_names = {role: names for role, names in found.items() if names}
        return self._defined_names

    @property
    def names_are_unique(self) -> bool:
        """Whether every instruction is defined once, inside a computation (as XLA prints them)."""
        return not self._irregular

    def defines(self, computation: Computation, name: str, before: int | None = None) -> bool:
        """Whether `computation` defines instruction `name` (the scope of its operands), before line
        `before` when given (XLA's parser takes a name only once it is defined).

        Computations do not interleave, so a definition between a computation's first and last
        instruction lines is one of its own: a name in scope is a lookup, not a set per computation
        (a 40 MB module has 40,000 computations)."""
        lines = computation.instruction_lines
        line = self._first_definition.get(name)
        if line is None or not lines:
            return False
        first, last = lines[0], lines[-1]
        if before is not None and before <= last:
            last = before - 1
        if first <= line <= last:
            return True
        return any(first <= later <= last for later in self._later_definitions.get(name, ()))

    def instruction_scans(self) -> Iterator[tuple[Computation, int, LineScan]]:
        """(computation, line, scan) of every instruction inside a computation, in line order:
        one walk over the scans next to the computations' (ascending) instruction lines."""
        wanted = ((computation, line) for computation in self._computation_order
                  for line in computation.instruction_lines)
        owner, next_line = next(wanted, (None, None))
        with paused_collector():
            for line, scan in self.document.scans():
                if line != next_line:
                    continue
                if scan.kind != "items":
                    yield owner, line, scan  # type: ignore[misc]
                    owner, next_line = next(wanted, (None, None))
                    continue
                for _, item in scan.data:  # a line of several items is listed once per instruction
                    if item.kind == "instruction" and line == next_line:
                        yield owner, line, item  # type: ignore[misc]
                        owner, next_line = next(wanted, (None, None))

    def instruction_items(self, computation: Computation) -> Iterator[tuple[int, int, LineScan]]:
        """(line, start, scan) of each instruction of `computation`; `start` is where it starts on a line
        that holds several items, else 0."""
        for line in dict.fromkeys(computation.instruction_lines):
            scan = self.document.scan(line)
            if scan.kind != "items":
                yield line, 0, scan
                continue
            for start, item in scan.data:
                if item.kind == "instruction" and self.computation_at(line, start) is computation:
                    yield line, start, item

    # ---- instructions -------------------------------------------------------------

    def definition_lines(self, name: str) -> list[int]:
        return [line for line, _ in self.document.definitions(name, _INSTRUCTION_DEF)]

    def site(self, name: str, near_line: int | None = None) -> InstructionSite | None:
        """Where instruction `name` is defined; within the computation of `near_line` first."""
        if name not in self._irregular:  # defined once: no search of the document's definitions
            line = self._first_definition.get(name)
            if line is not None:
                ref = self.instruction_scan(line, name).refs[0]
                return self._site(line, ref.start, ref.end)
        found = self.document.definitions(name, _INSTRUCTION_DEF)
        if not found:
            return None
        line, ref = found[0]
        if len(found) > 1 and near_line is not None:
            here = self.computation_at(near_line)
            for candidate_line, candidate in found:
                if here is not None and self.computation_at(candidate_line) == here:
                    line, ref = candidate_line, candidate
                    break
        return self._site(line, ref.start, ref.end)

    def site_at_line(self, line: int) -> InstructionSite | None:
        """The instruction on `line`: the first, when the line holds several items."""
        scan = self.document.scan(line)
        if scan.kind == "items":
            scan = next((item for _, item in scan.data if item.kind == "instruction"), scan)
        if scan.kind != "instruction":
            return None
        ref = scan.refs[0]
        return self._site(line, ref.start, ref.end)

    def _site(self, line: int, start: int, end: int) -> InstructionSite:
        scan = self.document.scan(line)
        if scan.kind == "items":  # the item whose name is at `start`
            scan = next(item for _, item in scan.data
                        if item.kind == "instruction" and any(ref.start == start for ref in item.refs))
        computation = self.computation_at(line, start)
        opcode = scan.data[3]
        if not opcode:
            continued = self._continued_head(line, scan.data[0])
            opcode = continued.opcode if continued is not None else opcode
        return InstructionSite(scan.data[0], line, Range.on_line(line, start, end), opcode, scan.data[4],
                               computation.name if computation else None)

    def _continued_head(self, line: int, name: str | None = None) -> Instruction | None:
        """The instruction on `line` parsed whole when its shape and opcode are on the lines below (`v =`)."""
        if line + 1 >= self.document.line_count or not goes_on_from_above(self.document.scan(line + 1)):
            return None
        parsed = parse_instruction(as_one_line(self.instruction_text(line, name).lstrip()))
        return parsed if isinstance(parsed, Instruction) else None

    def whole_text(self, line: int) -> str:
        """The text of `line` with the continuation lines after it."""
        return text_over_lines(self.document, line)

    def instruction_text(self, line: int, name: str | None = None) -> str:
        """The full text of the instruction on `line`, with continuation lines; on a line of several
        items, that of the one `instruction_scan` picks (the others blanked)."""
        text = self.whole_text(line)
        scan = self.document.scan(line)
        if scan.kind == "items":
            picked = self.instruction_scan(line, name)
            start = next((start for start, item in scan.data if item is picked), 0)
            return item_text(text, scan, start)
        return text

    def instruction_scan(self, line: int, name: str | None = None) -> LineScan:
        """The scan of the instruction on `line`. On a line of several items: the one defining `name`,
        else the ROOT among them, else the last."""
        scan = self.document.scan(line)
        if scan.kind != "items":
            return scan
        items = [item for _, item in scan.data if item.kind == "instruction"]
        return next((item for item in items if item.data[0] == name), None) or next(
            (item for item in items if item.data[4]), items[-1] if items else scan)

    def parse(self, line: int, name: str | None = None) -> Instruction | ParseError:
        """The instruction on `line` (`name`, on a line of several items) parsed."""
        text = self.instruction_text(line, name)
        return parse_instruction(text.lstrip() if self.document.scan(line).kind == "items" else text)

    def line_of(self, name: str) -> int | None:
        """The line defining instruction `name` (the first, if several computations define it)."""
        return self._first_definition.get(name)

    def shape_of(self, name: str) -> Shape | None:
        """The instruction's shape, read from its line without parsing the rest."""
        line = self.line_of(name)
        return self.shape_at_line(line, name) if line is not None else None

    def shape_at_line(self, line: int, name: str | None = None) -> Shape | None:
        """The shape written for the instruction on `line` (`name`, on a line of several items)."""
        scan = self.instruction_scan(line, name)
        if scan.kind != "instruction":
            return None
        if not scan.data[3]:
            continued = self._continued_head(line, scan.data[0])
            return continued.shape if continued is not None else None
        shape = parse_shape(self.written_shape(line, scan))
        return None if isinstance(shape, ParseError) else shape

    def written_shape(self, line: int, scan: LineScan) -> str:
        """The result shape written on `line` between the instruction `scan`'s `=` and its opcode (a comment
        there reads as spaces: `v = /* c */abs(p)` has none)."""
        text = self.document.line(line)
        return (blank_comments(text)[0] if "/*" in text else text)[scan.data[1] : scan.data[2]].strip()

    def source_location(self, line: int, name: str | None = None) -> SourceLocation | None:
        """The instruction's source: source_file/source_line, or its stack_frame_id resolved."""
        instruction = self.parse(line, name)
        metadata = instruction.metadata if isinstance(instruction, Instruction) else None
        if metadata is None:
            return None
        return self.source_of(metadata.source_file, metadata.source_line, metadata.stack_frame_id)

    def source_of(self, source_file: str | None, source_line: int | None,
                  frame_id: int | None) -> SourceLocation | None:
        """Where metadata points: its source_file/source_line, else its stack frame resolved."""
        if source_file:
            return SourceLocation(source_file, source_line)
        if frame_id is None:
            return None
        stack = self.stack(frame_id)
        if not stack or stack[0].file_name is None:
            return None
        return SourceLocation(stack[0].file_name, stack[0].line, stack[0].function_name, tuple(stack))

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
        return (line, _record_fields(self.whole_text(line))) if line is not None else None

    def _table_string(self, table: str, row_id: int) -> str | None:
        line = self._table_row_line(table, row_id)
        if line is None:
            return None
        text = self.whole_text(line)
        start = text.find('"')
        return text[start + 1 : text.rfind('"')] if start >= 0 else None

    def _table_row_line(self, table: str, row_id: int) -> int | None:
        """The line of a row of a stack-frame table (a hover follows a whole Python stack through them)."""
        return self._table_row_lines.get((table, row_id))


# Beyond this many changed chunks an edit is not worth comparing: the structure is read again.
_COMPARED_CHUNKS = 8


def comment_above_blanked(document: Document, line: int, text: str) -> str:
    """`text`, that of `line`, with a block comment opened above it that ends on it blanked (none is known
    where the document does not hold the line above: a glance's runs)."""
    if not line or "*/" not in text:
        return text
    try:
        above = document.scan(line - 1).end_state
    except IndexError:
        return text
    return comment_end_blanked(above, text) or text


def text_over_lines(document: Document, line: int) -> str:
    """The text of `line` with the lines that go on with its item below it, as far as it goes on (a line
    may end it and start others: `p), calls=w ROOT d = ...`); a block comment it ends, opened above, blanked."""
    text = comment_above_blanked(document, line, document.line(line).rstrip("\r"))
    following = line + 1
    while following < document.line_count:
        part = document.line(following).rstrip("\r")
        end = continued_end(document.scan(following), part)
        if end is None:
            break
        text += "\n" + part[:end]
        if end < len(part):
            break
        following += 1
    return text


_AROUND_A_LONE_INSTRUCTION = frozenset(("blank", "comment", "continuation"))


def lone_instruction_line(document: Document) -> int | None:
    """The line of the one instruction of a text that holds nothing else (no `HloModule`, no computation):
    XLA's parser reads it as a module of that instruction (`_`, a parameter made for each operand written
    with its shape)."""
    found = None
    for line, scan in document.scans():
        if scan.kind == "instruction" and found is None and scan.problem is not None and \
                scan.problem.code == "instruction-outside-computation":
            found = line
        elif scan.kind not in _AROUND_A_LONE_INSTRUCTION:
            return None
    return found


def _same_structure(old: Document, new: Document) -> bool:
    """Whether every line that differs between the versions is an instruction whose scan (kind,
    name, spans), shape text and the names it uses are unchanged (a use may have moved along its
    line: an edit of an op_name moves the stack_frame_id after it)."""
    if old.line_count != new.line_count or len(old.chunks) != len(new.chunks):
        return False
    edit = new.edited_from
    if edit is not None and edit.previous is old and edit.new_end == edit.old_end:
        changed = list(zip(old.chunks[edit.first : edit.old_end], new.chunks[edit.first : edit.new_end]))
    else:
        changed = [(before, after) for before, after in zip(old.chunks, new.chunks) if before is not after]
    if len(changed) > _COMPARED_CHUNKS:
        return False
    return all(_same_chunk_structure(before, after) for before, after in changed)


def _same_chunk_structure(before: Chunk, after: Chunk) -> bool:
    if len(before.lines) != len(after.lines):
        return False
    rows = zip(before.lines, after.lines, before.scans, after.scans, before.uses(), after.uses())
    for old_text, new_text, old_scan, new_scan, old_uses, new_uses in rows:
        if old_text == new_text or (old_scan.kind == "blank" and old_scan == new_scan):
            continue
        if old_scan != new_scan or old_scan.kind != "instruction" or not _same_names(old_uses, new_uses):
            return False
        start, end = old_scan.data[1], old_scan.data[2]
        if old_text[start:end] != new_text[start:end]:
            return False
    return True


def _same_names(old: tuple[Ref, ...], new: tuple[Ref, ...]) -> bool:
    return len(old) == len(new) and all(a.role == b.role and a.name == b.name for a, b in zip(old, new))


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
