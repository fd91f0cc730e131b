"""The hovers of a computation (its signature, its callers) and of a shape (its size, laid out and tiled)."""

from __future__ import annotations

import math
import re

from hlo_lsp.features.hover_memory import byte_text, count_text
from hlo_lsp.features.hover_views import MAX_LISTED, Views, clip
from hlo_lsp.features.types import Target
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_module import Computation, HloModule, InstructionSite
from hlo_lsp.model.sizes import dense_size, has_tiles, tiled_size
from hlo_lsp.parsing.hlo_syntax import parse_computation_header, parse_shape
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.parsing.syntax import ComputationHeader, ParseError, TupleShape

# Longer than any shape XLA prints (a tuple of a thousand elements is ~30 KB): the grammar would take seconds.
_LONGEST_SHAPE_READ = 64 * 1024
_COMPUTATION_USE = frozenset((Role.COMPUTATION_USE,))
_PARAMETER_NUMBER = re.compile(r"\bparameter\(\s*([0-9]+)\s*\)")


def hover_computation(views: Views, target: Target) -> str | None:
    hlo = views.hlo
    computation = hlo.computations.get(target.name) if hlo is not None else None
    if hlo is None or computation is None:
        return None
    kind = "ENTRY computation" if computation.is_entry else "computation"
    count = len(computation.instruction_lines)
    sections = [f"**{kind}** `{computation.name}`", f"```\n{_signature(hlo, computation)}\n```",
                f"{count} instruction{'' if count == 1 else 's'}"]
    callers = _callers(hlo, computation.name)
    if callers:
        listed = [f"- `{site.name}` ({site.opcode})" + (f" in `{site.computation}`" if site.computation else "")
                  for site in callers[:MAX_LISTED]]
        more = [f"- … and {len(callers) - MAX_LISTED} more"] if len(callers) > MAX_LISTED else []
        sections.append("\n".join(["called by:", *listed, *more]))
    elif not computation.is_entry:
        sections.append("not called by any instruction")
    return "\n\n".join(sections)


def _signature(hlo: HloModule, computation: Computation) -> str:
    """`name(p: shape, ...) -> result`, from the header, or from the body when the header has none."""
    header = parse_computation_header(hlo.document.line(computation.line).rstrip("\r"))
    if isinstance(header, ComputationHeader) and header.parameters is not None:
        parameters = [f"{p.name}: {p.shape}" for p in header.parameters]
        result = str(header.result) if header.result is not None else "?"
    else:
        parameters, result = _signature_from_body(hlo, computation)
    if len(parameters) > MAX_LISTED:
        parameters = [*parameters[:MAX_LISTED], f"… {len(parameters) - MAX_LISTED} more"]
    return f"{computation.name} ({', '.join(parameters)}) -> {clip(result)}"


def _signature_from_body(hlo: HloModule, computation: Computation) -> tuple[list[str], str]:
    numbered = []
    for line in computation.instruction_lines:
        site = hlo.site_at_line(line)
        number = _PARAMETER_NUMBER.search(hlo.document.line(line)) if site and site.opcode == "parameter" else None
        if site is not None and number is not None:
            numbered.append((int(number.group(1)), site.name, line))
    numbered.sort()
    parameters = [f"{name}: {hlo.shape_at_line(line) or '?'}" for _, name, line in numbered]
    roots = computation.root_lines or computation.instruction_lines[-1:]
    result = hlo.shape_at_line(roots[0]) if roots else None
    return parameters, str(result) if result is not None else "?"


def _callers(hlo: HloModule, name: str) -> list[InstructionSite]:
    """Instructions naming the computation in calls=, to_apply=, body=, branch_computations=..."""
    found: dict[int, InstructionSite] = {}
    for line, _ in hlo.document.uses(name, _COMPUTATION_USE):
        start = _instruction_start(hlo.document, line)
        site = hlo.site_at_line(start)
        if site is not None:
            found.setdefault(start, site)
    return list(found.values())


def _instruction_start(document: Document, line: int) -> int:
    while line > 0 and document.scan(line).kind == "continuation":
        line -= 1
    return line




def hover_shape(views: Views, target: Target) -> str | None:
    return shape_markdown(target)


def shape_markdown(target: Target) -> str | None:
    if len(target.name) > _LONGEST_SHAPE_READ:
        length = count_text(len(target.name))
        return f"`{clip(target.name)}`: a shape of {length} characters, longer than a hover reads"
    shape = parse_shape(target.name)
    if isinstance(shape, ParseError):
        return None
    dense = dense_size(shape)
    if isinstance(shape, TupleShape):
        if dense is None:
            return None
        return (f"`{clip(target.name)}`: tuple of {len(shape.elements)}, {byte_text(dense)}"
                " (its table of pointers; each element is a buffer of its own)")
    dynamic = any(shape.bounded)
    elements = math.prod(shape.dims) if all(size >= 0 for size in shape.dims) else None
    count = "unbounded" if elements is None else ("up to " if dynamic else "") + count_text(elements)
    lines = [f"`{clip(target.name)}`: {count} × {shape.element_type}"]
    if dense is None:
        lines.append("- no static byte size")
    else:
        lines.append(f"- dense: {byte_text(dense)}")
        tiled = tiled_size(shape) if has_tiles(shape) else None
        if tiled is not None:
            lines.append(f"- tiled: {byte_text(tiled)}")
    if shape.layout is not None and shape.layout.memory_space:
        lines.append(f"- memory space {shape.layout.memory_space}")
    return "\n".join(lines)
