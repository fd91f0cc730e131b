"""The outline of an HLO module file: the module, its stack-frame tables, its computations (the ENTRY
computation first) with their instructions, kept for the next version when an edit leaves every line's kind."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from hlo_lsp.features.outline_lines import content_kind, counted, prefix_selection, short_shape, span
from hlo_lsp.features.types import Symbol
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Document, EditedFrom
from hlo_lsp.parsing.line_scan import LineScan
from hlo_lsp.text import Range, utf16_column


def hlo_outline(document: Document, limit: int | None = None) -> tuple[list[Symbol], int]:
    """An HLO module's outline (at most `limit` symbols) and the whole outline's size."""
    return _read_outline(document).symbols(limit)


# An HLO document's outline as read, without the document (a document -> reading -> document cycle
# would outlive the document: what is built is frozen out of the garbage collector's reach).
_DERIVED_KEY: DerivedKey[_HloOutline] = DerivedKey("outline")


def _read_outline(document: Document) -> _HloOutline:
    reading = document.derived.get(_DERIVED_KEY)
    edit = document.edited_from
    if reading is None and edit is not None:
        previous = edit.previous.derived.get(_DERIVED_KEY)
        if previous is not None and previous.reusable_after(edit, document):
            reading = previous
    if reading is None:
        outline = _HloOutline(document)
        outline.read()
        outline.close()
        reading = outline.of(None)
    document.derived.put(_DERIVED_KEY, reading)
    return reading.of(document)


@dataclass
class _Block:
    """A computation or stack-frame table: while it is read, then until its symbol is made. Its rows
    (instructions, table rows) are line numbers until they are made into symbols."""

    line: int
    name: str
    selection: Range
    kind: str  # the symbol kind: function (a computation) or namespace (a table)
    is_entry: bool = False
    rows: list[int] = field(default_factory=list)
    end: int = 0  # its last line
    detail: str = ""


_READ_BY_KIND = frozenset(("instruction", "table_row"))  # made into symbols from the lines when asked


class _HloOutline:
    def __init__(self, document: Document) -> None:
        self.document: Document | None = document
        self.header: tuple[int, str] | None = None  # line, module name
        self.entries: list[_Block] = []  # ENTRY computations (one, in a valid module)
        self.items: list[_Block | Symbol] = []  # the module's other children, in file order
        self.computation: _Block | None = None
        self.table: _Block | None = None
        self.instruction = -1  # the line of the instruction being read
        self.ends: dict[int, int] = {}  # the last line of each instruction with continuation lines
        self.last = 0  # the last non-blank line read

    def read(self) -> None:
        line = 0
        for chunk in self._lines.chunks:
            for text, scan in zip(chunk.lines, chunk.scans):
                if scan.kind == "instruction" and self.computation is not None and self.table is None:
                    # what `add` does with most lines of a module, inlined: 450,000 calls at 40 MB
                    if self.instruction >= 0:
                        self.computation.rows.append(self.instruction)
                    self.instruction = self.last = line
                else:
                    self.add(line, text, scan)
                line += 1

    def add(self, line: int, text: str, scan: LineScan) -> None:
        kind = content_kind(scan.kind, text)
        if kind == "blank":
            return
        if kind == "continuation":
            if self.instruction >= 0:
                self.ends[self.instruction] = line
            self.last = line
            return
        self._finish_instruction()
        if self.table is not None and kind != "table_row":
            self._finish_table()
        if kind == "instruction":
            self.instruction = line
        elif kind == "computation":
            self._finish_computation(self.last)
            ref = scan.refs[0]
            self.computation = _Block(line, scan.data[0], Range.on_line(line, ref.start, ref.end), "function",
                                      scan.data[1])
        elif kind == "computation_end":
            self._finish_computation(line)
        elif kind == "table_header":
            self.table = _Block(line, scan.data[0], prefix_selection(line, text, scan.data[0]), "namespace")
        elif kind == "table_row" and self.table is not None:
            self.table.rows.append(line)
        elif kind == "module_header" and self.header is None and scan.data:
            self.header = (line, scan.data[0])
        self.last = line

    def _finish_instruction(self) -> None:
        if self.instruction < 0:
            return
        if self.computation is not None:
            self.computation.rows.append(self.instruction)
        else:
            self.items.append(self._instruction(self.instruction))
        self.instruction = -1

    def _finish_computation(self, end: int) -> None:
        block = self.computation
        if block is None:
            return
        count = counted(len(block.rows), "instruction")
        block.detail = "ENTRY, " + count if block.is_entry else count
        block.end = end
        (self.entries if block.is_entry else self.items).append(block)
        self.computation = None

    def _finish_table(self) -> None:
        block = self.table
        if block is None:
            return
        block.detail = counted(len(block.rows), "row")
        block.end = self.last
        self.items.append(block)
        self.table = None

    def close(self) -> None:
        """Ends the blocks still open at the end of the file."""
        self._finish_instruction()
        self._finish_table()
        self._finish_computation(self.last)

    def reusable_after(self, edit: EditedFrom, document: Document) -> bool:
        """Whether this reading holds for `document` too: the lines the edit replaced are as the walk
        reads them (instructions and table rows by kind alone, every other line by its scan), and no
        instruction outside a computation was made into a symbol from its old text."""
        if any(isinstance(item, Symbol) for item in self.items):
            return False
        replaced = edit.replaced_lines(document)
        return replaced is not None and all(
            old_scan.kind == new_scan.kind and (
                old_scan.kind in _READ_BY_KIND or (old_text == new_text and old_scan == new_scan))
            for old_text, new_text, old_scan, new_scan in replaced)

    def of(self, document: Document | None) -> _HloOutline:
        """This reading, its symbols made from `document`'s lines (None: kept, making none)."""
        outline = copy.copy(self)
        outline.document = document
        return outline

    @property
    def _lines(self) -> Document:
        if self.document is None:
            raise ValueError("a reading kept without its document makes no symbols")
        return self.document

    def symbols(self, limit: int | None) -> tuple[list[Symbol], int]:
        """At most `limit` symbols (None: all), and how many the whole outline has."""
        blocks = [item for item in self.items if isinstance(item, _Block)]
        total = (self.header is not None) + len(self.entries) + len(self.items) + sum(
            len(block.rows) for block in self.entries + blocks)
        budget = total if limit is None else limit - (self.header is not None)
        children = self._within(budget)
        if self.header is None:
            return children, total
        line, name = self.header
        text = self._lines.line(line)
        name_start = text.find(name, text.find("HloModule") + len("HloModule"))
        selection = Range.on_line(line, utf16_column(text, name_start), utf16_column(text, name_start + len(name)))
        starts = [line] + [block.line for block in self.entries] + [
            item.line if isinstance(item, _Block) else item.range.start.line for item in self.items]
        first = min(starts)
        start_text = text if first == line else ""
        computations = counted(len(self.entries) + sum(1 for block in blocks if block.kind == "function"),
                                "computation")
        return [Symbol(name, "module", self._span(first, self.last, start_text), selection, computations,
                       tuple(children))], total

    def _within(self, budget: int) -> list[Symbol]:
        """The module's children within `budget` symbols: the ENTRY computation and its instructions,
        then the other computations and tables, then their rows, in file order."""
        rows: dict[int, int] = {}  # id(block) -> rows kept
        entries = self.entries[: max(budget, 0)]
        budget -= len(entries)
        for block in entries:
            rows[id(block)] = taken = min(len(block.rows), max(budget, 0))
            budget -= taken
        items = self.items[: max(budget, 0)]
        budget -= len(items)
        for item in items:
            if isinstance(item, _Block):
                rows[id(item)] = taken = min(len(item.rows), max(budget, 0))
                budget -= taken
        return [self._block(item, rows[id(item)]) if isinstance(item, _Block) else item for item in entries + items]

    def _block(self, block: _Block, rows: int) -> Symbol:
        """A block's symbol, with its first `rows` rows (its detail counts them all)."""
        make = self._instruction if block.kind == "function" else self._table_row
        return Symbol(block.name, block.kind, self._span(block.line, block.end), block.selection, block.detail,
                      tuple(make(row) for row in block.rows[:rows]))

    def _span(self, start: int, end: int, start_text: str | None = None) -> Range:
        lines = self._lines.line
        return span(start, lines(start) if start_text is None else start_text, end, lines(end))

    def _instruction(self, line: int) -> Symbol:
        text, scan = self._lines.line(line), self._lines.scan(line)
        name, shape_start, opcode_start, opcode, is_root = scan.data
        detail = f"{opcode} {short_shape(text[shape_start:opcode_start].strip())}".strip()
        ref = scan.refs[0]
        return Symbol(name, "variable", self._span(line, self.ends.get(line, line)),
                      Range.on_line(line, ref.start, ref.end), "ROOT " + detail if is_root else detail)

    def _table_row(self, line: int) -> Symbol:
        """A stack-frame table row: its id, with the string or record it holds as detail."""
        text, scan = self._lines.line(line), self._lines.scan(line)
        body = text[scan.data[2] :].strip()
        body = body[1:-1] if body[:1] in ('"', "{") else body
        ref = scan.refs[0]
        return Symbol(scan.data[1], "field", span(line, text, line, text), Range.on_line(line, ref.start, ref.end),
                      body)
