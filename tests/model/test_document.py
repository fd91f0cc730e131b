"""Document on the bundled real dumps: lines, scans, names, positions and incremental edits."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from helpers import COMBINED_MLP, DUMP_FILES, HANDWRITTEN, SPLIT_HLO, SPLIT_MLP
from hlo_lsp.model import chunk as chunk_module
from hlo_lsp.model import document as document_module
from hlo_lsp.model.document import Document, document_state_signature
from hlo_lsp.parsing import text_search
from hlo_lsp.parsing.digit_templates import forget_templates
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.parsing.hlo_scanner import KnownUses
from hlo_lsp.parsing.line_scan import Ref, Role
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

SPLIT_TEXT = SPLIT_HLO.read_text()
YNN_FUSION_LINE = 126  # `  %ynn_fusion = f32[32,10]{1,0} fusion(%add_maximum_fusion, %ws_2_.1), ...`


def hlo(text: str = SPLIT_TEXT, source: str = "mlp.txt") -> Document:
    return Document(text, FileKind.HLO_MODULE, source)


def assert_indexed_like_fresh(edited: Document, final_text: str) -> None:
    """The edited document has `final_text` and indexes it exactly like Document(final_text)."""
    assert edited.text == final_text
    rebuilt = Document(final_text, edited.kind, edited.source)
    assert document_state_signature(edited) == document_state_signature(rebuilt)


def replace_line(text: str, line: int, new: str) -> str:
    lines = text.split("\n")
    lines[line] = new
    return "\n".join(lines)


# ---- lines and scans ------------------------------------------------------------------


def test_line_count_counts_the_empty_line_after_the_final_newline():
    document = hlo()
    assert document.line_count == 133
    assert document.line(0).startswith("HloModule jit_mlp, is_scheduled=true, entry_computation_layout=")
    assert document.line(YNN_FUSION_LINE).startswith("  %ynn_fusion = f32[32,10]{1,0} fusion(%add_maximum_fusion")
    assert document.line(130) == "}"
    assert document.line(132) == ""
    assert document.text == SPLIT_TEXT


def test_scan_kinds_of_the_split_mlp_module():
    document = hlo()
    kinds = Counter(scan.kind for _, scan in document.scans())
    assert kinds == {"instruction": 71, "blank": 18, "table_row": 17, "computation": 11,
                     "computation_end": 11, "table_header": 4, "module_header": 1}
    assert [document.scan(line).kind for line in (0, 2, 3, 28, 29, 32, 114, 129, 130)] == [
        "module_header", "table_header", "table_row", "computation", "instruction",
        "computation_end", "computation", "instruction", "computation_end"]


def test_lines_of_kind_lists_computation_headers_and_tables_in_order():
    document = hlo()
    assert [line for line, _ in document.lines_of_kind("computation")] == [
        28, 34, 40, 46, 59, 65, 79, 85, 94, 104, 114]
    assert [line for line, _ in document.lines_of_kind("table_header", "module_header")] == [0, 2, 5, 11, 19]


def test_multi_line_constant_lines_are_continuations():
    document = hlo(HANDWRITTEN.read_text())
    assert [document.scan(line).kind for line in range(23, 29)] == [
        "blank", "instruction", "continuation", "continuation", "continuation", "instruction"]


# ---- names -----------------------------------------------------------------------------


def test_definition_and_uses_of_an_instruction_with_exact_columns():
    document = hlo()
    assert document.definitions("ynn_fusion") == [(126, Ref(Role.INSTRUCTION_DEF, "ynn_fusion", 3, 13))]
    assert document.uses("ynn_fusion") == [
        (127, Ref(Role.INSTRUCTION_USE, "ynn_fusion", 42, 52)),
        (128, Ref(Role.INSTRUCTION_USE, "ynn_fusion", 62, 72)),
        (129, Ref(Role.INSTRUCTION_USE, "ynn_fusion", 100, 110)),
    ]


def test_computation_definition_and_its_calls_use():
    document = hlo()
    assert document.definitions("fused_computation") == [(28, Ref(Role.COMPUTATION_DEF, "fused_computation", 1, 18))]
    assert document.uses("fused_computation") == [(126, Ref(Role.COMPUTATION_USE, "fused_computation", 92, 109))]


def test_signature_parameters_are_uses_of_the_parameter_instructions():
    document = hlo()
    assert document.definitions("x.1") == [(121, Ref(Role.INSTRUCTION_DEF, "x.1", 3, 6))]
    assert document.uses("x.1") == [(114, Ref(Role.INSTRUCTION_USE, "x.1", 139, 142)),
                                    (122, Ref(Role.INSTRUCTION_USE, "x.1", 43, 46))]


def test_names_without_sigil_in_the_combined_dump():
    document = hlo(Path(str(COMBINED_MLP) + ".txt").read_text())
    assert document.definitions("dot.8") == [(79, Ref(Role.INSTRUCTION_DEF, "dot.8", 2, 7))]
    assert document.uses("dot.8") == [(81, Ref(Role.INSTRUCTION_USE, "dot.8", 53, 58))]


def all_occurrences(document: Document, name: str) -> list[tuple[int, Ref]]:
    return [(line, ref) for line, ref in document.all_uses() if ref.name == name]


@pytest.mark.parametrize("name", ["ws_2_.1", "fused_computation", "4", "3", "no_such_name"])
def test_uses_of_a_name_read_only_where_its_text_is_are_every_use(name: str) -> None:
    lazily = hlo()
    assert lazily.uses(name) == all_occurrences(hlo(), name)
    read = [chunk.has_read_uses() for chunk in lazily.chunks]
    # Only the lines that hold the name are read, and no chunk keeps its uses; a parent_frame_id names
    # the frame printed before it: a number reads every chunk.
    assert read == [name.isdigit()] * len(read)


# A block comment over lines and a string that goes on below: lines whose uses are read again with what the comment
# or the string holds blanked, which a line read alone must read alike.
COMMENTS_AND_STRINGS = """HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1) /* a comment that names %x
  and %y, add(%x) */ ROOT %sum = f32[] add(%x, %y)
}

