"""The uses of lines of a template read before (`parsing/digit_templates.py`), kept by template: an instruction
line's, by where its opcode's `(` is, and a computation header's signature, by where it opens. A line of a known
template has its names at the template's places, read without a Ref each (`uses.hlo_lines_uses`)."""

from __future__ import annotations

import re

from hlo_lsp.parsing.digit_templates import digits_as_zero, remember, template_cache
from hlo_lsp.parsing.hlo_scanner.lexing import matching_paren
from hlo_lsp.parsing.line_scan import Ref, RefCollector, Role, new_tuple
from hlo_lsp.parsing.names import NAME

_SIGNATURE_PARAM = re.compile(rf"[(,][ \t]*(?:/\*[^*]*\*/)?[ \t]*%?({NAME})[ \t]*:")


class KnownUses:
    """The uses of an instruction line or a computation header of a template read before: (role, start, end) of
    each name, whose text is the line's at those places (an ASCII line: its columns are its indices). One object
    per template, shared by its lines: reading a million lines' uses builds no object per use. What a line uses
    hangs on where its operands or its signature open, which its scan tells: `opcode_start` and `opcode_length`
    (a header's `(` and -1)."""

    __slots__ = ("opcode_start", "opcode_length", "places", "in_signature")

    def __init__(self, opcode_start: int, opcode_length: int, places: tuple[tuple[Role, int, int], ...]) -> None:
        self.opcode_start, self.opcode_length, self.places = opcode_start, opcode_length, places
        self.in_signature = opcode_length < 0  # a computation header's: its signature's parameters

    def refs(self, text: str) -> tuple[Ref, ...]:
        """The line's uses as Refs."""
        return tuple([new_tuple(Ref, (role, text[start:end], start, end)) for role, start, end in self.places])


LineUses = tuple[Ref, ...] | KnownUses

# An instruction line's, by its template. What a line uses hangs on where its opcode's `(` is, which the line's
# scan tells: kept with it, and a line scanned otherwise reads its uses itself.
KNOWN_USES: dict[bytes, KnownUses] = template_cache()
# A computation header's, by its template: where its signature opens tells them as an opcode does an instruction's.
KNOWN_SIGNATURES: dict[bytes, KnownUses] = template_cache()


def learn_uses(template: bytes, text: str, data: tuple, refs: list[Ref]) -> None:
    """Keeps the uses `refs` read of an instruction line `text` of scan data `data`, by its template."""
    _learn(KNOWN_USES, template, text, KnownUses(data[2], len(data[3]), _places(refs)), refs)


def computation_header_uses(text: str, open_paren: int, refs: RefCollector) -> tuple[Ref, ...]:
    """A computation header's uses, its signature's parameters (a header of a template read before: from it)."""
    if open_paren < 0:
        return ()
    template = digits_as_zero(text) if text.isascii() else None
    known = KNOWN_SIGNATURES.get(template) if template is not None else None
    if known is not None and known.opcode_start == open_paren:
        return known.refs(text)
    _signature_uses(text, open_paren, refs)
    if template is not None:
        _learn(KNOWN_SIGNATURES, template, text, KnownUses(open_paren, -1, _places(refs.refs)), refs.refs)
    return tuple(refs.refs)


def _learn(known: dict[bytes, KnownUses], template: bytes, text: str, uses: KnownUses, refs: list[Ref]) -> None:
    if all(text[start:end] == ref.name for ref, (_, start, end) in zip(refs, uses.places, strict=True)):
        remember(known, template, uses)


def _places(refs: list[Ref]) -> tuple[tuple[Role, int, int], ...]:
    return tuple((ref.role, ref.start, ref.end) for ref in refs)


def _signature_uses(text: str, open_paren: int, refs: RefCollector) -> None:
    """Signature parameters name the computation's parameter instructions."""
    close = matching_paren(text, open_paren)
    end = close + 1 if close > 0 else len(text)
    for param in _SIGNATURE_PARAM.finditer(text, open_paren, end):
        refs.add(Role.INSTRUCTION_USE, param.group(1), param.start(1))
