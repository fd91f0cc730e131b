"""Call hierarchy (textDocument/prepareCallHierarchy, callHierarchy/incomingCalls, outgoingCalls)
over the computations of an HLO module.

A computation calls another when one of its instructions names it in `calls=`,
`to_apply=`, `condition=`, `body=`, `branch_computations={...}`,
`true_computation=`/`false_computation=`, `select=`/`scatter=`, `comparator=` or
`called_computations={...}`. The hierarchy starts on a computation's name, where it is
defined or used (in any file of the module); an item's range is the computation's
header line and its selection range the name there.
"""

from __future__ import annotations

from dataclasses import dataclass

from hlo_lsp.features.types import Target
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.hlo_module import Computation, HloModule
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.text import Range, utf16_column

_COMPUTATION_USE = frozenset((Role.COMPUTATION_USE,))


@dataclass(frozen=True, slots=True)
class CallItem:
    name: str  # the computation's name
    detail: str
    source: str  # the HLO module document
    range: Range  # the header line
    selection_range: Range  # the name in the header


@dataclass(frozen=True, slots=True)
class Call:
    """A caller (incoming) or a callee (outgoing), with where the call is written: the ranges
    of the names in the calling computation's instructions."""

    item: CallItem
    from_ranges: tuple[Range, ...]


def prepare_call_hierarchy(module: ModuleDump, target: Target) -> list[CallItem]:
    hlo = module.hlo
    if hlo is None or target.kind != "computation":
        return []
    computation = hlo.computations.get(target.name)
    return [call_item(hlo, computation)] if computation is not None else []


def incoming_calls(module: ModuleDump, name: str) -> list[Call]:
    """The computations whose instructions call `name`, in file order."""
    hlo = module.hlo
    if hlo is None or name not in hlo.computations:
        return []
    sites: dict[str, list[Range]] = {}
    for line, ref in hlo.document.uses(name, _COMPUTATION_USE):
        caller = hlo.computation_at(line)
        if caller is not None:
            sites.setdefault(caller.name, []).append(Range.on_line(line, ref.start, ref.end))
    return [Call(call_item(hlo, hlo.computations[caller]), tuple(ranges))
            for caller, ranges in sites.items() if caller in hlo.computations]


def outgoing_calls(module: ModuleDump, name: str) -> list[Call]:
    """The computations that the instructions of `name` call, in the order of first call."""
    hlo = module.hlo
    computation = hlo.computations.get(name) if hlo is not None else None
    if hlo is None or computation is None:
        return []
    last = computation.end_line if computation.end_line is not None else _last_line(computation)
    sites: dict[str, list[Range]] = {}
    for line in range(computation.line, last + 1):
        for ref in hlo.document.uses_on_line(line):
            if ref.role is Role.COMPUTATION_USE and ref.name in hlo.computations:
                sites.setdefault(ref.name, []).append(Range.on_line(line, ref.start, ref.end))
    return [Call(call_item(hlo, hlo.computations[callee]), tuple(ranges)) for callee, ranges in sites.items()]


def call_item(hlo: HloModule, computation: Computation) -> CallItem:
    text = hlo.document.line(computation.line).rstrip("\r")
    indent = len(text) - len(text.lstrip())
    header = Range.on_line(computation.line, utf16_column(text, indent), utf16_column(text, len(text.rstrip())))
    count = len(computation.instruction_lines)
    detail = ("ENTRY, " if computation.is_entry else "") + f"{count} instruction{'' if count == 1 else 's'}"
    return CallItem(computation.name, detail, hlo.document.source, header, computation.name_range)


def _last_line(computation: Computation) -> int:
    return computation.instruction_lines[-1] if computation.instruction_lines else computation.line
