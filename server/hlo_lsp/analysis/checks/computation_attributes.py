"""hlo-computation-attributes: what follows a computation's closing `}`, as XLA's HLO text parser
(jaxlib 0.10.2) reads it: `execution_thread`, once, with a quoted string. Only the closing lines that
hold more than the `}` are read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hlo_lsp.analysis.checks.module_header import attributes
from hlo_lsp.analysis.checks.opcodes.findings import Finding, problems
from hlo_lsp.analysis.checks.opcodes.values import STRING
from hlo_lsp.analysis.context import CheckContext, StructureMemo
from hlo_lsp.model.hlo_module import Computation, HloModule
from hlo_lsp.parsing.hlo_scanner import item_text, without_comments
from hlo_lsp.problems import Problem

_KEY = "execution_thread"


_BY_STRUCTURE = StructureMemo("computation closing lines")


def check(context: CheckContext) -> Iterator[Problem]:
    hlo = context.hlo
    if hlo is not None:
        yield from _BY_STRUCTURE.problems(hlo, _closing_problems)


def _closing_problems(hlo: HloModule) -> Iterator[Problem]:
    """The closing lines are part of the structure: the problems are kept while it stays."""
    for computation in hlo.all_computations():
        if computation.end_line is None:
            continue
        text = closing_text(hlo, computation)
        if text.strip() != "}" and ("=" in text or "," in text):
            yield from problems(hlo, computation.end_line, text, closing_findings(text))


def closing_text(hlo: HloModule, computation: Computation) -> str:
    """The text of a computation's closing line, with the lines its attributes go on over; only its `}`
    item's where the line holds several items."""
    assert computation.end_line is not None
    text = hlo.whole_text(computation.end_line)
    scan = hlo.document.scan(computation.end_line)
    if scan.kind != "items":
        return text
    after = computation.name_range.start.character if computation.line == computation.end_line else -1
    start = next((start for start, item in scan.data if item.kind == "computation_end" and start > after), None)
    return text if start is None else item_text(text, scan, start)


def closing_findings(text: str) -> list[Finding]:
    """The findings of a closing line `}, key=value, ...` (offsets of `text`)."""
    found: list[Finding] = []
    seen: set[str] = set()
    text = without_comments(text)
    for key, key_start, start, end in attributes(text.replace("}", " ", 1)):  # the items after the `}`
        key_span = (key_start, key_start + len(key))
        if key in seen:
            found.append((*key_span, "duplicate-attribute", f"attribute {key} already exists"))
        elif key != _KEY:
            found.append((*key_span, "unknown-attribute", f'unexpected attribute "{key}" after a computation; '
                                                          f"the one allowed is {_KEY}"))
        elif not STRING.fullmatch(text[start:end]):
            found.append((start, max(end, start + 1), "attribute-value",
                          f'{_KEY}: expects a quoted string, e.g. {_KEY}="main"'))
        seen.add(key)
    for empty in _EMPTY_ITEM.finditer(text):  # `},` with nothing after it, `},, key=...`
        if empty.group(1):
            found.append((empty.start(1), empty.end(1), "syntax",
                          "expects an attribute after `,` (`execution_thread=\"...\"`)"))
    return found


_EMPTY_ITEM = re.compile(r'"(?:[^"\\]|\\.)*"?|(,)(?=\s*(?:,|$))')
