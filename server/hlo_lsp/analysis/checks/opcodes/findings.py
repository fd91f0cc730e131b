"""What the rules of the hlo-opcodes check report: findings at offsets of an instruction's text,
a line's judgement (its findings, the work it asks of other lines, whether its digits matter), and
findings turned into Problems at lines and UTF-16 columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range, utf16_column

Finding = tuple[int, int, str, str]  # start, end (offsets in the instruction's text), code, message


@dataclass(slots=True)
class Judgement:
    """What the rules say of one instruction: its findings; the actions it asks for on every run
    (`async`, `channel`, `parameter`, `reshape`, `broadcast`, `cross`: rules that read other lines);
    and whether a line differing in its digits only may be judged otherwise."""

    findings: list[Finding] = field(default_factory=list)
    actions: set[str] = field(default_factory=set)
    digit_sensitive: bool = False

    def add(self, span: tuple[int, int], code: str, message: str) -> None:
        self.findings.append((span[0], span[1], code, message))


def problems(hlo: HloModule, line: int, text: str, findings: list[Finding]) -> list[Problem]:
    """Findings at offsets of an instruction's text (its lines joined by newlines) as problems."""
    return [Problem(hlo.document.source, Range(_position(line, text, start), _position(line, text, max(start, end))),
                    Severity.ERROR, code, message) for start, end, code, message in findings]


def _position(line: int, text: str, offset: int) -> Position:
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", line_start)
    own = text[line_start : line_end if line_end >= 0 else len(text)]
    column = offset - line_start
    return Position(line + text.count("\n", 0, line_start), column if own.isascii() else utf16_column(own, column))
