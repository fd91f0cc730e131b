"""send-done and recv-done, read again on every run (they depend on their operand's text): the
channel_id of a channel operand, even absent, is theirs, and a recv-done's operand is a tuple.
"""

from __future__ import annotations

from hlo_lsp.analysis.checks.opcodes.findings import Finding
from hlo_lsp.analysis.checks.opcodes.other_lines import attribute_of_line, definition, operand_name, shape_text
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts
from hlo_lsp.analysis.checks.opcodes.values import int64_value
from hlo_lsp.model.hlo_module import HloModule

_CHANNEL_OPCODES = frozenset(("send", "recv", "send-done", "recv-done", "all-gather", "all-gather-start",
                              "all-reduce", "all-reduce-start", "all-to-all", "ragged-all-to-all",
                              "collective-permute", "collective-permute-start", "reduce-scatter",
                              "collective-broadcast"))


def channel_problems(hlo: HloModule, line: int, read: InstructionParts) -> list[Finding]:
    """The findings of the send-done or recv-done `read` on `line`."""
    operand = definition(hlo, line, read.item(read.operands[0])) if len(read.operands) == 1 else None
    if operand is None:
        return []
    name = operand_name(read.item(read.operands[0]))
    scan = hlo.instruction_scan(operand, name)
    found = []
    if read.opcode == "recv-done" and not shape_text(hlo, operand, name).startswith("("):
        found.append((*read.operands_span, "operand-shape", "recv-done of an operand that is not a tuple "
                                                            "(XLA's parser crashes)"))
    if scan.data[3] in _CHANNEL_OPCODES:
        theirs = attribute_of_line(hlo, operand, "channel_id", name)
        mine = read.attribute("channel_id")
        if _int_or_none(mine) != _int_or_none(theirs):
            span = read.value_span("channel_id") if mine is not None else read.opcode_span
            found.append((*span, "attribute-value", f"channel_id must be the one of its operand ({theirs or 'none'}), "
                                                    f"not {mine or 'none'}"))
    return found


def _int_or_none(text: str | None) -> int | None:
    return int64_value(text) if text is not None else None
