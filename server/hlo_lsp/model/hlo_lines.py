"""An HLO document's text read across lines: an item continued below its line, a comment opened above it.

Also the lone instruction: the line of a text that holds one instruction and nothing else.
"""

from __future__ import annotations

from hlo_lsp.model.document import Document
from hlo_lsp.parsing.hlo_scanner import comment_end_blanked, continued_end


def comment_above_blanked(document: Document, line: int, text: str) -> str:
    """`text`, that of `line`, with a block comment opened above it that ends on it blanked (none is known
    where the document does not hold the line above: a glance's runs)."""
    if not line or "*/" not in text:
        return text
    try:
        above = document.scan(line - 1).end_state
    except IndexError:
        return text
    return comment_end_blanked(above, text) or text


def text_over_lines(document: Document, line: int) -> str:
    """The text of `line` with the lines that go on with its item below it, as far as it goes on (a line
    may end it and start others: `p), calls=w ROOT d = ...`); a block comment it ends, opened above, blanked."""
    text = comment_above_blanked(document, line, document.line(line).rstrip("\r"))
    following = line + 1
    while following < document.line_count:
        part = document.line(following).rstrip("\r")
        end = continued_end(document.scan(following), part)
        if end is None:
            break
        text += "\n" + part[:end]
        if end < len(part):
            break
        following += 1
    return text


_AROUND_A_LONE_INSTRUCTION = frozenset(("blank", "comment", "continuation"))


def lone_instruction_line(document: Document) -> int | None:
    """The line of the one instruction of a text that holds nothing else (no `HloModule`, no computation):
    XLA's parser reads it as a module of that instruction (`_`, a parameter made for each operand written
    with its shape)."""
    found = None
    for line, scan in document.scans():
        if scan.kind == "instruction" and found is None and scan.problem is not None and \
                scan.problem.code == "instruction-outside-computation":
            found = line
        elif scan.kind not in _AROUND_A_LONE_INSTRUCTION:
            return None
    return found
