"""What a scanned line of a buffer-assignment-family file mentions: instruction names (of the paired HLO
module) and value ids, read per chunk when first asked for, as the HLO file's uses are."""

from __future__ import annotations

import re

from hlo_lsp.parsing import hlo_scanner
from hlo_lsp.parsing.ba_scanner import NUMBER
from hlo_lsp.parsing.line_scan import LineScan, Ref, RefCollector, Role, make_ref


def ba_line_mentions(text: str, scan: LineScan) -> tuple[Ref, ...]:
    """The instruction names (and value ids) a scanned line mentions."""
    kind = scan.kind
    if kind not in _MENTIONING_KINDS:
        return ()
    if text.endswith("\r"):
        text = text[:-1]
    refs = RefCollector(text)
    if kind == "from_instruction":
        _from_instruction_mentions(text, scan, refs)
        return tuple(refs.refs)
    name = mentioned_instruction(scan)
    if name is None:  # not for the kinds left here: each names its instruction
        return ()
    if kind in _VALUE_KINDS:
        digits = _VALUE_ID.search(text)
        if digits is None:
            return ()
        if kind != "value":
            refs.refs.append(make_ref(text, Role.VALUE_MENTION, str(scan.data[0]), digits.start(1), digits.end(1)))
        refs.add(Role.INSTRUCTION_MENTION, name, digits.end(1) + 1)
        return tuple(refs.refs)
    start = _name_start(text, kind, name)
    if start >= 0:
        refs.add(Role.INSTRUCTION_MENTION, name, start)
    return tuple(refs.refs)


def mentioned_instruction(scan: LineScan) -> str | None:
    """The one instruction a value, position, use, schedule, live-range or peak line names (the
    name its mentions hold); None for other lines, `from instruction:` text included."""
    kind = scan.kind
    if kind in _VALUE_KINDS or kind == "sequence_entry":
        return scan.data[1]
    if kind in _NAMED_FIRST:
        return scan.data[0]
    return None


def _name_start(text: str, kind: str, name: str) -> int:
    if kind == "sequence_entry":
        return text.index(":") + 1
    return len(text) - len(text.lstrip())


def _from_instruction_mentions(text: str, scan: LineScan, refs: RefCollector) -> None:
    start = scan.data[0]
    instruction = LineScan("instruction", "used", (), scan.data[1:])
    if len(scan.data) < 2:
        return
    head_name = scan.data[1]
    name_start = text.find(head_name, start)
    if name_start >= 0:
        refs.add(Role.INSTRUCTION_MENTION, head_name, name_start)
    for ref in hlo_scanner.hlo_line_uses(text, instruction):
        role = Role.COMPUTATION_MENTION if ref.role is Role.COMPUTATION_USE else (
            Role.INSTRUCTION_MENTION if ref.role is Role.INSTRUCTION_USE else ref.role)
        refs.refs.append(Ref(role, ref.name, ref.start, ref.end))


_VALUE_ID = re.compile(rf"<({NUMBER}) ")
_VALUE_KINDS = frozenset(("value", "reused_value", "used_value"))
_NAMED_FIRST = frozenset(("position", "use", "live_range", "peak_entry"))
_MENTIONING_KINDS = _VALUE_KINDS | _NAMED_FIRST | frozenset(("from_instruction", "sequence_entry"))
