"""Folding ranges of the bundled dumps, compared with the lines read from the files here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import (
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
)
from hlo_lsp.features.folding import folding_ranges
from hlo_lsp.features.types import Fold
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind

HLO_FILES = [Path(f"{SPLIT_CONTROL_FLOW}.txt"), Path(f"{COMBINED_MLP}.txt"), GPU_HLO_SEED, HANDWRITTEN]
_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


def folds_of(path: Path, text: str | None = None) -> list[Fold]:
    text = path.read_text() if text is None else text
    return folding_ranges(Document(text, detect_kind(path.name, text), str(path)))


def spans(folds: list[Fold]) -> set[tuple[int, int]]:
    return {(fold.start_line, fold.end_line) for fold in folds}


def last_text_line(lines: list[str], start: int = 0, stop: int | None = None) -> int:
    return max(n for n in range(start, len(lines) if stop is None else stop) if lines[n].strip())


def run_end(lines: list[str], start: int, belongs) -> int:  # noqa: ANN001
    """The last line of the run of lines after `start` that `belongs` accepts."""
    end = start
    while end + 1 < len(lines) and belongs(lines[end + 1]):
        end += 1
    return end


def computation_spans(lines: list[str]) -> set[tuple[int, int]]:
    headers = [n for n, text in enumerate(lines) if text.endswith("{") and not text.startswith((" ", "HloModule"))]
    return {(n, next(k for k in range(n, len(lines)) if lines[k].startswith("}"))) for n in headers}


def table_spans(lines: list[str]) -> set[tuple[int, int]]:
    return {(n, run_end(lines, n, lambda text: re.match(r"[0-9]+ ", text))) for n, text in enumerate(lines)
            if text in _TABLES}


# ---- HLO modules -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", HLO_FILES, ids=lambda p: p.name)
def test_hlo_folds_are_the_computations_tables_and_multi_line_items(path: Path) -> None:
    lines = lines_of(path)
    folds = folds_of(path)
    regions = spans([f for f in folds if f.kind == "region"])
    multi_line = {(n, run_end(lines, n, lambda text: text.startswith("    ") or text.strip() == "})"))
                  for n, text in enumerate(lines) if text.rstrip().endswith("({")}
    assert regions == computation_spans(lines) | table_spans(lines) | multi_line
    assert folds == sorted(folds, key=lambda f: (f.start_line, -f.end_line))


def test_the_handwritten_module_folds_its_literal_and_its_leading_comments() -> None:
    lines = lines_of(HANDWRITTEN)
    folds = folds_of(HANDWRITTEN)
    literal = next(n for n, text in enumerate(lines) if text.strip().startswith("w = f32[2,2] constant({"))
    assert Fold(literal, literal + 3) in folds and lines[literal + 3].strip() == "})"
    assert [f for f in folds if f.kind == "comment"] == [Fold(0, 1, "comment")]
    body = next(n for n, text in enumerate(lines) if text == "body {")
    assert Fold(body, next(n for n in range(body, len(lines)) if lines[n] == "}")) in folds


def test_stack_frame_tables_fold_from_header_to_last_row() -> None:
    path = Path(f"{SPLIT_CONTROL_FLOW}.txt")
    lines = lines_of(path)
    stack_frames = lines.index("StackFrames")
    last_row = run_end(lines, stack_frames, lambda text: text.endswith("}") and text[0].isdigit())
    assert Fold(stack_frames, last_row) in folds_of(path)
    assert lines[last_row + 1] == ""


def test_a_computation_missing_its_brace_folds_to_its_last_instruction() -> None:
    lines = lines_of(HANDWRITTEN)
    cond = lines.index("cond {")
    closing = next(n for n in range(cond, len(lines)) if lines[n] == "}")
    broken = lines[:closing] + lines[closing + 1 :]
    folds = folds_of(HANDWRITTEN, "\n".join(broken))
    assert Fold(cond, closing - 1) in folds  # the blank line before `body {` is not part of it


# ---- buffer-assignment family ------------------------------------------------------------------


def test_combined_file_folds_sections_allocations_and_value_blocks() -> None:
    path = Path(f"{COMBINED_MLP}-buffer-assignment.txt")
    lines = lines_of(path)
    found = spans(folds_of(path))
    used, live = lines.index("Used values:"), lines.index("HloLiveRange (max 15):")
    sequence, ranges = lines.index("  InstructionSequence:"), lines.index("  BufferLiveRange:")
    peak = lines.index("  Live ranges at 4 (peak):")
    last = last_text_line(lines)
    sections = {(0, last_text_line(lines, 0, used - 2)), (used, last_text_line(lines, used, live)),
                (live, last), (sequence, ranges - 1), (ranges, peak - 1), (peak, last)}
    allocations = {(n, run_end(lines, n, lambda text: text.startswith(" value:"))) for n, text in enumerate(lines)
                   if text.startswith("allocation ")}
    blocks = {(n, run_end(lines, n, lambda text: text.startswith(" "))) for n, text in enumerate(lines)
              if text.startswith("<")}
    assert found == sections | allocations | blocks
    assert (9, 11) in allocations  # allocation 4: two values


def test_tpu_allocations_and_blocks_fold() -> None:
    lines = lines_of(TPU_SEED)
    found = spans(folds_of(TPU_SEED))
    temp = lines.index("allocation 12: size 90177536, color 1, preallocated-temp:")
    assert (temp, temp + 4) in found and lines[temp + 5] == ""


def test_the_stack_trace_breakdown_folds_as_a_tree() -> None:
    path = Path(f"{SPLIT_CONTROL_FLOW}-live-range.txt")
    lines = lines_of(path)
    found = spans(folds_of(path))
    header = next(n for n, text in enumerate(lines) if "Stack trace breakdown" in text)
    last = last_text_line(lines)
    cond = next(n for n, text in enumerate(lines) if "── jit(f)/cond (" in text)
    region = next(n for n, text in enumerate(lines) if "── region_3.4 (" in text)
    tuple_frame = next(n for n, text in enumerate(lines) if "── tuple.28 (" in text)
    assert {(0, last), (header, last), (header + 1, last), (cond, tuple_frame), (region, tuple_frame)} <= found
    assert sorted(start for start, _ in found if start > header) == [header + 1, cond, region]


# ---- memory-usage reports ------------------------------------------------------------------------


def test_new_memory_report_folds_its_memory_space_and_each_table() -> None:
    path = Path(f"{SPLIT_MLP}-memory-usage-report.txt")
    lines = lines_of(path)
    tables = {(n, run_end(lines, n, lambda text: text.strip() != "")) for n, text in enumerate(lines)
              if text.strip().startswith("cumulative_size;")}
    assert spans(folds_of(path)) == {(0, last_text_line(lines))} | tables
    assert len(tables) == 15


def test_old_memory_report_folds_sections_allocations_and_their_tables() -> None:
    path = Path(f"{COMBINED_MLP}-memory-usage-report.txt")
    lines = lines_of(path)
    by_size, with_values = lines.index("Allocations sorted by size:"), lines.index(
        "Allocations sorted by size with their values:")
    table = lines.index("cumulative_size; total_size - cumulative_size; allocation")
    temp = lines.index("allocation 14: size 64.0KiB, preallocated-temp:")
    output = next(n for n, text in enumerate(lines) if text.startswith("allocation 4: size 1.2KiB"))
    expected = {(by_size, table + 16), (table, table + 16), (with_values, last_text_line(lines)),
                (temp, temp + 6), (temp + 2, temp + 6), (output, output + 4), (output + 2, output + 4)}
    assert spans(folds_of(path)) == expected
    assert lines[table + 17] == "" and lines[table + 16].startswith("  477.3KiB(100%)")


def test_protobuf_text_report_folds_its_blocks() -> None:
    # The 2024-2025 report prints MemoryUsageReportProto as protobuf text (no such file is bundled).
    text = "\n".join([
        "memory_space_allocation_entries {",
        "  total_bytes: 488768",
        "  allocation_entries {",
        "    index: 0",
        "    size: 262144",
        "  }",
        "}",
        "",
    ])
    report = Document(text, FileKind.MEMORY_USAGE_REPORT, "module-memory-usage-report.txt")
    assert folding_ranges(report) == [Fold(0, 6), Fold(2, 5)]


# ---- every bundled file ------------------------------------------------------------------------


@pytest.mark.parametrize("path", DUMP_FILES, ids=lambda p: p.name)
def test_every_fold_spans_two_lines_and_ends_on_text(path: Path) -> None:
    lines = lines_of(path)
    folds = folds_of(path)
    assert folds, path.name
    assert len(spans(folds)) == len(folds)
    for fold in folds:
        assert fold.start_line < fold.end_line < len(lines)
        assert lines[fold.start_line].strip() and lines[fold.end_line].strip()


def test_an_unknown_file_has_no_folds() -> None:
    assert folding_ranges(Document("a\nb\n", FileKind.UNKNOWN, "notes.txt")) == []


# ---- a client's rangeLimit -------------------------------------------------------------------


def nesting_level(fold: Fold, folds: list[Fold]) -> int:
    """How many other folds hold this one."""
    return sum(1 for other in folds if other is not fold and other.start_line <= fold.start_line
               and fold.end_line <= other.end_line)


@pytest.mark.parametrize("path", [Path(f"{SPLIT_MLP}-live-range.txt"), Path(f"{COMBINED_MLP}-buffer-assignment.txt"),
                                  HANDWRITTEN], ids=lambda p: p.name)
def test_a_limit_keeps_the_outermost_folds_in_file_order(path: Path) -> None:
    text = path.read_text()
    document = Document(text, detect_kind(path.name, text), str(path))
    every = folding_ranges(document)
    levels = {id(fold): nesting_level(fold, every) for fold in every}
    assert len(set(levels.values())) > 1, "the file must nest folds"
    for limit in range(1, len(every) + 2):
        kept = folding_ranges(document, limit)
        expected = sorted(every, key=lambda fold: (levels[id(fold)], every.index(fold)))[:limit]
        assert kept == sorted(expected, key=every.index), limit


# ---- after an edit ------------------------------------------------------------------------------

def test_the_folds_after_an_edit_are_those_of_the_edited_text_and_kept_when_no_line_changed_kind() -> None:
    for index, (document, edited) in enumerate(edited_copies(Path(f"{SPLIT_CONTROL_FLOW}.txt"))):
        before = folding_ranges(document)
        after = folding_ranges(edited)
        assert after == folding_ranges(Document(edited.text, FileKind.HLO_MODULE)), EDITS[index]
        assert (after is before) == (index in (0, 1, 2, 5)), EDITS[index]
        assert folding_ranges(edited, 2) == folding_ranges(Document(edited.text, FileKind.HLO_MODULE), 2)


@RANDOM_EDITS
@given(data=st.data())
def test_the_folds_after_random_edits_are_a_fresh_documents(data: st.DataObject) -> None:
    text = Path(f"{SPLIT_CONTROL_FLOW}.txt").read_text()
    after_random_edits_like_a_fresh_document(data, text, lambda document: (
        folding_ranges(document), folding_ranges(document, 3)))
