"""Syntax problems of one document (analysis/syntax.py): scanner problems and what the grammar rejects."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import DATA, HANDWRITTEN, SPLIT_MLP, copy_module, plant, problems_of
from hlo_lsp.analysis import syntax as syntax_module
from hlo_lsp.analysis.syntax import MAX_PARSED_CHARS, syntax_problems
from hlo_lsp.model import document as document_module
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import load, read_document

ERROR = Severity.ERROR
X_LINE = '  %x.1 = f32[32,128]{1,0} parameter(6), metadata={op_name="x"}'


def found(path: Path) -> list[tuple[int, int, int, Severity, str]]:
    document, problems = read_document(str(path))
    assert document is not None and problems == []
    return [(p.range.start.line, p.range.start.character, p.range.end.character, p.severity, p.code)
            for p in in_order(syntax_problems(document))]


def messages(path: Path) -> list[str]:
    document, _ = read_document(str(path))
    assert document is not None
    return [p.message for p in in_order(syntax_problems(document))]


def in_order(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=Problem.sort_key)


def planted(tmp_path: Path, suffix: str, old: str, new: str) -> tuple[Path, int]:
    path = Path(f"{copy_module(SPLIT_MLP, tmp_path)}{suffix}")
    assert found(path) == []
    return path, plant(path, old, new)


@pytest.mark.parametrize("source", [d.source for m in load([str(DATA)]).modules for d in m.all_documents()],
                         ids=lambda source: Path(source).name)
def test_real_documents_have_no_syntax_problems(source: str) -> None:
    assert found(Path(source)) == []


def test_unclosed_attribute_brace_in_an_instruction(tmp_path: Path) -> None:
    hlo, line = planted(tmp_path, ".txt", "  %add.9 = f32[32,256]{1,0} broadcast(%param_1.22), dimensions={1}",
                        "  %add.9 = f32[32,256]{1,0} broadcast(%param_1.22), dimensions={1")
    end = len(hlo.read_text().split("\n")[line])
    # The brace stays open into the next line, which the scanner reports as a continuation that never closes.
    assert found(hlo) == [(line, end - 1, end, ERROR, "syntax"), (line + 1, 0, 104, ERROR, "unbalanced-brackets")]
    assert messages(hlo)[0].startswith("unexpected end of text")
    assert messages(hlo)[1] == "the instruction above leaves 1 bracket(s) open"


def test_shape_without_closing_bracket(tmp_path: Path) -> None:
    hlo, line = planted(tmp_path, ".txt", "  %add.9 = f32[32,256]{1,0} broadcast",
                        "  %add.9 = f32[32,256{1,0} broadcast")
    assert found(hlo)[0] == (line, 21, 22, ERROR, "syntax")
    assert messages(hlo)[0] == "unexpected `{`; expected `,`, `]`, end of line"


def test_computation_header_without_result_shape(tmp_path: Path) -> None:
    hlo, line = planted(tmp_path, ".txt", "param_1.22: f32[256]) -> f32[32,256] {", "param_1.22: f32[256]) -> {")
    assert found(hlo) == [(line, 72, 73, ERROR, "syntax")]
    assert messages(hlo) == ["unexpected `{`; expected `(`, a name, end of line"]


def test_module_header_attribute_without_value(tmp_path: Path) -> None:
    hlo, line = planted(tmp_path, ".txt", "HloModule jit_mlp, is_scheduled=true,", "HloModule jit_mlp, is_scheduled=,")
    assert found(hlo) == [(0, 32, 33, ERROR, "syntax")]
    assert messages(hlo)[0].startswith("unexpected `,`")


def test_stack_frame_row_without_parent_id(tmp_path: Path) -> None:
    hlo, line = planted(tmp_path, ".txt", "5 {file_location_id=5 parent_frame_id=4}",
                        "5 {file_location_id=5 parent_frame_id=}")
    assert found(hlo) == [(line, 38, 39, ERROR, "syntax")]
    assert messages(hlo) == ["unexpected `}`; expected an integer, end of line"]


def test_error_column_counts_utf16_units(tmp_path: Path) -> None:
    new = '  %x.1 = f32[32,128]{1,0} parameter(6), metadata={op_name="\U0001F600"}, ='
    hlo, line = planted(tmp_path, ".txt", X_LINE, new)
    column = new.index(", =") + 2 + 1  # the emoji is two UTF-16 code units
    assert found(hlo) == [(line, column, column + 1, ERROR, "syntax")]


def test_buffer_assignment_line_the_scanner_cannot_read_gets_the_grammar_message(tmp_path: Path) -> None:
    ba, line = planted(tmp_path, "-buffer-assignment.txt", "<68 add_reduce_fusion @0> (size=128,offset=0)",
                       "<68 add_reduce_fusion @0> (size=128,ofset=0)")
    assert found(ba) == [(line, 44, 49, ERROR, "syntax")]
    assert messages(ba) == ["unexpected `ofset`; expected `offset`, end of line"]


def test_unreadable_value_line_also_leaves_the_value_unallocated(tmp_path: Path) -> None:
    ba, line = planted(tmp_path, "-buffer-assignment.txt", "<68 add_reduce_fusion @0> (size=128,offset=0)",
                       "<68 add_reduce_fusion @0> (size=128,ofset=0)")
    values = Path(str(ba).replace("-buffer-assignment.txt", "-buffer-assignment-values.txt"))
    lr = Path(str(ba).replace("-buffer-assignment.txt", "-live-range.txt"))
    assert [(Path(p.source), p.range.start.line, p.code) for p in problems_of(tmp_path)] == [
        (values, values.read_text().split("\n").index("<68 add_reduce_fusion @0>"), "unallocated-used-value"),
        (ba, line, "syntax"),
        (lr, lr.read_text().split("\n").index("    add_reduce_fusion{}:12-14"), "unallocated-live-range")]


def test_from_instruction_with_an_unclosed_parenthesis(tmp_path: Path) -> None:
    values, line = planted(tmp_path, "-buffer-assignment-values.txt", "%x.1 = f32[32,128]{1,0} parameter(6),",
                           "%x.1 = f32[32,128]{1,0} parameter(6,")
    assert found(values) == [(line, 64, 65, ERROR, "syntax"), (line + 1, 0, 15, ERROR, "unbalanced-brackets")]
    assert messages(values)[1] == "the from instruction above leaves 1 bracket(s) open"


def test_live_range_line_with_a_colon_for_a_dash(tmp_path: Path) -> None:
    lr, line = planted(tmp_path, "-live-range.txt", "    ynn_fusion.2{}:7-8", "    ynn_fusion.2{}:7:8")
    assert found(lr) == [(line, 20, 22, ERROR, "syntax")]
    assert messages(lr) == ["unexpected `:8`; expected `minus`, end of line"]


def test_line_too_long_for_the_grammar_is_a_note(tmp_path: Path) -> None:
    long_name = "x" * MAX_PARSED_CHARS
    hlo, line = planted(tmp_path, ".txt", X_LINE, X_LINE.replace('op_name="x"', f'op_name="{long_name}"'))
    assert found(hlo) == [(line, 0, 1, Severity.INFO, "long-line")]
    length = len(X_LINE) + MAX_PARSED_CHARS - 1
    assert messages(hlo) == [f"line of {length:,} characters: indexed for names, not checked against the grammar"]


EDIT_PIECES = ["{", "}", "(", ")", '"', "\n", "%", " = ", "f32[", "ROOT ", "}\n", "{\n", "x", ", metadata={"]
SOURCE = "m.cpu_after_optimizations.txt"


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_problems_kept_per_chunk_match_a_fresh_check_after_edits(data: st.DataObject) -> None:
    """The grammar's problems are kept per chunk and reused after an edit: any edit sequence gives
    the problems a fresh document of the same text gives (the hand-written module has items that
    continue over several lines, so over chunk boundaries)."""
    text = data.draw(st.sampled_from([Path(f"{SPLIT_MLP}.txt"), HANDWRITTEN]), label="dump").read_text()
    edit_like_a_fresh_check(data, Document(text, FileKind.HLO_MODULE, SOURCE), EDIT_PIECES, edits=5, columns=60)


def edit_like_a_fresh_check(data: st.DataObject, document: Document, pieces: list[str], edits: int,
                            columns: int) -> None:
    """Random edits (with chunks of 4 lines); after each, the problems a fresh document of the text has."""
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        document = Document(document.text, document.kind, document.source)
        syntax_problems(document)
        for _ in range(data.draw(st.integers(1, edits), label="edits")):
            line = data.draw(st.integers(0, document.line_count), label="line")
            column = data.draw(st.integers(0, columns), label="column")
            piece = "".join(data.draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=3), label="text"))
            document = document.apply_edit(Range(Position(line, column), Position(line, column)), piece)
            fresh = Document(document.text, document.kind, document.source)
            assert in_order(syntax_problems(document)) == in_order(syntax_problems(fresh))


VALUES_PIECES = ["(", ")", "\n", "<1 x @0>", " positions:", " uses:", " from instruction: %a = f32[] add(", "x"]


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_values_file_after_edits_has_a_fresh_checks_problems(data: st.DataObject) -> None:
    """The same for a buffer-assignment values file, whose unreadable lines the grammar explains."""
    text = Path(f"{SPLIT_MLP}-buffer-assignment-values.txt").read_text()
    source = "m.cpu_after_optimizations-buffer-assignment-values.txt"
    document = Document(text, FileKind.BUFFER_ASSIGNMENT_VALUES, source)
    edit_like_a_fresh_check(data, document, VALUES_PIECES, edits=4, columns=40)


def test_an_edit_is_checked_again_in_proportion_to_its_size() -> None:
    """Only the chunks around the edit are visited again, not every chunk of the document."""
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        document = Document(text, FileKind.HLO_MODULE, SOURCE)
        syntax_problems(document)
        line = next(number for number in range(60, document.line_count) if 'op_name="' in document.line(number))
        column = document.line(line).index('op_name="')
        edited = document.apply_edit(Range(Position(line, column), Position(line, column)), ", )")
        with mock.patch.object(syntax_module, "_kept_problems", wraps=syntax_module._kept_problems) as visited:
            problems = syntax_problems(edited)
        assert len(document.chunks) > 30 and visited.call_count <= 3
        assert [p.range.start.line for p in problems] == [line]
        assert in_order(problems) == in_order(syntax_problems(Document(edited.text, FileKind.HLO_MODULE, SOURCE)))


LINE_PIECES = ["x", "(", ")", '"', "%", "f32[", ", metadata={", "/*", "*/", " = ", "{", "}", "0"]


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_edits_within_lines_have_a_fresh_checks_problems(data: st.DataObject) -> None:
    """Edits that add no line (what typing in one line does): a chunk edited line for line takes its unchanged
    lines' problems from its previous version and checks the changed lines alone, when they read alone."""
    text = data.draw(st.sampled_from([Path(f"{SPLIT_MLP}.txt"), HANDWRITTEN]), label="dump").read_text()
    edit_like_a_fresh_check(data, Document(text, FileKind.HLO_MODULE, SOURCE), LINE_PIECES, edits=6, columns=90)


