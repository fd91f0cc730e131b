"""An instruction's text cut into the parts XLA's HLO text parser reads (opcode, result shape,
operand slots, `key=value` attributes) by a scan of its brackets, strings and comments, without
the grammar: the rules of the hlo-opcodes check read instructions through it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hlo_lsp.parsing.hlo_scanner import RAW_KEY, raw_braces_blanked, without_comments
from hlo_lsp.parsing.hlo_syntax import parse_shape
from hlo_lsp.parsing.line_scan import as_spaces
from hlo_lsp.parsing.names import NAME
from hlo_lsp.parsing.syntax import ParseError, Shape

Span = tuple[int, int]

# (a block comment left open runs to the text's end: its `*/` is on a line below the instruction's)
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|/\*(?:.*?\*/|.*)|//[^\n]*|[()\[\]{},]', re.S)
_KEY = re.compile(r"\s*(" + NAME + r")=")
_INSTRUCTION_HEAD = re.compile(r"\s(?:ROOT\s+)?%?" + NAME + r"\s*=")
ARRAY_SHAPE = re.compile(r"\s*([a-z][a-z0-9]*)\[([^\]]*)\]")


@dataclass(slots=True)
class InstructionParts:
    """An instruction's text as XLA's parser sees its parts (offsets into `text`, where comments
    are blanked)."""

    text: str
    opcode: str
    opcode_span: Span
    shape: str
    operands_span: Span  # from `(` to after `)`
    operands: list[Span]  # the non-empty operand slots
    attributes: list[tuple[str, int, int, int]]  # key, key start, value start, value end

    def item(self, span: Span) -> str:
        return self.text[span[0] : span[1]]

    def attribute(self, key: str) -> str | None:
        return next((self.text[v0:v1] for name, _, v0, v1 in self.attributes if name == key), None)

    def value_span(self, key: str) -> Span:
        """Where the value of the attribute `key`, which the instruction has, is."""
        return next((v0, v1) for name, _, v0, v1 in self.attributes if name == key)


def read_instruction(text: str, data: tuple[object, ...]) -> InstructionParts | None:
    """The parts of the instruction `text` the scanner found (data: name, shape start, opcode start,
    opcode, is_root), or None where its brackets do not close (a syntax problem)."""
    _, shape_start, opcode_start, opcode, _ = data
    assert isinstance(shape_start, int) and isinstance(opcode_start, int) and isinstance(opcode, str)
    open_paren = opcode_start + len(opcode)
    if not text.startswith("(", open_paren):
        return None
    if RAW_KEY in text:  # what backend_config's braces hold is raw text (a `//` in it is no comment): blanked
        text = raw_braces_blanked(text)
    marks = _marks(text, open_paren)
    if marks is None:
        return None
    close, slots, commas, clean = marks
    operands = [span for span in _spans(clean, [open_paren, *slots, close]) if span[0] < span[1]]
    segments = _spans(clean, [close, *commas, len(text)])
    if segments[0][0] < segments[0][1]:
        return None  # text after the operands that is no attribute: the grammar's problem
    attributes = []
    for start, end in segments[1:]:
        key = _KEY.match(clean, start, end)
        if key is None or _INSTRUCTION_HEAD.search(_flat(clean[key.end() : end])):
            return None  # no attribute, or a second instruction on the line: the grammar's problem
        value = _stripped(clean, key.end(), end)
        attributes.append((key.group(1), key.start(1), value[0], value[1]))
    shape = text[shape_start:opcode_start]
    if text.find("/", shape_start, opcode_start) >= 0:  # `p = /* c */ parameter(0)`: comments blanked, then cut
        shape = without_comments(text[:opcode_start])[shape_start:]
    shape = shape.strip().replace("\r", " ").replace("\n", " ")  # (over lines: `s32[]{/* a` / ` b */:S(2)}`)
    return InstructionParts(clean, opcode, (opcode_start, open_paren), shape,
                            (open_paren, close + 1), operands, attributes)


def parsed_shape(text: str) -> Shape | None:
    """The shape written `text`, or None where there is none or the grammar cannot read it."""
    if not text:
        return None
    parsed = parse_shape(text)
    return None if isinstance(parsed, ParseError) else parsed


def _flat(value: str) -> str:
    """`value` with its bracketed groups and strings blanked (one pass, however deep they nest)."""
    parts, depth, kept = [], 0, 0
    for match in _STRUCTURE.finditer(value):
        mark = match.group()[0]
        if depth == 0:
            parts.append(value[kept : match.start()])
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth = max(depth - 1, 0)
        kept = match.end()
    parts.append(value[kept:] if depth == 0 else "")
    return " ".join(parts)


def _marks(text: str, open_paren: int) -> tuple[int, list[int], list[int], str] | None:
    """(the matching `)`, the commas between operands, those between attributes, the text with
    comments blanked)."""
    depth, close, slots, commas, comments = 0, -1, [], [], []
    for match in _STRUCTURE.finditer(text, open_paren):
        mark = match.group()[0]
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and close < 0:
                close = match.start()
        elif mark == ",":
            if close < 0 and depth == 1:
                slots.append(match.start())
            elif close >= 0 and depth == 0:
                commas.append(match.start())
        elif mark == "/":
            comments.append(match.span())
    if close < 0 or depth != 0:
        return None
    return close, slots, commas, _blanked(text, comments)


def _blanked(text: str, spans: list[Span]) -> str:
    clean, kept = [], 0
    for start, end in spans:
        clean += [text[kept:start], as_spaces(text[start:end])]  # (a body written inline keeps its lines)
        kept = end
    return "".join(clean) + text[kept:]


def _spans(text: str, bounds: list[int]) -> list[Span]:
    return [_stripped(text, bounds[i] + 1, bounds[i + 1]) for i in range(len(bounds) - 1)]


def _stripped(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
