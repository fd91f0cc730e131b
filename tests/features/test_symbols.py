"""Document symbols on the bundled dumps: what each construct is called, where it is, and in what order.

The expected computations and instructions are read from the files here with a few
regular expressions of their own (not the scanner's), so that the outline is compared
with the text itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import (
    COMBINED_CONTROL_FLOW,
    COMBINED_MLP,
    DUMP_FILES,
    EDITS,
    GPU_HLO_SEED,
    HANDWRITTEN,
    RANDOM_EDITS,
    SPLIT_CONTROL_FLOW,
    SPLIT_MLP,
    TPU_SEED,
    after_random_edits_like_a_fresh_document,
    edited_copies,
    lines_of,
    module_of,
)
from hlo_lsp.features import hlo_outline
from hlo_lsp.features.outline_lines import short_shape
from hlo_lsp.features.symbols import bounded_outline, document_symbols
from hlo_lsp.features.types import Symbol
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Position, Range

HLO_FILES = [
    Path(f"{SPLIT_CONTROL_FLOW}.txt"),  # `%` names, signatures, stack-frame tables
    Path(f"{COMBINED_MLP}.txt"),  # no `%`, no signatures, `} // name`
    GPU_HLO_SEED,  # operand shapes before every operand
    HANDWRITTEN,  # `//` comments, a multi-line literal
]
_HEADER = re.compile(r"(ENTRY\s+)?%?([A-Za-z_][\w.\-]*)\s*[({]")
_INSTRUCTION = re.compile(r"\s*(ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=\s*(.*?)\s([a-z][a-z0-9\-]*)\(")


@dataclass
class TextComputation:
    name: str
    is_entry: bool
    line: int
    end_line: int
    instructions: list[tuple[str, int]]  # (name, line)


def computations_in(path: Path) -> list[TextComputation]:
    """The computations of an HLO file, in file order, read from its text."""
    found: list[TextComputation] = []
    current: TextComputation | None = None
    for number, text in enumerate(path.read_text().split("\n")):
        if current is None and not text.startswith(("HloModule", " ", "/")) and _HEADER.match(text):
            header = _HEADER.match(text)
            current = TextComputation(header.group(2), header.group(1) is not None, number, -1, [])
        elif current is not None and text.startswith("}"):
            current.end_line = number
            found.append(current)
            current = None
        elif current is not None and (instruction := _INSTRUCTION.match(text)):
            current.instructions.append((instruction.group(2), number))
    return found


def document(path: Path, kind: FileKind) -> tuple[ModuleDump, Document]:
    module = module_of(path)
    return module, module.documents[kind]


def symbols_of(path: Path, kind: FileKind = FileKind.HLO_MODULE) -> list[Symbol]:
    return document_symbols(*document(path, kind))


def line_range(lines: list[str], first: int, last: int) -> Range:
    """From the first non-blank character of line `first` to the end of line `last`."""
    indent = len(lines[first]) - len(lines[first].lstrip())
    return Range(Position(first, indent), Position(last, len(lines[last].rstrip())))


def name_range(lines: list[str], line: int, name: str, after: str = "") -> Range:
    start = lines[line].index(name, lines[line].index(after) + len(after) if after else 0)
    return Range.on_line(line, start, start + len(name))


def walk(symbols: tuple[Symbol, ...] | list[Symbol]):
    for symbol in symbols:
        yield symbol
        yield from walk(symbol.children)


# ---- HLO modules -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", HLO_FILES, ids=lambda p: p.name)
def test_the_module_holds_every_computation_entry_first_then_in_file_order(path: Path) -> None:
    (module,) = symbols_of(path)
    expected = computations_in(path)
    computations = [s for s in module.children if s.kind == "function"]
    entry = next(c for c in expected if c.is_entry)
    assert [s.name for s in computations] == [entry.name] + [c.name for c in expected if not c.is_entry]
    assert module.children[0].name == entry.name
    assert module.kind == "module"
    assert module.detail == f"{len(expected)} computations"


@pytest.mark.parametrize("path", HLO_FILES, ids=lambda p: p.name)
def test_each_computation_spans_header_to_closing_brace_and_lists_its_instructions(path: Path) -> None:
    (module,) = symbols_of(path)
    lines = lines_of(path)
    by_name = {s.name: s for s in module.children if s.kind == "function"}
    for expected in computations_in(path):
        symbol = by_name[expected.name]
        assert symbol.range == line_range(lines, expected.line, expected.end_line)
        assert symbol.selection_range == name_range(lines, expected.line, expected.name)
        assert [(i.name, i.selection_range.start.line) for i in symbol.children] == expected.instructions
        count = f"{len(expected.instructions)} instruction" + ("s" if len(expected.instructions) != 1 else "")
        assert symbol.detail == ("ENTRY, " + count if expected.is_entry else count)


@pytest.mark.parametrize("path", HLO_FILES, ids=lambda p: p.name)
def test_instruction_details_are_opcode_and_shape_with_root_marked(path: Path) -> None:
    (module,) = symbols_of(path)
    lines = lines_of(path)
    for computation in (s for s in module.children if s.kind == "function"):
        roots = [i for i in computation.children if i.detail.startswith("ROOT ")]
        assert len(roots) == 1, computation.name
        for instruction in computation.children:
            line = instruction.selection_range.start.line
            match = _INSTRUCTION.match(lines[line])
            detail = re.sub(r"/\*index=[0-9]+\*/", "", f"{match.group(4)} {match.group(3)}")
            assert instruction.detail == ("ROOT " + detail if match.group(1) else detail)
            assert instruction.kind == "variable"


def test_the_module_name_is_selected_on_its_header_and_the_module_spans_the_file() -> None:
    lines = lines_of(HANDWRITTEN)
    (module,) = symbols_of(HANDWRITTEN)
    header = next(n for n, text in enumerate(lines) if text.startswith("HloModule"))
    last = max(n for n, text in enumerate(lines) if text.strip())
    assert (module.name, module.range) == ("while_and_constants", line_range(lines, header, last))
    assert module.selection_range == name_range(lines, header, "while_and_constants")


def test_a_multi_line_literal_belongs_to_its_instruction() -> None:
    lines = lines_of(HANDWRITTEN)
    (module,) = symbols_of(HANDWRITTEN)
    body = next(s for s in module.children if s.name == "body")
    literal = next(s for s in body.children if s.name == "w")
    first = next(n for n, text in enumerate(lines) if text.strip().startswith("w = f32[2,2] constant({"))
    last = next(n for n in range(first, len(lines)) if lines[n].strip() == "})")
    assert (literal.range, literal.detail) == (line_range(lines, first, last), "constant f32[2,2]")
    loop = next(s for s in module.children[0].children if s.name == "loop")
    assert loop.detail == "while (s32[], f32[2,2])"


def test_stack_frame_tables_are_namespaces_with_their_rows() -> None:
    path = Path(f"{SPLIT_CONTROL_FLOW}.txt")
    lines = lines_of(path)
    (module,) = symbols_of(path)
    tables = [s for s in module.children if s.kind == "namespace"]
    assert [t.name for t in tables] == ["FileNames", "FunctionNames", "FileLocations", "StackFrames"]
    for table in tables:
        header = lines.index(table.name)
        rows = [n for n in range(header + 1, len(lines)) if re.match(r"[0-9]+ ", lines[n])]
        rows = rows[: next((k for k, n in enumerate(rows) if n != header + 1 + k), len(rows))]
        assert table.range == line_range(lines, header, rows[-1])
        assert table.detail == f"{len(rows)} row" + ("s" if len(rows) > 1 else "")
        assert [row.name for row in table.children] == [lines[n].split()[0] for n in rows]
    assert [(r.name, r.detail, r.kind) for r in tables[0].children] == [
        ("1", "/home/dev/xla-examples/gen_dumps.py", "field")]
    assert tables[3].children[5].detail == "file_location_id=6 parent_frame_id=5"


def test_a_very_long_tuple_shape_is_cut_in_the_detail() -> None:
    header = lines_of(GPU_HLO_SEED)[0]
    layout = header[header.index("{(") + 1 : header.index(")->") + 1]  # the parameters: 17 shapes, /*index=N*/
    shortened = short_shape(layout)
    assert "/*" not in shortened and len(shortened) == 120 and shortened.endswith("…")
    assert layout.replace("/*index=5*/", "").replace("/*index=10*/", "").replace("/*index=15*/", "").startswith(
        shortened[:-1])


def test_long_text_operand_shapes_stay_out_of_the_detail() -> None:
    (module,) = symbols_of(GPU_HLO_SEED)
    gather = next(s for s in module.children if s.name == "fused_gather")
    convert = next(s for s in gather.children if s.name == "convert.163.1")
    assert convert.detail == "convert s64[32]{0}"


# ---- buffer-assignment family ------------------------------------------------------------------


def test_split_allocations_file_lists_allocations_with_their_values() -> None:
    path = Path(f"{SPLIT_MLP}-buffer-assignment.txt")
    lines = lines_of(path)
    (section,) = symbols_of(path, FileKind.BUFFER_ASSIGNMENT)
    headers = [n for n, text in enumerate(lines) if text.startswith("allocation ")]
    assert (section.name, section.kind, section.detail) == ("BufferAssignment", "namespace",
                                                          f"{len(headers)} allocations")
    assert [a.name for a in section.children] == [lines[n].split(":")[0] for n in headers]
    output = section.children[4]
    assert (output.name, output.kind) == ("allocation 4", "struct")
    assert output.detail == "maybe-live-out, 1280 bytes (1.2KiB)"
    assert output.range == line_range(lines, headers[4], headers[5] - 1)
    assert output.selection_range == Range.on_line(headers[4], 0, len("allocation 4"))
    assert [(v.name, v.kind, v.detail) for v in output.children] == [
        ("ynn_fusion", "field", "1280 @ 0"), ("broadcast_subtract_fusion", "field", "1280 @ 0")]
    value_line = headers[4] + 2
    assert output.children[1].selection_range == name_range(lines, value_line, "broadcast_subtract_fusion")
    assert section.children[1].detail == "parameter 0, 131072 bytes (128.0KiB)"
    assert section.children[8].detail == "thread-local, 4 bytes (4B)"


def test_values_file_has_the_totals_and_one_block_per_used_value() -> None:
    path = Path(f"{SPLIT_MLP}-buffer-assignment-values.txt")
    lines = lines_of(path)
    totals, used = symbols_of(path, FileKind.BUFFER_ASSIGNMENT_VALUES)
    assert (totals.name, totals.detail, totals.range) == ("Total bytes used", "488768 (477.3KiB)",
                                                          line_range(lines, 1, 1))
    blocks = [n for n, text in enumerate(lines) if text.startswith("<")]
    last = max(n for n, text in enumerate(lines) if text.strip())
    assert (used.name, used.detail) == ("Used values", f"{len(blocks)} values")
    assert used.range == line_range(lines, lines.index("Used values:"), last)
    assert [b.range.start.line for b in used.children] == blocks
    assert [b.range.end.line for b in used.children] == [n - 1 for n in blocks[1:]] + [last]
    first = used.children[0]
    assert (first.name, first.kind, first.detail) == ("reduce_max.3", "variable", "value 0, parameter f32[]")
    assert first.selection_range == name_range(lines, blocks[0], "reduce_max.3")


def test_live_range_file_has_its_parts() -> None:
    path = Path(f"{SPLIT_MLP}-live-range.txt")
    lines = lines_of(path)
    (live,) = symbols_of(path, FileKind.LIVE_RANGE)
    assert (live.name, live.kind, live.detail) == ("HloLiveRange", "namespace", "max 15")
    parts = [(p.name, p.kind, p.detail, p.range.start.line, p.range.end.line) for p in live.children]
    sequence, ranges = lines.index("  InstructionSequence:"), lines.index("  BufferLiveRange:")
    peak = lines.index("  Live ranges at 9 (peak):")
    breakdown = next(n for n, text in enumerate(lines) if "Stack trace breakdown" in text)
    last = max(n for n, text in enumerate(lines) if text.strip())
    assert parts == [
        ("InstructionSequence", "array", "15 instructions", sequence, ranges - 1),
        ("BufferLiveRange", "array", "15 live ranges", ranges, peak - 1),
        ("Live ranges at 9 (peak)", "array", "9 values", peak, breakdown - 1),
        ("Stack trace breakdown", "namespace", "487464 bytes", breakdown, last),
    ]
    assert live.children[0].selection_range == Range.on_line(sequence, 2, 2 + len("InstructionSequence"))


def test_combined_file_has_every_section_in_file_order() -> None:
    path = Path(f"{COMBINED_MLP}-buffer-assignment.txt")
    lines = lines_of(path)
    symbols = symbols_of(path, FileKind.BUFFER_ASSIGNMENT)
    assert [(s.name, s.kind) for s in symbols] == [("BufferAssignment", "namespace"), ("Total bytes used", "field"),
                                                   ("Used values", "namespace"), ("HloLiveRange", "namespace")]
    totals = lines.index("Total bytes used: 488768 (477.3KiB)")
    assert symbols[0].range.end.line == totals - 2  # the blank line before the totals is not the section's
    live_range = lines.index("HloLiveRange (max 15):")
    assert symbols[2].range == line_range(lines, lines.index("Used values:"), live_range - 3)  # two blank lines
    block = next(s for s in symbols[2].children if s.name == "add.45")
    assert block.detail == "value 15, add f32[]"
    parts = [p.name for p in symbols[3].children]
    assert parts == ["InstructionSequence", "BufferLiveRange", "Live ranges at 4 (peak)"]


def test_tpu_allocations_show_colors_and_tuple_indices() -> None:
    (section, *_) = symbols_of(TPU_SEED, FileKind.BUFFER_ASSIGNMENT)
    colored = section.children[11]
    assert (colored.name, colored.detail) == ("allocation 11", "preallocated-temp, color 2, 8 bytes (8B)")
    assert [(v.name, v.detail) for v in colored.children] == [("copy-start.1{2}", "4 @ 4"), ("copy-start{2}", "4 @ 0")]
    assert section.children[7].children[0].name == "tuple.31{}"


def test_phi_values_are_marked_in_used_values() -> None:
    path = Path(f"{SPLIT_CONTROL_FLOW}-buffer-assignment-values.txt")
    _, used = symbols_of(path, FileKind.BUFFER_ASSIGNMENT_VALUES)
    phi = next(b for b in used.children if b.name == "cond.8.clone{}")
    assert phi.detail.startswith("value 133 (phi), ")


# Lines only the newest XLA prints (dump-format.md 2.3, 2.6, 2.7); no bundled dump has them.
NEWEST_LINES = """BufferAssignment:
allocation 0: size 1024, page 1, preallocated-temp:
 value: <3 fusion.1 @0> (size=1024,offset=0): f32[256]{0}
 reused by buffers of a different color:
  value: <9 copy.2 @1> (color=1)
