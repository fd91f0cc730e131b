"""What the rules of the hlo-opcodes check report: findings at offsets of an instruction's text,
a line's judgement (its findings, the work it asks of other lines, whether its digits matter), and
findings turned into Problems at lines and UTF-16 columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range, Utf16Columns

Finding = tuple[int, int, str, str]  # start, end (offsets in the instruction's text), code, message


@dataclass(slots=True)
class Judgement:
    """What the rules say of one instruction: its findings; the actions it asks for on every run
    (`async`, `channel`, `parameter`, `reshape`, `broadcast`, `cross`, `shapeless`: rules that read
    other lines); and whether a line differing in its digits only may be judged otherwise."""

    findings: list[Finding] = field(default_factory=list)
    actions: set[str] = field(default_factory=set)
    digit_sensitive: bool = False

    def add(self, span: tuple[int, int], code: str, message: str) -> None:
        self.findings.append((span[0], span[1], code, message))


def problems(hlo: HloModule, line: int, text: str, findings: list[Finding]) -> list[Problem]:
    """Findings at offsets of an instruction's text (its lines joined by newlines) as problems."""
    if not findings:
        return []
    at = _Positions(line, text)
    return [Problem(hlo.document.source, Range(at.position(start), at.position(max(start, end))), Severity.ERROR,
                    code, message) for start, end, code, message in findings]


class _Positions:
    """Positions of offsets into an instruction's text, each of its lines' UTF-16 columns read once (a
    200 KB line of non-ASCII text with thousands of findings would otherwise be scanned per finding)."""

    __slots__ = ("_line", "_text", "_one_line", "_columns")

    def __init__(self, line: int, text: str) -> None:
        self._line, self._text, self._one_line = line, text, "\n" not in text
        self._columns: dict[int, Utf16Columns] = {}

    def position(self, offset: int) -> Position:
        text = self._text
        line_start = 0 if self._one_line else text.rfind("\n", 0, offset) + 1
        columns = self._columns.get(line_start)
        if columns is None:
            line_end = text.find("\n", line_start)
            columns = self._columns[line_start] = Utf16Columns(text[line_start : line_end if line_end >= 0 else None])
        lines_before = 0 if self._one_line else text.count("\n", 0, line_start)
        return Position(self._line + lines_before, columns.column(offset - line_start))
