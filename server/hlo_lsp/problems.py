"""Problems: what the engine reports about a dump, in editor terms (file, range, severity)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum

from hlo_lsp.text import Range


class Severity(IntEnum):
    # Same order as LSP's DiagnosticSeverity, so the server can pass it through.
    ERROR = 1
    WARNING = 2
    INFO = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Related:
    """Another place a problem involves (the other value of an overlap, say)."""

    source: str
    range: Range
    message: str


@dataclass(frozen=True, slots=True)
class Problem:
    source: str  # the document it is reported on: a path or URI
    range: Range
    severity: Severity
    code: str
    message: str
    related: tuple[Related, ...] = ()

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.source, self.range.start.line, self.range.start.character, self.code)

    def shifted(self, lines: int) -> Problem:
        """The same problem `lines` lines further down (lines inserted above it)."""
        return replace(self, range=self.range.shifted(lines)) if lines else self
