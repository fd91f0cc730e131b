"""A computation's signature against its root: XLA's parser rejects a computation whose printed result
shape (`(p: f32[4]) -> f32[4]`) is not compatible with its root instruction's shape (the ROOT, else the
last instruction). The signature's parameters are not compared (XLA reads them and lets them be).

Read on every run (a computation's header and its root may lie in two chunks), one header and one root
line per computation, their texts compared before any shape is parsed: real dumps print signatures
without layouts and roots with them, so the common case is the same text once layouts are blanked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hlo_lsp.analysis.checks.opcodes.findings import problems
from hlo_lsp.analysis.checks.opcodes.inference import inferred_text
from hlo_lsp.analysis.checks.opcodes.other_lines import shape_text
from hlo_lsp.analysis.checks.opcodes.reader import parsed_shape, read_instruction
from hlo_lsp.analysis.checks.opcodes.shape_rules import SIZED_TOKEN, compatible
from hlo_lsp.analysis.checks.opcodes.text_keys import CACHE_LIMIT
from hlo_lsp.analysis.context import StructureMemo
from hlo_lsp.model.hlo_module import Computation, HloModule
from hlo_lsp.parsing.hlo_scanner import blank_comments
from hlo_lsp.parsing.line_scan import as_one_line
from hlo_lsp.parsing.names import NAME
from hlo_lsp.problems import Problem

_LAYOUT = re.compile(r"\{[^{}]*\}|\s+")
# A header's name, then its signature's `(`: where the scanner, which reads a line, found none (`ENTRY e // c`
# above `(p: f32[4]) -> f32[4] {`), in the header read as one line.
_SIGNATURE_OPEN = re.compile(r"[ \t]*(?:ENTRY[ \t]+)?%?" + NAME + r":?[ \t]*\(")
_AGREE: dict[tuple[str, str], bool] = {}  # (signature result, root shape) -> compatible


_BY_STRUCTURE = StructureMemo("signatures")


def signature_problems(hlo: HloModule) -> list[Problem]:
    """Read on every run, kept while the structure stays: a computation's header and its root's shape are
    part of it."""
    return _BY_STRUCTURE.problems(hlo, _signature_problems)


def _signature_problems(hlo: HloModule) -> Iterator[Problem]:
    for computation in hlo.all_computations():
        if computation.instruction_lines and len(computation.root_lines) < 2:  # else hlo-structure's problems
            yield from _computation_problems(hlo, computation)


def _computation_problems(hlo: HloModule, computation: Computation) -> list[Problem]:
    document = hlo.document
    whole = header = document.line(computation.line)
    if isinstance(document.scan(computation.line).end_state, tuple) or "/*" in whole or "*/" in whole:
        whole = hlo.whole_text(computation.line)  # a header over lines, or comments between its tokens (one
        header = as_one_line(blank_comments(whole)[0])  # from above it blanked already)
    if "token[" in header or "opaque[" in header:
        sized = _sized_tokens(hlo, computation.line, header, whole)
        if sized:
            return sized
    result = _result_span(header, document.scan(computation.line).data)
    if result is None:
        return []
    root = computation.root_lines[0] if computation.root_lines else computation.instruction_lines[-1]
    written, found = header[result[0] : result[1]], shape_text(hlo, root)
    if found and _agree(written, found):
        return []
    if not found or parsed_shape(found) is None:  # none written, or written over lines: as XLA reads it
        found = inferred_text(hlo, root)
    if not found or _agree(written, found) or not _plain_body(hlo, computation, root):
        return []
    message = (f"Shape of computation {computation.name}, {written}, is not compatible with that of its root "
               f"instruction {hlo.instruction_scan(root).data[0]}, {found}")
    return problems(hlo, computation.line, whole, [(*result, "result-shape", message)])


def _sized_tokens(hlo: HloModule, line: int, header: str, whole: str) -> list[Problem]:
    """`token[2]` in a header (`header`: its `whole` text over lines, comments blanked)."""
    found = SIZED_TOKEN.search(header)
    if found is None:
        return []
    end = header.find("]", found.end())
    message = "token and opaque shapes have no dimensions: token[] (XLA's parser crashes)"
    return problems(hlo, line, whole, [(found.start(), end + 1 if end > 0 else found.end(), "result-shape", message)])


def _result_span(header: str, data: tuple[object, ...]) -> tuple[int, int] | None:
    """Where the result shape of the signature `(...) -> shape {` is, or None without a signature."""
    open_paren = data[2] if len(data) > 2 else -1
    if not isinstance(open_paren, int):
        return None
    if open_paren < 0:
        head = _SIGNATURE_OPEN.match(header)
        if head is None:
            return None
        open_paren = head.end() - 1
    end = header.find("//", open_paren)
    end = len(header) if end < 0 else end
    arrow = header.rfind("->", open_paren, end)
    brace = header.rfind("{", arrow, end)
    if arrow < 0 or brace < 0 or header[brace + 1 : end].strip():
        return None
    start, stop = arrow + 2, brace
    while start < stop and header[start].isspace():
        start += 1
    while stop > start and header[stop - 1].isspace():
        stop -= 1
    return (start, stop) if start < stop else None


def _agree(written: str, found: str) -> bool:
    key = (written, found)
    known = _AGREE.get(key)
    if known is None:
        if _LAYOUT.sub("", written) == _LAYOUT.sub("", found):
            known = True
        else:
            signature, root = parsed_shape(written), parsed_shape(found)
            known = signature is None or root is None or compatible(signature, root)
        if len(_AGREE) > CACHE_LIMIT:
            _AGREE.clear()
        _AGREE[key] = known
    return known


def _plain_body(hlo: HloModule, computation: Computation, root: int) -> bool:
    """Whether the computation's lines read for certain as the scanner read them: no problem on any
    line of it, and a root that is one whole instruction (not one of two on a line)."""
    document = hlo.document
    end = computation.end_line if computation.end_line is not None else document.line_count
    if any(document.scan(line).problem is not None for line in range(computation.line, end)):
        return False
    scan = hlo.instruction_scan(root)
    if len(scan.data) == 5 and not scan.data[3]:
        return isinstance(scan.end_state, tuple)  # its opcode on a continuation line
    return read_instruction(hlo.instruction_text(root), scan.data) is not None
