"""The hlo-opcodes pass after an edit: derived from the previous version's in proportion to the edit,
and always what a fresh check of the same text finds."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from helpers import RANDOM_EDITS, after_random_module_edits_like_a_fresh_check, problems_of
from hlo_lsp.analysis.checks import opcodes
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model import document as document_module
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

# Computations longer than a chunk (4 lines here), parameters numbered out of order and twice, an
# async chain and an attribute the rules read: what the pass keeps per chunk, per computation and per run.
TEXT = """HloModule m

w {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

c {
  a = f32[] parameter(1)
  b = f32[] parameter(3)
  x = f32[] add(a, b), metadata={op_name="x"}
  y = f32[] multiply(x, x)
  z = f32[] subtract(y, a)
  q = f32[] parameter(0)
  ROOT r = f32[] add(z, q)
}

d {
  a = f32[] parameter(0)
  x = f32[] negate(a), metadata={op_name="x"}
  y = f32[] abs(x)
  z = f32[] exponential(y)
  b = f32[] parameter(0)
  ROOT r = f32[] add(z, b)
}

ENTRY e {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w
  d = f32[4] async-done(s), metadata={op_name="d"}
  t = f32[4] transpose(d), dimensions={0}
  ROOT u = f32[4] negate(t)
}
"""
# What the edits type: most keep every line where it was (the pass then starts from the last one).
PIECES = ["x", "0", "1", "2", " ", ",", "(", ")", "/* c */", "async-done", "parameter(3)", 'op_name="', "{", "}",
          "\n"]


def opcode_problems(module: ModuleDump) -> list[Problem]:
    return sorted(opcodes.check(CheckContext(module)), key=Problem.sort_key)


@RANDOM_EDITS
@given(data=st.data())
def test_after_any_edits_the_pass_finds_what_a_fresh_one_does(data: st.DataObject) -> None:
    after_random_module_edits_like_a_fresh_check(data, TEXT, PIECES, opcode_problems)


def test_an_edit_beside_a_misnumbered_computation_keeps_its_problem_where_it_was() -> None:
    with mock.patch.object(document_module, "CHUNK_LINES", 4):
        document = Document(TEXT, FileKind.HLO_MODULE, "pass.hlo")
        module = ModuleDump("pass", {FileKind.HLO_MODULE: document})
        before = [(p.range.start.line, p.message) for p in opcode_problems(module)]
        assert before == [(9, "parameter number 3 leaves a gap: the computation has 3 parameters, numbered from 0 "
                              "(XLA's parser crashes)"), (22, "Duplicate parameter number 0 (first on line 19)")]
        line = TEXT.split("\n").index('  x = f32[] add(a, b), metadata={op_name="x"}')
        edited = document.apply_edit(Range(Position(line, 43), Position(line, 43)), "yz")
        assert edited.edited_from is not None and edited.edited_from.first > 0  # the pass starts from the last one
        after = opcode_problems(module.updated({FileKind.HLO_MODULE: edited}))
        assert [(p.range.start.line, p.message) for p in after] == before



def test_a_line_out_of_place_is_judged_alike_whatever_was_read_before(tmp_path: Path) -> None:
    """Long-mode session seed 10262: the opcode rules' verdicts are kept per line text, process-wide. A
    line read inside a computation taught its verdict; the same text out of place (outside any
    computation, which teaches nothing) then had its attribute judged, while a fresh process skips it."""
    line = '  c = f32[] constant(0), metadata={op_name="x" stack_frame_id=5]'
    inside = tmp_path / "inside.hlo"
    inside.write_text(f"HloModule m\n\nENTRY e {{\n{line}\n}}\n")
    assert "attribute-value" in [p.code for p in problems_of(inside)]
    outside = tmp_path / "outside.hlo"
    outside.write_text(f"HloModule m\n\nENTRY e {{\n  ROOT p = f32[] parameter(0)\n}}\n}}\n{line}\n")
    assert [p.code for p in problems_of(outside) if p.range.start.line == 6 and p.severity is Severity.ERROR] == [
        "instruction-outside-computation"]


def test_a_line_that_heads_a_computation_elsewhere_is_an_instruction_inside_one(tmp_path: Path) -> None:
    """Long run on 61d3e39 (text #33894): `a // c` at the top heads a computation (its `{` below); inside
    one it is an instruction's name, its `= f32[] parameter(0)` below. Its verdict, learned at the top first,
    made the pass take it for a header: the parameter numbers started again, a duplicate went unseen."""
    header = tmp_path / "header.hlo"
    header.write_text("HloModule m\n\n  a // c\n{\n  ROOT p = f32[] parameter(0)\n}\n")
    assert problems_of(header) == []
    duplicate = tmp_path / "duplicate.hlo"
    duplicate.write_text("HloModule m\n\nENTRY e {\n  a // c\n= f32[] parameter(0)\n  b = f32[] parameter(0)\n}\n")
    problems = problems_of(duplicate)
    assert [(p.range.start.line, p.code, p.message) for p in problems if p.severity is Severity.ERROR] == [
        (5, "parameter-number", "Duplicate parameter number 0 (first on line 4)")]


def test_a_line_that_ends_a_comment_from_above_is_judged_where_it_does_not(tmp_path: Path) -> None:
    """Long run on c553537 (text #53432): `a = abs() /* a b */ROOT b = ...` below a comment left open is the
    end of that comment, then `b`; its verdict, learned there first (nothing to check on `b`), made the pass
    skip the same text elsewhere, where `abs()` lacks its operand."""
    line = "  a = abs() /* a b */ROOT b = f32[4] negate(p)"
    in_comment = tmp_path / "in_comment.hlo"
    in_comment.write_text(f"HloModule m\n\nENTRY e {{\n  p = f32[4] parameter(0)\n  q = f32[4] abs(p) /* c\n"
                          f"{line}\n}}\n")
    assert [p.code for p in problems_of(in_comment) if p.severity is Severity.ERROR] == []
    alone = tmp_path / "alone.hlo"
    alone.write_text(f"HloModule m\n\nENTRY e {{\n  p = f32[4] parameter(0)\n{line}\n}}\n")
    assert [(p.range.start.line, p.range.start.character, p.code, p.message) for p in problems_of(alone)
            if p.severity is Severity.ERROR] == [(4, 9, "operand-count", "abs expects 1 operand, but has 0")]


def test_a_header_first_read_in_a_string_still_heads_its_computation(tmp_path: Path) -> None:
    """Long run on 2c1d05c (text #45955): `ENTRY e {// c` read first inside a string over lines (a line of no
    item, its verdict learned as an instruction's: none) was skipped where it heads a computation, and the
    computation's duplicate parameter number went unseen."""
    in_string = tmp_path / "in_string.hlo"
    in_string.write_text('HloModule m\n\nENTRY f {\n  ROOT v = f32[4] parameter(0), metadata={op_name="x\n'
                         'ENTRY e {// c\ny"}\n}\n')
    assert problems_of(in_string) == []
    duplicate = tmp_path / "duplicate.hlo"
    duplicate.write_text("HloModule m\n\nENTRY e {// c\n  q = f32[4] parameter(0)\n  p = f32[4] parameter(0)\n"
                         "  ROOT v = f32[4] abs(p)\n}\n")
    assert [(p.range.start.line, p.code, p.message) for p in problems_of(duplicate)] == [
        (4, "parameter-number", "Duplicate parameter number 0 (first on line 4)")]
