"""How a document's lines are scanned into chunks: a whole text in steps, and after an edit the lines it touched.

A line's scan depends only on its text and the scanner state entering it, so an edit rescans the
lines it replaced and then the following lines only until the state entering one equals the state
the old scan had there: every line after that keeps its old scan. One scan also looks ahead: that of a
text's first item, which the lines below it may decide (`Scanner.first_item`); it is settled after the
first lines are scanned, and after each edit that may change how it reads.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable
from typing import NamedTuple

from hlo_lsp.model.chunk import Chunk
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.line_scan import LineScan, State, first_item_index
from hlo_lsp.parsing.scanners import Scanner
from hlo_lsp.text import Position, Range, python_index


def split_in_steps(text: str, step: int) -> list[str]:
    """`text.split("\n")`, `step` characters at a time: splitting 40 MB at once holds the interpreter for a
    fifth of a second, which a question asked meanwhile (a glance's hover) would wait for."""
    lines: list[str] = []
    start = 0
    while True:
        let_questions_first()
        cut = text.find("\n", start + step)
        if cut < 0:
            lines += text[start:].split("\n")
            return lines
        lines += text[start:cut].split("\n")
        start = cut + 1


def scan_in_steps(scanner: Scanner, lines: list[str], step: int) -> list[LineScan]:
    """The scans of a whole file, stepping aside for questions every `step` lines."""
    scans: list[LineScan] = []
    state = scanner.initial_state
    for start in range(0, len(lines), step):
        let_questions_first()
        scans += scan_lines(scanner, state, lines[start : start + step])
        state = scans[-1].end_state
    return scans


def scan_lines(scanner: Scanner, state: State, lines: list[str]) -> list[LineScan]:
    """The scans of consecutive lines, the first entered in `state`."""
    scan = scanner.scan
    scans = []
    for text in lines:
        result = scan(state, text)
        scans.append(result)
        state = result.end_state
    return scans


def settle_first_item(scanner: Scanner, lines: list[str], scans: list[LineScan], below: Iterable[str] = ()) -> bool:
    """Scans the text's first item again where the lines below it say it reads otherwise, and the lines after
    it until the state agrees with their scans (`lines`, `scans`: the text's first lines, changed in place;
    `below`: the lines that follow them, which the look-ahead may read). Whether it changed anything."""
    look_ahead = scanner.first_item
    if look_ahead is None:
        return False
    found = look_ahead.rescan([*lines, *itertools.islice(below, look_ahead.lines)], scans)
    if found is None:
        return False
    line, scan = found
    old_lines, old_scans, old_entering = lines[line + 1 :], scans[line + 1 :], scans[line].end_state
    del lines[line + 1 :], scans[line:]
    scans.append(scan)
    _rescan_until_agreement(scanner, lines, scans, old_lines, old_scans, old_entering)
    return True


def make_chunks(lines: list[str], scans: list[LineScan], state: State, scanner: Scanner,
                chunk_lines: int) -> list[Chunk]:
    """Consecutive lines and their scans, the first entered in `state`, cut into chunks of `chunk_lines`."""
    chunks = []
    for offset in range(0, max(len(lines), 1), chunk_lines):
        piece_scans = scans[offset : offset + chunk_lines]
        chunks.append(Chunk(lines[offset : offset + chunk_lines], piece_scans, state, scanner))
        if piece_scans:
            state = piece_scans[-1].end_state
    return chunks


def clamp_edit(edit: Range, line_count: int) -> tuple[Position, Position]:
    """The edit's start and end, in order, inside a text of `line_count` lines."""
    start, end = sorted((edit.start, edit.end))
    last = line_count - 1

    def clamp(position: Position) -> Position:
        # Like editors do: before the text means its start, after it means its end.
        if position.line < 0:
            return Position(0, 0)
        if position.line > last:
            return Position(last, 1 << 30)
        return Position(position.line, max(position.character, 0))

    return clamp(start), clamp(end)


class EditedRegion(NamedTuple):
    """The chunks `first:following` of a document, as the lines and scans that replace them after an edit."""

    first: int
    following: int
    lines: list[str]
    scans: list[LineScan]


def rescan_edited(scanner: Scanner, chunks: list[Chunk], starts: list[int], start: Position, end: Position,
                  new_text: str) -> EditedRegion:
    """The lines of the chunks from `start` to `end` (clamped UTF-16 positions) with that range replaced by
    `new_text`, rescanned, and then the following lines rescanned until the state agrees with the old scan.
    An edit near the text's first item rescans from the text's start, that item's line always (its scan
    looked ahead: it may not be kept for the state entering it), and settles how it reads."""
    first_item = _first_item_line(scanner, chunks)
    settles = first_item is not None and _may_change_first_item(scanner, chunks, starts, first_item, start.line)
    first = 0 if settles else bisect.bisect_right(starts, start.line) - 1
    last = bisect.bisect_right(starts, max(end.line, first_item or 0) if settles else end.line) - 1
    base = starts[first]
    lines = [line for chunk in chunks[first : last + 1] for line in chunk.lines]
    scans = [scan for chunk in chunks[first : last + 1] for scan in chunk.scans]
    head, tail = start.line - base, end.line - base
    cut_from = python_index(lines[head], start.character)
    cut_to = python_index(lines[tail], end.character)
    replacement = (lines[head][:cut_from] + new_text + lines[tail][cut_to:]).split("\n")
    restart = min(head, first_item) if settles and first_item is not None else head
    entering = scans[restart - 1].end_state if restart else chunks[first].start_state
    new_lines = lines[:head] + replacement
    new_scans = scans[:restart] + scan_lines(scanner, entering, new_lines[restart:])
    rescan_through = (first_item or 0) - tail - 1 if settles else -1
    agreed = _rescan_until_agreement(
        scanner, new_lines, new_scans, lines[tail + 1 :], scans[tail + 1 :], scans[tail].end_state, rescan_through
    )
    following = last + 1 if agreed else _rescan_following(scanner, chunks, last + 1, new_lines, new_scans)
    if settles:
        following = _through_first_item(chunks, following, new_lines, new_scans)
        below = (line for chunk in chunks[following:] for line in chunk.lines)
        if settle_first_item(scanner, new_lines, new_scans, below):
            following = _rescan_following(scanner, chunks, following, new_lines, new_scans)
    return EditedRegion(first, following, new_lines, new_scans)


def _through_first_item(chunks: list[Chunk], following: int, new_lines: list[str], new_scans: list[LineScan]) -> int:
    """Appends the chunks from `following` on, as they are, until the lines hold the text's first item (an edit
    may have removed the one before it): the index of the first chunk not appended."""
    held = first_item_index(new_scans) is not None
    while not held and following < len(chunks):
        chunk = chunks[following]
        new_lines += chunk.lines
        new_scans += chunk.scans
        held = first_item_index(chunk.scans) is not None
        following += 1
    return following


def _first_item_line(scanner: Scanner, chunks: list[Chunk]) -> int | None:
    """The line of the text's first item when the scanner may read it by looking ahead (the line count when
    the text has none yet; None when the scanner never looks ahead)."""
    if scanner.first_item is None:
        return None
    line = first_item_index(scan for chunk in chunks for scan in chunk.scans)
    return line if line is not None else sum(len(chunk.lines) for chunk in chunks)


def _may_change_first_item(scanner: Scanner, chunks: list[Chunk], starts: list[int], first_item: int,
                           edited: int) -> bool:
    """Whether an edit from line `edited` on may change how the text's first item (on line `first_item`) reads:
    an edit of it or of the lines above it, or of those below it its look-ahead reads."""
    if edited <= first_item:
        return True
    look_ahead = scanner.first_item
    if look_ahead is None or edited > first_item + look_ahead.lines:
        return False
    chunk = bisect.bisect_right(starts, first_item) - 1
    return look_ahead.looks_ahead(chunks[chunk].lines[first_item - starts[chunk]])


def _rescan_following(scanner: Scanner, chunks: list[Chunk], following: int, new_lines: list[str],
                      new_scans: list[LineScan]) -> int:
    """Appends the chunks from `following` on, rescanning them, until the state agrees with the old scan:
    the index of the first chunk kept."""
    while following < len(chunks):
        chunk = chunks[following]
        if new_scans[-1].end_state == chunk.start_state:
            break
        agreed = _rescan_until_agreement(scanner, new_lines, new_scans, chunk.lines, chunk.scans, chunk.start_state)
        following += 1
        if agreed:
            break
    return following


def _rescan_until_agreement(
    scanner: Scanner,
    new_lines: list[str],
    new_scans: list[LineScan],
    old_lines: list[str],
    old_scans: list[LineScan],
    old_entering: State,
    rescan_through: int = -1,
) -> bool:
    """Appends `old_lines`, rescanning them until the state agrees with the old scan (and at least through
    `old_lines[rescan_through]`).

    Returns True when it agreed (the old scans of the remaining lines were kept),
    False when every line had to be rescanned and the next chunk must be checked.
    """
    state = new_scans[-1].end_state
    for index, text in enumerate(old_lines):
        entering_before = old_scans[index - 1].end_state if index else old_entering
        if state == entering_before and index > rescan_through:
            new_lines.extend(old_lines[index:])
            new_scans.extend(old_scans[index:])
            return True
        scan = scanner.scan(state, text)
        new_lines.append(text)
        new_scans.append(scan)
        state = scan.end_state
    return False