allocation 1: size 64, color 1, preallocated-temp:
 value: <9 copy.2 @1> (size=64,offset=0): f32[16]{0:S(1)}

BufferAssignment stats:
             parameter allocation:    0B
                  total allocation:    1.1KiB

HloLiveRange (max 2):
  InstructionSequence:
    0:p
    1:copy.2
  BufferLiveRange:
    p{}:0-2
  Peak memory could not be determined due to unbounded dynamic shape.
"""


def test_lines_of_the_newest_buffer_assignment_have_their_symbols() -> None:
    newest = Document(NEWEST_LINES, FileKind.BUFFER_ASSIGNMENT, "module-buffer-assignment.txt")
    allocations, stats, live = document_symbols(ModuleDump("module", {newest.kind: newest}), newest)
    reused = allocations.children[0]
    assert (reused.detail, reused.range.end.line) == ("preallocated-temp, page 1, 1024 bytes (1.0KiB)", 4)
    assert [(v.name, v.detail) for v in reused.children] == [("fusion.1", "1024 @ 0"), ("copy.2", "reused by color 1")]
    assert (stats.name, stats.range.start.line, stats.range.end.line) == ("BufferAssignment stats", 8, 10)
    assert [(p.name, p.detail) for p in live.children] == [
        ("InstructionSequence", "2 instructions"), ("BufferLiveRange", "1 live range"),
        ("Peak memory", "could not be determined")]
    unavailable = Document("HloLiveRange not available (finalized or constructed from proto)\n", FileKind.LIVE_RANGE,
                           "module-live-range.txt")
    (symbol,) = document_symbols(ModuleDump("module", {unavailable.kind: unavailable}), unavailable)
    assert (symbol.name, symbol.detail) == ("HloLiveRange", "not available")


# ---- memory-usage reports ------------------------------------------------------------------------


def test_new_memory_report_has_one_symbol_per_memory_space() -> None:
    path = Path(f"{SPLIT_MLP}-memory-usage-report.txt")
    lines = lines_of(path)
    (space,) = symbols_of(path, FileKind.MEMORY_USAGE_REPORT)
    last = max(n for n, text in enumerate(lines) if text.strip())
    assert (space.name, space.kind, space.detail) == ("Memory Space: default", "namespace",
                                                      "color 0, 488768 bytes (477.3KiB)")
    assert space.range == line_range(lines, 0, last)
    assert space.children == ()


def test_old_memory_report_has_its_sections_and_allocations() -> None:
    path = Path(f"{COMBINED_MLP}-memory-usage-report.txt")
    lines = lines_of(path)
    symbols = symbols_of(path, FileKind.MEMORY_USAGE_REPORT)
    assert [s.name for s in symbols] == ["Total bytes used", "Allocations sorted by size",
                                         "Allocations sorted by size with their values"]
    with_values = symbols[2]
    headers = [n for n, text in enumerate(lines) if text.startswith("allocation ")]
    assert [(a.range.start.line, a.kind) for a in with_values.children] == [(n, "struct") for n in headers]
    temp = next(a for a in with_values.children if a.name == "allocation 14")
    table_end = next(n for n in range(temp.range.start.line + 2, len(lines)) if not lines[n].strip()) - 1
    assert (temp.detail, temp.range.end.line) == ("64.0KiB", table_end)


# ---- every bundled file ------------------------------------------------------------------------


@pytest.mark.parametrize("path", DUMP_FILES, ids=lambda p: p.name)
def test_every_symbol_contains_its_name_and_children_and_ends_on_text(path: Path) -> None:
    module = module_of(path)
    (document_,) = [d for d in module.all_documents() if d.source == str(path)]
    lines = lines_of(path)
    for parent in walk(document_symbols(module, document_)):
        assert parent.range.start <= parent.selection_range.start <= parent.selection_range.end <= parent.range.end
        assert lines[parent.range.end.line].strip()
        for child in parent.children:
            assert parent.range.start <= child.range.start and child.range.end <= parent.range.end


# ---- outlines cut to a number of symbols -----------------------------------------------------


def same_symbol(cut: Symbol, whole: Symbol) -> bool:
    """The same symbol, whatever children it kept."""
    return (cut.name, cut.kind, cut.range, cut.selection_range, cut.detail) == (
        whole.name, whole.kind, whole.range, whole.selection_range, whole.detail)


def kept_in_order(cut: list[Symbol], whole: list[Symbol]) -> list[Symbol]:
    """The symbols of `whole` that `cut` kept (each with its first children), checking that they are."""
    kept = []
    assert len(cut) <= len(whole)
    for cut_symbol, whole_symbol in zip(cut, whole):
        assert same_symbol(cut_symbol, whole_symbol)
        kept.append(whole_symbol)
        kept += kept_in_order(list(cut_symbol.children), list(whole_symbol.children))
    return kept


def test_a_bounded_hlo_outline_lists_the_entry_computation_then_the_others_then_their_rows() -> None:
    path = Path(f"{SPLIT_CONTROL_FLOW}.txt")
    module, document_ = document(path, FileKind.HLO_MODULE)
    (whole,) = document_symbols(module, document_)
    entry, *others = whole.children
    assert entry.detail.startswith("ENTRY") and any(other.kind == "namespace" for other in others)
    in_priority = [whole, entry, *entry.children, *others, *(row for other in others for row in other.children)]
    assert len(in_priority) == len(list(walk([whole])))
    for limit in range(1, len(in_priority) + 3):
        cut, total = bounded_outline(document_, limit)
        assert total == len(in_priority)
        kept = kept_in_order(cut, [whole])
        assert {id(symbol) for symbol in kept} == {id(symbol) for symbol in in_priority[:limit]}, limit
    assert bounded_outline(document_, None) == ([whole], len(in_priority))


@pytest.mark.parametrize(("path", "kind"), [(Path(f"{SPLIT_MLP}-buffer-assignment.txt"), FileKind.BUFFER_ASSIGNMENT),
                                            (Path(f"{SPLIT_MLP}-buffer-assignment-values.txt"),
                                             FileKind.BUFFER_ASSIGNMENT_VALUES)], ids=lambda p: getattr(p, "name", ""))
def test_a_bounded_outline_of_another_file_lists_it_level_by_level(path: Path, kind: FileKind) -> None:
    module, document_ = document(path, kind)
    whole = document_symbols(module, document_)
    by_level, level = [], whole
    while level:
        by_level += level
        level = [child for symbol in level for child in symbol.children]
    for limit in range(1, len(by_level) + 3):
        cut, total = bounded_outline(document_, limit)
        assert total == len(by_level)
        kept = kept_in_order(cut, whole)
        assert {id(symbol) for symbol in kept} == {id(symbol) for symbol in by_level[:limit]}, limit


def test_an_unknown_file_has_no_outline() -> None:
    unknown = Document("just some text\n", FileKind.UNKNOWN, "notes.txt")
    assert document_symbols(ModuleDump("notes", {FileKind.UNKNOWN: unknown}), unknown) == []


def test_the_combined_control_flow_module_counts_every_instruction() -> None:
    path = Path(f"{COMBINED_CONTROL_FLOW}.txt")
    (module,) = symbols_of(path)
    instruction_lines = [n for n, text in enumerate(lines_of(path)) if _INSTRUCTION.match(text)]
    assert sorted(i.selection_range.start.line for c in module.children for i in c.children) == instruction_lines


def test_the_outline_after_an_edit_is_that_of_the_edited_text_and_read_again_only_when_a_line_changed() -> None:
    for index, (document, edited) in enumerate(edited_copies(Path(f"{SPLIT_CONTROL_FLOW}.txt"))):
        fresh = Document(edited.text, FileKind.HLO_MODULE)
        for limit in (None, 12):
            before = bounded_outline(document, limit)
            assert bounded_outline(edited, limit) == bounded_outline(fresh, limit), (EDITS[index], limit)
            assert limit is not None or bounded_outline(edited, limit) != before, EDITS[index]
        # what the walk over every line found is kept unless a line it reads by more than its kind changed
        kept = hlo_outline._read_outline(edited).entries is hlo_outline._read_outline(document).entries
        assert kept == (index in (0, 1, 5)), EDITS[index]


@RANDOM_EDITS
@given(data=st.data())
def test_the_outline_after_random_edits_is_a_fresh_documents(data: st.DataObject) -> None:
    text = Path(f"{SPLIT_CONTROL_FLOW}.txt").read_text()
    after_random_edits_like_a_fresh_document(data, text, lambda document: (
        bounded_outline(document, None), bounded_outline(document, 9)))
