"""hlo-header: the module header's attributes as XLA's HLO text parser (jaxlib 0.10.2) reads them:
the keys it knows, each once, with a value of its syntax; input_output_alias's output indices valid in
the entry computation's result shape. Only the header's own lines are read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hlo_lsp.analysis.checks.module_aliasing import alias_findings, buffer_donor
from hlo_lsp.analysis.checks.opcodes import structured_values as structured
from hlo_lsp.analysis.checks.opcodes import values
from hlo_lsp.analysis.checks.opcodes.findings import Finding, problems
from hlo_lsp.analysis.checks.opcodes.layouts import layout_findings
from hlo_lsp.analysis.checks.opcodes.values import Validator, ValueProblem, whole
from hlo_lsp.analysis.context import CheckContext, StructureMemo
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.parsing.hlo_scanner import without_comments
from hlo_lsp.parsing.line_scan import as_one_line
from hlo_lsp.parsing.names import NAME
from hlo_lsp.problems import Problem

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', re.S)
_ITEM_START = re.compile(r",\s*(" + NAME + r")\s*=\s*")


def _bools(value: str) -> ValueProblem | None:
    if values.boolean(value) is None or values.parameter_replication(value) is None:
        return None
    return whole(value, "expects true, false or a list of booleans, e.g. {true,false}")


_LAYOUT = re.compile(r"\{\s*\((.*)\)\s*->(.*)\}", re.S)


def _computation_layout(value: str) -> ValueProblem | None:
    """`{(parameter shapes)->result shape}`, each a shape XLA reads (comments between tokens are spaces)."""
    clean = as_one_line(without_comments(value))
    layout = _LAYOUT.fullmatch(clean)
    if layout is None:
        return whole(value, "expects the entry computation's layout: {(parameter shapes)->result shape}")
    span = values.first_non_shape(clean, (*values.split_top_level(layout.group(1)), layout.group(2)), layout.start(1))
    return None if span is None else (*span, "expects a shape: expected primitive type")


def _braced(value: str) -> ValueProblem | None:
    return None if value.startswith("{") and value.endswith("}") else whole(value, "expects a `{...}` value")


VALIDATORS: dict[str, Validator] = {
    "is_scheduled": values.boolean, "alias_passthrough_params": values.boolean,
    "replica_count": values.int64, "num_partitions": values.int64,
    "allow_spmd_sharding_propagation_to_output": _bools, "allow_spmd_sharding_propagation_to_parameters": _bools,
    "entry_computation_layout": _computation_layout, "frontend_attributes": structured.frontend_attributes,
    "buffer_donor": buffer_donor, "origin_recovery_table": _braced, "input_output_alias": _braced,
}
ALLOWED = ", ".join(sorted(VALIDATORS))


_BY_STRUCTURE = StructureMemo("module header")


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is not None and hlo.header_line is not None:
        yield from _BY_STRUCTURE.problems(hlo, _header_problems)


def _header_problems(hlo: HloModule) -> list[Problem]:
    """The header and the entry's root shape it is read against are part of the structure: kept while it stays."""
    assert hlo.header_line is not None
    text = _header_text(hlo, hlo.header_line)
    return problems(hlo, hlo.header_line, text, header_findings(hlo, text))


def _header_text(hlo: HloModule, line: int) -> str:
    """The header's line and the lines its attributes go on over."""
    document, end = hlo.document, line + 1
    while end < document.line_count and document.scan(end).kind == "continuation":
        end += 1
    return "\n".join(document.line(number).rstrip("\r") for number in range(line, end))


def header_findings(hlo: HloModule, text: str) -> list[Finding]:
    found: list[Finding] = []
    seen: set[str] = set()
    text = without_comments(text)
    for key, key_start, start, end in attributes(text):
        key_span = (key_start, key_start + len(key))
        if key in seen:
            found.append((*key_span, "duplicate-attribute", f"attribute {key} already exists"))
        elif key not in VALIDATORS:
            found.append((*key_span, "unknown-attribute", f'unexpected attribute "{key}" in the module header; '
                                                          f"allowed: {ALLOWED}"))
        else:
            found.extend(_value_findings(hlo, key, text, start, end))
        seen.add(key)
    return found


def _value_findings(hlo: HloModule, key: str, text: str, start: int, end: int) -> list[Finding]:
    value = text[start:end]
    problem = VALIDATORS[key](value)
    if problem is not None:
        return [(start + problem[0], start + problem[1], "attribute-value", f"{key}: {problem[2]}")]
    if key == "input_output_alias":
        return [(start + a, start + b, code, f"{key}: {message}") for a, b, code, message in alias_findings(hlo, value)]
    if key == "entry_computation_layout":
        return [(a, b, "layout", message) for a, b, message in layout_findings(text, start, end)]
    return []


def attributes(text: str) -> list[tuple[str, int, int, int]]:
    """(key, key start, value start, value end) of each top-level `, key=value` of `text`. Found in C:
    the `, key=` candidates by a regex, their depth by counting brackets between them (a header lists
    every parameter's shape: 260 KB in a large module), with strings and comments blanked first."""
    flat = without_comments(text)
    flat = _STRING.sub(_blank_inside, flat) if '"' in flat or "'" in flat else flat
    starts, depth, previous = [], 0, 0
    for item in _ITEM_START.finditer(flat):
        depth += sum(flat.count(mark, previous, item.start()) for mark in "([{") - sum(
            flat.count(mark, previous, item.start()) for mark in ")]}")
        previous = item.start()
        if depth == 0:
            starts.append(item)
    ends = [item.start() for item in starts[1:]] + [len(flat)]
    found = []
    for item, end in zip(starts, ends):
        while end > item.end() and flat[end - 1].isspace():
            end -= 1
        found.append((item.group(1), item.start(1), item.end(), end))
    return found


def _blank_inside(match: re.Match[str]) -> str:
    quoted = match.group()
    return quoted[0] + " " * (len(quoted) - 2) + quoted[-1]


