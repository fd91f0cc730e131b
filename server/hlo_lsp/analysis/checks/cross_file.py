"""Names in the buffer-assignment files that the paired HLO module does not define.

When most names are missing the files are from different compilations (XLA
numbers modules per process), so one warning says so instead of an error per name.
"""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.ba_scanner import mentioned_instruction
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Range

_MENTIONS = {Role.INSTRUCTION_MENTION: Role.INSTRUCTION_DEF, Role.COMPUTATION_MENTION: Role.COMPUTATION_DEF}
_MISMATCH_SHARE = 0.5


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is None:
        return
    defined = hlo.defined_names()
    for document in context.module.buffer_assignment_documents:
        yield from _check_document(document, defined, hlo.document.source)


def _check_document(document: Document, defined: dict[Role, frozenset[str]], hlo_source: str) -> Iterator[Problem]:
    unresolved = []
    total = 0
    instructions = defined.get(Role.INSTRUCTION_DEF, frozenset())
    mentions = document.scanner.uses
    for first, chunk in document.chunks_with_starts():
        for local, (text, scan) in enumerate(zip(chunk.lines, chunk.scans)):
            # Most lines name one instruction, read by the scanner already: only the lines that
            # name something else, or something undefined, are read for their mentions.
            if mentioned_instruction(scan) in instructions:
                total += 1
                continue
            for ref in mentions(text, scan):
                role = _MENTIONS.get(ref.role)
                if role is None:
                    continue
                total += 1
                if ref.name not in defined.get(role, ()):
                    unresolved.append((first + local, ref))
    if not unresolved:
        return
    if len(unresolved) > _MISMATCH_SHARE * total and len(unresolved) > 5:
        line, ref = unresolved[0]
        yield Problem(document.source, Range.on_line(line, ref.start, ref.end), Severity.WARNING, "module-mismatch",
                      f"{len(unresolved)} of {total} names here are not in {hlo_source}: "
                      "the files look like they come from different compilations")
        return
    for line, ref in unresolved:
        what = "instruction" if ref.role is Role.INSTRUCTION_MENTION else "computation"
        yield Problem(document.source, Range.on_line(line, ref.start, ref.end), Severity.ERROR,
                      f"unknown-{what}", f"{what} {ref.name} is not in the HLO module {hlo_source}")
