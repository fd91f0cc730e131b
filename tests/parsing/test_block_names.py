"""The name indexes of a glance hold every name where the line scanner reads it: an HLO text's definitions,
computation headers and called computations, a buffer assignment's values and live ranges; and a search of
the blocks they give finds what a search of the whole text finds."""

from __future__ import annotations

import re
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import CORPUS, SPLIT_HLO, SPLIT_MLP
from hlo_lsp.model.document import Document
from hlo_lsp.parsing import block_names
from hlo_lsp.parsing.block_names import BlockNames, definition_offsets_in, hlo_names, line_first_names, value_names
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner.forms import CALLED_KEYS
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.parsing.text_search import definition_offsets


def _scanned(path: Path, kind: FileKind) -> tuple[str, Document]:
    text = path.read_text()
    return text, Document(text, kind, str(path))


def _line_starts(text: str) -> list[int]:
    return [0, *(offset + 1 for offset, character in enumerate(text) if character == "\n")]


def _in_spans(index: BlockNames, name: str, offset: int) -> bool:
    return any(start <= offset < end for start, end in index.spans(name))


# ---- definitions -----------------------------------------------------------------------------

_LINE_PARTS = ["", " ", "\t", "  ", "%", "ROOT", "ROOT ", "ROOT %", "ROOT%", "x", "x.1", "ROOTx", "y-2", "_z",
               " = ", "=", ":", ": =", " // c", "(", ")", "\r", "{", "\u00a0", "1x"]


@given(st.lists(st.lists(st.sampled_from(_LINE_PARTS), max_size=6).map("".join), max_size=40),
       st.integers(min_value=1, max_value=64))
@settings(max_examples=300, deadline=None)
def test_the_definition_index_finds_what_a_search_of_the_whole_text_finds(lines: list[str], block: int) -> None:
    text = "\n".join(lines)
    index = hlo_names(text, searches_before_index=0)
    with patch.object(block_names, "_INDEX_BLOCK", block):  # blocks of a few lines: every boundary is met
        index.spans("x")
    for name in {*re.findall(r"[\w.\-%]+", text), "x", "ROOT", "ROOTx", "x.1", "%x"}:
        assert definition_offsets_in(text, index, name) == list(definition_offsets(text, name)), name


def test_the_definition_index_of_a_real_module_finds_each_instruction_once() -> None:
    text, document = _scanned(SPLIT_HLO, FileKind.HLO_MODULE)
    index = hlo_names(text)
    for _ in range(block_names.SEARCHES_BEFORE_INDEX):  # a first hover's names are looked for in the whole text
        index.spans("x")
    with patch.object(block_names, "_INDEX_BLOCK", 512):  # and then the index reads itself
        index.spans("x")
    assert index._blocks is not None and len(index._blocks) > 10
    for line, scan in document.scans():
        if scan.kind == "instruction":
            found = definition_offsets_in(text, index, scan.data[0])
            assert [text.count("\n", 0, offset) for offset in found] == [line]


# ---- computations: where each is headed and called ----------------------------------------------

_CALL_PARTS = ["", " ", "\t", "%", "x", "y.1", "ENTRY ", "ROOT ", "calls=", "to_apply=", "body=", "condition=",
               "branch_computations=", "called_computations=", "select=", "scatter=", "true_computation=",
               "false_computation=", "comparator=", "{", "}", ", ", ",", "(", ")", " -> f32[] ",
               " = f32[] fusion(", " = f32[] call(", "), ", '"', "/*c*/", "// c", "kind=kLoop", "metadata={",
               "op_name=\"calls=x\"", "\u00a0", '"/*"', "*/"]


def _computation_places(document: Document) -> list[tuple[int, str]]:
    """(line, name) of every computation header and every use of a computation the scanner reads."""
    places = [(line, scan.refs[0].name) for line, scan in document.scans()
              if scan.kind == "computation" and scan.refs]
    places += [(line, ref.name) for line, ref in document.all_uses() if ref.role is Role.COMPUTATION_USE]
    return places


def _assert_found_in_spans(text: str, document: Document, block: int) -> int:
    index = hlo_names(text, searches_before_index=0)
    starts = _line_starts(text)
    with patch.object(block_names, "_INDEX_BLOCK", block):
        index.read()
    places = _computation_places(document)
    for line, name in places:
        assert _in_spans(index, name, starts[line]), (line, name, text.split("\n")[line])
    return len(places)


@given(st.lists(st.lists(st.sampled_from(_CALL_PARTS), max_size=8).map("".join), max_size=30),
       st.integers(min_value=1, max_value=64))
