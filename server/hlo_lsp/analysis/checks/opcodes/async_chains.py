"""Async chains, read again on every run (they depend on other lines' text): each `-update` and
`-done` takes one async op of its chain, agrees with its start on the thread, the computation and
the wrapped opcode, and no computation is called by two async-starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.analysis.checks.opcodes import tables
from hlo_lsp.analysis.checks.opcodes.findings import Finding
from hlo_lsp.analysis.checks.opcodes.other_lines import definition, operand_name
from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts, parsed_shape
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner import continued_instruction_data
from hlo_lsp.parsing.syntax import Shape, TupleShape

_Key = tuple[int, str]  # an instruction's line and name (a line may hold several)


@dataclass(slots=True)
class _AsyncOp:
    line: int
    read: InstructionParts
    stage: str  # -start, -update or -done
    wrapped: str | None  # the opcode of an `<op>-start`, None for async-start


def _async_op(read: InstructionParts, line: int) -> _AsyncOp | None:
    if read.opcode.startswith("async-"):
        return _AsyncOp(line, read, "-" + read.opcode[len("async-"):], None)
    wrapped = tables.async_wrapped(read.opcode)
    return _AsyncOp(line, read, wrapped[1], wrapped[0]) if wrapped else None


def async_problems(hlo: HloModule, reads: dict[_Key, InstructionParts]) -> list[tuple[_Key, Finding]]:
    """(key, finding) of the async ops among `reads` (instructions by line and name)."""
    ops = {key: op for key, read in reads.items() if (op := _async_op(read, key[0])) is not None}
    found: list[tuple[_Key, Finding]] = []
    callers: dict[str, int] = {}
    for key, op in sorted(ops.items(), key=lambda keyed: (keyed[0][0], keyed[1].read.opcode_span[0])):
        if op.stage == "-start":
            computation = (op.read.attribute("calls") or "").lstrip("%")
            if not computation:
                continue  # no computation named: nothing two starts could share
            if op.wrapped is None and computation in callers:
                span = op.read.value_span("calls")
                found.append((key, (*span, "async-chain", f"Computation {computation} is called by more than one "
                                                            f"async op (first on line {callers[computation] + 1})")))
            callers.setdefault(computation, op.line)
        else:
            found.extend((key, finding) for finding in _async_link(hlo, op, ops))
    return found


def _async_link(hlo: HloModule, op: _AsyncOp, ops: dict[_Key, _AsyncOp]) -> list[Finding]:
    read = op.read
    operand = _operand_key(hlo, op) if len(read.operands) == 1 else None
    previous = ops.get(operand) if operand is not None else None
    if previous is None or previous.stage == "-done":
        if len(read.operands) == 1 and (operand is None or not _has_opcode(hlo, *operand)):
            return []  # an operand not defined here (hlo-structure says so), or whose opcode the scan did not read
        return [(*read.operands_span, "async-chain", "AsyncUpdate and AsyncDone expect a single async op as their "
                                                     "operand")]
    start = previous
    while start.stage == "-update" and len(start.read.operands) == 1:
        earlier = _operand_key(hlo, start)
        if earlier is None or earlier not in ops:
            return []
        start = ops[earlier]
    return _async_agreement(hlo, op, previous, start)


def _operand_key(hlo: HloModule, op: _AsyncOp) -> _Key | None:
    """The line and name of the instruction that `op`'s one operand names, where it is defined beside it."""
    item = op.read.item(op.read.operands[0])
    line = definition(hlo, op.line, item)
    return (line, operand_name(item)) if line is not None else None


def _has_opcode(hlo: HloModule, line: int, name: str) -> bool:
    """Whether the instruction `name` on `line` has an opcode the scan read (on its line, or below)."""
    data = hlo.instruction_scan(line, name).data
    if len(data) == 5 and not data[3]:  # `p = f32[4] // c` / `parameter(0)`
        data = continued_instruction_data(hlo.instruction_text(line, name), data)
    return len(data) == 5 and bool(data[3])


def _async_agreement(hlo: HloModule, op: _AsyncOp, previous: _AsyncOp, start: _AsyncOp) -> list[Finding]:
    read, found = op.read, []
    if op.stage == "-update" and not _same_shape(parsed_shape(read.shape), parsed_shape(previous.read.shape)):
        found.append((*read.opcode_span, "async-chain", "AsyncUpdate expects the op shape to be the same as the "
                                                        "operand shape"))
    thread = (read.attribute("async_execution_thread") or "").strip("\"'")
    expected = (start.read.attribute("async_execution_thread") or '"main"').strip("\"'")
    if thread and thread != expected:
        found.append((*read.value_span("async_execution_thread"), "async-chain",
                      f"Expect async_execution_thread to be {expected}, but got {thread}"))
    calls, started = read.attribute("calls"), (start.read.attribute("calls") or "").lstrip("%")
    if calls is not None and start.wrapped is None and calls.lstrip("%") != started:
        found.append((*read.value_span("calls"), "async-chain",
                      f"Expect async_wrapped_computation to be {started}, but got {calls.lstrip('%')}"))
    wrapped = start.wrapped or _root_opcode(hlo, started)
    if op.wrapped is not None and wrapped is not None and op.wrapped != wrapped:
        found.append((*read.opcode_span, "async-chain", f"Expect async wrapped opcode to be {wrapped}, but got "
                                                        f"{op.wrapped}"))
    return found


def _root_opcode(hlo: HloModule, computation: str) -> str | None:
    found = hlo.computations.get(computation)
    if found is None or not found.instruction_lines:
        return None
    root = found.root_lines[0] if found.root_lines else found.instruction_lines[-1]
    return str(hlo.instruction_scan(root).data[3])


def _same_shape(a: Shape | None, b: Shape | None) -> bool:
    """Shape equality as XLA compares after filling in default layouts."""
    if a is None or b is None:
        return True
    if isinstance(a, TupleShape) or isinstance(b, TupleShape):
        return isinstance(a, TupleShape) and isinstance(b, TupleShape) and len(a.elements) == len(b.elements) and all(
            _same_shape(x, y) for x, y in zip(a.elements, b.elements))
    default = tuple(range(len(a.dims) - 1, -1, -1))
    layouts = [(s.layout.minor_to_major, s.layout.tiles, s.layout.element_bits, s.layout.memory_space)
               if s.layout else (default, (), None, None) for s in (a, b)]
    return (a.element_type, a.dims, a.bounded, layouts[0]) == (b.element_type, b.dims, b.bounded, layouts[1])
