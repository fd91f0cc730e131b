"""How a document's lines are scanned into chunks: a whole text in steps, and after an edit the lines it touched.

A line's scan depends only on its text and the scanner state entering it, so an edit rescans the
lines it replaced and then the following lines only until the state entering one equals the state
the old scan had there: every line after that keeps its old scan.
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from hlo_lsp.model.chunk import Chunk
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.line_scan import LineScan, State
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
    `new_text`, rescanned, and then the following lines rescanned until the state agrees with the old scan."""
    first = bisect.bisect_right(starts, start.line) - 1
    last = bisect.bisect_right(starts, end.line) - 1
    base = starts[first]
    lines = [line for chunk in chunks[first : last + 1] for line in chunk.lines]
    scans = [scan for chunk in chunks[first : last + 1] for scan in chunk.scans]
    head, tail = start.line - base, end.line - base
    cut_from = python_index(lines[head], start.character)
    cut_to = python_index(lines[tail], end.character)
    replacement = (lines[head][:cut_from] + new_text + lines[tail][cut_to:]).split("\n")
    entering = scans[head - 1].end_state if head else chunks[first].start_state
    new_lines = lines[:head] + replacement
    new_scans = scans[:head] + scan_lines(scanner, entering, replacement)
    agreed = _rescan_until_agreement(
        scanner, new_lines, new_scans, lines[tail + 1 :], scans[tail + 1 :], scans[tail].end_state
    )
    following = last + 1
    while not agreed and following < len(chunks):
        chunk = chunks[following]
        if new_scans[-1].end_state == chunk.start_state:
            break
        agreed = _rescan_until_agreement(scanner, new_lines, new_scans, chunk.lines, chunk.scans, chunk.start_state)
        following += 1
    return EditedRegion(first, following, new_lines, new_scans)


def _rescan_until_agreement(
    scanner: Scanner,
    new_lines: list[str],
    new_scans: list[LineScan],
    old_lines: list[str],
    old_scans: list[LineScan],
    old_entering: State,
) -> bool:
    """Appends `old_lines`, rescanning them until the state agrees with the old scan.

    Returns True when it agreed (the old scans of the remaining lines were kept),
    False when every line had to be rescanned and the next chunk must be checked.
    """
    state = new_scans[-1].end_state
    for index, text in enumerate(old_lines):
        entering_before = old_scans[index - 1].end_state if index else old_entering
        if state == entering_before:
            new_lines.extend(old_lines[index:])
            new_scans.extend(old_scans[index:])
            return True
        scan = scanner.scan(state, text)
        new_lines.append(text)
        new_scans.append(scan)
        state = scan.end_state
    return False
