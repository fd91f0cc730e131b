"""Whole-text searches agree with the line scanner on real dumps: every definition, table and schedule entry
they find is where the scanned lines put it."""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import DATA, SPLIT_HLO, SPLIT_MLP
from hlo_lsp.model.document import Document
from hlo_lsp.parsing import text_search
from hlo_lsp.parsing.ba_scanner import HEADER_PREFIXES
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.text_search import (
    LineIndex,
    UnindentedLinesAbove,
    allocation_numbers,
    defined_names,
    definition_offsets,
    end_of_blanks,
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


@pytest.mark.parametrize("piece", [1, 64, 1 << 20])
def test_the_names_defined_among_some_are_those_the_whole_text_defines(piece: int) -> None:
    """Read a piece at a time (pieces of one line each, of a few, of the whole file), as read whole."""
    text = "\n" + SPLIT_HLO.read_text()
    defined = set(defined_names(text))
    asked = sorted(defined)[::3] + ["not_defined.1", "x"]
    with patch.object(text_search, "_DEFINITIONS_PIECE", piece):
        found = text_search.defined_among(text, asked)
    assert found == defined.intersection(asked) and len(found) > 10


def _header_line_starts_by_prefix(text: str) -> list[int]:
    """The line starts `header_line_starts` finds, as a search of each prefix finds them (the oracle)."""
    starts = set()
    for prefix in HEADER_PREFIXES:
        for found in re.finditer(re.escape(prefix), text):
            line_start = text.rfind("\n", 0, found.start()) + 1
            if not text[line_start : found.start()].strip():
                starts.add(line_start)
    return sorted(starts)


_BUFFER_FILES = sorted(path for path in DATA.rglob("*.txt") if path.name.endswith(
    ("-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt", "-memory-usage-report.txt")))


def test_the_header_lines_found_in_one_search_are_those_each_prefix_finds() -> None:
    found = 0
    for path in _BUFFER_FILES:
        text = path.read_text()
        assert text_search.header_line_starts(text) == _header_line_starts_by_prefix(text), path
        found += len(text_search.header_line_starts(text))
    assert len(_BUFFER_FILES) > 20 and found > 100


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", " ", "\t", "\r", "\u00a0", "  x ", "\n"]),
                          st.sampled_from([*HEADER_PREFIXES, "Used value", "x", ""]),
                          st.sampled_from(["", " 12", "\n", ":"])), max_size=8))
def test_the_header_lines_of_any_text_are_those_each_prefix_finds(parts: list[tuple[str, str, str]]) -> None:
    text = "".join(blanks + prefix + rest for blanks, prefix, rest in parts)
    assert text_search.header_line_starts(text) == _header_line_starts_by_prefix(text)


def test_the_names_defined_among_some_stop_at_enough_from_the_end() -> None:
    """Read from the end, the names found once they stand for `enough` of those asked (repeats counted): the last
    defined first, the first defined not at all."""
    text = "\n" + SPLIT_HLO.read_text()
    defined = defined_names(text)
    first, last = defined[0], defined[-1]
    with patch.object(text_search, "_DEFINITIONS_PIECE", 64):
        found = text_search.defined_among(text, defined, enough=3)
        assert 3 <= len(found) < len(defined) // 2 and last in found and first not in found
        assert set(found) <= set(defined)
        assert text_search.defined_among(text, [last, last, last, first], enough=3) == {last}
        assert text_search.defined_among(text, [last, first], enough=3) == {last, first}  # (never enough: all read)


_DEFINITION_PARTS = ["", " ", "\t", "%", "ROOT", "ROOT ", "ROOT %", "x", "x.1", "xx", "ROOTx", " = ", "=", ":", " //",
                     "(", "\r", "{", "\u00a0"]


def _definitions_by_pattern(text: str, name: str, start: int, end: int) -> list[int]:
    """`definition_offsets` as a pattern of the name would find them (the search it replaced, kept as the oracle)."""
    found = []
    for match in re.compile(re.escape(name) + r":?[ \t]*(?:=|//|\r?\n|\Z)").finditer(text, start, end):
        line_start = text.rfind("\n", 0, match.start()) + 1
        first = end_of_blanks(text, line_start)
        if re.fullmatch(r"(?:%|ROOT|ROOT\s+%)?\s*", text[min(first, match.start()):match.start()]):
            found.append(match.start())
    return found