def test_an_edit_of_one_instruction_line_parses_that_line_alone_again() -> None:
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    document = Document(text, FileKind.HLO_MODULE, SOURCE)  # chunks of 512 lines: the module is one chunk
    syntax_problems(document)
    line = next(number for number in range(60, document.line_count) if " f32[" in document.line(number))
    column = document.line(line).index(" f32[") + len(" f3")
    edited = document.apply_edit(Range(Position(line, column), Position(line, column)), "3")  # `f332[`: no type
    with mock.patch.object(syntax_module, "_HLO_PARSERS", dict(syntax_module._HLO_PARSERS)) as parsers:
        parsers["instruction"] = mock.Mock(wraps=parsers["instruction"])
        problems = syntax_problems(edited)
    assert parsers["instruction"].call_count == 1
    assert [p.range.start.line for p in problems] == [line]
    assert in_order(problems) == in_order(syntax_problems(Document(edited.text, FileKind.HLO_MODULE, SOURCE)))


def test_an_edit_in_the_next_chunk_rechecks_an_item_that_continues_there() -> None:
    """A multi-line constant starts on line 24 and continues on lines 25-27: with chunks of 25 lines,
    its last lines sit in the next chunk, and breaking one of them is found again."""
    text = HANDWRITTEN.read_text()
    with mock.patch.object(document_module, "CHUNK_LINES", 25):
        document = Document(text, FileKind.HLO_MODULE, SOURCE)
        assert "constant({" in document.line(24) and syntax_problems(document) == []
        broken = document.apply_edit(Range(Position(25, 9), Position(25, 10)), " =")  # `{ 1 = 2 }`
        assert [(p.range.start.line, p.code) for p in syntax_problems(broken)] == [(25, "syntax")]


