"""A text's first item when it is a name alone on its line: XLA's parser reads the text as a module when
the token after that first name is `{` (a computation, `x` / `{`), and as a single instruction otherwise
(`x` / `= f32[] abs(f32[] y)`). That token is on a line below, which a line's scan does not see: the
scan of the document's first lines is settled by this look-ahead after they are scanned.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hlo_lsp.parsing.hlo_scanner import forms
from hlo_lsp.parsing.hlo_scanner.instructions import lone_name
from hlo_lsp.parsing.hlo_scanner.lexing import blank_comments, without_comments, without_line_comment
from hlo_lsp.parsing.hlo_scanner.states import TOP, into_comment
from hlo_lsp.parsing.hlo_scanner.structure import outside_computation
from hlo_lsp.parsing.line_scan import LineScan, first_item_index

_LONE_NAME = forms.LONE_NAME
LOOK_AHEAD = 64  # lines searched for the token after the name (comments may stand between)


def first_item_looks_ahead(text: str) -> bool:
    """Whether the first item's line is a lone name (no `ROOT`): the token after it, below, says what it is."""
    lone = _lone_name(blank_comments(text)[0])
    return lone is not None and lone.group(1) is None


def first_item_rescan(lines: Sequence[str], scans: Sequence[LineScan]) -> tuple[int, LineScan] | None:
    """(line, its scan) when the text's first item is a lone name, scanned as a computation's header, and
    the token after it is `=`: the name of the text's one instruction (None otherwise, and when that token is
    not among `lines`). The lines are scanned without look-ahead first: a name read so is never rescanned."""
    first = first_item_index(scans)
    if first is None or (first and scans[first - 1].end_state != TOP):  # (after a lone `ROOT`: its instruction)
        return None
    blanked, unclosed = blank_comments(lines[first])
    lone = _lone_name(blanked)
    if lone is None or lone.group(1) is not None or scans[first].kind != "computation":
        return None
    following = without_comments("\n".join(lines[first : first + LOOK_AHEAD]))[lone.end(2) :]
    if following.lstrip(": \t\r\n")[:1] != "=":
        return None
    scan = outside_computation(blanked, lone_name(blanked, lone, TOP), lone)
    return first, into_comment(scan) if unclosed else scan


def _lone_name(blanked: str) -> re.Match[str] | None:
    return _LONE_NAME.match(without_line_comment(blanked))
