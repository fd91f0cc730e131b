"""The line scanner for each kind of dump file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hlo_lsp.parsing.ba_mentions import ba_line_mentions
from hlo_lsp.parsing.ba_scanner import scan_ba_line
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import comment_end_blanked, hlo_line_uses, scan_hlo_line
from hlo_lsp.parsing.line_scan import LineScan, Ref, State, plain_scan


@dataclass(frozen=True)
class Scanner:
    initial_state: State
    scan: Callable[[State, str], LineScan]
    uses: Callable[[str, LineScan], tuple[Ref, ...]]
    # A line that ends a block comment left open above, with what the comment holds on it blanked (its uses
    # read then): None for files without block comments.
    comment_end_blanked: Callable[[State, str], str | None] | None = None


HLO = Scanner("top", scan_hlo_line, hlo_line_uses, comment_end_blanked)
BUFFER_ASSIGNMENT = Scanner("top", scan_ba_line, ba_line_mentions)


def _nothing(_text: str, _scan: LineScan) -> tuple[Ref, ...]:
    return ()


def _opaque(state: State, _text: str) -> LineScan:
    return plain_scan("text", state)


# A file that is no dump (unknown, or a side file) keeps its lines (so edits and positions work) and indexes nothing.
OPAQUE = Scanner("top", _opaque, _nothing)


def scanner_for(kind: FileKind) -> Scanner:
    if kind is FileKind.HLO_MODULE:
        return HLO
    if not kind.is_dump:
        return OPAQUE
    return BUFFER_ASSIGNMENT