ENTRY %main (p: f32[8]) -> f32[] {
  %p = f32[8]{0} parameter(0), metadata={op_name="calls=%add
  to_apply=%nothing"}
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %zero), dimensions={0}, to_apply=%add
}
"""


@pytest.mark.parametrize("text", [SPLIT_TEXT, COMMENTS_AND_STRINGS])
def test_uses_read_in_passing_or_line_by_line_are_the_kept_uses_and_are_not_kept(text: str) -> None:
    forget_templates()
    kept = [chunk.uses() for chunk in hlo(text).chunks]
    passing = hlo(text)
    in_passing = [chunk.uses_in_passing() for chunk in passing.chunks]
    # a line of a template read before (by the reading above) comes as the template's places: the same names
    templates = [isinstance(uses, KnownUses) for chunk_uses in in_passing for uses in chunk_uses]
    assert sum(templates) >= 3
    assert [[uses.refs(text) if isinstance(uses, KnownUses) else uses for text, uses in zip(chunk.lines, chunk_uses)]
            for chunk, chunk_uses in zip(passing.chunks, in_passing)] == kept
    assert [[chunk.line_uses(local) for local in range(len(chunk.lines))] for chunk in passing.chunks] == kept
    assert not any(chunk.has_read_uses() for chunk in passing.chunks)


def test_a_name_s_uses_after_the_uses_were_read_in_passing_are_every_use() -> None:
    document = hlo(COMMENTS_AND_STRINGS)
    for chunk in document.chunks:
        chunk.uses_in_passing()
    for name in ("x", "add", "nothing", "p"):
        assert document.uses(name) == all_occurrences(hlo(COMMENTS_AND_STRINGS), name)
    assert document.uses("nothing") == []  # named in a string only


def test_names_of_one_hash_cost_a_reading_of_the_chunk_and_no_wrong_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk keeps the hashes of the names its lines use, not the names: here every name has one hash."""
    monkeypatch.setattr(chunk_module, "hash", lambda name: 7, raising=False)
    document = hlo(COMMENTS_AND_STRINGS)
    for chunk in document.chunks:
        chunk.uses_in_passing()
    assert all(chunk.uses_name("no such name") for chunk in document.chunks if any(chunk.uses_in_passing()))
    for name in ("x", "add", "nothing", "p", "no such name"):
        assert document.uses(name) == all_occurrences(hlo(COMMENTS_AND_STRINGS), name)


