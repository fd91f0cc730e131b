"""What the tests of hlo-opcodes share: modules written around a few instructions, and the problems
of this check in them.

Every text the tests say XLA's HLO text parser (jaxlib 0.10.2) rejects was run through the real parser
and rejected (or crashed it), and every text said to be accepted was accepted; the one exception is a
dim_labels spatial digit beyond the spatial dimensions, undefined behaviour there (it crashes, rejects
or accepts garbage)."""

from __future__ import annotations

from pathlib import Path

from helpers import problems_of
from hlo_lsp.problems import Problem, Severity

ERROR = Severity.ERROR
CODES = frozenset(("unknown-opcode", "operand-count", "unknown-attribute", "duplicate-attribute", "missing-attribute",
                   "attribute-value", "literal-range", "literal-shape", "shape-required", "async-chain",
                   "parameter-number", "result-shape", "operand-shape", "layout"))
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
