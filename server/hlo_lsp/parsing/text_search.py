"""Searches over a whole file's text (HLO, or the buffer-assignment family) for the forms its line scanner
reads, before the lines are scanned: how a glance finds a definition, a header, a table, an allocation or a
schedule entry without reading the file line by line."""

from __future__ import annotations

import bisect
import re
from array import array
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from hlo_lsp.memos import memo
from hlo_lsp.parsing.ba_scanner import HEADER_PREFIXES
from hlo_lsp.parsing.hlo_scanner import TABLE_NAMES
from hlo_lsp.parsing.names import NAME

BLANKS = re.compile(r"[^\S\n]*")
# A line a buffer-assignment file's scanner may read as a section's header: a header's prefix after blanks.
_HEADER_LINE = re.compile(r"\n[^\S\n]*(?:" + "|".join(map(re.escape, HEADER_PREFIXES)) + ")")
_SCHEDULED_NAME = re.compile(r"\n[ \t]*[0-9]+:(" + NAME + r")")
_ALLOCATION_NUMBER = re.compile(r"allocation ([0-9]{1,19}):")  # as many digits as the scanner reads
# A line the scanner reads as a table's header (its text stripped, as `str.strip` and `\s` agree).
_TABLE_HEADER = re.compile(r"\n\s*(?:" + "|".join(TABLE_NAMES) + r")\s*(?=\n|\Z)")
# What may stand before `name =` on its line, after its blanks: nothing, `%`, `ROOT` or `ROOT %`.
_DEFINITION_PREFIX = re.compile(r"(?:%|ROOT|ROOT\s+%)?\s*")
_AFTER_DEFINED_NAME = re.compile(r":?[ \t]*(?:=|//|\r?\n|\Z)")
_HEADER_PREFIX = re.compile(r"(?:ENTRY(?:[ \t]*%)?|%)?")  # before a computation's name on its header (spaces cut)
_DEFINED_NAME = re.compile(r"\n[ \t]+(?:ROOT[ \t]+)?%?(" + NAME + r")[ \t]*=")
_UNINDENTED_LINE = re.compile(r"\n(?=[^ \t\r\n/])")
# The lines that hold a symbol, as XLA prints them: an indented instruction, an unindented computation header
# ending with `{`, a `}` (features/symbol_index.py reads a line so only where the scanner reads its template so).
PRINTED_INSTRUCTION = re.compile(rf"[ \t]+(?:ROOT[ \t]+)?%?({NAME})[ \t]*=")
PRINTED_HEADER = re.compile(rf"(?:ENTRY[ \t]+)?%?({NAME})[^\n]*\{{[ \t]*\r?$")
PRINTED_END = re.compile(r"[ \t]*\}[ \t]*(?://[^\n]*)?\r?$")  # (older XLA: `} // fused_computation`)
_FIRST_WINDOW, _LAST_WINDOW = 4_096, 1 << 20  # characters searched backwards at first, at most
_DEFINITIONS_PIECE = 1 << 20  # characters `defined_among` reads at a time, at least
_WAY_UP_SAMPLE = 1 << 18  # characters between two offsets whose way up `UnindentedLinesAbove.read` learns
# An indented line below a line that opens no computation (a `}`, a header the scanner cannot read,
# anything else), blank and `//` lines between: the module reads it outside any computation.
_INDENTED_AFTER_NON_HEADER = re.compile(
    r"\n(?![ \t\r\n]|//)(?!(?:ENTRY[ \t]+)?%?" + NAME + r"[ \t]*[({,])[^\n]*\n"
    r"(?:[ \t\r]*(?://[^\n]*)?\n)*[ \t]+[^\s/]")
# What dumps never print and a line read alone misreads: a block comment left open at its line's end, a lone
# `ROOT` marking the instruction below it, a `}` with more after it on its line (`}%v = ...`, `} ENTRY e {`:
# it may end a computation where the glance's lines do not show it; not a literal's `})`).
# Searches each from its literal prefix: one alternation tries them all at every offset (0.25 s at 40 MB).
_CROSS_LINE_FORMS = (re.compile(r"/\*(?![^\n]*?\*/)"), re.compile(r"ROOT[ \t]*(?:\r?\n|//)"),
                     re.compile(r"\n[ \t]*\}[ \t]*[^\s,/)\]}]"))


def end_of_blanks(text: str, start: int) -> int:
    """Where the spaces and tabs from `start` end."""
    found = BLANKS.match(text, start)
    return found.end() if found is not None else start