def test_a_text_of_two_instructions_the_first_continued_below_its_equals(tmp_path: Path) -> None:
    # XLA 2:21: Syntax error: Expected eof after parsing single instruction (oracle text #83476 of the run on
    # 1a8643e): the scanner reads the second line as the first instruction's continuation, `z = ...` in it.
    path = tmp_path / "m.hlo"
    path.write_text("x =// ROOT z\n f32[] abs(f32[] y) z = f32[] abs(x)\n")
    assert [(p.range.start.line, p.range.start.character, p.severity, p.code, p.message)
            for p in problems_of(path)] == [(1, 20, ERROR, "syntax", "unexpected `z`; expected `,`, end of line")]


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_line_of_a_template_known_to_parse_is_checked_as_the_grammar_checks_it(data: st.DataObject) -> None:
    """A real dump read once (its templates known to parse), then digits changed on its lines: an element type
    that is none (`f31`), a name, a dimension. The lines keep their templates and are not parsed again; their
    problems are those of every line asked of the grammar's check."""
    text = data.draw(st.sampled_from([Path(f"{SPLIT_MLP}.txt"), HANDWRITTEN]), label="dump").read_text()
    syntax_problems(Document(text, FileKind.HLO_MODULE, SOURCE))
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 4), label="changes")):
        number = data.draw(st.sampled_from([n for n, line in enumerate(lines) if any(c.isdigit() for c in line)]),
                           label="line")
        digit = data.draw(st.sampled_from([at for at, c in enumerate(lines[number]) if c.isdigit()]), label="digit")
        lines[number] = lines[number][:digit] + data.draw(st.sampled_from("0123456789")) + lines[number][digit + 1 :]
    changed = "\n".join(lines)
    found = syntax_problems(Document(changed, FileKind.HLO_MODULE, SOURCE))
    with mock.patch.object(syntax_module, "known_to_parse", lambda _: False):
        assert found == syntax_problems(Document(changed, FileKind.HLO_MODULE, SOURCE))


def test_an_element_type_that_is_none_on_a_line_of_a_known_template_is_an_error() -> None:
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    syntax_problems(Document(text, FileKind.HLO_MODULE, SOURCE))
    number, line = next((n, line) for n, line in enumerate(text.split("\n")) if " = f32[" in line and "dot(" in line)
    changed = text.replace(line, line.replace(" = f32[", " = f31[", 1))
    problems = syntax_problems(Document(changed, FileKind.HLO_MODULE, SOURCE))
    column = line.index(" = f32[") + 3
    assert [(p.range.start.line, p.range.start.character, p.severity, p.code) for p in problems] == \
        [(number, column, ERROR, "syntax")]
    assert "`f31` is not an element type" in problems[0].message
