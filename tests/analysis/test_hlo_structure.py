"""HLO module structure: ROOT and ENTRY, closed computations, and names that resolve nowhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import (
    COMBINED_MLP,
    HANDWRITTEN,
    RANDOM_EDITS,
    SPLIT_MLP,
    after_random_module_edits_like_a_fresh_check,
    copy_module,
    lines_of,
    module_of,
    plant_in_copy,
    problems_of,
    where,
)
from hlo_lsp.analysis.checks import hlo_structure
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.problems import Problem, Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING
FUSED = "  ROOT %dot_general.0 = f32[32,10]{1,0} dot(%param_0, %param_1)"


def planted(stem: Path, tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    return plant_in_copy(stem, ".txt", tmp_path, old, new)


def line_of(path: Path, start: str) -> int:
    return next(n for n, line in enumerate(path.read_text().split("\n")) if line.startswith(start))


def underlined(problem: Problem, path: Path) -> str:
    start, end = problem.range.start, problem.range.end
    return path.read_text().split("\n")[start.line][start.character:end.character]


def test_operand_naming_an_undefined_instruction(tmp_path: Path) -> None:
    hlo, line = planted(SPLIT_MLP, tmp_path, "fusion(%ynn_fusion.2, %bs_0_.1), kind=kLoop",
                        "fusion(%ynn_fusion.7, %bs_0_.1), kind=kLoop")
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line, ERROR, "undefined-instruction")]
    assert problems[0].message == "instruction ynn_fusion.7 is not defined in this module"
    assert underlined(problems[0], hlo) == "ynn_fusion.7"


def test_combined_dump_operand_naming_an_undefined_instruction(tmp_path: Path) -> None:
    # JAX 0.4.38 prints names without `%`.
    hlo, line = planted(COMBINED_MLP, tmp_path, "add_reduce_fusion = f32[32]{0} fusion(dot.32,",
                        "add_reduce_fusion = f32[32]{0} fusion(dot.99,")
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line, ERROR, "undefined-instruction")]
    assert underlined(problems[0], hlo) == "dot.99"


def test_an_undefined_operand_spelt_like_an_opcode_is_dropped_with_a_warning(tmp_path: Path) -> None:
    """XLA's parser reads `fusion(all-reduce, ...)` as `fusion(...)`, without a word: hlo-lsp says so."""
    hlo, line = planted(COMBINED_MLP, tmp_path, "add_reduce_fusion = f32[32]{0} fusion(dot.32,",
                        "add_reduce_fusion = f32[32]{0} fusion(all-reduce,")
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line, WARNING, "dropped-operand")]
    assert problems[0].message == ("all-reduce names no instruction defined above in this computation: XLA's "
                                   "parser reads it as an opcode and drops the operand")
    assert underlined(problems[0], hlo) == "all-reduce"


def test_a_dropped_operand_leaves_its_instruction_one_operand_short(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT t = f32[4] add(p, abs)\n}\n")
    problems = problems_of(path)
    assert where(problems) == [("m.hlo", 3, ERROR, "operand-count"), ("m.hlo", 3, WARNING, "dropped-operand")]
    assert problems[0].message == "add expects 2 operands, but has 1"


def test_an_operand_spelt_like_an_opcode_and_defined_above_is_an_operand(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  abs = f32[4] abs(p)\n"
                    "  ROOT t = f32[4] add(p, abs)\n}\n")
    assert problems_of(path) == []


def test_operand_naming_an_instruction_of_another_computation(tmp_path: Path) -> None:
    # param_0.14 belongs to fused_computation.6, not to fused_computation.7.
    hlo, line = planted(SPLIT_MLP, tmp_path, "  %add.8 = f32[32,256]{1,0} add(%param_0.16, %add.9)",
                        "  %add.8 = f32[32,256]{1,0} add(%param_0.14, %add.9)")
    assert where(problems_of(tmp_path)) == [(hlo.name, line, ERROR, "undefined-instruction")]


def test_calls_naming_an_undefined_computation(tmp_path: Path) -> None:
    hlo, line = planted(SPLIT_MLP, tmp_path, "calls=%fused_computation.7,", "calls=%fused_computation.77,")
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line, ERROR, "undefined-computation")]
    assert problems[0].message == "computation fused_computation.77 is not defined in this module"
    assert underlined(problems[0], hlo) == "fused_computation.77"


def test_stack_frame_id_that_is_not_in_the_table(tmp_path: Path) -> None:
    hlo, line = planted(SPLIT_MLP, tmp_path, 'calls=%fused_computation.7, metadata={op_name="jit(mlp)/jit(relu)/max" '
                        "stack_frame_id=5}", 'calls=%fused_computation.7, metadata={op_name="jit(mlp)/jit(relu)/max" '
                        "stack_frame_id=55}")
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line, WARNING, "undefined-stack-frame")]
    assert problems[0].message == "stack frame 55 is not defined in this module"