def table_header_after(text: str, offset: int) -> bool:
    """Whether a stack-frame table's header line follows `offset`."""
    return _TABLE_HEADER.search(text, offset) is not None


def header_line_starts(text: str) -> list[int]:
    """Where the lines that may be a buffer-assignment file's section headers start, in order (one search: a search
    for each of 14 prefixes took twice as long)."""
    first_end = text.find("\n")
    first = [0] if _HEADER_LINE.match("\n" + (text if first_end < 0 else text[:first_end])) else []
    return first + [found.start() + 1 for found in _HEADER_LINE.finditer(text)]


def has_cross_line_forms(text: str) -> bool:
    """Whether a line may read otherwise alone than in the file for what lines above it leave open."""
    return any(form.search(text) is not None for form in _CROSS_LINE_FORMS)


def defined_names(text: str) -> list[str]:
    """Every name an indented line defines."""
    return _DEFINED_NAME.findall(text)


def defined_among(text: str, names: Sequence[str], enough: int | None = None) -> set[str]:
    """Those of `names` an indented line defines; or, once those found stand for `enough` of `names` (counted with
    their repeats), those found so far. Read a piece at a time (a 40 MB module defines 300,000 names, 20 MB of
    strings that are not all made at once) from the end, where XLA prints the entry computation: most names of a
    schedule are there, and a vote that needs three quarters of them reads a fifth of the text."""
    weight = Counter(names)
    found: set[str] = set()
    counted, end = 0, len(text)
    while end > 0 and (enough is None or counted < enough):
        start = max(text.rfind("\n", 0, end - _DEFINITIONS_PIECE), 0)  # (a definition is on one line, after a \n)
        for name in _DEFINED_NAME.findall(text, start, end):
            if name in weight and name not in found:
                found.add(name)
                counted += weight[name]
        end = start
    return found


def has_indented_line_after_non_header(text: str) -> bool:
    """Whether an indented line follows a line that opens no computation (blank and `//` lines between)."""
    return _INDENTED_AFTER_NON_HEADER.search(text) is not None


# What a line is to `_INDENTED_AFTER_NON_HEADER`: blank or a comment, indented, unindented and no header.
_BLANK_OR_COMMENT_LINE = re.compile(r"[ \t\r]*(?://[^\n]*)?")
_INDENTED_LINE = re.compile(r"[ \t]+[^\s/]")
_NON_HEADER_LINE = re.compile(r"(?![ \t\r\n]|//)(?!(?:ENTRY[ \t]+)?%?" + NAME + r"[ \t]*[({,])")


class LineForms(NamedTuple):
    """What the whole-text searches above find on one line: an edit that changes none of them leaves what they
    find in the whole text as it was."""

    cross_line_forms: bool
    defined_names: list[str]
    table_header: bool
    shape: str  # to `has_indented_line_after_non_header`


def line_forms(text: str, line_start: int) -> LineForms:
    """The forms of the line of `text` starting at `line_start`."""
    end = text.find("\n", line_start)
    end = len(text) if end < 0 else end
    line = text[line_start:end]
    around = text[max(line_start - 1, 0) : end + 1]  # its newlines, which the searches start or end with
    return LineForms(has_cross_line_forms(around), defined_names(around),
                     _TABLE_HEADER.match("\n" + line) is not None, _line_shape(line))


def _line_shape(line: str) -> str:
    if _BLANK_OR_COMMENT_LINE.fullmatch(line):
        return "blank"
    if _INDENTED_LINE.match(line):
        return "indented"
    return "other" if _NON_HEADER_LINE.match(line) is None else "unindented"


def unindented_line_start_before(text: str, offset: int, floor: int = 0) -> int:
    """Where the last line that is neither indented, blank nor a `//` comment starts at or before `offset`,
    after `floor` (its newline at `floor` or later), or -1: searched backwards, a window at a time, so
    that it costs what lies between `offset` and that line, not what lies above it."""
    end, window = offset + 1, _FIRST_WINDOW
    while True:
        start = max(floor, end - window)
        last = deque(_UNINDENTED_LINE.finditer(text, start, end), maxlen=1)
        if last:
            return last[0].end()
        if start == floor:
            return -1
        end, window = start + 1, min(window * 4, _LAST_WINDOW)  # (a newline at `start` was looked at)


