"""hlo-opcodes: what XLA's HLO text parser (jaxlib 0.10.2) checks on each instruction. Every text said
to be rejected below was run through the real parser and rejected (or crashed it), and every text said
to be accepted was accepted; the one exception is a dim_labels spatial digit beyond the spatial
dimensions, undefined behaviour there (it crashes, rejects or accepts garbage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import (
    CORPUS,
    DATA,
    HANDWRITTEN,
    SPLIT_CONTROL_FLOW,
    SPLIT_MLP,
    TPU_PALLAS,
    TPU_STEP,
    is_dump,
    plant_in_copy,
    problems_of,
    where,
)
from hlo_lsp.analysis.checks import hlo_opcode_rules as rules
from hlo_lsp.analysis.checks import hlo_opcodes
from hlo_lsp.analysis.checks.hlo_opcodes import read_instruction
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import COMP, scan_hlo_line
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range
from hlo_lsp.workspace.loader import load

ERROR = Severity.ERROR
CODES = frozenset(("unknown-opcode", "operand-count", "unknown-attribute", "duplicate-attribute", "missing-attribute",
                   "attribute-value", "literal-range", "literal-shape", "shape-required", "async-chain",
                   "parameter-number", "result-shape", "operand-shape"))
ADD = "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\n"
NEGATE = "w {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n\n"


def module(*body: str, before: str = "", params: tuple[str, ...] = ("p = f32[4] parameter(0)",)) -> str:
    lines = "".join(f"  {line}\n" for line in (*params, *body))
    return f"HloModule m\n\n{before}ENTRY e {{\n{lines}}}\n"


def opcode_problems(tmp_path: Path, text: str) -> list[Problem]:
    path = tmp_path / "m.hlo"
    path.write_text(text)
    return [problem for problem in problems_of(path) if problem.code in CODES]


def one(tmp_path: Path, text: str) -> tuple[int, str, str, str]:
    """The one problem of this check: (line, code, message, the text it underlines)."""
    problems = opcode_problems(tmp_path, text)
    assert len(problems) == 1, [f"{p.code}: {p.message}" for p in problems]
    problem = problems[0]
    assert problem.severity is ERROR
    start, end = problem.range.start, problem.range.end
    assert start.line == end.line
    underlined = text.split("\n")[start.line][start.character:end.character]
    return start.line, problem.code, problem.message, underlined


def underlined_in(path: Path, problem: Problem) -> str:
    start, end = problem.range.start, problem.range.end
    return path.read_text().split("\n")[start.line][start.character:end.character]


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
    ("ROOT r = f32[4] negate(p), sharding={replicated}x", "sharding: expects one `{...}` value", "{replicated}x"),
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


def test_control_predecessor_defined_after_its_instruction(tmp_path: Path) -> None:
    # XLA: instruction 'z' is not defined (names are read in order).
    text = module("c = f32[4] copy(p), control-predecessors={z}", "z = f32[4] copy(p)", "ROOT r = f32[4] add(c, z)")
    assert one(tmp_path, text) == (4, "attribute-value", "control-predecessors: instruction 'z' is not defined before "
                                                         "this one (XLA's parser reads names in order)", "z")


# ---- constants -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("constant", "message", "underlined"), [
    ("f16[] constant(65520)", "value 65520 is out of range for f16 [-65504, 65504]", "65520"),
    ("f8e4m3fn[] constant(465)", "value 465 is out of range for f8e4m3fn [-448, 448]", "465"),
    ("bf16[] constant(3.4e38)", "value 3.4e+38 is out of range for bf16 [-3.38953e+38, 3.38953e+38]", "3.4e38"),
    ("s8[2] constant({1, 128})", "value 128 is out of range for s8 [-128, 127]", "128"),
    ("u8[] constant(-1)", "value -1 is out of range for u8 [0, 255]", "-1"),
    ("f8e8m0fnu[] constant(0)", "value 0 is out of range for f8e8m0fnu [5.87747e-39, 1.70141e+38]", "0"),
    ("c64[] constant((1e39, 2))", "real part 1e+39 is out of range for c64 [-3.40282e+38, 3.40282e+38]", "(1e39, 2)"),
    ("f32[] constant(nan(0x800000))", "NaN payload 0x800000 is out of range for f32 (at most 0x7fffff)",
     "nan(0x800000)"),
    ("s32[] constant(true)", "true in a s32 literal (XLA's parser crashes on it)", "true"),
    ("s32[] constant(1.5)", "expects integer for primitive type: s32", "1.5"),
])
def test_constant_values_out_of_range(tmp_path: Path, constant: str, message: str, underlined: str) -> None:
    assert one(tmp_path, module(f"ROOT c = {constant}", params=())) == (3, "literal-range", message, underlined)


@pytest.mark.parametrize(("constant", "message", "underlined"), [
    ("f32[3] constant({1, 2})", "expects 3 elements in the []th element, but sees 2", "}"),
    ("f32[2] constant({1, 2, 3})", "expects 2 elements on the minor-most dimension, but sees more", "3"),
    ("f32[2,2] constant({{1, 2}, {3}})", "expects 2 elements in the [1]th element, but sees 1", "}"),
    ("f32[2,2] constant({1, 2})", "expects nested array in rank 2, but sees 1", "1"),
    ("f32[] constant({1})", "expects nested array in rank 0, but sees larger", "{"),
    ("f32[2,2] constant({{...}, {1, 2}})", "expects `...` at nest level 1, but sees it at nest level 2", "..."),
    ("f32[] constant((1, 2))", "unexpected '(' in literal: parens are only valid for complex literals", "("),
    ("(f32[], s32[]) constant((1, 2, 3))", "expects ')' at the end of the tuple with 2 elements", ","),
    ("token[] constant(0)", "a constant cannot be of type token (XLA's parser crashes)", "0"),
])
def test_constant_literal_shapes(tmp_path: Path, constant: str, message: str, underlined: str) -> None:
    assert one(tmp_path, module(f"ROOT c = {constant}", params=())) == (3, "literal-shape", message, underlined)


def test_constants_xla_accepts(tmp_path: Path) -> None:
    accepted = ["f16[] constant(65519)", "f8e4m3fn[] constant(464)", "f4e2m1fn[] constant(100)", "u64[] constant(-1)",
                "s32[] constant(18446744073709551615)", "pred[2] constant({2, -1})", "f32[2] constant(5)",
                "f32[2] constant({,1,,2,})", "c128[2] constant({(1,2), (3,4)})", "f32[2,2] constant({...})",
                "f32[0,2] constant({})", "f8e4m3fn[] constant(inf)", "bf16[] constant(nan(0x7f))"]
    text = module(*(f"c{i} = {constant}" for i, constant in enumerate(accepted)), "ROOT r = f32[] constant(0)",
                  params=())
    assert [p for p in opcode_problems(tmp_path, text) if p.code.startswith("literal")] == []


def test_every_literal_value_with_the_same_digits_shape_is_checked(tmp_path: Path) -> None:
    # f16 and f32 read alike once digits are zeroed: the verdict of one is not the other's.
    text = module("a = f32[] constant(70000)", "ROOT b = f16[] constant(70000)", params=())
    assert one(tmp_path, text)[:3] == (4, "literal-range", "value 70000 is out of range for f16 [-65504, 65504]")


def test_a_multi_line_literal(tmp_path: Path) -> None:
    text = module("ROOT c = f32[2,2] constant({", "    {1, 2},", "    {3, 70000, 5}", "  })", params=())
    assert one(tmp_path, text)[:3] == (5, "literal-shape", "expects 2 elements on the minor-most dimension, but "
                                                           "sees more")


def test_literal_value_rules() -> None:
    assert rules.element_problem("f16", "65504") is None
    assert rules.element_problem("f8e5m2", "61439") is None
    assert rules.element_problem("f8e5m2", "61440") is not None
    assert rules.element_problem("f8e3m4", "15.75") is not None
    assert rules.element_problem("f8e4m3b11fnuz", "31") is not None
    assert rules.element_problem("f8e8m0fnu", "1e-50") is None
    assert rules.element_problem("s4", "-8") is None and rules.element_problem("s4", "8") is not None
    assert rules.element_problem("f64", "1e309") is not None
    assert rules.element_problem("f32", "99999999999999999999") == ("literal-shape", "unexpected token type in a "
                                                                                     "literal")


# ---- parameters ----------------------------------------------------------------------------------------------
def test_parameter_numbers(tmp_path: Path) -> None:
    negative = module("ROOT r = f32[4] negate(q)", params=("q = f32[4] parameter(-1)",))
    assert one(tmp_path, negative) == (3, "parameter-number", "parameter number must be >= 0", "-1")
    twice = module("ROOT r = f32[4] add(p, q)", params=("p = f32[4] parameter(0)", "q = f32[4] parameter(0)"))
    assert one(tmp_path, twice) == (4, "parameter-number", "Duplicate parameter number 0 (first on line 4)", "0")
    gap = module("ROOT r = f32[4] add(p, q)", params=("p = f32[4] parameter(0)", "q = f32[4] parameter(2)"))
    assert one(tmp_path, gap) == (4, "parameter-number", "parameter number 2 leaves a gap: the computation has 2 "
                                                         "parameters, numbered from 0 (XLA's parser crashes)", "2")
    assert one(tmp_path, module("ROOT r = f32[4] negate(q)", params=("q = f32[4] parameter(0, 1)",)))[1] == (
        "parameter-number")


def test_parameters_in_any_order_and_in_each_computation(tmp_path: Path) -> None:
    text = module("z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add",
                  before=ADD.replace("parameter(0)", "parameter(9)").replace("parameter(1)", "parameter(0)")
                  .replace("parameter(9)", "parameter(1)"))
    assert opcode_problems(tmp_path, text) == []


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


# ---- async chains ----------------------------------------------------------------------------------------------
START = "s = ((f32[4]), f32[4], s32[]) async-start(p), calls=w"


@pytest.mark.parametrize(("body", "message", "underlined"), [
    (("ROOT d = f32[4] async-done(p)",), "AsyncUpdate and AsyncDone expect a single async op as their operand", "(p)"),
    ((START, "d = f32[4] async-done(s)", "ROOT e = f32[4] async-done(d)"),
     "AsyncUpdate and AsyncDone expect a single async op as their operand", "(d)"),
    ((START, "u = ((f32[4]), f32[4], u32[]) async-update(s)", "ROOT d = f32[4] async-done(u)"),
     "AsyncUpdate expects the op shape to be the same as the operand shape", "async-update"),
    ((START + ', async_execution_thread="a"', 'ROOT d = f32[4] async-done(s), async_execution_thread="b"'),
     "Expect async_execution_thread to be a, but got b", '"b"'),
    ((START, "ROOT d = f32[4] async-done(s), calls=v"), "Expect async_wrapped_computation to be w, but got v", "v"),
    (("s = ((f32[4]), f32[4], s32[]) negate-start(p)", "ROOT d = f32[4] abs-done(s)"),
     "Expect async wrapped opcode to be negate, but got abs", "abs-done"),
    ((START, "d = f32[4] async-done(s)", START.replace("s =", "t ="), "ROOT e = f32[4] async-done(t)"),
     "Computation w is called by more than one async op (first on line 15)", "w"),
    (("s = (f32[4], f32[4]) async-start(p), calls=w", "ROOT d = f32[4] async-done(s)"),
     "AsyncStart expects the op shape to be in the form of ((async-operands), async-outputs, state)", "async-start"),
])
def test_async_chains(tmp_path: Path, body: tuple[str, ...], message: str, underlined: str) -> None:
    found = one(tmp_path, module(*body, before=NEGATE + NEGATE.replace("w {", "v {")))
    assert found[1:] == ("async-chain", message, underlined)


def test_async_chains_xla_accepts(tmp_path: Path) -> None:
    text = module(START, "u = ((f32[4]{0}), f32[4], s32[]) async-update(s)", "d = f32[4] async-done(u), calls=w",
                  "n = ((f32[4]), f32[4], s32[]) negate-start(p)", "e = f32[4] negate-done(n)",
                  "t = ((f32[4]), f32[4], s32[]) async-start(p), calls=v", "f = f32[4] negate-done(t)",
                  "c = (f32[4], f32[4], u32[]) copy-start(p)", "ROOT g = f32[4] copy-done(c)",
                  before=NEGATE + NEGATE.replace("w {", "v {"))
    assert opcode_problems(tmp_path, text) == []


def test_custom_call_layout_constraints(tmp_path: Path) -> None:
    count = module('ROOT r = f32[4] custom-call(p), custom_call_target="x", '
                   "operand_layout_constraints={f32[4]{0}, f32[4]{0}}")
    assert one(tmp_path, count)[1:3] == ("operand-count", "Expected 1 operand layout constraints, 2 given")
    shape = module('ROOT r = f32[4] custom-call(p), custom_call_target="x", operand_layout_constraints={f32[5]{0}}')
    assert one(tmp_path, shape)[1:3] == ("operand-shape", "Operand layout constraint shape f32[5]{0} for operand 0 is "
                                                          "not compatible with operand shape f32[4]")


# ---- faults planted in real dumps ----------------------------------------------------------------------------
def planted(stem: Path, tmp_path: Path, old: str, new: str) -> tuple[Path, int, list[Problem]]:
    hlo, line = plant_in_copy(stem, ".txt", tmp_path, old, new)
    return hlo, line, problems_of(tmp_path)


def test_fusion_kind_misspelt_in_a_real_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(SPLIT_MLP, tmp_path, "kind=kLoop, calls=%fused_computation.7",
                                  "kind=kloop, calls=%fused_computation.7")
    assert where(problems) == [(hlo.name, line, ERROR, "attribute-value")]
    assert problems[0].message == ("kind: expects fusion kind but sees: kloop (one of kLoop, kInput, kOutput, "
                                   "kCustom)")
    assert underlined_in(hlo, problems[0]) == "kloop"


def test_reduce_without_its_computation_in_a_real_dump(tmp_path: Path) -> None:
    old = "dimensions={1}, to_apply=%region_1.3, metadata"
    hlo, line, problems = planted(SPLIT_MLP, tmp_path, old, "dimensions={1}, metadata")
    assert where(problems) == [(hlo.name, line, ERROR, "missing-attribute")]
    assert problems[0].message == "attribute to_apply is expected but not seen (reduce requires it)"


def test_parameter_gap_in_a_real_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(SPLIT_MLP, tmp_path, "%x.1 = f32[32,128]{1,0} parameter(6)",
                                  "%x.1 = f32[32,128]{1,0} parameter(7)")
    assert where(problems) == [(hlo.name, line, ERROR, "parameter-number")]
    assert problems[0].message == ("parameter number 7 leaves a gap: the computation has 7 parameters, numbered "
                                   "from 0 (XLA's parser crashes)")


def test_constant_out_of_range_in_a_real_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(SPLIT_CONTROL_FLOW, tmp_path, "%constant.24 = s32[] constant(1)",
                                  "%constant.24 = s8[] constant(1000)")
    assert [(p.code, p.message) for p in problems if p.code in CODES] == [
        ("literal-range", "value 1000 is out of range for s8 [-128, 127]")]
    assert [where([p]) for p in problems if p.code in CODES] == [[(hlo.name, line, ERROR, "literal-range")]]


def test_copy_start_attribute_on_a_tpu_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(TPU_STEP, tmp_path, "copy-start(%param.2)", "copy-start(%param.2), index=1")
    assert [(p.range.start.line, p.code) for p in problems if p.code in CODES] == [(line, "unknown-attribute")]


def test_two_async_starts_of_one_computation_on_a_tpu_dump(tmp_path: Path) -> None:
    hlo, line, problems = planted(TPU_PALLAS, tmp_path, "async-start(%k.1), calls=%async_computation.2",
                                  "async-start(%k.1), calls=%async_computation.4")
    mine = [p for p in problems if p.code in CODES]
    assert [(p.range.start.line, p.code, underlined_in(hlo, p)) for p in mine] == [
        (line + 1, "async-chain", "%async_computation.4")]


def test_a_conditional_on_a_pred_takes_true_and_false_computations(tmp_path: Path) -> None:
    # XLA: unexpected attribute "branch_computations" (its selector is a pred: true_/false_computation).
    assert [p for p in problems_of(HANDWRITTEN) if p.code in CODES] == []
    copy = tmp_path / HANDWRITTEN.name
    copy.write_text(HANDWRITTEN.read_text().replace("true_computation=on_true, false_computation=on_false",
                                                    "branch_computations={on_true, on_false}"))
    problems = [p for p in problems_of(copy) if p.code in CODES]
    assert [(p.range.start.line, p.code) for p in problems] == [(51, "unknown-attribute")]


# ---- real dumps are clean ----------------------------------------------------------------------------------------
def opcode_problems_of_modules(*roots: Path) -> list[str]:
    found = []
    for loaded_module in load([str(root) for root in roots]).modules:
        if loaded_module.hlo is not None and loaded_module.hlo.document.source != str(HANDWRITTEN):
            found += [f"{p.source}:{p.range}: {p.message}" for p in hlo_opcodes.check(CheckContext(loaded_module))]
    return found


def test_every_bundled_dump_reads_clean() -> None:
    assert [path for path in DATA.rglob("*.txt") if is_dump(path)]
    assert opcode_problems_of_modules(DATA) == []


def test_the_shared_corpus_and_producers_read_clean(corpus: Path) -> None:
    producers = CORPUS.parent / "producers"
    if not producers.is_dir():
        pytest.skip(f"the producers' dumps are not beside the project ({producers})")
    assert opcode_problems_of_modules(corpus, producers) == []


def test_an_edit_that_keeps_the_structure_is_checked_again_in_its_chunk_only() -> None:
    text = Path(f"{SPLIT_MLP}.txt").read_text()
    document = Document(text, FileKind.HLO_MODULE, "m.txt")
    before = ModuleDump("m", {FileKind.HLO_MODULE: document})
    assert list(hlo_opcodes.check(CheckContext(before))) == []
    line = next(n for n, t in enumerate(text.split("\n")) if "kind=kLoop, calls=%fused_computation.7" in t)
    column = text.split("\n")[line].index("kLoop")
    edited = document.apply_edit(Range(Position(line, column), Position(line, column + 5)), "kloop")
    after = ModuleDump("m", {FileKind.HLO_MODULE: edited})
    after.__dict__["hlo"] = before.hlo.edited(edited)  # type: ignore[union-attr] - as the server keeps views
    assert after.hlo is not None and after.hlo.structure_id is before.hlo.structure_id  # type: ignore[union-attr]
    problems = list(hlo_opcodes.check(CheckContext(after)))
    assert [(p.range.start.line, p.range.start.character, p.code) for p in problems] == [
        (line, column, "attribute-value")]
