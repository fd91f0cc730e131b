"""Forms XLA's HLO parser accepts that its dump printer never writes (hand-written modules: tests, bug
reports, inputs to hlo-opt): each reads clean, and reads as XLA reads it (its names, opcodes, roots,
entry and called computations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import module_of, problems_of
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.line_scan import Role

ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
FORMS = {
    "an instruction without its result shape": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = abs(p)\n}\n"),
    "a computation without ROOT": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  v = f32[4] abs(p)\n}\n"),
    "a module name with a trailing colon": (
        "HloModule m:, is_scheduled=true\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = f32[4] abs(p)\n}\n"),
    "comments between tokens, a commented-out ROOT": (
        "// a test\n/* of comments */\nHloModule m\nENTRY e {\n  p = f32[4] /* its shape */ parameter(0)\n"
        "  /* ROOT x = f32[4] abs(p) */\n  // ROOT y = f32[4] abs(p)\n  /* over\n  ROOT z = f32[4] abs(p)\n  lines */\n"
        "  ROOT v = f32[4] abs(/* an operand */ p) // the root\n}\n"),
    "comments inside an item and after a brace": (
        "HloModule m\nENTRY e {/* c */\n  p = f32[4] parameter(0)\n  a = f32[4] abs(p) /* b = f32[4] abs(p)\n"
        " ROOT c = f32[4] abs(p) */\n  n = f32[4] negate(a // its operand\n  )\n"
        "  /* a\n b */ROOT v = f32[4] abs(n)\n}\n"),
    "attributes continued on the next lines": (
        f"HloModule m\n{ADD}ENTRY e {{\n  p = f32[4] parameter(0)\n  c = f32[] constant(0)\n"
        "  ROOT v = f32[] reduce(p, c),\n    dimensions={0},\n    to_apply=add\n}\n"),
    "an attribute after a computation's closing brace": (
        "HloModule m\nneg {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n"
        "}, execution_thread=\"main_thread\"\n"
        "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT v = f32[] call(p), to_apply=neg\n}\n"),
    "NaN payloads in a literal": (
        "HloModule m\nENTRY e {\n  ROOT v = f32[3] constant({-nan(0x7f), nan(0x1), nan})\n}\n"),
    "a header attribute holding a multi-line string": (
        "HloModule m, frontend_attributes={note=\"one\n  two {\nthree\"}\nENTRY e {\n  p = f32[] parameter(0)\n"
        "  ROOT v = f32[] negate(p)\n}\n"),
    "a module without ENTRY": (
        "HloModule m\nneg {\n  a = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n}\n"
        "main {\n  p = f32[] parameter(0)\n  ROOT v = f32[] call(p), to_apply=neg\n}\n"),
    "an instruction attribute holding a multi-line string": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT v = f32[4] abs(p), backend_config=\"{\n"
        "  \\\"a\\\": 1 }\"\n}\n"),
    "names with a glued colon": (
        "HloModule m:\nneg: {\n  a: = f32[] parameter(0)\n  ROOT n = f32[] negate(a)\n}\n"
        "ENTRY e: (p: f32[]) -> f32[] {\n  p = f32[] parameter(0)\n  ROOT v = f32[] call(p), to_apply=neg\n}\n"),
    "ROOT alone on its line": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT // the result\n  v = f32[4] abs(p)\n}\n"),
    "the shape and opcode on lines below the name": (
        "HloModule m\nENTRY e {\n  p = /* its shape\n  */ f32[4] parameter(0)\n  ROOT t =\n"
        "    (f32[4], f32[4])\n    tuple(p,\n      p)\n}\n"),
    "a name above its `=`, a shape over lines": (
        "HloModule m\nENTRY e {\n  p // its shape below\n  = f32[4] parameter(0)\n  ROOT t /* a\n  b */= (f32[4],\n"
        "    f32[4]) tuple(p, p)\n}\n"),
    "a computation header over lines": (
        f"HloModule m\n{ADD}ENTRY e (p: f32[4], z: f32[]) -> /* its result\n  */f32[\n  ] {{\n"
        "  p = f32[4] parameter(0)\n"
        "  z = f32[] constant(0)\n  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n}\n"),
    "ENTRY and its name alone on a line": (
        "HloModule m\nENTRY e // the entry\n{\n  ROOT p = f32[] parameter(0)\n}\n"),
    "stack-frame rows over lines": (
        "HloModule m\nFileNames\n1 // the file\n\"a.py\"\nFunctionNames\n1 \"f\"\nFileLocations\n"
        "1 {file_name_id=1 function_name_id=1\n   line=3 end_line=3 column=1 end_column=2}\nStackFrames\n1\n"
        "{file_location_id=1 parent_frame_id=1}\n\nENTRY e {\n"
        "  ROOT p = f32[] parameter(0), metadata={op_name=\"x\" stack_frame_id=1}\n}\n"),
    "an instruction without its shape, then another on its line": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
        "  a = abs(p), metadata={op_name=\"a\"} ROOT b = f32[4] negate(a)\n}\n"),
    "a comment over lines after an attribute's comma": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
        "  ROOT v = f32[4] abs(p), /* a\n b */metadata={op_name=\"x\"}\n}\n"),
    "nested instructions": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  a = f32[4] add(f32[4] negate(abs(p)), f32[4] negate(p))\n"
        "  ROOT v = add(a, negate(%p))\n}\n"),
    "comments before an operand list and an attribute's value": (
        f"HloModule m\n{ADD}ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
        "  r = /* a\n b */reduce(p, z), dimensions={0}, to_apply=/* c */%add\n  ROOT v = f32[] negate(r)\n}\n"),
    "an attribute on the line below a line comment": (
        "HloModule m\nf {\n  p = f32[] parameter(0)\n  ROOT v = f32[] abs(p)\n}\nENTRY e {\n  s = f32[] parameter(0)\n"
        "  ROOT v = f32[] call(s), // c\nto_apply=f, metadata={op_name=\"to_apply=f\"}\n}\n"),
    "operands over lines": (
        f"HloModule m\n{ADD}ENTRY e {{\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
        "  ROOT r = f32[] reduce(\n    p, // the input\n    z\n  ), dimensions={0},\n  to_apply=add\n}\n"),
    "literals without commas, empty operand slots": (
        "HloModule m\nENTRY e {\n  c = f32[2,2] constant({{1 2} {3 4}})\n  ROOT v = f32[2,2] add(,c,,c,)\n}\n"),
    "the module name on the next line": (
        "HloModule // a test\n  m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"),
    "several items on a line": (
        "HloModule m\nneg { a = f32[] parameter(0) ROOT n = f32[] negate(a) } ENTRY e { p = f32[] parameter(0)\n"
        "  c = f32[] call(p), to_apply=neg ROOT v = f32[] add(c, p) }\n"),
    "ENTRY alone on its line, an item going on over the next line": (
        "HloModule m\nENTRY // the entry\n  e {\n  p = f32[] parameter(0) ROOT v =\n    abs(p)\n}\n"),
    "`%v=` glued before the opcode": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT %v=abs(p)\n}\n"),
    "operands with and without their sigil": (
        "HloModule m\nENTRY e {\n  p = f32[4,4] parameter(0)\n"
        "  ROOT v = f32[4,4] add(f32[4,4]{1,0} p, f32[4,4]{1,0} %p)\n}\n"),
    "computations written inline, over lines": (
        "HloModule m\nENTRY e {\n  p = s32[] parameter(0)\n  ROOT w = s32[] while(p), condition={\n"
        "    a = s32[] parameter(0)\n    c = s32[] constant(10)\n    ROOT lt = pred[] compare(a, c), direction=LT\n"
        "  }, body=\n  { // its body\n    b = s32[] parameter(0)\n    one = s32[] constant(1)\n"
        "    ROOT n = s32[] add(b, one)\n  }, metadata={op_name=\"w\"}\n}\n"),
    "a called computation on the line below its key": (
        "HloModule m\nf {\n  p = f32[] parameter(0)\n  ROOT v = f32[] abs(p)\n}\nENTRY e {\n  s = f32[] parameter(0)\n"
        "  ROOT v = f32[] call(s), to_apply= // c\n  %f\n}\n"),
    "a backend_config of raw text in braces": (
        "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
        "  ROOT v = f32[4] abs(p), backend_config={no ] [ json}\n}\n"),
}


def read(tmp_path: Path, text: str) -> HloModule:
    path = tmp_path / "m.hlo"
    path.write_text(text)
    assert [f"{p.range.start.line + 1}: {p.code}: {p.message}" for p in problems_of(path)] == []
    hlo = module_of(path).hlo
    assert hlo is not None
    return hlo


def instructions(hlo: HloModule) -> list[tuple[str, str, str, bool]]:
    """(computation, name, opcode, is_root) of every instruction, as read."""
    found = []
    for computation in hlo.all_computations():
        for line, _, scan in hlo.instruction_items(computation):
            site = hlo.site(scan.data[0], line)
            assert site is not None
            found.append((computation.name, site.name, site.opcode, site.is_root))
    return found


@pytest.mark.parametrize("form", FORMS)
def test_a_form_xla_accepts_reads_clean(form: str, tmp_path: Path) -> None:
    read(tmp_path, FORMS[form])


def test_without_result_shape_the_shape_is_unknown(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["an instruction without its result shape"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "v", "abs", True)]
    assert hlo.shape_of("v") is None and str(hlo.shape_of("p")) == "f32[4]"
    assert [ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.INSTRUCTION_USE] == ["p"]


def test_without_root_the_last_instruction_is_the_root(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["a computation without ROOT"])
    (computation,) = hlo.all_computations()
    assert computation.root_lines == () and computation.instruction_lines[-1] == 3


def test_the_colon_is_not_part_of_the_module_name(tmp_path: Path) -> None:
    assert read(tmp_path, FORMS["a module name with a trailing colon"]).name == "m"


def test_comments_hide_what_they_hold(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["comments between tokens, a commented-out ROOT"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "v", "abs", True)]
    assert str(hlo.shape_of("p")) == "f32[4]"


def test_comments_inside_items_hide_what_they_hold(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["comments inside an item and after a brace"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "a", "abs", False),
                                 ("e", "n", "negate", False), ("e", "v", "abs", True)]
    assert [ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.INSTRUCTION_USE] == ["p", "a", "n"]


def test_continued_attributes_belong_to_their_instruction(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["attributes continued on the next lines"])
    assert instructions(hlo)[-1] == ("e", "v", "reduce", True)
    assert [ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.COMPUTATION_USE] == ["add"]


def test_the_lines_of_a_computation_written_inline_are_its_instructions(tmp_path: Path) -> None:
    """XLA reads them as a computation of its own that the instruction calls; they are read as part of
    the instruction (as on one line): no instruction of the computation around them, no root of it."""
    hlo = read(tmp_path, FORMS["computations written inline, over lines"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "w", "while", True)]
    assert [ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.INSTRUCTION_USE] == ["p"]


def test_a_called_computation_below_its_key_is_called(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["a called computation on the line below its key"])
    assert [(line, ref.name) for line, ref in hlo.document.all_uses() if ref.role is Role.COMPUTATION_USE] == [
        (8, "f")]


def test_a_computation_closed_with_an_attribute_is_closed(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["an attribute after a computation's closing brace"])
    assert [(c.name, c.end_line) for c in hlo.all_computations()] == [("neg", 4), ("e", 8)]


def test_without_entry_the_last_computation_is_the_entry(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["a module without ENTRY"])
    assert hlo.entry is not None and hlo.entry.name == "main"


def test_a_multi_line_string_keeps_the_computations_below_it(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["a header attribute holding a multi-line string"])
    assert [c.name for c in hlo.all_computations()] == ["e"]
    hlo = read(tmp_path, FORMS["an instruction attribute holding a multi-line string"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "v", "abs", True)]


def test_a_glued_colon_is_not_part_of_a_name(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["names with a glued colon"])
    assert hlo.name == "m" and [c.name for c in hlo.all_computations()] == ["neg", "e"]
    assert instructions(hlo)[0] == ("neg", "a", "parameter", False)


def test_a_lone_root_marks_the_instruction_below(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["ROOT alone on its line"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "v", "abs", True)]


def test_an_instruction_read_over_lines_has_its_opcode_shape_and_operands(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["the shape and opcode on lines below the name"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "t", "tuple", True)]
    assert str(hlo.shape_of("p")) == "f32[4]" and str(hlo.shape_of("t")) == "(f32[4], f32[4])"
    assert [ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.INSTRUCTION_USE] == ["p", "p"]


def test_operands_over_lines_are_all_read(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["operands over lines"])
    uses = [(line, ref.name) for line, ref in hlo.document.all_uses() if ref.role is not Role.FRAME_USE]
    assert uses == [(4, "a"), (4, "b"), (10, "p"), (11, "z"), (13, "add")]


def test_empty_operand_slots_are_skipped(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["literals without commas, empty operand slots"])
    assert [ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.INSTRUCTION_USE] == ["c", "c"]


def test_the_module_name_may_follow_on_the_next_line(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["the module name on the next line"])
    assert instructions(hlo) == [("e", "p", "parameter", True)]


def test_items_on_one_line_are_read_as_xla_reads_them(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["several items on a line"])
    assert [(c.name, c.line, c.end_line) for c in hlo.all_computations()] == [("neg", 1, 1), ("e", 1, 2)]
    assert instructions(hlo) == [("neg", "a", "parameter", False), ("neg", "n", "negate", True),
                                 ("e", "p", "parameter", False), ("e", "c", "call", False), ("e", "v", "add", True)]
    assert [(line, ref.name) for line, ref in hlo.document.all_uses()] == [(1, "a"), (2, "p"), (2, "neg"), (2, "c"),
                                                                           (2, "p")]
    site = hlo.site("v")
    assert site is not None and (site.line, site.opcode, site.is_root, site.computation) == (2, "add", True, "e")


def test_a_lone_entry_marks_the_computation_below_and_an_item_goes_on_over_lines(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["ENTRY alone on its line, an item going on over the next line"])
    assert hlo.entry is not None and hlo.entry.name == "e" and hlo.entry.is_entry
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "v", "abs", True)]
    assert hlo.shape_of("v") is None and str(hlo.shape_of("p")) == "f32[]"


def test_an_opcode_glued_to_the_equals_sign(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["`%v=` glued before the opcode"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "v", "abs", True)]


def test_operands_with_and_without_their_sigil_are_all_read(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["operands with and without their sigil"])
    assert [ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.INSTRUCTION_USE] == ["p", "p"]


def test_a_name_above_its_equals_defines_the_instruction_on_its_line(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["a name above its `=`, a shape over lines"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "t", "tuple", True)]
    assert [(hlo.site(name).line, str(hlo.shape_of(name))) for name in ("p", "t")] == [  # type: ignore[union-attr]
        (2, "f32[4]"), (4, "(f32[4], f32[4])")]
    assert [(line, ref.name) for line, ref in hlo.document.all_uses()] == [(6, "p"), (6, "p")]


def test_a_header_over_lines_opens_its_computation_at_its_brace(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["a computation header over lines"])
    assert [(c.name, c.line, c.is_entry) for c in hlo.all_computations()] == [("add", 1, False), ("e", 6, True)]
    assert instructions(hlo)[3:] == [("e", "p", "parameter", False), ("e", "z", "constant", False),
                                     ("e", "r", "reduce", True)]


def test_entry_and_its_name_alone_open_the_computation_below(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["ENTRY and its name alone on a line"])
    assert [(c.name, c.line, c.is_entry) for c in hlo.all_computations()] == [("e", 1, True)]
    assert instructions(hlo) == [("e", "p", "parameter", True)]


def test_stack_frame_rows_over_lines_give_the_whole_frame(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["stack-frame rows over lines"])
    (frame,) = hlo.stack(1)
    assert (frame.file_name, frame.function_name, frame.line, frame.column, frame.table_line) == ("a.py", "f", 3, 1, 10)
    assert [(line, ref.name, ref.role.name) for line, ref in hlo.document.all_uses()] == [
        (7, "1", "FILE_NAME_USE"), (7, "1", "FUNCTION_NAME_USE"), (11, "1", "LOCATION_USE"), (14, "1", "FRAME_USE")]


def test_an_instruction_without_its_shape_ends_where_the_next_one_starts(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["an instruction without its shape, then another on its line"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "a", "abs", False), ("e", "b", "negate", True)]


def test_a_nested_instruction_is_read_in_its_user_whose_operands_are_its_own(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["nested instructions"])
    assert instructions(hlo) == [("e", "p", "parameter", False), ("e", "a", "add", False), ("e", "v", "add", True)]
    assert [(line, ref.name) for line, ref in hlo.document.all_uses()] == [(3, "p"), (3, "p"), (4, "a"), (4, "p")]
    parsed = hlo.parse(3, "a")
    assert parsed is not None and [(o.name, str(o.shape)) for o in parsed.operands] == [(None, "f32[4]")] * 2


def test_names_after_comments_are_read(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["comments before an operand list and an attribute's value"])
    assert [(line, ref.name) for line, ref in hlo.document.all_uses()] == [
        (4, "a"), (4, "b"), (10, "p"), (10, "z"), (10, "add"), (11, "r")]


def test_an_attribute_starting_a_line_names_its_computation(tmp_path: Path) -> None:
    hlo = read(tmp_path, FORMS["an attribute on the line below a line comment"])
    assert [(line, ref.name, ref.role) for line, ref in hlo.document.all_uses()] == [
        (3, "p", Role.INSTRUCTION_USE), (7, "s", Role.INSTRUCTION_USE), (8, "f", Role.COMPUTATION_USE)]