class UnindentedLinesAbove:
    """`unindented_line_start_before` of any offset of one text, each search stopping where an earlier one
    tells the rest: a computation's instructions share the way up to its header."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._known: list[list[int]] = []  # [start, checked]: no other such line starts after start, up to checked

    def start_before(self, offset: int) -> int:
        floor, below = 0, None
        for known in self._known:
            if known[0] <= offset <= known[1]:
                return known[0]
            if floor <= known[1] < offset:
                floor, below = known[1], known
        found = unindented_line_start_before(self._text, offset, floor)
        if found < 0 and below is not None:
            below[1] = offset
            return below[0]
        if found >= 0:
            self._known.append([found, offset])
        return found

    def read(self) -> None:
        """Learns the way up from an offset every _WAY_UP_SAMPLE characters, top to bottom (each search stops at
        the one before): a question's search then reads that many characters at most (at 40 MB, 2 ms for the
        first instruction asked about in a large ENTRY computation, 25,000 lines below its header)."""
        for offset in range(_WAY_UP_SAMPLE, len(self._text), _WAY_UP_SAMPLE):
            self.start_before(offset)

    def spliced(self, text: str, start: int, end: int, inserted: int) -> UnindentedLinesAbove | None:
        """What is known of `text`: this text with `start:end` replaced by `inserted` characters, no newline in
        either; None when the edit makes its line indented or unindented (nothing is carried then)."""
        line_start = text.rfind("\n", 0, start) + 1
        if _opens_unindented_line(self._text, line_start) != _opens_unindented_line(text, line_start):
            return None
        shift = inserted - (end - start)
        carried = UnindentedLinesAbove(text)
        carried._known = [[found if found <= start else found + shift,
                           checked if checked < start else checked + shift if checked >= end else start]
                          for found, checked in self._known]
        return carried


def _opens_unindented_line(text: str, line_start: int) -> bool:
    """Whether the line starting at `line_start` is one `_UNINDENTED_LINE` finds."""
    return _UNINDENTED_LINE.match(text, line_start - 1) is not None if line_start > 0 else False


def definition_offsets(text: str, name: str, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Where the scanner may read a definition of `name` (between `start` and `end`): `name` then `=` with
    any spaces or tabs between (`state =0(...` too), or `name` alone, its `=` below, after nothing, `%`,
    `ROOT` or `ROOT %` on its line."""
    blanks_end: dict[int, int] = {}  # a 200 KB line may name it thousands of times: its blanks are read once
    stop = len(text) if end is None else end
    found = text.find(name, start, stop)  # (a string search skips ahead; a pattern of the name tries each character)
    while found >= 0:
        if _AFTER_DEFINED_NAME.match(text, found + len(name), stop):
            line_start = text.rfind("\n", 0, found) + 1
            first = blanks_end.get(line_start)
            if first is None:
                first = blanks_end[line_start] = end_of_blanks(text, line_start)
            if _DEFINITION_PREFIX.fullmatch(text, min(first, found), found):
                yield found
        found = text.find(name, found + 1, stop)


def is_header_prefix(prefix: str) -> bool:
    """Whether `prefix` (a line's text before a name, spaces cut) may stand before a computation's name."""
    return _HEADER_PREFIX.fullmatch(prefix) is not None


def scheduled_names(text: str, start: int, end: int) -> list[str]:
    """The names of the schedule entries (`N:name`) between `start` and `end`."""
    return _SCHEDULED_NAME.findall(text, start, end)


def allocation_numbers(text: str) -> list[int]:
    """The number of each `allocation N:` printed (`00` numbers 0 too)."""
    return list(map(int, _ALLOCATION_NUMBER.findall(text)))


_SCHEDULE_TIME = re.compile(r"\n[ \t]*([0-9]+):")


def regular_schedule_length(text: str, start: int, end: int) -> int | None:
    """How many entries a schedule section (its header's line from `start`, to `end`) prints when each line
    after its header is the entry of the next time from 0 (`0:p`, `1:q`, ...; as XLA prints it): the entry at
    time t is then its header's line + 1 + t. None for any other section."""
    times = _SCHEDULE_TIME.findall(text, start, end)
    if text.count("\n", start, end) != len(times) + 1 or times != [str(time) for time in range(len(times))]:
        return None
    return len(times)


def schedule_entry_offset(text: str, time: int, start: int, end: int) -> int | None:
    """The offset of the line break before the first schedule entry at `time` between `start` and `end`."""
    match = re.compile(rf"\n[ \t]*0*{time}:").search(text, start, end)  # XLA prints no zeros, but reads them
    return match.start() if match is not None else None