def test_uses_of_a_name_are_the_same_before_and_after_a_chunk_s_uses_are_read() -> None:
    document = hlo()
    before = document.uses("ws_2_.1") + document.uses("add_maximum_fusion")
    read_first = hlo()
    for chunk in read_first.chunks:
        chunk.uses()
    assert read_first.uses("ws_2_.1") + read_first.uses("add_maximum_fusion") == before


def test_uses_asked_again_are_the_same_and_an_edited_document_sees_its_edit() -> None:
    document = hlo()
    before = document.uses("ws_2_.1")
    assert document.uses("ws_2_.1") == before  # remembered: and a copy, not the list kept
    document.uses("ws_2_.1").clear()
    assert document.uses("ws_2_.1") == before
    edited = document.apply_edit(Range(Position(YNN_FUSION_LINE, 40), Position(YNN_FUSION_LINE, 58)), "ws_2_.1")
    # the line's own use of ws_2_.1 moves 11 columns left with the shorter operand before it
    on_line = [(YNN_FUSION_LINE, Ref(Role.INSTRUCTION_USE, "ws_2_.1", 40, 47)),
               (YNN_FUSION_LINE, Ref(Role.INSTRUCTION_USE, "ws_2_.1", 50, 57))]
    assert (YNN_FUSION_LINE, Ref(Role.INSTRUCTION_USE, "ws_2_.1", 61, 68)) in before
    assert edited.uses("ws_2_.1") == sorted([found for found in before if found[0] != YNN_FUSION_LINE] + on_line)
    assert document.uses("ws_2_.1") == before


def test_a_parent_frame_is_a_use_of_the_frame_printed_one_before() -> None:
    document = hlo()
    row = next(line for line in range(document.line_count) if "parent_frame_id=4}" in document.line(line))
    assert (row, Ref(Role.FRAME_USE, "3", *_columns(document.line(row), "4}"))) in document.uses("3")


def _columns(text: str, needle: str) -> tuple[int, int]:
    return text.index(needle), text.index(needle) + 1


def test_refs_on_line_in_column_order():
    assert hlo().refs_on_line(YNN_FUSION_LINE) == (
        Ref(Role.INSTRUCTION_DEF, "ynn_fusion", 3, 13),
        Ref(Role.INSTRUCTION_USE, "add_maximum_fusion", 40, 58),
        Ref(Role.INSTRUCTION_USE, "ws_2_.1", 61, 68),
        Ref(Role.COMPUTATION_USE, "fused_computation", 92, 109),
        Ref(Role.FRAME_USE, "4", 167, 168),
    )


@pytest.mark.parametrize(("column", "expected"), [
    (2, "ynn_fusion"),  # on the `%` sigil
    (3, "ynn_fusion"),  # first character
    (8, "ynn_fusion"),  # middle
    (13, "ynn_fusion"),  # just after the name
    (14, None),  # on `=`
    (0, None),  # indentation
    (39, "add_maximum_fusion"),  # `%` of an operand
    (58, "add_maximum_fusion"),  # just after an operand, on `,`
    (59, None),  # the space between two operands
    (60, "ws_2_.1"),  # `%` of the next operand
])
def test_ref_at_on_a_name_its_sigil_and_just_after_it(column, expected):
    ref = hlo().ref_at(Position(YNN_FUSION_LINE, column))
    assert (ref.name if ref else None) == expected


def test_ref_at_outside_the_document_is_none():
    document = hlo()
    assert document.ref_at(Position(133, 0)) is None
    assert document.ref_at(Position(-1, 3)) is None


# ---- UTF-16 columns ------------------------------------------------------------------------


def non_ascii_text() -> str:
    line = SPLIT_TEXT.split("\n")[YNN_FUSION_LINE]
    line = line.replace('dot_general"', 'dot_général😀"') + ", control-predecessors={%ws_2_.1}"
    return replace_line(SPLIT_TEXT, YNN_FUSION_LINE, line)