@given(st.lists(st.lists(st.sampled_from(_DEFINITION_PARTS), max_size=6).map("".join), max_size=30),
       st.sampled_from(["x", "x.1", "xx", "ROOT", "ROOTx", "%x"]), st.integers(0, 40), st.integers(0, 400))
@settings(max_examples=400, deadline=None)
def test_a_definition_is_found_where_a_pattern_of_the_name_finds_it(lines: list[str], name: str, start: int,
                                                                     length: int) -> None:
    text = "\n".join(lines)
    end = min(len(text), start + length)
    start = min(start, end)
    assert list(definition_offsets(text, name, start, end)) == _definitions_by_pattern(text, name, start, end)


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


@given(st.lists(st.sampled_from(["", " x", "\tx", "x", "}", "// c", "/x", "\r", " ", "ENTRY e {"]), max_size=60),
       st.lists(st.integers(min_value=0, max_value=400), max_size=12), st.integers(min_value=1, max_value=40))
@settings(max_examples=300, deadline=None)
def test_the_way_up_learnt_from_samples_is_what_a_forward_reading_finds(lines: list[str], offsets: list[int],
                                                                         sample: int) -> None:
    text = "\n".join(lines)
    starts = _unindented_line_starts(text)
    above = UnindentedLinesAbove(text)
    with patch.object(text_search, "_FIRST_WINDOW", 3), patch.object(text_search, "_LAST_WINDOW", 7), \
            patch.object(text_search, "_WAY_UP_SAMPLE", sample):
        above.read()
        for offset in (min(offset, len(text)) for offset in offsets):
            assert above.start_before(offset) == _start_before(starts, offset), offset


def test_once_the_way_up_is_learnt_a_question_reads_one_sample_at_most() -> None:
    text = "HloModule m\n\nENTRY %e {\n" + "  %x = f32[] parameter(0)\n" * 50_000 + "}\n"
    above = UnindentedLinesAbove(text)
    above.read()
    with patch.object(text_search, "_UNINDENTED_LINE", wraps=text_search._UNINDENTED_LINE) as pattern:
        assert above.start_before(len(text) - 10) == text.index("ENTRY")
    read = sum(call.args[2] - call.args[1] for call in pattern.finditer.call_args_list)
    assert 0 < read <= 2 * text_search._WAY_UP_SAMPLE


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


@given(st.lists(st.sampled_from(["", "x", "  %a = f32[] add(b, c)", "\r", "é" * 30]), max_size=700),
       st.sampled_from([16, 64, 1 << 13]))
@settings(max_examples=150, deadline=None)
def test_the_line_index_finds_each_line_where_a_count_of_newlines_does(lines: list[str], sample: int) -> None:
    text = "\n".join(lines)
    with patch.object(text_search, "_LINE_SAMPLE", sample):
        index = LineIndex(text)
    starts = [0, *(offset + 1 for offset, character in enumerate(text) if character == "\n")]
    assert index.line_count == len(starts)
    assert [index.line_start(line) for line in range(len(starts))] == starts
    assert [index.line_at(offset) for offset in range(0, len(text), 7)] == \
        [text.count("\n", 0, offset) for offset in range(0, len(text), 7)]
    with pytest.raises(ValueError):
        index.line_start(len(starts))


def test_a_thousand_blank_lines_after_a_sample_are_skipped_by_the_line_index() -> None:
    text = "x\n" + "\n" * 3000 + "y"
    assert LineIndex(text).line_start(3001) == text.index("y")


@given(st.text(alphabet="{}x\n", max_size=400), st.integers(0, 400), st.integers(0, 400))
@settings(max_examples=300, deadline=None)
def test_the_brace_balance_of_a_stretch_is_what_counting_its_braces_gives(text: str, first: int, second: int) -> None:
    start, end = sorted((min(first, len(text)), min(second, len(text))))
    with patch.object(text_search, "_BRACE_SAMPLE", 16):  # many samples: stretches begin and end between them
        balance = text_search.BraceBalance(text)
    assert balance.between(start, end) == text.count("{", start, end) - text.count("}", start, end)
