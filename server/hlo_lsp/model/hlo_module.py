"""The HLO module view of a Document: computations, instructions, stack frames.

Built from the line scans in one pass over the scans (no lark: `model/hlo_structure.py`); an
instruction's full syntax is parsed with the grammar only when someone asks for it. The header and
the stack-frame tables are read by `model/hlo_tables.py`, text over lines by `model/hlo_lines.py`.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass

from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_lines import comment_above_blanked, lone_instruction_line, text_over_lines
from hlo_lsp.model.hlo_structure import Computation, HloStructure, same_structure
from hlo_lsp.model.hlo_tables import FileLocation, HeaderAndTables, StackFrame
from hlo_lsp.model.lazy import lazy
from hlo_lsp.parsing.hlo_scanner import blank_comments, goes_on_from_above, item_text
from hlo_lsp.parsing.hlo_syntax import parse_instruction, parse_shape
from hlo_lsp.parsing.line_scan import LineScan, Role, as_one_line
from hlo_lsp.parsing.printed_metadata import printed_metadata
from hlo_lsp.parsing.syntax import Instruction, Metadata, ParseError, Shape
from hlo_lsp.parsing.validation import instruction_error
from hlo_lsp.text import Range

__all__ = [
    "Computation", "FileLocation", "HloModule", "InstructionSite", "SourceLocation", "StackFrame",
    "comment_above_blanked", "lone_instruction_line", "text_over_lines",
]

_INSTRUCTION_DEF = frozenset((Role.INSTRUCTION_DEF,))


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
class SourceLocation:
    """Where in the user's program an instruction comes from."""

    file_name: str
    line: int | None
    function_name: str | None = None
    stack: tuple[StackFrame, ...] = ()  # innermost first, when the dump has StackFrames tables


class HloModule(HeaderAndTables):
    """Read-only view of one HLO module document."""

    def __init__(self, document: Document) -> None:
        self.document = document
        with paused_collector():
            structure = HloStructure(document)
        # What the structure read, as the view's own attributes: the lookups below are on hot paths.
        self.name, self.header_line = structure.name, structure.header_line
        self.computations = structure.computations
        self._computation_starts = structure.computation_starts
        self._computation_order = structure.computation_order
        self._first_definition = structure.first_definition  # in a computation
        self._irregular = structure.irregular  # names defined twice, or outside any computation
        self._later_definitions = structure.later_definitions  # in a computation, after the first
        self._table_row_lines = structure.table_row_lines
        self._rows_in_order = structure.rows_in_order
        self._row_names = structure.row_names  # the rows' ids as printed, by the role of the table's rows
        self._defined_names: dict[Role, Set[str]] | None = None
        # Shared by the versions of an edited module whose structure is the same (see `edited`), with
        # what was derived from that structure.
        self.structure_id = object()
        self.derived = Derived()

    def edited(self, document: Document) -> HloModule:
        """The view of `document`, a later version of this module's document. When the edit changed
        no name, no line's kind and no instruction's shape (an op_name, an attribute value), the
        structure read from the old version still holds and is shared, with its `structure_id`."""
        if not same_structure(self.document, document):
            return HloModule(document)
        view = HloModule.__new__(HloModule)
        view.__dict__.update(self.__dict__)
        view.document = document
        return view

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

    def defined_names(self) -> dict[Role, Set[str]]:
        """Every name the module defines, by the role of its definition (from the structure: only
        instruction and computation headers and the tables' rows define names)."""
        if self._defined_names is None:
            with paused_collector():
                # Where every instruction is defined once, in a computation (as XLA prints them), the names are
                # the keys of the structure's own dict: a set of them would copy 300,000 entries at 40 MB (17 MB).
                instructions: Set[str] = self._first_definition.keys() if not self._irregular else \
                    frozenset(self._first_definition).union(self._irregular)
                found = {Role.INSTRUCTION_DEF: instructions, Role.COMPUTATION_DEF: self.computations.keys()}
                found.update((role, frozenset(names)) for role, names in self._row_names.items())
            self._defined_names = {role: names for role, names in found.items() if names}
        return self._defined_names

    @property
    def names_are_unique(self) -> bool:
        """Whether every instruction is defined once, inside a computation (as XLA prints them)."""
        return not self._irregular

    @property
    def first_definitions(self) -> Mapping[str, int]:
        """The line of each instruction name's first definition inside a computation (what `defines` reads)."""
        return self._first_definition

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

    def instruction_text(self, line: int, name: str | None = None, at: int | None = None) -> str:
        """The full text of the instruction on `line`, with continuation lines; on a line of several
        items, that of the one starting `at` that column, else the one `instruction_scan` picks (the
        others blanked: two computations on one line may each have an instruction of the same name)."""
        text = self.whole_text(line)
        scan = self.document.scan(line)
        if scan.kind == "items":
            if at is None:
                picked = self.instruction_scan(line, name)
                at = next((start for start, item in scan.data if item is picked), 0)
            return item_text(text, scan, at)
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
        return parse_instruction(self._parsed_text(line, name))

    def _parsed_text(self, line: int, name: str | None) -> str:
        """The text of the instruction on `line` that the grammar reads (`name`'s, on a line of several items)."""
        text = self.instruction_text(line, name)
        return text.lstrip() if self.document.scan(line).kind == "items" else text

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

    def metadata(self, line: int, name: str | None = None) -> Metadata | None:
        """The metadata of the instruction on `line` (`name`, on a line of several items), None where it has none or
        does not parse: read as XLA prints it where the line's template is known to parse, else parsed."""
        text = self._parsed_text(line, name)
        if instruction_error(text) is None:  # (a template read before: no parse)
            printed = printed_metadata(text)
            if printed is not None:
                return printed
        instruction = parse_instruction(text)
        return instruction.metadata if isinstance(instruction, Instruction) else None

    def source_location(self, metadata: Metadata | None) -> SourceLocation | None:
        """Where an instruction's metadata (`metadata`) points: its source_file/source_line, or its stack_frame_id
        resolved."""
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
