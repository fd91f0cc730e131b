"""hlo-opcodes on computations written inline (`to_apply={ ... }`): XLA's parser reads each as a computation
of its own, so every rule of instructions and computations holds inside it, on its own line and column
(see opcode_cases.py for what was run through XLA's parser)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opcode_cases import module

from helpers import problems_of

REDUCE = "ROOT r = f32[] reduce(s, z), dimensions={{}}, to_apply={{ {body} }}"
PARAMS = ("s = f32[] parameter(0)", "z = f32[] constant(0)")
X, Y = "x = f32[] parameter(0)", "y = f32[] parameter(1)"


def _problems(tmp_path: Path, text: str) -> list[tuple[int, str, str, str]]:
    """(line, code, message, the text it underlines) of every problem."""
    path = tmp_path / "m.hlo"
    path.write_text(text)
    lines = [line.encode("utf-16-le") for line in text.split("\n")]  # columns count UTF-16 units
    return [(p.range.start.line, p.code, p.message,
             lines[p.range.start.line][2 * p.range.start.character : 2 * p.range.end.character].decode("utf-16-le"))
            for p in problems_of(path)]


@pytest.mark.parametrize(("body", "code", "message", "underlined"), [
    # XLA: one computation should have only one ROOT
    (f"{X} {Y} ROOT a = f32[] add(x, y) ROOT b = f32[] add(x, y)", "root-count",
     "computation _ has 2 ROOT instructions; it may have one (without, its last instruction is its root)", "{"),
    # XLA: Duplicate parameter number 0
    (f"{X} y = f32[] parameter(0) ROOT a = f32[] add(x, y)", "parameter-number",
     "Duplicate parameter number 0 (first on line 6)", "0"),
    # XLA: instruction s not exist (the caller's names are not the body's)
    (f"{X} {Y} ROOT a = f32[] add(x, s)", "undefined-instruction", "instruction s is not defined in this module", "s"),
    # XLA: expects 2 operands, but has 1 operands
    (f"{X} {Y} ROOT a = f32[] add(x)", "operand-count", "add expects 2 operands, but has 1", "(x)"),
    # XLA: cannot infer shape for opcode: parameter
    (f"x = parameter(0) {Y} ROOT a = f32[] add(x, y)", "shape-required",
     "cannot infer shape for opcode: parameter; write the result shape before it", "parameter"),
])
def test_a_computation_written_on_one_line_is_checked_as_one(tmp_path: Path, body: str, code: str, message: str,
                                                             underlined: str) -> None:
    found = _problems(tmp_path, module(REDUCE.format(body=body), params=PARAMS))
    assert found == [(5, code, message, underlined)]


WHILE = ("ROOT w = f32[] while(s), condition={", "  a = f32[] parameter(0)", "  ROOT t = pred[] constant(true)",
         "}, body=", "{", "  b = f32[] parameter(0)", "  ROOT n = f32[] negate(b)", "}")


@pytest.mark.parametrize(("line", "replaced", "by", "code", "message", "underlined"), [
    # XLA: expects integer (a pred literal)
    (6, "constant(true)", "constant(1.5)", "literal-range", "expects integer for primitive type: pred", "1.5"),
    # XLA: expects 1 operands, but has 0 operands
    (10, "negate(b)", "negate()", "operand-count", "negate expects 1 operand, but has 0", "()"),
    # XLA: one computation should have only one ROOT
    (9, "b = f32[] parameter(0)", "ROOT b = f32[] parameter(0)", "root-count",
     "computation _ has 2 ROOT instructions; it may have one (without, its last instruction is its root)", "{"),
])
def test_computations_written_over_lines_are_checked_as_computations(
        tmp_path: Path, line: int, replaced: str, by: str, code: str, message: str, underlined: str) -> None:
    text = module(*WHILE, params=("s = f32[] parameter(0)",))
    lines = text.split("\n")
    lines[line] = lines[line].replace(replaced, by)
    assert _problems(tmp_path, "\n".join(lines)) == [(line if code != "root-count" else 8, code, message,
                                                      underlined)]  # a computation's problem: at its `{`


def test_a_parameter_number_twice_in_a_body_whose_first_line_holds_its_brace_and_an_instruction(
        tmp_path: Path) -> None:
    # XLA: Duplicate parameter number 0 (oracle text #30343 of the run on 1a8643e): `{ a = ...` opens the body
    # on a line of several items, so `a` is the body's first parameter.
    text = module("ROOT w = f32[4] while(p),", "    condition={ a = f32[4] parameter(0)", "  q = f32[4] parameter(0)",
                  "  ROOT t = pred[] constant(true) }, body={ b = f32[4] parameter(0) ROOT n = f32[4] negate(b) }")
    assert _problems(tmp_path, text) == [(6, "parameter-number", "Duplicate parameter number 0 (first on line 6)",
                                          "0")]


def test_computations_written_inline_that_xla_accepts_read_clean(tmp_path: Path) -> None:
    assert _problems(tmp_path, module(*WHILE, params=("s = f32[] parameter(0)",))) == []
    nested = f"{X} {Y} ROOT a = f32[] reduce(x, y), dimensions={{}}, to_apply={{ {X} {Y} ROOT b = f32[] add(x, y) }}"
    assert _problems(tmp_path, module(REDUCE.format(body=nested), params=PARAMS)) == []


def test_a_body_after_a_letter_outside_the_bmp_keeps_its_columns(tmp_path: Path) -> None:
    instruction = REDUCE.format(body=f"{X} {Y} ROOT a = f32[] add(x)").replace("dimensions={}", "dimensions={} /*𝔣*/")
    assert _problems(tmp_path, module(instruction, params=PARAMS))[0][1:] == (
        "operand-count", "add expects 2 operands, but has 1", "(x)")


def test_a_body_whose_brackets_do_not_pair_is_the_instructions_syntax_problem(tmp_path: Path) -> None:
    found = _problems(tmp_path, module(REDUCE.format(body=f"{X} {Y} ROOT a = f32[] add(x, y,"), params=PARAMS))
    assert [code for _, code, _, _ in found].count("syntax") == 1
