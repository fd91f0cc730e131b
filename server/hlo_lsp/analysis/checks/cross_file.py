"""Names in the buffer-assignment files that the paired HLO module does not define.

When most names are missing the files are from different compilations (XLA
numbers modules per process), so one warning says so instead of an error per name.
"""

from __future__ import annotations

from collections.abc import Iterator, Set

from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.model.document import Document
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.ba_mentions import mentioned_instruction
from hlo_lsp.parsing.line_scan import LineScan, Role
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Range

_MENTIONS = {Role.INSTRUCTION_MENTION: Role.INSTRUCTION_DEF, Role.COMPUTATION_MENTION: Role.COMPUTATION_DEF}
_DEFINITION_OF_USE = {Role.INSTRUCTION_USE: Role.INSTRUCTION_DEF, Role.COMPUTATION_USE: Role.COMPUTATION_DEF}
_MISMATCH_SHARE = 0.5


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is None:
        return
    for document in context.module.buffer_assignment_documents:
        yield from _check_document(document, hlo)


def _check_document(document: Document, hlo: HloModule) -> Iterator[Problem]:
    unresolved = []
    total = 0
    defined = hlo.defined_names()
    instructions = defined.get(Role.INSTRUCTION_DEF, frozenset())
    mentions = document.scanner.uses
    for first, chunk in document.chunks_with_starts():
        let_questions_first()
        for local, (text, scan) in enumerate(zip(chunk.lines, chunk.scans)):
            # Most lines name one instruction, read by the scanner already: only the lines that
            # name something else, or something undefined, are read for their mentions.
            if mentioned_instruction(scan) in instructions:
                total += 1
                continue
            if scan.kind == "from_instruction":
                repeated = _defined_hlo_mentions(hlo, defined, text, scan)
                if repeated is not None:
                    total += repeated
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
                      f"{len(unresolved)} of {total} names here are not in {hlo.document.source}: "
                      "the files look like they come from different compilations")
        return
    for line, ref in unresolved:
        what = "instruction" if ref.role is Role.INSTRUCTION_MENTION else "computation"
        yield Problem(document.source, Range.on_line(line, ref.start, ref.end), Severity.ERROR,
                      f"unknown-{what}", f"{what} {ref.name} is not in the HLO module {hlo.document.source}")


def _defined_hlo_mentions(hlo: HloModule, defined: dict[Role, Set[str]], text: str, scan: LineScan) -> int | None:
    """How many names a `from instruction:` line mentions, when its instruction text is the text of
    that instruction's line in the HLO module and every name that line uses is defined (as it is in
    a consistent dump): the uses the HLO check read already stand for the mentions. None otherwise."""
    line = hlo.line_of(scan.data[1]) if len(scan.data) > 1 else None
    if line is None or not hlo.document.line(line).rstrip("\r").endswith(text[scan.data[0]:].rstrip("\r")):
        return None
    count = 1  # the instruction itself
    for ref in hlo.document.uses_on_line(line):
        role = _DEFINITION_OF_USE.get(ref.role)
        if role is None:
            continue
        if ref.name not in defined.get(role, ()):
            return None
        count += 1
    return count
