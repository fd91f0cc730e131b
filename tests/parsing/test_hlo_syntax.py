"""hlo_syntax: instructions, shapes, computation and module headers parsed with grammar/hlo.lark."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import COMBINED_MLP, GPU_HLO_SEED, HANDWRITTEN, SPLIT_HLO
from hlo_lsp.parsing.hlo_syntax import (
    parse_computation_header,
    parse_instruction,
    parse_module_header,
    parse_shape,
)
from hlo_lsp.parsing.syntax import ArrayShape, Instruction, Layout, ParseError, TupleShape

COMBINED_MLP_HLO = Path(str(COMBINED_MLP) + ".txt")


def line(path: Path, needle: str) -> str:
    found = [text for text in path.read_text().split("\n") if needle in text]
    assert len(found) == 1, f"{needle!r} is on {len(found)} lines of {path.name}"
    return found[0]


def instruction(path: Path, needle: str) -> tuple[str, Instruction]:
    text = line(path, needle)
    result = parse_instruction(text)
    assert isinstance(result, Instruction), result
    return text, result


def span_text(text: str, span: tuple[int, int]) -> str:
    return text[span[0]:span[1]]


# ---- instructions ---------------------------------------------------------------------------------


def test_instruction_with_typed_operands_attributes_and_metadata() -> None:
    text, inst = instruction(GPU_HLO_SEED, "%reduce.13 = ")
    assert (inst.name, inst.is_root, inst.opcode) == ("reduce.13", False, "reduce")
    assert span_text(text, inst.name_span) == "reduce.13"
    assert span_text(text, inst.shape_span) == "f32[32]{0}"
    assert span_text(text, inst.opcode_span) == "reduce"
    assert inst.shape == ArrayShape("f32", (32,), (False,), Layout((0,)))
    assert [(o.name, str(o.shape), span_text(text, o.span)) for o in inst.operands] == [
        ("multiply.114", "f32[32,1024]", "multiply.114"), ("constant_101", "f32[]", "constant_101")]
    assert inst.operands[0].shape.layout == Layout((1, 0))
    assert [a.key for a in inst.attributes] == ["dimensions", "to_apply", "metadata"]
    to_apply = inst.attribute("to_apply")
    assert to_apply is not None and [(n, span_text(text, s)) for n, s in to_apply.names] == [
        ("AddComputation.50", "AddComputation.50")]
    assert span_text(text, to_apply.value_span) == "%AddComputation.50"
    metadata = inst.metadata
    assert metadata is not None
    assert (metadata.op_type, metadata.op_name, metadata.source_line) == ("aten__mean", "aten__mean", 756)
    assert metadata.source_file == "/usr/local/lib/python3.10/site-packages/torch/_ops.py"
    assert metadata.stack_frame_id is None


def test_instruction_without_operand_shapes_with_stack_frame_id_and_backend_config() -> None:
    text, inst = instruction(SPLIT_HLO, "%ynn_fusion.2 = ")
    assert [(o.name, o.shape) for o in inst.operands] == [("x.1", None), ("ws_0_.1", None)]
    assert [a.key for a in inst.attributes] == ["kind", "calls", "metadata", "backend_config"]
    assert inst.attribute("calls").names[0][0] == "fused_computation.2"
    assert inst.metadata is not None
    assert (inst.metadata.op_name, inst.metadata.stack_frame_id) == ("jit(mlp)/dot_general", 4)
    backend = inst.attribute("backend_config")
    assert span_text(text, backend.value_span) == \
        '{"outer_dimension_partitions":[],"fusion_config":{"kind":"__ynn_fusion"}}'


def test_root_instruction_without_sigils() -> None:
    text, inst = instruction(COMBINED_MLP_HLO, "ROOT broadcast_subtract_fusion = ")
    assert inst.is_root and inst.name == "broadcast_subtract_fusion"
    assert span_text(text, inst.name_span) == "broadcast_subtract_fusion"
    assert [o.name for o in inst.operands] == ["reduce_log_fusion", "add_reduce_fusion", "dot.32", "Arg_5.6"]
    assert inst.attribute("calls").names == (("fused_computation", (text.index("calls=") + 6,
                                                                    text.index("calls=") + 23)),)


def test_operand_after_an_index_comment() -> None:
    text, inst = instruction(GPU_HLO_SEED, "%fusion.40 = ")
    assert len(inst.operands) == 6
    assert inst.operands[5].name == "get-tuple-element.1.0"
    assert text[:inst.operands[5].span[0]].endswith("/*index=5*/bf16[32,1024]{1,0} %")


def test_parameter_literal_and_number() -> None:
    text, inst = instruction(GPU_HLO_SEED, "%param_1.135 = s32[32]{0} parameter(1)")
    assert [(o.name, o.literal) for o in inst.operands] == [(None, "1")]
    assert inst.parameter_number == 1
    assert span_text(text, inst.operands[0].span) == "1"


@pytest.mark.parametrize("needle,literal", [
    ("%constant_100 = f32[] constant(0.0009765625)", "0.0009765625"),
    ("  constant.5 = f32[] constant(-inf)", "-inf"),
])
def test_constant_literals(needle: str, literal: str) -> None:
    path = GPU_HLO_SEED if needle.startswith("%") else COMBINED_MLP_HLO
    _, inst = instruction(path, needle)
    assert [(o.name, o.literal) for o in inst.operands] == [(None, literal)]
    assert inst.parameter_number is None


def test_multiline_constant_of_the_handwritten_module() -> None:
    lines = HANDWRITTEN.read_text().split("\n")
    start = next(i for i, text in enumerate(lines) if text.startswith("  w = f32[2,2] constant({"))
    text = "\n".join(lines[start:start + 4])
    inst = parse_instruction(text)
    assert isinstance(inst, Instruction) and inst.opcode == "constant"
    assert inst.operands[0].literal == "{\n    { 1, 2 },\n    { 3, 4 }\n  }"


@pytest.mark.parametrize("text,literal", [
    ("c = (s32[], f32[]) constant((1, 2.5))", "(1, 2.5)"),
    ("c = f32[4] constant({...})", "{...}"),
    ("c = pred[2] constant({true, false})", "{true, false}"),
])
def test_tuple_elided_and_braced_literals(text: str, literal: str) -> None:
    inst = parse_instruction(text)
    assert isinstance(inst, Instruction) and [(o.name, o.literal) for o in inst.operands] == [(None, literal)]


@pytest.mark.parametrize("text,literal", [  # jax-0.10.2 train_mlp_donate, before_optimizations (corpus)
    ("  %constant.41 = pred[] constant(true)", "true"),
    ("  %constant.37 = f32[] constant(nan)", "nan"),
])
def test_named_literals_of_constant_are_literals(text: str, literal: str) -> None:
    inst = parse_instruction(text)
    assert isinstance(inst, Instruction) and [(o.name, o.literal) for o in inst.operands] == [(None, literal)]


def test_constant_literal_before_a_trailing_comment() -> None:
    inst = parse_instruction("  limit = s32[] constant(10) // loop bound")
    assert isinstance(inst, Instruction) and inst.operands[0].literal == "10"


def test_control_predecessors_names() -> None:
    text = "ROOT %t = (f32[], s32[]) tuple(f32[] %a, s32[] %b), control-predecessors={%c, %d}"
    inst = parse_instruction(text)
    assert isinstance(inst, Instruction) and inst.is_root
    assert [n for n, _ in inst.attribute("control-predecessors").names] == ["c", "d"]
    assert isinstance(inst.shape, TupleShape) and str(inst.shape) == "(f32[], s32[])"


# ---- shapes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,expected", [
    ("f32[64,32]{0,1:T(8,128)}", ArrayShape("f32", (64, 32), (False, False), Layout((0, 1), ((8, 128),)))),
    ("f32[]{:T(128)}", ArrayShape("f32", (), (), Layout((), ((128,),)))),
    ("f32[8,128,4096]{2,1,0:T(8,128)S(1)}",
     ArrayShape("f32", (8, 128, 4096), (False,) * 3, Layout((2, 1, 0), ((8, 128),), memory_space=1))),
    ("u32[]{:S(2)}", ArrayShape("u32", (), (), Layout((), memory_space=2))),
    ("s4[1024]{0:E(4)}", ArrayShape("s4", (1024,), (False,), Layout((0,), element_bits=4))),
    ("pred[8,2048,2048]{1,2,0:T(32,128)(4,1)}",
     ArrayShape("pred", (8, 2048, 2048), (False,) * 3, Layout((1, 2, 0), ((32, 128), (4, 1))))),
    ("bf16[4,4]{1,0:T(2,*)L(2)}",
     ArrayShape("bf16", (4, 4), (False, False), Layout((1, 0), ((2, None),), tail_padding=2))),
    ("f32[<=10,4]", ArrayShape("f32", (10, 4), (True, False))),
    ("f32[?,4]", ArrayShape("f32", (-1, 4), (False, False))),
    ("bf16[1024,2048]", ArrayShape("bf16", (1024, 2048), (False, False))),
])
def test_array_shapes(text: str, expected: ArrayShape) -> None:
    assert parse_shape(text) == expected


def test_tuple_shape_from_a_tpu_seed_value() -> None:
    shape = parse_shape("(f32[8,128,4096]{2,1,0:T(8,128)S(1)}, f32[8,128,4096]{2,1,0:T(8,128)}, u32[]{:S(2)})")
    assert isinstance(shape, TupleShape) and shape.is_tuple
    assert [e.layout.memory_space for e in shape.elements] == [1, None, 2]
    assert str(shape) == "(f32[8,128,4096], f32[8,128,4096], u32[])"
    nested = parse_shape("((f32[4096]), f32[4096], u32[])")
    assert str(nested) == "((f32[4096]), f32[4096], u32[])" and parse_shape("()") == TupleShape(())


@pytest.mark.parametrize("text,start,expected", [
    ("f32[2", 4, "`]`"),
    ("f32[2,3)", 7, "`]`"),
    ("f32[2]{1:T(8}", 12, "`)`"),
    ("(f32[2], s32[]", 13, "`)`"),
])
def test_broken_shapes_say_what_is_missing(text: str, start: int, expected: str) -> None:
    error = parse_shape(text)
    assert isinstance(error, ParseError)
    assert error.start == start and error.end <= len(text)
    assert expected in error.message


# ---- headers ------------------------------------------------------------------------------------------


def test_computation_header_with_signature() -> None:
    text = line(SPLIT_HLO, "ENTRY %main.5 (")
    header = parse_computation_header(text)
    assert (header.name, header.is_entry, span_text(text, header.name_span)) == ("main.5", True, "main.5")
    assert [p.name for p in header.parameters] == ["ws_0_.1", "ws_1_.1", "ws_2_.1", "bs_0_.1", "bs_1_.1", "bs_2_.1",
                                                   "x.1"]
    assert span_text(text, header.parameters[6].span) == "x.1"
    assert str(header.parameters[0].shape) == "f32[128,256]" and header.parameters[0].shape.layout is None
    assert str(header.result) == "f32[32,10]"


@pytest.mark.parametrize("text,name,entry", [("ENTRY main.68 {", "main.68", True),
                                              ("fused_computation.1 {", "fused_computation.1", False)])
def test_computation_header_without_signature(text: str, name: str, entry: bool) -> None:
    assert parse_computation_header(line(COMBINED_MLP_HLO, text)) == parse_computation_header(text)
    header = parse_computation_header(text)
    assert (header.name, header.is_entry, header.parameters, header.result) == (name, entry, None, None)


def test_computation_header_with_execution_thread() -> None:
    header = parse_computation_header('%wrapped (p: f32[]) -> f32[], execution_thread="host" {')
    assert header.name == "wrapped" and [p.name for p in header.parameters] == ["p"]


def test_broken_computation_header_points_at_the_arrow() -> None:
    text = "%fused_computation (param_0: f32[32,256], param_1: f32[256,10] -> f32[32,10] {"
    error = parse_computation_header(text)
    assert isinstance(error, ParseError)
    assert error.start == text.index("->") and "`)`" in error.message


def test_module_header_attributes() -> None:
    text = line(SPLIT_HLO, "HloModule jit_mlp")
    header = parse_module_header(text)
    assert (header.name, span_text(text, header.name_span)) == ("jit_mlp", "jit_mlp")
    assert [a.key for a in header.attributes] == ["is_scheduled", "entry_computation_layout",
                                                  "allow_spmd_sharding_propagation_to_parameters",
                                                  "allow_spmd_sharding_propagation_to_output"]
    layout = header.attribute("entry_computation_layout")
    assert span_text(text, layout.value_span).startswith("{(f32[128,256]{1,0}, ")
    assert span_text(text, layout.value_span).endswith("/*index=5*/f32[10]{0}, f32[32,128]{1,0})->f32[32,10]{1,0}}")


def test_module_header_with_aliasing_and_frontend_attributes() -> None:
    text = ('HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, '
            'frontend_attributes={fingerprint_before_lhs="7546"}')
    header = parse_module_header(text)
    assert [a.key for a in header.attributes] == ["input_output_alias", "frontend_attributes"]
    assert header.attribute("frontend_attributes").pairs == (("fingerprint_before_lhs", '"7546"'),)


def test_module_header_without_name() -> None:
    error = parse_module_header("HloModule")
    assert isinstance(error, ParseError) and "a name" in error.message


# ---- errors and the template cache --------------------------------------------------------------------


def test_missing_bracket_in_a_shape_is_reported_at_the_layout() -> None:
    text = line(GPU_HLO_SEED, "%param_0.9 = bf16[151936,1024]{1,0} parameter(0)").replace("1024]", "1024")
    error = parse_instruction(text)
    assert isinstance(error, ParseError)
    assert error.start == text.index("{1,0}") and error.end == error.start + 1
    assert error.message.startswith("unexpected `{`") and "`]`" in error.message


def test_missing_paren_after_operands_is_reported_where_attributes_begin() -> None:
    text = line(GPU_HLO_SEED, "%convert.164.1 = ").replace("%convert.163.1)", "%convert.163.1")
    error = parse_instruction(text)
    assert isinstance(error, ParseError)
    assert error.start == text.index("={op_type") and "`)`" in error.message


def test_text_ending_inside_the_operands() -> None:
    error = parse_instruction("  %x = f32[] add(%a, %b")
    assert isinstance(error, ParseError)
    assert "end of text" in error.message and "`)`" in error.message and error.end == len("  %x = f32[] add(%a, %b")


def test_unexpected_character() -> None:
    error = parse_instruction("  %x = f32[] add(%a, $b)")
    assert isinstance(error, ParseError) and error.start == 21 and "`$`" in error.message


def test_called_computations_of_while_conditional_and_fusion() -> None:
    loop = parse_instruction("loop = (s32[], f32[2,2]) while(init), condition=cond, body=body")
    branches = parse_instruction("picked = f32[2,2] conditional(p, a, b), branch_computations={on_true, on_false}")
    fusion = parse_instruction('%f = f32[4]{0} fusion(%a), kind=kLoop, calls=%fused.1, metadata={op_name="x"}')
    assert isinstance(loop, Instruction) and isinstance(branches, Instruction) and isinstance(fusion, Instruction)
    assert loop.called_computations == ("cond", "body")
    assert branches.called_computations == ("on_true", "on_false")
    assert fusion.called_computations == ("fused.1",)


def test_a_nested_instruction_is_an_operand_of_no_name_with_its_shape() -> None:
    parsed = parse_instruction("v = f32[4] add(p, f32[4] negate(abs(p)))")
    assert isinstance(parsed, Instruction)
    assert [(o.name, str(o.shape) if o.shape else None) for o in parsed.operands] == [("p", None), (None, "f32[4]")]


def test_a_nested_opcode_with_a_sigil_is_a_name_xla_rejects_at_its_parenthesis() -> None:
    text = "v = f32[4] add(p, %negate(p))"
    parsed = parse_instruction(text)
    assert isinstance(parsed, ParseError)
    assert (parsed.start, parsed.message) == (text.index("(p)"), "unexpected `(`; expected `)`, `,`")
