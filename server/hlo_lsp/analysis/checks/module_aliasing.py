"""The module header's aliasing attributes as XLA's HLO text parser reads them: input_output_alias, a
list of `{output index}: (parameter, {parameter index}[, may-alias|must-alias])` whose output indices
must be valid in the entry computation's result shape, and buffer_donor, a list of
`(parameter, {parameter index})`.
"""

from __future__ import annotations

import re

from hlo_lsp.analysis.checks.opcodes.findings import Finding
from hlo_lsp.analysis.checks.opcodes.inference import inferred_shape
from hlo_lsp.analysis.checks.opcodes.values import ValueProblem
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.syntax import Shape, TupleShape

_INDEX = r"\{\s*(?:-?[0-9]+\s*(?:,\s*-?[0-9]+\s*)*,?\s*)?\}"
_ALIAS = re.compile(rf"\s*({_INDEX})\s*:\s*\(\s*(-?[0-9]+)\s*,\s*{_INDEX}\s*(?:,\s*([^\s,)]*)\s*)?\)\s*(,?)")
_DONOR = re.compile(rf"\s*\(\s*-?[0-9]+\s*,\s*{_INDEX}\s*\)\s*(,?)")
_ALIAS_FORMAT = ("expected `{output index}: (parameter number, {parameter index})`, perhaps with `, may-alias` "
                 "or `, must-alias` before the `)`")
_KINDS = ("may-alias", "must-alias")


def alias_findings(hlo: HloModule, value: str) -> list[Finding]:
    """The findings of input_output_alias's `value` (a `{...}`), at offsets of the value."""
    result: Shape | None | bool = False  # the entry's result shape, read at the first output index
    position, end = 1, len(value) - 1
    while value[position:end].strip():
        item = _ALIAS.match(value, position, end)
        if item is None:
            return [(position, end, "attribute-value", _ALIAS_FORMAT)]
        kind = item.group(3)
        if kind is not None and kind not in _KINDS:
            return [(*item.span(3), "attribute-value", f"unexpected aliasing kind {kind!r}: expected may-alias "
                                                       "or must-alias")]
        if int(item.group(2)) < 0:
            return [(*item.span(2), "attribute-value", "a parameter number is never negative")]
        if result is False:
            result = _entry_result(hlo)
        if isinstance(result, Shape) and not _index_is_valid(result, item.group(1)):
            return [(*item.span(1), "attribute-value", f"output index {item.group(1)} is not an index of the entry "
                                                       f"computation's result shape {result}")]
        if not item.group(4) and value[item.end():end].strip():
            return [(item.end(), end, "attribute-value", "expected `,` between aliases")]
        position = item.end()
    return []


def buffer_donor(value: str) -> ValueProblem | None:
    if not (value.startswith("{") and value.endswith("}")):
        return (0, len(value), "expects `{(parameter number, {parameter index}), ...}`")
    position, end = 1, len(value) - 1
    while value[position:end].strip():
        item = _DONOR.match(value, position, end)
        if item is None or (not item.group(1) and value[item.end():end].strip()):
            return (position, end, "expected `(parameter number, {parameter index})` items, separated by commas")
        position = item.end()
    return None


def _entry_result(hlo: HloModule) -> Shape | None:
    """The shape of the entry computation's root as written (XLA aliases into it, whatever the
    entry_computation_layout says), or inferred where none is written, or None."""
    entry = hlo.entry
    if entry is None or not entry.instruction_lines:
        return None
    root = entry.root_lines[0] if entry.root_lines else entry.instruction_lines[-1]
    return inferred_shape(hlo, root) or hlo.shape_at_line(root)  # or written on the lines below


def _index_is_valid(shape: Shape, index: str) -> bool:
    for number in re.findall(r"-?[0-9]+", index):
        if not isinstance(shape, TupleShape) or not 0 <= int(number) < len(shape.elements):
            return False
        shape = shape.elements[int(number)]
    return True
