"""The outline of a dump file (textDocument/documentSymbol), read in one pass over its line scans.

An HLO module file gives the module, its stack-frame tables and its computations
(the ENTRY computation first) with their instructions. A buffer-assignment-family
or memory-report file gives its sections, the allocations with their values, the
Used values blocks and the parts of HloLiveRange. No line is parsed with the grammar:
a large module has hundreds of thousands of instructions.

`bounded_outline` keeps at most a given number of symbols (a 40 MB module has 365,000, a
100 MB answer): in an HLO module the ENTRY computation with its instructions first, then the
other computations and tables, then their children; elsewhere level by level. Instructions
beyond the bound are never made into symbols.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from hlo_lsp.features.types import Symbol
from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.document import Document, EditedFrom
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.line_scan import LineScan
from hlo_lsp.text import Position, Range, utf16_column

_DETAIL_SHAPE_LIMIT = 120
_INDEX_COMMENT = re.compile(r"/\*index=[0-9]+\*/")
_INDENT = re.compile(r"\s*")


def document_symbols(module: ModuleDump, document: Document) -> list[Symbol]:
    """The document's outline. (`module` is the dump the document belongs to; the outline needs
    only the document itself, which may be newer than the module's other files.)"""
    return bounded_outline(document, None)[0]


def bounded_outline(document: Document, limit: int | None) -> tuple[list[Symbol], int]:
    """The outline with at most `limit` symbols (None: all), and how many the whole outline has."""
    if not document.kind.is_dump:
        return [], 0
    with paused_collector():  # a large module's outline is a million small objects
        if document.kind is FileKind.HLO_MODULE:
            return hlo_outline(document, limit)
        symbols = [_to_symbol(node) for node in read_sections(document, with_values=True) if node.in_outline]
        total = _count(symbols)
        return (symbols if limit is None or total <= limit else _level_by_level(symbols, limit)), total


def _count(symbols: tuple[Symbol, ...] | list[Symbol]) -> int:
    return sum(1 + _count(symbol.children) for symbol in symbols)


def _level_by_level(symbols: list[Symbol], limit: int) -> list[Symbol]:
    """The first `limit` symbols in breadth-first order, each kept under its parent."""
    kept: dict[int, int] = {}  # id(symbol) -> how many of its children stay
    level, budget = symbols[:limit], limit - min(len(symbols), limit)
    while level and budget:
        below = []
        for symbol in level:
            taken = min(len(symbol.children), budget)
            kept[id(symbol)], budget = taken, budget - taken
            below.extend(symbol.children[:taken])
        level = below

    def cut(symbol: Symbol) -> Symbol:
        taken = kept.get(id(symbol), 0)
        return replace(symbol, children=tuple(cut(child) for child in symbol.children[:taken]))

    return [cut(symbol) for symbol in symbols[:limit]]


def numbered_lines(document: Document) -> Iterator[tuple[int, str, LineScan]]:
    """(line number, text, scan) of every line, without a lookup per line."""
    line = 0
    for chunk in document.chunks:
        for text, scan in zip(chunk.lines, chunk.scans):
            yield line, text, scan
            line += 1


def content_kind(kind: str, text: str) -> str:
    """The scan kind, except that a whitespace-only line inside open brackets counts as blank."""
    return "blank" if kind == "continuation" and not text.strip() else kind


def span(start_line: int, start_text: str, end_line: int, end_text: str) -> Range:
    """From the first non-blank character of one line to the last of another."""
    # Instruction lines can be thousands of characters long: find the ends without copying them.
    indent = _INDENT.match(start_text).end()  # type: ignore[union-attr]
    end = len(end_text)
    while end and end_text[end - 1].isspace():
        end -= 1
    return Range(Position(start_line, indent), Position(end_line, utf16_column(end_text, end)))


def short_shape(shape: str) -> str:
    """A shape for a one-line detail: without `/*index=N*/` comments, cut if very long."""
    if "/*" in shape:
        shape = _INDEX_COMMENT.sub("", shape)
    return shape if len(shape) <= _DETAIL_SHAPE_LIMIT else shape[: _DETAIL_SHAPE_LIMIT - 1] + "…"


