"""The outline of a buffer-assignment-family or memory-report file: its sections, the allocations with their
values, the Used values blocks and the parts of HloLiveRange (also the folds of those files: features/folding.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hlo_lsp.features.outline_lines import content_kind, counted, numbered_lines, prefix_selection, short_shape, span
from hlo_lsp.features.types import Symbol
from hlo_lsp.model.document import Document
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.parsing.line_scan import LineScan
from hlo_lsp.text import Range, utf16_column


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
            _add_detail(node, counted(node.count, node.unit))

    def finish(self) -> list[OutlineNode]:
        while self.stack:
            self._close()
        return self.roots


def _add_detail(node: OutlineNode, detail: str) -> None:
    node.detail = f"{node.detail}, {detail}" if node.detail and detail else node.detail or detail


def to_symbol(node: OutlineNode) -> Symbol:
    children = tuple(to_symbol(child) if isinstance(child, OutlineNode) else child
                     for child in node.children if not isinstance(child, OutlineNode) or child.in_outline)
    return Symbol(node.name, node.kind, span(node.line, node.text, *node.end), node.selection, node.detail, children)


def _section(name: str, kind: str = "namespace", level: int = 0, counts: str = "", unit: str = "",
             detail: Callable[[LineScan], str] | None = None) -> Callable[[int, str, LineScan], OutlineNode]:
    """An opener for a node named by the text its header line starts with."""

    def open_section(line: int, text: str, scan: LineScan) -> OutlineNode:
        title = text.strip().rstrip(":") if name == "" else name
        return OutlineNode(title, kind, level, line, text, prefix_selection(line, text, title),
                           detail(scan) if detail else "", counts, unit)

    return open_section


def _allocation(line: int, text: str, scan: LineScan) -> OutlineNode:
    index, size, color, page, parameter, _, flags, _ = scan.data
    kinds = ([f"parameter {parameter[0]}"] if parameter else []) + list(flags)
    kinds += ([f"color {color}"] if color else []) + ([f"page {page}"] if page is not None else [])
    name = f"allocation {index}"
    detail = ", ".join(kinds + [f"{size} bytes ({human_bytes(size)})"])
    return OutlineNode(name, "struct", 1, line, text, prefix_selection(line, text, name), detail)


def _report_allocation(line: int, text: str, scan: LineScan) -> OutlineNode:
    name = f"allocation {scan.data[0]}"
    return OutlineNode(name, "struct", 1, line, text, prefix_selection(line, text, name), scan.data[1])


def _used_value(line: int, text: str, scan: LineScan) -> OutlineNode:
    value_id, name, index, is_phi, _, _ = scan.data
    label = name + (index or "")
    detail = f"value {value_id}" + (" (phi)" if is_phi else "")
    return OutlineNode(label, "variable", 1, line, text, _label_selection(line, text, label), detail)


def _memory_space(line: int, text: str, scan: LineScan) -> OutlineNode:
    name = f"Memory Space: {scan.data[0]}"
    return OutlineNode(name, "namespace", 0, line, text, prefix_selection(line, text, name), f"color {scan.data[1]}")


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