def test_columns_after_an_emoji_count_utf16_code_units():
    document = hlo(non_ascii_text())
    refs = document.refs_on_line(YNN_FUSION_LINE)
    # "é" is one code unit; "😀" is two, one more than its one Python character.
    assert refs[-2:] == (Ref(Role.FRAME_USE, "4", 169, 170), Ref(Role.INSTRUCTION_USE, "ws_2_.1", 286, 293))
    assert document.ref_at(Position(YNN_FUSION_LINE, 290)) == Ref(Role.INSTRUCTION_USE, "ws_2_.1", 286, 293)
    assert document.uses("ws_2_.1")[-1] == (YNN_FUSION_LINE, Ref(Role.INSTRUCTION_USE, "ws_2_.1", 286, 293))


def test_edit_by_utf16_range_after_an_emoji():
    text = non_ascii_text()
    edited = hlo(text).apply_edit(Range.on_line(YNN_FUSION_LINE, 286, 293), "bs_2_.1")
    final = text.replace("control-predecessors={%ws_2_.1}", "control-predecessors={%bs_2_.1}")
    assert_indexed_like_fresh(edited, final)
    on_line = [ref for line, ref in edited.uses("bs_2_.1") if line == YNN_FUSION_LINE]
    assert on_line == [Ref(Role.INSTRUCTION_USE, "bs_2_.1", 286, 293)]


def test_the_first_lines_of_an_unscanned_text_are_scanned_as_the_whole_text_scans_them():
    for path in DUMP_FILES:
        text = path.read_text()
        whole = Document(text, detect_kind(path.name, text), str(path))
        for count in (1, 2, 61, whole.line_count, whole.line_count + 5):
            top = Document(text, whole.kind, str(path)).first_lines(count)
            assert top is not None and top.line_count == whole.line_count
            held = min(count, whole.line_count)
            assert [(top.line(n), top.scan(n)) for n in range(held)] == [
                (whole.line(n), whole.scan(n)) for n in range(held)], (path.name, count)
            if held < whole.line_count:
                with pytest.raises(IndexError):
                    top.line(held)


def test_a_scanned_document_gives_no_first_lines():
    document = hlo()
    assert document.first_lines(10) is not None
    document.scan(0)
    assert document.first_lines(10) is None


# ---- problems ---------------------------------------------------------------------------------


def test_real_dumps_have_no_scan_problems():
    for path in DUMP_FILES:
        text = path.read_text()
        document = Document(text, detect_kind(path.name, text), str(path))
        assert document.kind is not FileKind.UNKNOWN, path
        assert document.scan_problems() == [], path


def test_scan_problem_on_a_garbled_line():
    document = hlo(replace_line(SPLIT_TEXT, 124, "  @@@ ~~ garbage ###"))
    assert document.scan_problems() == [Problem(
        "mlp.txt", Range.on_line(124, 2, 20), Severity.ERROR, "syntax",
        "unexpected text: expected an instruction (`name = shape opcode(operands)`) or `}`")]


# ---- apply_edit -----------------------------------------------------------------------------------


def test_insert_a_line():
    lines = SPLIT_TEXT.split("\n")
    final = "\n".join(lines[:122] + ["  %extra = f32[] constant(1)"] + lines[122:])
    edited = hlo().apply_edit(Range.on_line(122, 0, 0), "  %extra = f32[] constant(1)\n")
    assert_indexed_like_fresh(edited, final)
    assert edited.definitions("extra") == [(122, Ref(Role.INSTRUCTION_DEF, "extra", 3, 8))]
    assert edited.definitions("ynn_fusion") == [(127, Ref(Role.INSTRUCTION_DEF, "ynn_fusion", 3, 13))]


def test_delete_a_line():
    lines = SPLIT_TEXT.split("\n")
    final = "\n".join(lines[:121] + lines[122:])
    edited = hlo().apply_edit(Range(Position(121, 0), Position(122, 0)), "")
    assert_indexed_like_fresh(edited, final)
    assert edited.definitions("x.1") == []
    assert edited.line_count == 132


