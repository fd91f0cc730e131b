"""Whole-text searches agree with the line scanner on real dumps: every definition, table and schedule entry
they find is where the scanned lines put it."""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import SPLIT_HLO, SPLIT_MLP
from hlo_lsp.model.document import Document
from hlo_lsp.parsing import text_search
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.text_search import (
    UnindentedLinesAbove,
    allocation_numbers,
    defined_names,
    definition_offsets,
    has_cross_line_forms,
    has_indented_line_after_non_header,
    schedule_entry_offset,
    scheduled_names,
)


def _scanned(path: Path, kind: FileKind) -> tuple[str, Document]:
    text = path.read_text()
    return text, Document(text, kind, str(path))


def test_every_instruction_the_scanner_reads_is_found_defined_once_on_its_line() -> None:
    text, document = _scanned(SPLIT_HLO, FileKind.HLO_MODULE)
    definitions = {scan.data[0]: line for line, scan in document.scans() if scan.kind == "instruction"}
    assert sorted(defined_names("\n" + text)) == sorted(definitions)
    for name, line in definitions.items():
        (offset,) = definition_offsets(text, name)
        assert text.count("\n", 0, offset) == line, name


def test_a_dump_has_no_cross_line_forms_and_no_instruction_outside_a_computation() -> None:
    text = "\n" + SPLIT_HLO.read_text()
    assert not has_cross_line_forms(text) and not has_indented_line_after_non_header(text)
    assert has_cross_line_forms(text + "\n/* open")
    assert has_indented_line_after_non_header(text + "\n}\n  %stray = f32[] parameter(0)\n")


def _unindented_line_starts(text: str) -> list[int]:
    """Every line start `UnindentedLinesAbove` may answer, found reading forwards."""
    return [match.end() for match in re.finditer(r"\n(?=[^ \t\r\n/])", text)]


def _start_before(starts: list[int], offset: int) -> int:
    index = bisect.bisect_right(starts, offset) - 1
    return starts[index] if index >= 0 else -1


def test_the_line_above_an_instruction_that_is_not_indented_is_its_computations_header() -> None:
    text, document = _scanned(SPLIT_HLO, FileKind.HLO_MODULE)
    above = UnindentedLinesAbove(text)
    line_starts = [0, *(match.end() for match in re.finditer("\n", text))]
    header = -1
    for line, scan in document.scans():
        if scan.kind == "computation":
            header = line
        elif scan.kind == "instruction":
            offset = text.index(scan.data[0], line_starts[line])  # (the name, mid-line)
            assert text.count("\n", 0, above.start_before(offset)) == header, scan.data[0]


@given(st.lists(st.sampled_from(["", " x", "\tx", "x", "}", "// c", "/x", "\r", " ", "ENTRY e {"]), max_size=60),
       st.lists(st.integers(min_value=0, max_value=400), max_size=12))
@settings(max_examples=300, deadline=None)
def test_searching_upwards_finds_what_a_forward_reading_finds(lines: list[str], offsets: list[int]) -> None:
    text = "\n".join(lines)
    starts = _unindented_line_starts(text)
    above = UnindentedLinesAbove(text)
    with patch.object(text_search, "_FIRST_WINDOW", 3), patch.object(text_search, "_LAST_WINDOW", 7):
        for offset in (min(offset, len(text)) for offset in offsets):  # windows of a few characters
            assert above.start_before(offset) == _start_before(starts, offset), offset


def test_schedule_entries_and_allocations_are_found_in_the_live_range_and_buffer_files() -> None:
    live = Path(f"{SPLIT_MLP}-live-range.txt").read_text()
    names = scheduled_names(live, 0, len(live))
    assert names, "the live-range file prints a schedule"
    first = schedule_entry_offset(live, 0, 0, len(live))
    assert first is not None and live[first + 1 :].lstrip(" \t").startswith(f"0:{names[0]}")
    padded = "\n 007:x\n"
    assert schedule_entry_offset(padded, 7, 0, len(padded)) == 0  # XLA never prints zeros, but reads them
    buffers = Path(f"{SPLIT_MLP}-buffer-assignment.txt").read_text()
    numbers = allocation_numbers(buffers)
    assert numbers[:3] == [0, 1, 2] and len(numbers) == buffers.count("\nallocation ")