def _counted(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def _prefix_selection(line: int, text: str, name: str) -> Range:
    """The range of `name`, which the line starts with (after its indentation)."""
    indent = len(text) - len(text.lstrip())
    return Range.on_line(line, utf16_column(text, indent), utf16_column(text, indent + len(name)))


# ---- HLO modules ----------------------------------------------------------------------------


def hlo_outline(document: Document, limit: int | None = None) -> tuple[list[Symbol], int]:
    """An HLO module's outline (at most `limit` symbols) and the whole outline's size."""
    return _read_outline(document).symbols(limit)


# An HLO document's outline as read, without the document (a document -> reading -> document cycle
# would outlive the document: what is built is frozen out of the garbage collector's reach).
_DERIVED_KEY = "outline"


def _read_outline(document: Document) -> _HloOutline:
    reading: _HloOutline | None = document.derived.get(_DERIVED_KEY)  # type: ignore[assignment]
    edit = document.edited_from
    if reading is None and edit is not None:
        previous: _HloOutline | None = edit.previous.derived.get(_DERIVED_KEY)  # type: ignore[assignment]
        if previous is not None and previous.reusable_after(edit, document):
            reading = previous
    if reading is None:
        outline = _HloOutline(document)
        outline.read()
        outline.close()
        reading = outline.of(None)
    document.derived[_DERIVED_KEY] = reading
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
            self.table = _Block(line, scan.data[0], _prefix_selection(line, text, scan.data[0]), "namespace")
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
        count = _counted(len(block.rows), "instruction")
        block.detail = "ENTRY, " + count if block.is_entry else count
        block.end = end
        (self.entries if block.is_entry else self.items).append(block)
        self.computation = None

    def _finish_table(self) -> None:
        block = self.table
        if block is None:
            return
        block.detail = _counted(len(block.rows), "row")
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
        computations = _counted(len(self.entries) + sum(1 for block in blocks if block.kind == "function"),
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


# ---- buffer-assignment family and memory reports -------------------------------------------


@dataclass(eq=False)
class OutlineNode:
    """A section or block of a buffer-assignment or memory-report file, while and after it is read."""

    name: str
    kind: str  # the symbol kind, or "table" / "frame" for blocks that only fold
    level: int  # opening a node closes every open node of the same or a deeper level
    line: int
    text: str
    selection: Range
    detail: str = ""
    counts: str = ""  # the scan kind of the lines this node counts ...
    unit: str = ""  # ... and what it calls them, for its detail
    count: int = 0
    end: tuple[int, str] = (0, "")  # the last non-blank line
    children: list[OutlineNode | Symbol] = field(default_factory=list)

    @property
    def in_outline(self) -> bool:
        return self.kind not in ("table", "frame")

    @property
    def end_line(self) -> int:
        return self.end[0]


def read_sections(document: Document, with_values: bool) -> list[OutlineNode]:
    """The section tree of a buffer-assignment-family or memory-report document.
    Values of allocations (one line each) are read only `with_values`."""
    reader = _SectionReader(with_values)
    for line, text, scan in numbered_lines(document):
        reader.add(line, text, scan)
    return reader.finish()


class _SectionReader:
    def __init__(self, with_values: bool) -> None:
        self.with_values = with_values
        self.roots: list[OutlineNode] = []
        self.stack: list[OutlineNode] = []
        self.last: tuple[int, str] = (0, "")

    def add(self, line: int, text: str, scan: LineScan) -> None:
        kind = content_kind(scan.kind, text)
        if kind == "blank":
            return
        opener = _OPENERS.get(kind)
        if opener is not None:
            self._open(opener(line, text, scan))
        elif kind in _VALUE_READERS and self.with_values and self.stack:
            self.stack[-1].children.append(_VALUE_READERS[kind](line, text, scan))
        elif kind in _DETAIL_READERS and self.stack:
            _add_detail(self.stack[-1], _DETAIL_READERS[kind](text, scan))
        for node in reversed(self.stack):
            if node.counts == kind:
                node.count += 1
                break
        self.last = (line, text)

    def _open(self, node: OutlineNode) -> None:
        if node.kind == "table":  # a child of whatever the table is printed in
            while self.stack and self.stack[-1].kind == "table":
                self._close()
            node.level = self.stack[-1].level + 1 if self.stack else 0
        while self.stack and self.stack[-1].level >= node.level:
            self._close()
        (self.stack[-1].children if self.stack else self.roots).append(node)
        self.stack.append(node)

    def _close(self) -> None:
        """Closes the innermost node at the last non-blank line read (before the line closing it)."""
        node = self.stack.pop()
        node.end = self.last
        if node.unit:
            _add_detail(node, _counted(node.count, node.unit))

    def finish(self) -> list[OutlineNode]:
        while self.stack:
            self._close()
        return self.roots


def _add_detail(node: OutlineNode, detail: str) -> None:
    node.detail = f"{node.detail}, {detail}" if node.detail and detail else node.detail or detail


def _to_symbol(node: OutlineNode) -> Symbol:
    children = tuple(_to_symbol(child) if isinstance(child, OutlineNode) else child
                     for child in node.children if not isinstance(child, OutlineNode) or child.in_outline)
    return Symbol(node.name, node.kind, span(node.line, node.text, *node.end), node.selection, node.detail, children)


def _section(name: str, kind: str = "namespace", level: int = 0, counts: str = "", unit: str = "",
             detail: Callable[[LineScan], str] | None = None) -> Callable[[int, str, LineScan], OutlineNode]:
    """An opener for a node named by the text its header line starts with."""

    def open_section(line: int, text: str, scan: LineScan) -> OutlineNode:
        title = text.strip().rstrip(":") if name == "" else name
        return OutlineNode(title, kind, level, line, text, _prefix_selection(line, text, title),
                           detail(scan) if detail else "", counts, unit)

    return open_section


def _allocation(line: int, text: str, scan: LineScan) -> OutlineNode:
    index, size, color, page, parameter, _, flags, _ = scan.data
    kinds = ([f"parameter {parameter[0]}"] if parameter else []) + list(flags)
    kinds += ([f"color {color}"] if color else []) + ([f"page {page}"] if page is not None else [])
    name = f"allocation {index}"
    detail = ", ".join(kinds + [f"{size} bytes ({human_bytes(size)})"])
    return OutlineNode(name, "struct", 1, line, text, _prefix_selection(line, text, name), detail)


def _report_allocation(line: int, text: str, scan: LineScan) -> OutlineNode:
    name = f"allocation {scan.data[0]}"
    return OutlineNode(name, "struct", 1, line, text, _prefix_selection(line, text, name), scan.data[1])


def _used_value(line: int, text: str, scan: LineScan) -> OutlineNode:
    value_id, name, index, is_phi, _, _ = scan.data
    label = name + (index or "")
    detail = f"value {value_id}" + (" (phi)" if is_phi else "")
    return OutlineNode(label, "variable", 1, line, text, _label_selection(line, text, label), detail)


def _memory_space(line: int, text: str, scan: LineScan) -> OutlineNode:
    name = f"Memory Space: {scan.data[0]}"
    return OutlineNode(name, "namespace", 0, line, text, _prefix_selection(line, text, name), f"color {scan.data[1]}")


def _breakdown_frame(line: int, text: str, scan: LineScan) -> OutlineNode:
    depth, label, label_start = scan.data[:3]
    selection = Range.on_line(line, utf16_column(text, label_start), utf16_column(text, label_start + len(label)))
    return OutlineNode(label, "frame", 2 + depth, line, text, selection)


def _label_selection(line: int, text: str, label: str) -> Range:
    """The `name{index}` inside the line's `<id name{index} ...>`."""
    start = text.index(" ", text.index("<")) + 1
    return Range.on_line(line, utf16_column(text, start), utf16_column(text, start + len(label)))


def _value(line: int, text: str, scan: LineScan) -> Symbol:
    label = scan.data[1] + (scan.data[2] or "")
    return Symbol(label, "field", span(line, text, line, text), _label_selection(line, text, label),
                  f"{scan.data[5]} @ {scan.data[6]}")


def _reused_value(line: int, text: str, scan: LineScan) -> Symbol:
    label = scan.data[1] + (scan.data[2] or "")
    return Symbol(label, "field", span(line, text, line, text), _label_selection(line, text, label),
                  f"reused by color {scan.data[5]}")


def _instruction_detail(text: str, scan: LineScan) -> str:
    """`opcode shape` of a Used values block's `from instruction:` line."""
    if len(scan.data) < 6:
        return ""
    _, _, shape_start, opcode_start, opcode, _ = scan.data
    return f"{opcode} {short_shape(text[shape_start:opcode_start].strip())}".strip()


_OPENERS: dict[str, Callable[[int, str, LineScan], OutlineNode]] = {
    "allocations_header": _section("BufferAssignment", counts="allocation", unit="allocation"),
    "stats_header": _section("BufferAssignment stats"),
    "totals": _section("Total bytes used", "field", detail=lambda scan: f"{scan.data[0]} ({scan.data[1]})"),
    "used_values_header": _section("Used values", counts="used_value", unit="value"),
    "live_range_header": _section("HloLiveRange", detail=lambda scan: f"max {scan.data[0]}"),
    "live_range_unavailable": _section("HloLiveRange", detail=lambda scan: "not available"),
    "sequence_header": _section("InstructionSequence", "array", 1, "sequence_entry", "instruction"),
    "ranges_header": _section("BufferLiveRange", "array", 1, "live_range", "live range"),
    "peak_header": _section("", "array", 1, "peak_entry", "value"),
    "peak_unknown": _section("Peak memory", "field", 1, detail=lambda scan: "could not be determined"),
    "breakdown_header": _section("Stack trace breakdown", level=1, detail=lambda scan: f"{scan.data[0]} bytes"),
    "breakdown_frame": _breakdown_frame,
    "allocation": _allocation,
    "used_value": _used_value,
    "report_section": _section(""),
    "memory_space": _memory_space,
    "report_allocation": _report_allocation,
    "report_table_header": _section("cumulative_size", "table"),
}

_VALUE_READERS: dict[str, Callable[[int, str, LineScan], Symbol]] = {"value": _value, "reused_value": _reused_value}

_DETAIL_READERS: dict[str, Callable[[str, LineScan], str]] = {
    "from_instruction": _instruction_detail,
    "report_totals": lambda text, scan: f"{scan.data[0]} bytes ({scan.data[1]})",
}