def test_replace_within_a_line():
    line = SPLIT_TEXT.split("\n")[YNN_FUSION_LINE]
    final = replace_line(SPLIT_TEXT, YNN_FUSION_LINE, line.replace("%ynn_fusion =", "%renamed ="))
    edited = hlo().apply_edit(Range.on_line(YNN_FUSION_LINE, 3, 13), "renamed")
    assert_indexed_like_fresh(edited, final)
    assert edited.definitions("renamed") == [(126, Ref(Role.INSTRUCTION_DEF, "renamed", 3, 10))]


def test_edit_spanning_chunks(monkeypatch):
    monkeypatch.setattr(document_module, "CHUNK_LINES", 8)
    document = hlo()
    assert len(document.chunks) == 17
    lines = SPLIT_TEXT.split("\n")
    new = "x\n%joined (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n"
    final = "\n".join(lines[:20]) + "\n" + lines[20][:5] + new + lines[100][7:] + "\n" + "\n".join(lines[101:])
    assert_indexed_like_fresh(document.apply_edit(Range(Position(20, 5), Position(100, 7)), new), final)


def test_opening_a_bracket_turns_following_lines_into_continuations(monkeypatch):
    monkeypatch.setattr(document_module, "CHUNK_LINES", 4)
    text = HANDWRITTEN.read_text()
    edited = hlo(text).apply_edit(Range.on_line(27, 2, 4), "")  # delete the `})` closing the literal
    assert_indexed_like_fresh(edited, replace_line(text, 27, "  "))
    assert edited.scan(28).kind == "instruction"  # a new instruction head ends the open literal
    assert edited.scan(28).problem is not None and edited.scan(28).problem.code == "unbalanced-brackets"


def test_edit_at_the_end_of_the_file():
    edited = hlo().apply_edit(Range.on_line(132, 0, 0), "// trailing comment\n")
    assert_indexed_like_fresh(edited, SPLIT_TEXT + "// trailing comment\n")
    assert edited.line_count == 134


@pytest.mark.parametrize(("start", "end", "final"), [
    # a character past the end of its line is the end of that line
    (Position(115, 500), Position(115, 900), replace_line(SPLIT_TEXT, 115, SPLIT_TEXT.split("\n")[115] + "X")),
    # a line past the end of the file is the end of the file
    (Position(9999, 0), Position(10000, 5), SPLIT_TEXT + "X"),
    # a negative character is the start of its line
    (Position(130, -7), Position(130, 0), replace_line(SPLIT_TEXT, 130, "X}")),
    # a range given end first is the same range
    (Position(130, 1), Position(130, 0), replace_line(SPLIT_TEXT, 130, "X")),
])
def test_out_of_range_positions_are_clamped(start, end, final):
    assert_indexed_like_fresh(hlo().apply_edit(Range(start, end), "X"), final)


def test_positions_before_the_first_line_are_the_start_of_the_document():
    document = hlo()
    assert_indexed_like_fresh(document.apply_edit(Range(Position(-2, 182), Position(-1, 121)), ""), SPLIT_TEXT)
    assert_indexed_like_fresh(document.apply_edit(Range(Position(-1, 5), Position(0, 10)), "X"), "X" + SPLIT_TEXT[10:])


def test_apply_edit_leaves_the_original_document_unchanged():
    document = hlo()
    before = document_state_signature(document)
    document.apply_edit(Range(Position(20, 0), Position(120, 3)), "}\n{\n")
    assert document.text == SPLIT_TEXT
    assert document_state_signature(document) == before
    assert document.definitions("ynn_fusion") == [(126, Ref(Role.INSTRUCTION_DEF, "ynn_fusion", 3, 13))]


def test_untouched_chunks_are_shared_with_the_edited_document(monkeypatch):
    monkeypatch.setattr(document_module, "CHUNK_LINES", 8)
    document = hlo()
    assert len(document.chunks) == 17  # scanned: an unscanned document's edit is spliced into its text
    edited = document.apply_edit(Range.on_line(YNN_FUSION_LINE, 3, 13), "renamed")  # chunk 15 (lines 120-127)
    assert len(edited.chunks) == len(document.chunks) == 17
    assert [new is old for new, old in zip(edited.chunks, document.chunks)] == [True] * 15 + [False, True]


