"""hlo-opcodes on one instruction: opcodes, result shapes, operand counts, attributes and their values, and
the inputs XLA's parser crashes on (see opcode_cases.py for what was run through XLA's parser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcode_cases import ADD, ERROR, NEGATE, module, one, opcode_problems, underlined_in

from helpers import problems_of
from hlo_lsp.analysis.checks.opcodes.reader import read_instruction
from hlo_lsp.parsing.hlo_scanner import COMP, scan_hlo_line


# ---- opcodes, shapes, operands ------------------------------------------------------------------
def test_unknown_opcode(tmp_path: Path) -> None:
    # XLA: expects opcode but sees: atan, error: Unknown opcode: atan
    assert one(tmp_path, module("ROOT r = f32[4] atan(p)")) == (
        4, "unknown-opcode", "unknown opcode atan", "atan")


def test_opcodes_are_case_sensitive_and_async_wrappers_need_a_real_opcode(tmp_path: Path) -> None:
    assert one(tmp_path, module("ROOT r = ((f32[4]), f32[4], s32[]) foo-start(p)"))[1:3] == (
        "unknown-opcode", "unknown opcode foo-start")


def test_a_result_shape_left_out_where_it_cannot_be_inferred(tmp_path: Path) -> None:
    # The grammar is learning `name = opcode(...)`: abs infers its shape, reshape does not.
    problems = opcode_problems(tmp_path, module("a = abs(p)", "ROOT r = reshape(a)"))
    assert [(p.range.start.line, p.code, p.message) for p in problems] == [
        (5, "shape-required", "cannot infer shape for opcode: reshape; write the result shape before it")]


@pytest.mark.parametrize(("instruction", "found"), [
    # XLA: instruction does not exist: reshape (it tries the slot as an operand's name first, then as an instruction)
    ("ROOT r = f32[4] add(p, reshape(p))",
     ("shape-required", "cannot infer shape for opcode: reshape; write the result shape before it", "reshape")),
    ("ROOT r = f32[4] add(p, f32[4] pp(p))", ("unknown-opcode", "unknown opcode pp", "pp")),
    ("ROOT r = f32[4] add(p, f32[4] all-gather(p))",  # a nested instruction has no attributes
     ("missing-attribute", "attribute dimensions is expected but not seen (all-gather requires it)", "all-gather")),
    ("ROOT r = f32[4] add(p, abs(negate(p, p)))", ("operand-count", "negate expects 1 operand, but has 2", "(p, p)")),
])
def test_an_instruction_nested_in_an_operand_list_follows_its_opcode_s_rules(tmp_path: Path, instruction: str,
                                                                             found: tuple[str, str, str]) -> None:
    assert one(tmp_path, module(instruction)) == (4, *found)


NOT_A_TUPLE_SHAPE = "an operand's `(` opens a tuple shape, which this is not (XLA: expected primitive type)"


@pytest.mark.parametrize("operands", ["p, (p)", "p, (\n  negate(abs(p)))"])  # XLA: expected primitive type
def test_an_operand_that_opens_with_a_parenthesis_is_a_tuple_shape(tmp_path: Path, operands: str) -> None:
    problems = opcode_problems(tmp_path, module(f"ROOT r = (f32[4], f32[4]) tuple({operands})"))
    assert [(p.range.start.line, p.code, p.message) for p in problems] == [(4, "operand-shape", NOT_A_TUPLE_SHAPE)]


@pytest.mark.parametrize("operands", ["p, inf", "p, f32[4] true", "p, negate(// c\ninf)"])  # XLA: expects name
def test_an_operand_spelt_like_a_keyword_is_no_name(tmp_path: Path, operands: str) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(module(f"ROOT r = f32[4] add({operands})"))
    keyword = operands.split()[-1].strip(")")
    assert [(p.code, p.message) for p in problems_of(path)] == [
        ("syntax", f"{keyword} is a keyword of XLA's HLO text, not an instruction's name (XLA: expects name)")]


def test_a_nested_constant_s_literal_over_lines_names_nothing(tmp_path: Path) -> None:
    text = "x = f32[4] add(f32[4] y, f32[4] constant(/* a\n b */inf))\n"  # XLA accepts: a text of one instruction
    path = tmp_path / "m.hlo"
    path.write_text(text)
    assert [p.code for p in problems_of(path)] == []


def test_an_operand_written_with_its_tuple_shape_reads_clean(tmp_path: Path) -> None:
    text = module("t = (f32[4], f32[4]) tuple(p, p)",
                  "ROOT r = (f32[4], (f32[4], f32[4])) tuple(p, (f32[4], f32[4]) t)")
    assert opcode_problems(tmp_path, text) == []


def test_nested_instructions_xla_accepts_read_clean(tmp_path: Path) -> None:
    text = module("c = f32[4] add(p, f32[4] constant({1, 2, 3, 4}))",
                  "ROOT t = (f32[4], (f32[4], f32[4])) tuple(c, (f32[4], f32[4]) tuple(p, negate(abs(p))))")
    assert opcode_problems(tmp_path, text) == []


@pytest.mark.parametrize(("instruction", "message"), [
    ("ROOT r = f32[4] add(p)", "add expects 2 operands, but has 1"),
    ("ROOT r = f32[4] abs(p, p)", "abs expects 1 operand, but has 2"),
    ("ROOT r = f32[] reduce(p, z, z), dimensions={0}, to_apply=add",
     "reduce expects an even number of operands, but has 3"),
    ("ROOT r = (f32[4], f32[4]) tuple(p)", "tuple expects 2 operands, but has 1"),
    ("ROOT r = f32[4] dynamic-update-slice(p)", "Expected at least two operands."),
    ("ROOT r = f32[4] collective-permute(p), source_target_pairs={{0,1}}, slice_sizes={{1}}",
     "CollectivePermute and CollectivePermuteStart must have exactly four operands with slice_sizes"),
    ("ROOT r = f32[4] dot(p), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
     "dot needs two operands (XLA's parser crashes on fewer)"),
    ("ROOT r = f32[4] dynamic-reshape(p)",
     "dynamic-reshape to a rank-1 shape takes the operand and 1 sizes, but has 1 operands (XLA's parser crashes)"),
])
def test_operand_counts(tmp_path: Path, instruction: str, message: str) -> None:
    line, code, found, underlined = one(tmp_path, module("z = f32[] constant(0)", instruction, before=ADD))
    assert (line, code, found) == (11, "operand-count", message)
    assert underlined.startswith("(") and underlined.endswith(")")


def test_empty_operand_slots_are_dropped_as_xla_drops_them() -> None:
    text = "  r = f32[4] add(p, , p)"
    read = read_instruction(text, scan_hlo_line(COMP, text).data)
    assert read is not None and [read.item(span) for span in read.operands] == ["p", "p"]


def test_dynamic_slice_operand_count_against_the_operand_rank(tmp_path: Path) -> None:
    text = module("i = s32[] constant(0)", "v = s32[1] parameter(1)", "a = f32[2] dynamic-slice(p, v), "
                  "dynamic_slice_sizes={2}", "ROOT r = f32[2] dynamic-slice(p, i, i), dynamic_slice_sizes={2}")
    assert one(tmp_path, text)[:3] == (7, "operand-count", "Wrong number of operands: dynamic-slice of a rank-1 "
                                                           "operand takes 1 scalar start indices (or one vector)")


# ---- attributes --------------------------------------------------------------------------------------
def test_unknown_attribute(tmp_path: Path) -> None:
    # A misspelt key is unknown, and the key it stands for is missing: XLA stops at the first.
    problems = opcode_problems(tmp_path, module("ROOT r = f32[4] transpose(p), dimentions={0}"))
    assert [(p.range.start.line, p.code) for p in problems] == [(4, "missing-attribute"), (4, "unknown-attribute")]
    assert problems[1].message.startswith('unexpected attribute "dimentions" for transpose; allowed: backend_config, ')
    assert underlined_in(tmp_path / "m.hlo", problems[1]) == "dimentions"


def test_duplicate_attribute(tmp_path: Path) -> None:
    assert one(tmp_path, module("ROOT r = f32[4] transpose(p), dimensions={0}, dimensions={0}")) == (
        4, "duplicate-attribute", "attribute dimensions already exists", "dimensions")


def test_missing_attribute(tmp_path: Path) -> None:
    assert one(tmp_path, module("ROOT r = f32[4] transpose(p)")) == (
        4, "missing-attribute", "attribute dimensions is expected but not seen (transpose requires it)", "transpose")


def test_broadcast_needs_dimensions_unless_its_operand_is_a_scalar(tmp_path: Path) -> None:
    assert opcode_problems(tmp_path, module("s = f32[] constant(0)", "ROOT r = f32[4] broadcast(s)")) == []
    assert one(tmp_path, module("ROOT r = f32[4,4] broadcast(p)"))[1:] == (
        "missing-attribute", "attribute dimensions is expected but not seen (the operand of broadcast is not a "
                             "scalar)", "broadcast")


def test_conditional_attributes_follow_the_selector_type(tmp_path: Path) -> None:
    branches = NEGATE.replace("w {", "a {") + NEGATE.replace("w {", "b {")
    pred = module("c = pred[] constant(true)", "ROOT r = f32[4] conditional(c, p, p), branch_computations={a, b}",
                  before=branches)
    line, code, message, underlined = one(tmp_path, pred)
    assert (code, underlined) == ("unknown-attribute", "branch_computations")
    s32 = module("c = s32[] constant(0)", "ROOT r = f32[4] conditional(c, p, p), branch_computations={a, b}",
                 before=branches)
    assert opcode_problems(tmp_path, s32) == []
    f32 = module("c = f32[] constant(0)", "ROOT r = f32[4] conditional(c, p), branch_computations={a}",
                 before=branches)
    assert one(tmp_path, f32)[1:3] == ("operand-shape", "The first operand must be a scalar of PRED or S32")


def test_parameter_replication_counts_leaves_and_belongs_to_parameters(tmp_path: Path) -> None:
    text = module("ROOT r = f32[4] negate(q)", params=("q = f32[4] parameter(0), parameter_replication={true,false}",))
    assert one(tmp_path, text)[1:3] == (
        "attribute-value", "parameter has 1 leaf buffers, but parameter_replication has 2 elements")
    assert one(tmp_path, module("ROOT r = f32[4] negate(p), parameter_replication={true}"))[1:3] == (
        "unknown-attribute", "parameter_replication on a non-parameter (XLA's parser crashes)")


# ---- attribute values ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("instruction", "message", "underlined"), [
    ("ROOT r = pred[4] compare(p, p), direction=lt",
     "direction: expects comparison direction but sees: lt (one of EQ, NE, GE, GT, LE, LT)", "lt"),
    ("ROOT r = f32[4] sort(p), dimensions={0,0}, to_apply=add",
     "dimensions: sort expects exactly one dimension, but sees 2", "{0,0}"),
    ("ROOT r = s32[] get-dimension-size(p), dimensions={}",
     "dimensions: get-dimension-size reads its first dimension (XLA's parser crashes on {})", "{}"),
    ("ROOT r = f32[4] copy(p), control-predecessors={}",
     "control-predecessors: expects a list of instruction names, e.g. {a, b} (it may not be empty)", "{}"),
    ("ROOT r = f32[4] all-reduce(p), to_apply=add, use_global_device_ids=true",
     "Cannot have use_global_device_ids=true without channel_id", "true"),
    ("ROOT r = f32[4] all-reduce(p), to_apply=add, replica_groups=[2,2]<=[2,2]",
     "replica_groups: expected 'T(' to start sharding devices iota_transpose_perm", "[2,2]<=[2,2]"),
    ("ROOT r = f32[4] collective-permute(p), source_target_pairs={{0,1,2}}",
     "source_target_pairs: expects 'source_target_pairs=' to be a list of pairs", "{{0,1,2}}"),
    ("ROOT r = f32[4] reduce-window(p, z), window={size=2x2 stride=1}, to_apply=add",
     "window: expects 'stride=' has the same size as 'size='", "{size=2x2 stride=1}"),
    ("ROOT r = f32[4] reduce-window(p, z), window={size=2, stride=1}, to_apply=add",
     "window: expects sub-attributes in window, separated by spaces: {size=2 stride=1}", "size=2,"),
    ("ROOT r = f32[6] pad(p, z), padding=1", "padding: expects padding config, e.g., '0_0_0x3_3_1'", "1"),
    ("ROOT r = f32[2] slice(p), slice={[0]}",
     "slice: expects [start:limit:step] or [start:limit], but sees 1 elements.", "[0]"),
    ("ROOT r = f32[4] sine(p), result_accuracy={mode=fast}",
     "result_accuracy: expects ResultAccuracy type but sees: fast (default or highest)", "fast"),
    ("ROOT r = f32[4] copy-start(p), cross_program_prefetch_index=2147483648",
     "cross_program_prefetch_index: value out of range for int32_t", "2147483648"),
    ("ROOT r = f32[4] custom-call(p), custom_call_target=\"x\", api_version=API_VERSION_UNSPECIFIED",
     "api_version: Invalid API version: API_VERSION_UNSPECIFIED", "API_VERSION_UNSPECIFIED"),
    ("ROOT r = f32[4] custom-call(p), custom_call_target=\"x\", operand_precision={default,packed_nibble}",
     "operand_precision: expects precision but sees: packed_nibble (default, high or highest)", "packed_nibble"),
    ("ROOT r = f32[4] negate(p), metadata={op_name=\"x\" foo=\"y\"}",
     "metadata: unexpected attribute \"foo\" in metadata", "foo=\"y\""),
    ("ROOT r = f32[4] negate(p), sharding={replicated}x",
     "sharding: expects a sharding, e.g. {replicated} or {devices=[2,1]0,1}", "{replicated}x"),
    ("ROOT r = f32[4] triangular-solve(p, p), transpose_a=no_transpose",
     "transpose_a: expects transpose_a (XLA's parser crashes on other names) but sees: no_transpose (one of "
     "NO_TRANSPOSE, TRANSPOSE, ADJOINT, TRANSPOSE_INVALID)", "no_transpose"),
])
def test_attribute_values(tmp_path: Path, instruction: str, message: str, underlined: str) -> None:
    found = one(tmp_path, module("z = f32[] constant(0)", instruction, before=ADD))
    assert found == (11, "attribute-value", message, underlined)


@pytest.mark.parametrize(("labels", "message"), [
    ("b_io->bf", "expects dim labels pattern, e.g., 'bf0_0io->0bf'"),
    ("bb0_0io->b0f", "expects unique lhs dimension numbers, but sees bb0"),
    ("b0f_01io->b0f", "input, kernel, and output must have same number of spatial dimensions, but got 1, 2, 1, "
                      "respectively."),
    ("b0f_0io->b1f", "output dimension numbers b1f name a spatial dimension beyond its 1 (XLA's parser writes past "
                     "its table and may crash)"),
])
def test_convolution_dim_labels(tmp_path: Path, labels: str, message: str) -> None:
    text = module("ROOT r = f32[1,2,1] convolution(a, b), window={size=1}, dim_labels=" + labels,
                  params=("a = f32[1,2,1] parameter(0)", "b = f32[1,1,1] parameter(1)"))
    assert one(tmp_path, text) == (5, "attribute-value", "dim_labels: " + message, labels)


def test_enumerations_xla_reads_in_any_case(tmp_path: Path) -> None:
    text = module("z = f32[] constant(0)", "a = f32[4] rng(z, z), distribution=RNG_Uniform",
                  "ROOT d = f32[] dot(p, p), lhs_contracting_dims={0}, rhs_contracting_dims={0}, "
                  "algorithm=DOT_F32_F32_F32, operand_precision={Highest,DEFAULT}")
    assert opcode_problems(tmp_path, text) == []


def test_a_window_value_after_a_comment_xla_accepts(tmp_path: Path) -> None:
    # XLA's lexer reads the comment as a space (oracle text #947 of a 10,000-text sample)
    text = module("z = f32[] constant(0)", "ROOT r = f32[2] reduce-window(p, z), window={size=/* a",
                  " b */2 stride=2}, to_apply=add", before=ADD)
    assert opcode_problems(tmp_path, text) == []



def test_replica_groups_with_spaces_and_comments_between_their_numbers(tmp_path: Path) -> None:
    # XLA's lexer reads a comment as a space, and spaces around braces and commas as nothing (oracle text #54588
    # of the run on 1a8643e: a real dump's replica_groups with a block comment over two lines inserted).
    text = module("ROOT r = f32[4] all-reduce(p), to_apply=add, replica_groups={ {0, 2}, {/* a",
                  " b */1 ,3} }", before=ADD)
    assert opcode_problems(tmp_path, text) == []
    # XLA: expects '}' at the end of the list (a space is no comma)
    text = module("ROOT r = f32[4] all-reduce(p), to_apply=add, replica_groups={{0 1}}", before=ADD)
    assert one(tmp_path, text) == (10, "attribute-value", "replica_groups: expects a list of replica groups, e.g. "
                                                          "{{0,1},{2,3}}", "{{0 1}}")

def test_control_predecessor_defined_after_its_instruction(tmp_path: Path) -> None:
    # XLA: instruction 'z' is not defined (names are read in order).
    text = module("c = f32[4] copy(p), control-predecessors={z}", "z = f32[4] copy(p)", "ROOT r = f32[4] add(c, z)")
    assert one(tmp_path, text) == (4, "attribute-value", "control-predecessors: instruction 'z' is not defined before "
                                                         "this one (XLA's parser reads names in order)", "z")


def test_control_predecessors_on_a_line_of_several_items(tmp_path: Path) -> None:
    """Defined earlier on the same line is defined before (XLA reads names in order, not lines)."""
    assert opcode_problems(tmp_path, module("a = f32[4] abs(p) ROOT b = f32[4] negate(p), "
                                            "control-predecessors={a}")) == []
    text = module("ROOT b = f32[4] negate(p), control-predecessors={a} a = f32[4] abs(p)")
    assert one(tmp_path, text) == (4, "attribute-value", "control-predecessors: instruction 'a' is not defined before "
                                                         "this one (XLA's parser reads names in order)", "a")


# ---- crashes XLA's parser dies on --------------------------------------------------------------------------
@pytest.mark.parametrize(("instruction", "code", "message"), [
    ("ROOT r = u64[] replica-id()", "result-shape", "replica-id must have shape u32[], not u64[] (XLA's parser "
                                                    "crashes)"),
    ("ROOT r = f32[4] tuple(p)", "result-shape", "tuple with the non-tuple shape f32[4] (XLA's parser crashes)"),
    ("ROOT r = f32[5] reshape(p)", "operand-shape", "reshape of f32[4] (4 elements) to f32[5] (5 elements) "
                                                    "(XLA's parser crashes)"),
    ("ROOT r = f32[4] all-gather(p), dimensions={}", "attribute-value",
     "dimensions: all-gather reads its first dimension (XLA's parser crashes on {})"),
    ("ROOT r = token[2] after-all()", "result-shape", "token[2]: token and opaque shapes have no dimensions, token[] "
                                                      "(XLA's parser crashes)"),
    ("t = token[] after-all()\n  ROOT r = f32[4] recv(t)", "result-shape",
     "recv must have a non-empty tuple shape (XLA's parser crashes)"),
    ("t = (f32[4], f32[4]) tuple(p, p)\n  ROOT r = get-tuple-element(t), index=2", "operand-shape",
     "index 2 is out of range for an operand of shape (f32[4], f32[4]) (XLA's parser crashes inferring the shape)"),
])
def test_inputs_that_crash_xla(tmp_path: Path, instruction: str, code: str, message: str) -> None:
    assert one(tmp_path, module(instruction))[1:3] == (code, message)


def test_custom_call_layout_constraints(tmp_path: Path) -> None:
    count = module('ROOT r = f32[4] custom-call(p), custom_call_target="x", '
                   "operand_layout_constraints={f32[4]{0}, f32[4]{0}}")
    assert one(tmp_path, count)[1:3] == ("operand-count", "Expected 1 operand layout constraints, 2 given")
    shape = module('ROOT r = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={f32[5]{0}}')
    assert one(tmp_path, shape)[1:3] == ("operand-shape", "Operand layout constraint shape f32[5]{0} for operand 0 is "
                                                          "not compatible with operand shape f32[4]")
    # XLA: the same, of an operand whose shape it infers (oracle text #4790 of a 10,000-text sample)
    inferred = module("a = negate(p)", 'ROOT r = f32[4] custom-call(a), custom_call_target="x", '
                                       "operand_layout_constraints={f32[5]{0}}")
    assert one(tmp_path, inferred)[1:3] == ("operand-shape", "Operand layout constraint shape f32[5]{0} for operand 0 "
                                                             "is not compatible with operand shape f32[4]")
    # XLA: expected primitive type, saw kAttributeName (oracle text #37865 of the run on 0970b33: a sharding
    # pasted where the constraints go)
    pasted = module('ROOT r = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={a.b="x"}')
    assert one(tmp_path, pasted) == (4, "attribute-value", "operand_layout_constraints: expects a list of shapes: "
                                                           "expected primitive type", 'a.b="x"')


def test_a_layout_constraint_over_lines(tmp_path: Path) -> None:
    # XLA: Operand layout constraint shape f32[5]{0} for operand 0 is not compatible with operand shape f32[4]{0}
    # (oracle text #91591 of the run on 1a8643e: a line comment inside the constraint's layout).
    text = module('ROOT r = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={f32[5]{// c',
                  "0}}")
    [problem] = opcode_problems(tmp_path, text)  # on the value, over its two lines
    assert (problem.range.start.line, problem.range.end.line, problem.severity, problem.code, problem.message) == (
        4, 5, ERROR, "operand-shape", "Operand layout constraint shape f32[5]{0} for operand 0 is not compatible with "
                                      "operand shape f32[4]")

def test_a_line_read_out_of_place_first_is_still_judged_where_it_belongs(tmp_path: Path) -> None:
    # The oracle's long run: the same text outside any computation (an instruction, then `}`) taught the
    # check that its line needs nothing; inside one it is two items, and its token[2] went untold.
    line = "  ROOT t = token[2] after-all() }"
    misplaced, placed = tmp_path / "misplaced", tmp_path / "placed"
    misplaced.mkdir(), placed.mkdir()
    opcode_problems(misplaced, f"HloModule m\n\n{line}\ne {{\n")
    assert one(placed, f"HloModule m\n\nENTRY e {{\n{line}\n") == (
        3, "result-shape", "token[2]: token and opaque shapes have no dimensions, token[] (XLA's parser crashes)",
        "after-all")