_BRACE_SAMPLE = 1 << 16  # characters between two sampled offsets of a BraceBalance


class BraceBalance:
    """How many more `{` than `}` a text holds before each sampled offset: how many a stretch of it leaves open
    (a computation's header to a line of its body: one), read from two samples and what lies beyond each."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._before = array("q", [0])
        for start in range(0, len(text), _BRACE_SAMPLE):
            end = start + _BRACE_SAMPLE
            self._before.append(self._before[-1] + text.count("{", start, end) - text.count("}", start, end))

    def between(self, start: int, end: int) -> int:
        return self._up_to(end) - self._up_to(start)

    def _up_to(self, offset: int) -> int:
        sample = offset // _BRACE_SAMPLE
        start = sample * _BRACE_SAMPLE
        return self._before[sample] + self._text.count("{", start, offset) - self._text.count("}", start, offset)


_LINE_SAMPLE = 1 << 13  # characters between two sampled line starts of a LineIndex


class LineIndex:
    """A text's lines, found by reading a few thousand characters at most: the starts of lines about every 8K
    characters and their line numbers. An edit shifts the samples after it (`spliced`), a list of five
    thousand numbers for 40 MB, instead of counting the text's newlines again."""

    __slots__ = ("text", "line_count", "_offsets", "_lines")

    def __init__(self, text: str, offsets: list[int] | None = None, lines: list[int] | None = None,
                 line_count: int | None = None) -> None:
        self.text = text
        if offsets is None or lines is None or line_count is None:
            offsets, lines, line_count = _sampled_line_starts(text)
        self._offsets, self._lines, self.line_count = offsets, lines, line_count

    def line_at(self, offset: int) -> int:
        """The line holding `offset`."""
        sample = bisect.bisect_right(self._offsets, offset) - 1
        return self._lines[sample] + self.text.count("\n", self._offsets[sample], offset)

    def line_start(self, line: int) -> int:
        """Where `line` (0 <= line < line_count) starts."""
        sample = max(bisect.bisect_right(self._lines, line) - 1, 0)
        offset, seen = self._offsets[sample], self._lines[sample]
        while line > seen:  # (a pattern skips the lines in one call, where str.index took one a line)
            count = min(line - seen, _LINES_SKIPPED_AT_ONCE)
            skipped = _lines_skipped(count).match(self.text, offset)
            if skipped is None:
                raise ValueError(f"line {line} is past the text's end")
            offset, seen = skipped.end(), seen + count
        return offset

    def line_end(self, start: int) -> int:
        """Where the line starting at `start` ends (its newline, or the text's end)."""
        end = self.text.find("\n", start)
        return len(self.text) if end < 0 else end

    def spliced(self, text: str, start: int, end: int, inserted: int) -> LineIndex:
        """The index of `text`: this index's text with `start:end` replaced by `inserted` characters."""
        added = text.count("\n", start, start + inserted) - self.text.count("\n", start, end)
        shift = inserted - (end - start)
        kept = bisect.bisect_right(self._offsets, start)  # a sample inside the replaced text may start no line now
        after = bisect.bisect_left(self._offsets, end + 1)
        offsets = self._offsets[:kept] + [offset + shift for offset in self._offsets[after:]]
        lines = self._lines[:kept] + [line + added for line in self._lines[after:]]
        return LineIndex(text, offsets, lines, self.line_count + added)


_LINES_SKIPPED_AT_ONCE = 256  # the most lines one pattern skips (a sample's 8K characters hold fewer, but blank ones)


@memo(maxsize=_LINES_SKIPPED_AT_ONCE)
def _lines_skipped(count: int) -> re.Pattern[str]:
    return re.compile(rf"(?:[^\n]*\n){{{count}}}")


def _sampled_line_starts(text: str) -> tuple[list[int], list[int], int]:
    """(the starts of lines about _LINE_SAMPLE characters apart, their line numbers, the line count)."""
    offsets, lines = [0], [0]
    for block in range(_LINE_SAMPLE, len(text), _LINE_SAMPLE):
        start = text.find("\n", block - 1) + 1
        if start == 0:
            break
        if start > offsets[-1]:
            lines.append(lines[-1] + text.count("\n", offsets[-1], start))
            offsets.append(start)
    return offsets, lines, lines[-1] + text.count("\n", offsets[-1]) + 1