def test_an_edit_that_changes_scanner_state_rescans_only_until_it_agrees(monkeypatch):
    monkeypatch.setattr(document_module, "CHUNK_LINES", 8)
    document = hlo()
    assert document.chunks  # scanned: an unscanned document's edit is spliced into its text
    edited = document.apply_edit(Range.on_line(32, 0, 1), "")  # delete the `}` closing fused_computation
    assert_indexed_like_fresh(edited, replace_line(SPLIT_TEXT, 32, ""))
    assert edited.chunks[0] is document.chunks[0]
    assert edited.chunks[-1] is document.chunks[-1]


def test_the_text_is_at_hand_until_its_scan_is_done() -> None:
    document = Document("HloModule m\n\nENTRY %main () -> f32[] {\n  ROOT %c = f32[] constant(1)\n}\n",
                        FileKind.HLO_MODULE, "m.txt")
    assert document.unscanned_text() is not None and document.unscanned_text().startswith("HloModule m")
    assert document.line(3).startswith("  ROOT %c")  # (a line is read from the text: nothing is scanned)
    assert document.unscanned_text() is not None
    assert document.scan(3).kind == "instruction"
    assert document.unscanned_text() is None


def test_a_sparse_document_holds_only_its_lines() -> None:
    whole = Document("HloModule m\n\nENTRY %main () -> f32[] {\n  ROOT %c = f32[] constant(1)\n}\n",
                     FileKind.HLO_MODULE, "m.txt")
    runs = [(0, [whole.line(0)], [whole.scan(0)], "top"), (3, [whole.line(3)], [whole.scan(3)], "comp")]
    sparse = Document.sparse(FileKind.HLO_MODULE, "m.txt", whole.line_count, runs)
    assert sparse.line_count == whole.line_count
    assert [line for line, _ in sparse.scans()] == [0, 3]
    assert sparse.scan(3) == whole.scan(3) and sparse.line(3) == whole.line(3)
    assert sparse.definitions("c") == whole.definitions("c")
    for missing in (1, 2, 4):
        with pytest.raises(IndexError):
            sparse.line(missing)


@pytest.mark.parametrize("step", [1, 3, 50, 2_000_000])
def test_a_text_split_a_few_characters_at_a_time_gives_the_same_lines(monkeypatch: pytest.MonkeyPatch,
                                                                      step: int) -> None:
    monkeypatch.setattr(document_module, "_SPLIT_STEP", step)
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    for sample in ("", "\n", "a", "a\n", "\n\nb\n", "a\r\nb", text, text + "\n\n", text.replace("\n", "\n\n")):
        document = Document(sample, FileKind.HLO_MODULE, "m.txt")
        assert [document.line(number) for number in range(document.line_count)] == sample.split("\n")


def test_a_line_that_ends_a_comment_left_open_above_uses_no_name_inside_it() -> None:
    """XLA-parser long run on 54b4d71 (text #20867): comments do not nest, so the `/*` before the `*/` that
    ends the comment from the line above is the comment's text, and so is `x` before it."""
    text = "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT t = (f32[4]) tuple(p/* a\n  x /* b */)\n}\n"
    document = Document(text, FileKind.HLO_MODULE, "m.hlo")
    assert [(line, ref.name) for line, ref in document.all_uses()] == [(3, "p")]
    edited = document.apply_edit(Range(Position(4, 2), Position(4, 2)), "y ")
    assert [(line, ref.name) for line, ref in edited.all_uses()] == [(3, "p")]


def test_a_line_that_starts_inside_a_string_uses_only_what_follows_the_string() -> None:
    # XLA reads the whole `q` line as part of the metadata string above it: `calls={op_name=` names nothing
    text = ('HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = f32[4] abs(p), metadata={op_name="x\n'
            '    q = f32[4] abs(p), calls={op_name=" source_line=1 source_file="\n  z.py"}\n}\n')
    document = Document(text, FileKind.HLO_MODULE)
    assert document.uses_on_line(4) == ()
    assert [ref.name for _, ref in document.all_uses()] == ["p"]


# ---- apply_edit before the text is scanned -------------------------------------------------------

