"""The structure of an HLO module read in one pass over its line scans, and whether an edit kept it.

The structure is what the names, kinds and shapes of the lines say: the header, the computations
and their instructions' lines, where each instruction is defined, the stack-frame tables' rows.
An edit that changes none of them (an op_name, an attribute value) keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.model.chunk import Chunk
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.line_scan import LineScan, Ref, Role
from hlo_lsp.text import Range


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


class HloStructure:
    """What one pass over an HLO document's scans reads (no lark)."""

    __slots__ = ("name", "header_line", "computations", "computation_starts", "computation_order",
                 "first_definition", "irregular", "later_definitions", "table_row_lines", "rows_in_order",
                 "row_names")

    def __init__(self, document: Document) -> None:
        self.name: str | None = None
        self.header_line: int | None = None
        self.computations: dict[str, Computation] = {}
        self.computation_starts: list[int] = []
        self.computation_order: list[Computation] = []
        self.first_definition: dict[str, int] = {}  # in a computation
        self.irregular: set[str] = set()  # names defined twice, or outside any computation
        self.later_definitions: dict[str, list[int]] = {}  # in a computation, after the first
        self.table_row_lines: dict[tuple[str, int], int] = {}  # (table, row id) -> line
        self.rows_in_order: list[tuple[str, int, int]] = []  # (table, row id, line), in file order
        self.row_names: dict[Role, set[str]] = {}  # the rows' ids as printed, by the role of the table's rows
        self._read(document)

    def _read(self, document: Document) -> None:
        open_computation: tuple[int, str, bool, Range] | None = None
        instructions: list[int] = []
        roots: list[int] = []
        first, irregular = self.first_definition, self.irregular
        for line, scan in document.scans():
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
                        self.later_definitions.setdefault(name, []).append(line)
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
                    self.row_names.setdefault(ref.role, set()).add(ref.name)
                table, row, _ = scan.data
                if row.isdigit():
                    self.table_row_lines.setdefault((table, int(row)), line)
                    self.rows_in_order.append((table, int(row), line))
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
        if in_computation and name not in self.first_definition:
            self.first_definition[name] = line
        else:
            self.irregular.add(name)
            if in_computation:
                self.later_definitions.setdefault(name, []).append(line)

    def _add(self, opened: tuple[int, str, bool, Range], end: int | None, lines: list[int], roots: list[int]) -> None:
        line, name, is_entry, name_range = opened
        computation = Computation(name, line, end, is_entry, name_range, tuple(lines), tuple(roots))
        self.computations.setdefault(name, computation)
        self.computation_starts.append(line)
        self.computation_order.append(computation)


# Beyond this many changed chunks an edit is not worth comparing: the structure is read again.
_COMPARED_CHUNKS = 8


def same_structure(old: Document, new: Document) -> bool:
    """Whether every line that differs between the versions is an instruction whose scan (kind,
    name, spans), shape text and the names it uses are unchanged (a use may have moved along its
    line: an edit of an op_name moves the stack_frame_id after it), but for the stack frame it
    names: the structure holds no use, and each frame a line names is resolved when asked."""
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
    return len(old) == len(new) and all(a.role == b.role and (a.name == b.name or a.role is Role.FRAME_USE)
                                        for a, b in zip(old, new))