# ---- the definition index ---------------------------------------------------------------------

_LINE_PARTS = ["", " ", "\t", "  ", "%", "ROOT", "ROOT ", "ROOT %", "ROOT%", "x", "x.1", "ROOTx", "y-2", "_z",
               " = ", "=", ":", ": =", " // c", "(", ")", "\r", "{", "\u00a0", "1x"]


@given(st.lists(st.lists(st.sampled_from(_LINE_PARTS), max_size=6).map("".join), max_size=40),
       st.integers(min_value=1, max_value=64))
@settings(max_examples=300, deadline=None)
def test_the_definition_index_finds_what_a_search_of_the_whole_text_finds(lines: list[str], block: int) -> None:
    text = "\n".join(lines)
    index = text_search.definitions(text, searches_before_index=0)
    with patch.object(text_search, "_INDEX_BLOCK", block):  # blocks of a few lines: every boundary is met
        index.spans("x")
    for name in {*re.findall(r"[\w.\-%]+", text), "x", "ROOT", "ROOTx", "x.1", "%x"}:
        assert text_search.definition_offsets_in(text, index, name) == list(definition_offsets(text, name)), name


def test_the_definition_index_of_a_real_module_finds_each_instruction_once() -> None:
    text, document = _scanned(SPLIT_HLO, FileKind.HLO_MODULE)
    index = text_search.definitions(text)
    with patch.object(text_search, "_INDEX_BLOCK", 512):  # after the names of a first hover, the index is built
        for _ in range(3):
            index.spans("x")
    for line, scan in document.scans():
        if scan.kind == "instruction":
            found = text_search.definition_offsets_in(text, index, scan.data[0])
            assert [text.count("\n", 0, offset) for offset in found] == [line]


def test_the_value_and_live_range_names_of_real_files_are_in_the_blocks_found_for_them() -> None:
    for suffix, kind, candidates, role in (
            ("-buffer-assignment.txt", FileKind.BUFFER_ASSIGNMENT, text_search.value_names, "value"),
            ("-live-range.txt", FileKind.LIVE_RANGE, text_search.line_first_names, "live_range")):
        text, document = _scanned(Path(f"{SPLIT_MLP}{suffix}"), kind)
        names = text_search.BlockNames(text, candidates, searches_before_index=0)
        starts = [0, *(offset + 1 for offset, character in enumerate(text) if character == "\n")]
        with patch.object(text_search, "_INDEX_BLOCK", 256):
            found = [(line, scan.data[1 if role == "value" else 0]) for line, scan in document.scans()
                     if scan.kind == role]
            assert found, suffix
            for line, name in found:
                assert any(start <= starts[line] < end for start, end in names.spans(name)), (suffix, line)


def test_a_regular_schedule_is_read_by_line_number_and_any_other_by_search() -> None:
    live = Path(f"{SPLIT_MLP}-live-range.txt").read_text()
    start = live.index("  InstructionSequence:")
    end = live.index("  BufferLiveRange:")
    length = text_search.regular_schedule_length(live, start, end)
    assert length == len(scheduled_names(live, start, end)) > 10
    header_line = live.count("\n", 0, start)
    for time in range(length):
        offset = schedule_entry_offset(live, time, start, end)
        assert offset is not None and live.count("\n", 0, offset + 1) == header_line + 1 + time
    assert schedule_entry_offset(live, length, start, end) is None
    lines = live[start:end].split("\n")
    swapped = "\n".join([lines[0], lines[2], lines[1], *lines[3:]])
    assert text_search.regular_schedule_length(swapped, 0, len(swapped)) is None
    blank = "\n".join([lines[0], "", *lines[1:]])
    assert text_search.regular_schedule_length(blank, 0, len(blank)) is None
