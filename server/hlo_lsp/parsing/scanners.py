"""The line scanner for each kind of dump file."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hlo_lsp.parsing.ba_mentions import ba_line_mentions
from hlo_lsp.parsing.ba_scanner import scan_ba_line
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import (
    FIRST_ITEM_LOOK_AHEAD,
    LineUses,
    comment_end_blanked,
    first_item_looks_ahead,
    first_item_rescan,
    hlo_line_uses,
    hlo_lines_uses,
    scan_hlo_line,
    string_start_blanked,
)
from hlo_lsp.parsing.line_scan import LineScan, Ref, State, plain_scan


@dataclass(frozen=True)
class Scanner:
    initial_state: State
    scan: Callable[[State, str], LineScan]
    uses: Callable[[str, LineScan], tuple[Ref, ...]]
    # A line that ends a block comment left open above, with what the comment holds on it blanked (its uses
    # read then): None for files without block comments.
    comment_end_blanked: Callable[[State, str], str | None] | None = None
    # A line that starts inside a string left open above, with the string's end blanked (its uses read then).
    string_start_blanked: Callable[[State, str], str | None] | None = None
    # The one scan that looks ahead, that of the text's first item (None: no scan of these files does).
    first_item: FirstItem | None = None
    # The uses of consecutive lines, as `uses` reads each, a line of a template read before given as the template's
    # places (None: read line by line with `uses`).
    lines_uses: Callable[[list[str], list[LineScan]], list[LineUses]] | None = None


@dataclass(frozen=True)
class FirstItem:
    """How a text's first item is read when the lines below it decide how (see Document's scan)."""

    # Given the text's first lines and their scans: (line, its scan) where the first item reads otherwise.
    rescan: Callable[[Sequence[str], Sequence[LineScan]], tuple[int, LineScan] | None]
    # Whether a first item's line is one the lines below it decide, and how many of them the look-ahead reads.
    looks_ahead: Callable[[str], bool]
    lines: int


HLO = Scanner("top", scan_hlo_line, hlo_line_uses, comment_end_blanked, string_start_blanked,
              FirstItem(first_item_rescan, first_item_looks_ahead, FIRST_ITEM_LOOK_AHEAD), hlo_lines_uses)
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