NON_ASCII_TEXT = replace_line(SPLIT_TEXT, 5, '  // é😀 "x" ü\t') + "\n// 😀😀 end é"
UNSCANNED_EDIT_PIECES = ["", "x", "é", "😀", "\n", "\n\n", "  %c.1 = f32[] constant(0)\n", "}", "{", '"', "// c"]


def random_edit_of(rng: random.Random, text: str) -> tuple[Range, str]:
    """A range of a few lines and columns (some past their line's end or the text's), and what replaces it."""
    lines = text.split("\n")
    line = rng.randrange(len(lines) + 1)
    end_line = line + rng.choice([0, 0, 0, 1, 2])
    column = rng.randrange(len(lines[line]) + 3) if line < len(lines) else rng.randrange(3)
    end_column = column + rng.randrange(6) if end_line == line else rng.randrange(40)
    return Range(Position(line, column), Position(end_line, end_column)), rng.choice(UNSCANNED_EDIT_PIECES)


@pytest.mark.parametrize("text", [SPLIT_TEXT, NON_ASCII_TEXT, HANDWRITTEN.read_text(), "", "\n", "😀"],
                         ids=["split", "non-ascii", "handwritten", "empty", "newline", "emoji"])
def test_an_unscanned_document_edited_reads_as_the_scanned_one_edited(text: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Edits spliced into the unscanned text, one after another (its line index shifted by each), give the text,
    lines and scans that the scanned document's edits give, and scan nothing."""
    monkeypatch.setattr(text_search, "_LINE_SAMPLE", 64)  # many samples of the line index, shifted by each edit
    rng = random.Random(len(text))
    unscanned, scanned = hlo(text), hlo(text)
    assert scanned.chunks
    for step in range(40):
        edit, new_text = random_edit_of(rng, scanned.text)
        unscanned, scanned = unscanned.apply_edit(edit, new_text), scanned.apply_edit(edit, new_text)
        assert unscanned.unscanned_text() == scanned.text, (step, edit, new_text)
        assert unscanned.line_count == scanned.line_count and unscanned.edited_from is None
    lines = unscanned.unscanned_lines()
    assert lines is not None
    assert [lines.line_start(line) for line in range(lines.line_count)] == \
        [0] + [offset + 1 for offset, character in enumerate(scanned.text) if character == "\n"]
    assert [unscanned.scan(line) for line in range(unscanned.line_count)] == \
        [scanned.scan(line) for line in range(scanned.line_count)]


def test_an_edit_of_an_unscanned_document_keeps_its_kind_and_source() -> None:
    document = Document(SPLIT_TEXT, FileKind.HLO_MODULE, "/dump/mlp.txt")
    edited = document.apply_edit(Range.on_line(YNN_FUSION_LINE, 3, 13), "renamed")
    assert (edited.kind, edited.source, edited.edited_from) == (FileKind.HLO_MODULE, "/dump/mlp.txt", None)
    assert document.unscanned_text() == SPLIT_TEXT and edited.unscanned_text() is not None


@pytest.mark.parametrize("text", [SPLIT_TEXT, NON_ASCII_TEXT, "", "😀"], ids=["split", "non-ascii", "empty", "emoji"])
def test_edits_no_one_reads_wait_and_are_spliced_in_order_when_the_text_is_read(text: str) -> None:
    """A version no one reads keeps its edits waiting (a 40 MB text is not copied at each edit): its line count is
    known at once, and its text, read after many edits, or read at an older version in between, is the scanned
    document's."""
    rng = random.Random(7 + len(text))
    unscanned, scanned = hlo(text), hlo(text)
    assert scanned.chunks
    versions = []
    for step in range(60):
        edit, new_text = random_edit_of(rng, scanned.text)
        unscanned, scanned = unscanned.apply_edit(edit, new_text), scanned.apply_edit(edit, new_text)
        assert unscanned.line_count == scanned.line_count, step
        versions.append((unscanned, scanned.text))
    middle, middle_text = versions[29]
    assert middle.unscanned_text() == middle_text
    assert unscanned.unscanned_text() == scanned.text
    assert unscanned.line(unscanned.line_count - 1) == scanned.line(scanned.line_count - 1)
    assert versions[0][0].text == versions[0][1]