def test_computation_without_root_has_its_last_instruction_as_root(tmp_path: Path) -> None:
    """XLA's parser takes the last instruction of a computation without ROOT as its root."""
    hlo, line = planted(SPLIT_MLP, tmp_path, FUSED, FUSED.replace("ROOT ", ""))
    assert problems_of(tmp_path) == []
    assert lines_of(hlo)[line].lstrip().startswith("%dot_general.0 = ")


def test_computation_with_two_roots(tmp_path: Path) -> None:
    hlo, line = planted(SPLIT_MLP, tmp_path, "  %param_1 = f32[256,10]{1,0} parameter(1)",
                        "  ROOT %param_1 = f32[256,10]{1,0} parameter(1)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line_of(hlo, "%fused_computation ("), ERROR, "root-count")]
    assert problems[0].message == ("computation fused_computation has 2 ROOT instructions; it may have one "
                                   "(without, its last instruction is its root)")


def test_module_with_two_entry_computations(tmp_path: Path) -> None:
    hlo, line = planted(SPLIT_MLP, tmp_path, "%fused_computation.7 (param_0.16",
                        "ENTRY %fused_computation.7 (param_0.16")
    problems = problems_of(tmp_path)
    # Reported on the second ENTRY in file order, naming the first.
    assert where(problems) == [(hlo.name, line_of(hlo, "ENTRY %main.5"), ERROR, "duplicate-entry")]
    assert problems[0].message == "second ENTRY computation main.5 (the first is fused_computation.7)"
    assert line < line_of(hlo, "ENTRY %main.5")


def test_module_without_entry_computation_has_its_last_computation_as_entry(tmp_path: Path) -> None:
    """XLA's parser takes the last computation of a module without ENTRY as its entry."""
    hlo, _ = planted(SPLIT_MLP, tmp_path, "ENTRY %main.5 (", "%main.5 (")
    assert problems_of(tmp_path) == []
    module = module_of(hlo)
    assert module.hlo is not None and module.hlo.entry is not None and module.hlo.entry.name == "main.5"


def test_a_header_cut_short_opens_no_computation(tmp_path: Path) -> None:
    """`foo` alone reads as a header whose `{` XLA expects below (`foo` / `{`); the next header is not
    one inside it, nor a second ENTRY."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\n\nfoo\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
    found = [(p.range.start.line, p.code) for p in problems_of(path)]
    assert (2, "syntax") in found
    assert {line for line, _ in found} == {2}, found


def test_a_headless_module_may_have_the_brace_of_its_first_computation_below(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("e // c\n\n{\n  ROOT p = f32[] parameter(0)\n}\n")
    assert problems_of(path) == []
    path.write_text("e\nf {\n  ROOT p = f32[] parameter(0)\n}\n")
    assert (0, "syntax") in [(p.range.start.line, p.code) for p in problems_of(path)]


def test_a_text_of_one_instruction_is_a_module_of_it(tmp_path: Path) -> None:
    """XLA's parser reads it so: a parameter for each operand written with its shape."""
    path = tmp_path / "m.hlo"
    path.write_text("// from a bug report\nx = f32[] add(f32[] y, f32[] z)\n")
    assert problems_of(path) == []
    path.write_text("x = f32[] add(f32[] y, z)\n")
    assert [(p.range.start.line, p.code, p.message) for p in problems_of(path)] == [
        (0, "undefined-instruction", "instruction z is not defined in this module: a text of one instruction has a "
                                     "parameter only for an operand written with its shape (`f32[] y`)")]
    path.write_text("x = f32[] abs(f32[] y, \n")  # the grammar reads it as the one instruction it is
    assert [(p.range.start.line, p.code) for p in problems_of(path)] == [(0, "syntax")]
    path.write_text("x = f32[] abs(f32[] y)\nz = f32[] abs(x)\n")
    found = [(p.range.start.line, p.code) for p in problems_of(path)]
    assert (0, "instruction-outside-computation") in found and (1, "instruction-outside-computation") in found


def test_module_without_computation(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\n")
    problems = problems_of(path)
    assert where(problems) == [("m.hlo", 0, ERROR, "empty-module")]
    assert problems[0].message == "the module has no computation"


def test_a_file_of_comments_is_no_module(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("// a comment\n/* and\n another */\n")
    problems = problems_of(path)
    assert where(problems) == [("m.hlo", 0, ERROR, "empty-module")]
    assert problems[0].message == "the file holds no HLO module (`HloModule name` and a computation)"
    path.write_text("\n\n")  # an editor's new file: a note, not an error
    assert [problem.code for problem in problems_of(path)] == ["empty-file"]


@pytest.mark.parametrize("opening", ["e (p: f32[]) -> f32[] {", 'e, execution_thread="x" {'])
def test_without_a_header_a_module_starts_with_entry_or_a_name_and_brace(opening: str, tmp_path: Path) -> None:
    """XLA's parser reads a text that starts neither with `HloModule`, `ENTRY` nor `name {` as a single
    instruction ("expects '=' in instruction")."""
    path = tmp_path / "m.hlo"
    path.write_text(f"{opening}\n  p = f32[] parameter(0)\n}}\n")
    problems = problems_of(path)
    assert [(p.range.start.line, p.range.start.character, p.code) for p in problems] == [(0, 0, "syntax")]
    assert problems[0].message.startswith("without `HloModule` first, XLA reads a module only when it starts")
    for accepted in ("e {", "e: {", "e /* c */ {", "ENTRY e (p: f32[]) -> f32[] {"):
        path.write_text(f"{accepted}\n  p = f32[] parameter(0)\n}}\n")
        assert problems_of(path) == []


def test_computation_without_instruction(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n}\n")
    problems = problems_of(path)
    assert where(problems) == [("m.hlo", 1, ERROR, "empty-computation")]
    assert problems[0].message == "computation e has no instruction"


def test_an_operand_defined_below_its_use(tmp_path: Path) -> None:
    """XLA's parser takes a name only once it is defined ("instruction does not exist")."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  ROOT v = f32[4] abs(p)\n  p = f32[4] parameter(0)\n}\n")
    problems = problems_of(path)
    assert where(problems) == [("m.hlo", 2, ERROR, "undefined-instruction")]
    assert problems[0].message == "instruction p is used before it is defined (on line 4)"


def test_a_computation_called_above_its_definition(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f\n}\n"
                    "f {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n}\n")
    problems = problems_of(path)
    assert where(problems) == [("m.hlo", 3, ERROR, "undefined-computation")]
    assert problems[0].message == "computation f is used before it is defined (on line 6)"


def test_instruction_defined_twice_in_one_computation(tmp_path: Path) -> None:
    hlo, line = planted(SPLIT_MLP, tmp_path, FUSED, FUSED.replace("%dot_general.0 =", "%param_1 ="))
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line, ERROR, "duplicate-instruction")]
    assert problems[0].message == f"param_1 is defined twice in this computation (first on line {line})"
    assert underlined(problems[0], hlo) == "param_1"


def test_same_name_in_two_computations_is_not_a_duplicate(tmp_path: Path) -> None:
    # param_1.1 is also fused_computation.1's parameter.
    planted(SPLIT_MLP, tmp_path, FUSED, FUSED.replace("%dot_general.0 =", "%param_1.1 ="))
    assert problems_of(tmp_path) == []


def test_computation_defined_twice(tmp_path: Path) -> None:
    hlo, line = planted(SPLIT_MLP, tmp_path, "%fused_computation.7 (param_0.16", "%fused_computation.6 (param_0.16")
    values = Path(str(hlo).replace(".txt", "-buffer-assignment-values.txt"))
    problems = problems_of(tmp_path)
    # Calls of the old name no longer resolve, in the module and in the from-instruction text.
    assert [p[1:] for p in where(problems)] == [
        (line_of(values, " from instruction: %broadcast_maximum_fusion"), ERROR, "unknown-computation"),
        (line, ERROR, "duplicate-computation"),
        (line_of(hlo, "  %broadcast_maximum_fusion"), ERROR, "undefined-computation")]
    assert problems[1].message == ("computation fused_computation.6 is defined again "
                                   f"(first on line {line_of(hlo, '%fused_computation.6 (param_0.14') + 1})")


def test_computation_without_closing_brace(tmp_path: Path) -> None:
    hlo = Path(f"{copy_module(SPLIT_MLP, tmp_path)}.txt")
    text = hlo.read_text()
    closing = text.index("\n}\n", text.index(FUSED)) + 1
    hlo.write_text(text[:closing] + text[closing + 1:])
    problems = problems_of(tmp_path)
    assert where(problems) == [(hlo.name, line_of(hlo, "%fused_computation ("), ERROR, "unclosed-computation"),
                               (hlo.name, line_of(hlo, "%fused_computation.1 ("), ERROR, "unclosed-computation")]
    assert problems[0].message == "computation fused_computation has no closing `}`"


def test_a_computation_named_inside_itself_is_not_defined_yet(tmp_path: Path) -> None:
    """XLA's parser takes a computation once it has read it to its `}`: not inside itself."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT c = f32[4] call(p), to_apply=e\n}\n")
    problems = problems_of(path)
    assert [(p.range.start.line, p.range.start.character, p.severity, p.code) for p in problems] == [
        (3, 36, ERROR, "undefined-computation")]
    assert problems[0].message == ("computation e is used inside itself: XLA's parser takes a computation once it "
                                   "has read it to its `}`")


def test_the_attributes_after_a_body_written_inline_name_computations(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT w = f32[4] while(p), condition=\n"
                    "{ a = f32[4] parameter(0)\n  ROOT r = pred[] constant(true) }, body=b\n}\n")
    problems = problems_of(path)
    assert [(p.range.start.line, p.range.start.character, p.code, p.message) for p in problems] == [
        (5, 41, "undefined-computation", "computation b is not defined in this module")]


def test_handwritten_module_with_comments_literals_and_repeated_names() -> None:
    # `state` and `i` are defined in both `cond` and `body`; names are unique per computation.
    assert problems_of(HANDWRITTEN) == []


def test_a_name_with_equals_glued_reads_as_an_attribute(tmp_path: Path) -> None:
    """XLA's lexer reads `q=` as an attribute's key ("expects name"); `%q=` and `q =` are definitions."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  q=f32[4] parameter(0)\n  %r=f32[4] abs(q)\n"
                    "  ROOT v = f32[4] abs(r)\n}\n")
    problems = problems_of(path)
    assert [(p.range.start.line, p.range.start.character, p.range.end.character, p.code) for p in problems] == [
        (2, 2, 4, "syntax")]
    assert problems[0].message == "`q=` reads as an attribute: write `q =`, or `%q=`"


def test_a_block_comment_left_open_runs_to_the_end(tmp_path: Path) -> None:
    """XLA's lexer never finds the `*/` ("expects name" where the text ends)."""
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  ROOT p = f32[4] parameter(0) /* open\n}\n")
    problems = problems_of(path)
    assert [(p.range.start.line, p.range.start.character, p.code) for p in problems] == [
        (1, 6, "unclosed-computation"), (2, 31, "syntax")]
    assert problems[1].message == "block comment without its `*/`: it runs to the end of the text"


def test_on_a_line_of_several_items_a_name_is_defined_before_its_use_or_not_at_all(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text("HloModule m\nENTRY e {\n  a = f32[4] abs(p) p = f32[4] parameter(0) ROOT b = f32[4] abs(p)\n}\n")
    problems = problems_of(path)
    assert [(p.range.start.line, p.range.start.character, p.code) for p in problems] == [
        (2, 17, "undefined-instruction")]


# ---- after an edit --------------------------------------------------------------------------------------------

# Names that resolve nowhere in several chunks (of 4 lines), after op_name strings an edit may lengthen.
UNDEFINED_AFTER_EDITS = """HloModule m

ENTRY e {
  p = f32[] parameter(0)
  a = f32[] add(p, q), metadata={op_name="a" stack_frame_id=7}
  b = f32[] negate(a), metadata={op_name="b"}
  c = f32[] abs(b), metadata={op_name="c" stack_frame_id=8}
  d = f32[] add(c, r), metadata={op_name="d"}
  f = f32[] call(d), to_apply=nowhere, metadata={op_name="f"}
  ROOT g = f32[] add(f, s), metadata={op_name="g" stack_frame_id=9}
}
"""


@RANDOM_EDITS
@given(data=st.data())
def test_after_any_edits_the_undefined_names_are_those_of_a_fresh_check(data: st.DataObject) -> None:
    def undefined(module: ModuleDump) -> list[tuple[int, int, str]]:
        return [(p.range.start.line, p.range.start.character, p.message)
                for p in hlo_structure.check(CheckContext(module))]

    pieces = ["x", "é", "😀", ' op_name="', "q", "p", " stack_frame_id=1", ",", "\n"]
    after_random_module_edits_like_a_fresh_check(data, UNDEFINED_AFTER_EDITS, pieces, undefined)


def test_a_computation_whose_brace_closes_an_attribute_says_where_it_went(tmp_path: Path) -> None:
    """XLA's lexer reads a `}` alone below `metadata={...` as closing it (oracle sample text #677: a line
    comment inserted before the `}`); when that leaves the computation open, the problem says so."""
    path = tmp_path / "m.hlo"
    path.write_text('HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n'
                    '  ROOT v = f32[4] abs(p), metadata={op_name="x"\n}\n\n'
                    "f {\n  q = f32[] parameter(0)\n  ROOT w = f32[] negate(q)\n}\n")
    assert [(p.range.start.line, p.message) for p in problems_of(path)] == [
        (2, "computation e has no closing `}`: the `}` on line 6 closes a bracket left open above it, as XLA reads it"),
        (7, "computation header inside another computation (its `}` is missing)")]
    path.write_text(path.read_text().replace('"x"\n}', '"x" // c\n}\n}'))
    assert problems_of(path) == []