@settings(max_examples=400, deadline=None)
def test_every_header_and_call_of_a_computation_is_in_a_block_the_index_gives(lines: list[str], block: int) -> None:
    text = "\n".join(lines)
    _assert_found_in_spans(text, Document(text, FileKind.HLO_MODULE, "/x.txt"), block)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/*/*after_optimizations.txt"))[:6] + [SPLIT_HLO],
                         ids=lambda path: path.parent.name)
def test_every_header_and_call_of_a_real_module_is_in_a_block_the_index_gives(path: Path) -> None:
    text, document = _scanned(path, FileKind.HLO_MODULE)
    assert _assert_found_in_spans(text, document, 2048) > 0


@pytest.mark.parametrize("key", CALLED_KEYS)
def test_a_computation_each_key_calls_is_in_a_block_the_index_gives(key: str) -> None:
    """Each key that names a computation, its callee far from the computation's own header: the block of the call
    holds the callee's name (a key the index skipped would leave that block out)."""
    filler = [f"  %f.{n} = f32[] add(%f.{n - 1}, %f.{n - 1}), metadata={{op_name=\"x\"}}" for n in range(1, 200)]
    text = "\n".join(["%callee (a: f32[], b: f32[]) -> f32[] {", "  %a = f32[] parameter(0)", "}", "",
                      "ENTRY %main () -> f32[] {", "  %f.0 = f32[] constant(0)", *filler,
                      f"  ROOT %r = f32[] custom-call(%f.199), {key}=%callee", "}"])
    document = Document(text, FileKind.HLO_MODULE, "/x.txt")
    assert ("callee", Role.COMPUTATION_USE) in {(ref.name, ref.role) for _, ref in document.all_uses()}
    assert _assert_found_in_spans(text, document, 256) == 3  # the two headers and the call


def test_a_list_of_computations_going_on_below_makes_the_index_search_everywhere() -> None:
    text = "\n".join(["ENTRY %main () -> f32[] {", "  %c = f32[] conditional(%p), branch_computations={%a,",
                      "    %b, %far}", "}", *(f"%pad.{n} () -> f32[] {{\n}}" for n in range(100))])
    index = hlo_names(text, searches_before_index=0)
    with patch.object(block_names, "_INDEX_BLOCK", 64):
        index.read()
    assert index.spans("far") == [(0, len(text))]
    edited = "\n".join(["ENTRY %main () -> f32[] {", "  %c = f32[] call(%p), to_apply=%a",
                        *(f"%pad.{n} () -> f32[] {{\n}}" for n in range(100))])
    index = hlo_names(edited, searches_before_index=0)
    with patch.object(block_names, "_INDEX_BLOCK", 64):
        index.read()
    assert len(index.spans("a")) == 1 and index.spans("a")[0][1] < len(edited)
    line = edited.index("to_apply=%a") + len("to_apply=")
    spliced = edited[:line] + edited[line + 2:]  # `to_apply=` ends its line now: the value would be below
    carried = index.spliced(spliced, line, line + 2, 0)
    assert carried.spans("pad.7") == [(0, len(spliced))]


# ---- buffer assignment ---------------------------------------------------------------------------

def test_the_value_and_live_range_names_of_real_files_are_in_the_blocks_found_for_them() -> None:
    for suffix, kind, candidates, role in (
            ("-buffer-assignment.txt", FileKind.BUFFER_ASSIGNMENT, value_names, "value"),
            ("-live-range.txt", FileKind.LIVE_RANGE, line_first_names, "live_range")):
        text, document = _scanned(Path(f"{SPLIT_MLP}{suffix}"), kind)
        names = BlockNames(text, candidates, searches_before_index=0)
        starts = _line_starts(text)
        with patch.object(block_names, "_INDEX_BLOCK", 256):
            found = [(line, scan.data[1 if role == "value" else 0]) for line, scan in document.scans()
                     if scan.kind == role]
            assert found, suffix
            for line, name in found:
                assert _in_spans(names, name, starts[line]), (suffix, line)


@given(st.lists(st.lists(st.sampled_from(_LINE_PARTS), max_size=6).map("".join), min_size=1, max_size=40),
       st.data())
@settings(max_examples=200, deadline=None)
def test_an_index_carried_past_one_line_edits_finds_what_a_search_of_the_edited_text_finds(
        lines: list[str], data: st.DataObject) -> None:
    text = "\n".join(lines)
    index = hlo_names(text, searches_before_index=0)
    with patch.object(block_names, "_INDEX_BLOCK", 16):  # blocks of a line or two: edits move many
        index.read()
    for _ in range(3):
        line = data.draw(st.integers(0, len(lines) - 1))
        start = sum(len(each) + 1 for each in lines[:line])
        column = data.draw(st.integers(0, len(lines[line])))
        cut = data.draw(st.integers(column, len(lines[line])))
        inserted = data.draw(st.lists(st.sampled_from(_LINE_PARTS), max_size=3).map("".join))
        lines[line] = lines[line][:column] + inserted + lines[line][cut:]
        text = "\n".join(lines)
        index = index.spliced(text, start + column, start + cut, len(inserted))
        for name in {*re.findall(r"[\w.\-%]+", text), "x", "ROOTx"}:
            assert definition_offsets_in(text, index, name) == list(definition_offsets(text, name)), name
