"""Computations written inline (`to_apply={ x = f32[] parameter(0) ... }`, on one line or over lines):
XLA's parser reads each as a computation of its own (named `_`), with every rule of instructions and
computations. Each body is checked as a module of its own: the instruction's text with all but the body
blanked, a `_` before its `{`, so its problems land on the lines and columns of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from hlo_lsp.analysis.checks.opcodes.reader import InstructionParts
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import INLINE_KEYS
from hlo_lsp.parsing.line_scan import strip_strings
from hlo_lsp.problems import Problem
from hlo_lsp.text import Position, Range

_LINE_NUMBER = re.compile(r"\bline ([0-9]{1,9})\b")
# What a body's module says of the module around it, which it does not hold: not its problems.
_MODULE_CODES = frozenset(("empty-module", "duplicate-entry", "duplicate-computation", "unclosed-computation",
                           "undefined-computation", "undefined-stack-frame", "undefined-file-location",
                           "undefined-file-name", "undefined-function-name", "internal-error"))


def inline_bodies(read: InstructionParts) -> list[tuple[int, int]]:
    """The spans (`{` to after `}`) of the computations the instruction writes inline, those whose
    brackets pair up (else the instruction's syntax problem is theirs)."""
    return [span for _, span in _inline_spans(read)]


def inline_body(read: InstructionParts, key: str) -> tuple[int, int] | None:
    """The span of the computation the attribute `key` writes inline, or None (it names one, or is not
    there, or its brackets do not pair up)."""
    return next((span for found, span in _inline_spans(read) if found == key), None)


def _inline_spans(read: InstructionParts) -> Iterator[tuple[str, tuple[int, int]]]:
    for key, _, start, end in read.attributes:
        value = read.text[start:end]
        if key in INLINE_KEYS and value.lstrip().startswith("{") and _pairs_up(value):
            yield key, (start + len(value) - len(value.lstrip()), end)


def _pairs_up(text: str) -> bool:
    count = strip_strings(text).count if '"' in text else text.count
    return count("(") == count(")") and count("{") == count("}") and count("[") == count("]")


@dataclass(frozen=True, slots=True)
class BodyModule:
    text: str  # the instruction's text, all but the body blanked, a `_` naming it
    name: Position  # of that `_`
    brace: Position  # of the body's `{`

    def dump(self, source: str) -> ModuleDump:
        """The body as a module of its own, read from `source` (the file of the instruction)."""
        return ModuleDump(source, {FileKind.HLO_MODULE: Document(self.text, FileKind.HLO_MODULE, source)})


def body_module(text: str, body: tuple[int, int]) -> BodyModule:
    """`text` (an instruction's, its lines joined) with all but `body` blanked, a `_` naming it before its
    `{` (on the line above when the `{` starts its line). Blanks keep UTF-16 columns: two for a
    character outside the BMP."""
    start, end = body
    name_at = start - 1
    while text[name_at] == "\n":
        name_at -= 1
    before = "".join(_blanked(text, 0, name_at))
    named = before + "_" + " " * (ord(text[name_at]) > 0xFFFF) + "".join(_blanked(text, name_at + 1, start))
    module = named + text[start:end] + "".join(_blanked(text, end, len(text)))
    return BodyModule(module, _position(module, len(before)), _position(module, len(named)))


def _position(text: str, offset: int) -> Position:
    """Where `offset` is, in a text blanked before it on its line (its columns are UTF-16 columns)."""
    return Position(text.count("\n", 0, offset), offset - text.rfind("\n", 0, offset) - 1)


def _blanked(text: str, start: int, end: int) -> Iterator[str]:
    for char in text[start:end]:
        yield char if char == "\n" else "  " if ord(char) > 0xFFFF else " "


def is_body_problem(code: str) -> bool:
    return code not in _MODULE_CODES


def moved_down(problem: Problem, body: BodyModule, lines: int) -> Problem:
    """A problem of a body's module where it is in the file, `lines` further down (the lines its message
    names too); one on the computation's name, `_`, on its `{`."""
    if problem.range.start == body.name:
        problem = replace(problem, range=Range(body.brace, Position(body.brace.line, body.brace.character + 1)))
    message = _LINE_NUMBER.sub(lambda found: f"line {int(found.group(1)) + lines}", problem.message)
    related = tuple(replace(other, range=other.range.shifted(lines)) for other in problem.related)
    return replace(problem.shifted(lines), message=message, related=related)
