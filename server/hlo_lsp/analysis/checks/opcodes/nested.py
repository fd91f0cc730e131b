"""Instructions written in their user's operand list (`add(p, negate(p))`). XLA's parser reads an operand
slot as a nested instruction when it is no `[shape] name` followed by `,` or `)`, and builds it as an
instruction of its own: a known opcode, a result shape unless it can be inferred, its operand count, and
no attributes (so none it requires: `f32[4] broadcast(p)` is rejected).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from hlo_lsp.analysis.checks.opcodes.findings import Judgement
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, parsed_shape, read_instruction
from hlo_lsp.parsing.hlo_scanner import matching_paren
from hlo_lsp.parsing.hlo_scanner.forms import LITERAL_OPCODES

# `[shape] opcode(` at an operand slot's start: the opcode is the first name followed by `(` that no `%`,
# name character or `[` of a shape's dimensions precedes (a tuple shape's own parentheses follow none).
_NESTED = re.compile(r"\s*(.*?)(?<![%\w.\-\[])([A-Za-z_][\w.\-]*)\s*\(", re.S)


def nested_instructions(read: InstructionParts) -> Iterator[InstructionParts]:
    """The instructions written in `read`'s operand slots (offsets in `read.text`)."""
    if read.opcode in LITERAL_OPCODES:  # its operands are literals
        return
    for start, end in read.operands:
        item = read.text[start:end]
        if "(" not in item or not item.rstrip().endswith(")"):
            continue
        nested = _NESTED.match(item)
        if nested is None:
            continue
        data = ("", start, start + nested.start(2), nested.group(2), False)
        parts = read_instruction(read.text[: start + len(item.rstrip())], data)
        if parts is not None:
            yield parts


def judge_nested(read: InstructionParts, judgement: Judgement, judge: Callable[[InstructionParts], Judgement]) -> None:
    """Adds the findings of the instructions nested in `read`'s operands (the work they would ask of other
    lines is not asked: XLA's parser checks a nested instruction on its own)."""
    for nested in nested_instructions(read):
        judgement.findings += judge(nested).findings


def tuple_shaped_operands(read: InstructionParts, judgement: Judgement) -> None:
    """An operand slot that starts with `(` starts a tuple shape, as XLA's parser reads it (`tuple(p, (p))`:
    "expected primitive type"), which a name or a nested instruction follows (`read`: no constant or parameter,
    whose operands are a literal: `constant((1, 2))`)."""
    for start, end in read.operands:
        first = start + len(read.text[start:end]) - len(read.text[start:end].lstrip())
        if read.text[first] != "(":
            continue
        close = matching_paren(read.text, first)
        if close < 0 or close >= end or parsed_shape(read.text[first : close + 1]) is None:
            judgement.add((first, max(close + 1, first + 1) if 0 <= close < end else end), "operand-shape",
                          "an operand's `(` opens a tuple shape, which this is not (XLA: expected primitive type)")
        elif not read.text[close + 1 : end].strip():
            judgement.add((first, close + 1), "operand-shape", "a tuple shape without the operand it is the shape of")
