"""Instructions written in their user's operand list (`add(p, negate(p))`). XLA's parser reads an operand
slot as a nested instruction when it is no `[shape] name` followed by `,` or `)`, and builds it as an
instruction of its own: a known opcode, a result shape unless it can be inferred, its operand count, and
no attributes (so none it requires: `f32[4] broadcast(p)` is rejected).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from hlo_lsp.analysis.checks.opcodes.findings import Judgement
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, read_instruction
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
