"""hlo-opcodes on constant literals and parameter numbers (see opcode_cases.py for what was run through
XLA's parser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcode_cases import ADD, module, one, opcode_problems

from hlo_lsp.analysis.checks.opcodes.literals import element_problem


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
    assert element_problem("f16", "65504") is None
    assert element_problem("f8e5m2", "61439") is None
    assert element_problem("f8e5m2", "61440") is not None
    assert element_problem("f8e3m4", "15.75") is not None
    assert element_problem("f8e4m3b11fnuz", "31") is not None
    assert element_problem("f8e8m0fnu", "1e-50") is None
    assert element_problem("s4", "-8") is None and element_problem("s4", "8") is not None
    assert element_problem("f64", "1e309") is not None
    assert element_problem("f32", "99999999999999999999") == ("literal-shape", "unexpected token type in a "
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


def test_parameter_numbers_of_a_computation_opened_after_another_s_end_on_its_line(tmp_path: Path) -> None:
    # XLA: Duplicate parameter number 0 (each computation has an `x` on line 2: the second's is read)
    text = ("HloModule m\n\nc {\n  x = f32[] parameter(0) ROOT y = f32[] abs(x) } ENTRY e { x = f32[] parameter(0)\n"
            "  p = f32[] parameter(0)\n}\n")
    assert one(tmp_path, text) == (4, "parameter-number", "Duplicate parameter number 0 (first on line 4)", "0")


def test_a_parameter_number_after_a_comment_is_read_as_xla_reads_it(tmp_path: Path) -> None:
    # XLA: Duplicate parameter number 0
    twice = module("ROOT r = f32[4] add(p, q)", params=("p = f32[4] parameter(0)", "q = f32[4] parameter(/* c */0)"))
    assert one(tmp_path, twice) == (4, "parameter-number", "Duplicate parameter number 0 (first on line 4)", "0")


@pytest.mark.parametrize(("second", "line", "underlined"), [
    ("q = f32[4] parameter(/* ROOT x = f32[] abs(y) */0)", 4, "0"),  # a `)` in the comment
    ("q = f32[4] /* a\n b */parameter(0)", 5, "0"),  # its opcode on the next line
    ("q = f32[// c\n4] parameter(/* c */0)", 5, "0"),  # its shape over two lines
    ("q = f32[4] parameter(// c\n/* c */0)", 5, "0"),  # its number on the next line
])
def test_a_parameter_number_twice_whatever_comes_between(tmp_path: Path, second: str, line: int,
                                                          underlined: str) -> None:
    # XLA: Duplicate parameter number 0 (texts of the 10,000-text oracle sample, #1462, #4412 and #2341)
    twice = module("ROOT r = f32[4] add(p, q)", params=("p = f32[4] parameter(0)", second))
    assert one(tmp_path, twice) == (line, "parameter-number", "Duplicate parameter number 0 (first on line 4)",
                                    underlined)


def test_a_parameter_number_twice_in_a_computation_whose_header_follows_a_closing_brace(tmp_path: Path) -> None:
    # XLA: Duplicate parameter number 0 (oracle text #22434 of the run on 1a8643e): `e`'s header is on a line
    # of several items, after the `}` of `c`; its parameters are its own, not `c`'s.
    text = ("HloModule m\n\nc {\n  x = f32[] parameter(0)\n  ROOT y = f32[] abs(x) } ENTRY e {// c\n"
            "  x = f32[] parameter(0)\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c\n}\n")
    assert one(tmp_path, text) == (6, "parameter-number", "Duplicate parameter number 0 (first on line 6)", "0")


def test_parameters_in_any_order_and_in_each_computation(tmp_path: Path) -> None:
    text = module("z = f32[] constant(0)", "ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add",
                  before=ADD.replace("parameter(0)", "parameter(9)").replace("parameter(1)", "parameter(0)")
                  .replace("parameter(9)", "parameter(1)"))
    assert opcode_problems(tmp_path, text) == []


def test_a_parameter_continued_over_lines_leaves_no_gap(tmp_path: Path) -> None:
    # XLA accepts: `y` is parameter 1 of two, `x` parameter 0 (its opcode on the line below its name).
    text = module("ROOT s = f32[] add(x, y)", params=("x = f32[// c", "] parameter(0)", "y = f32[] parameter(1)"))
    assert [p for p in opcode_problems(tmp_path, text) if p.code == "parameter-number"] == []


def test_no_gap_is_reported_beside_a_line_the_scanner_cannot_read(tmp_path: Path) -> None:
    # XLA accepts: `%x // c` then `= f32[] parameter(0)` is parameter 0; the line is the grammar's problem.
    text = module("ROOT s = f32[] add(x, y)", params=("y = f32[] parameter(1)", "%x // c", " = f32[] parameter(0)"))
    assert [p for p in opcode_problems(tmp_path, text) if p.code == "parameter-number"] == []
