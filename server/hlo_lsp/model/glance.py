"""A glance at a module before its files are scanned: the lines one question needs, found by text search.

Scanning a 40 MB module takes seconds; finding a name in its text takes milliseconds. A
glance finds the few lines that say everything about one instruction (its definition and
its computation's header, the stack-frame tables, its buffer values and their
allocations, its live ranges, the schedule at the times they name, the peak) and scans
them with the same scanners. From them it builds a sparse ModuleDump (Documents holding
only those lines) that the same models and features read as they read a whole module.

The cursor may be in any file of the module (the HLO file, its buffer assignment, values, live
ranges or memory report): its line is scanned in the state the whole file's scan enters it in,
known from its section's header, or from the nearest value block or allocation above it in the
sections whose lines change the state.

A glance answers only what it can place for certain and declines the rest (None): a
name defined twice, a live-range file with two sections, a peak XLA did not print, files
of two compilations. The caller then waits for the whole module.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from collections.abc import Iterator

from hlo_lsp.model.document import Document, Run
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.lazy import lazy
from hlo_lsp.model.pairing import paired_module, pairing_sample
from hlo_lsp.parsing.ba_scanner import HEADER_PREFIXES, mentioned_instruction
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import TABLE_NAMES, in_string, leaves_a_string_open
from hlo_lsp.parsing.line_scan import LineScan, State

_BLOCK = 1 << 16  # characters per block of the line index
_HEAD_LINES = 100_000  # lines before the first computation worth scanning (stack-frame tables)
# A line the scanner reads as a table's header (its text stripped, as `str.strip` and `\s` agree).
_TABLE_HEADER = re.compile(r"\n\s*(?:" + "|".join(TABLE_NAMES) + r")\s*(?=\n|\Z)")
_TABLE_KINDS = frozenset(("frame", "location", "file_name", "function_name"))  # what the tables define
_BLANK_LINES_ABOVE = 100  # blank and comment lines looked through above a computation header
# What may stand before `name =` on its line, after its blanks: nothing, `%`, `ROOT` or `ROOT %`.
_DEFINITION_PREFIX = re.compile(r"(?:%|ROOT|ROOT\s+%)?\s*")
_BLANKS = re.compile(r"[^\S\n]*")
_AFTER_VALUE_NAME = frozenset("{ >")  # `<id name{index} (phi) @color>`
_HEADER_KINDS = frozenset((
    "allocations_header", "stats_header", "used_values_header", "sequence_header", "ranges_header",
    "report_section", "report_table_header", "live_range_header", "live_range_unavailable", "totals",
    "peak_header", "peak_unknown", "breakdown_header", "memory_space",
))
_HEADER_PREFIX = re.compile(r"(?:ENTRY(?:[ \t]*%)?|%)?")  # before a computation's name on its header (spaces cut)
_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_BODY_LINES = 20_000  # a longer computation (a large ENTRY) is left to the whole module
_CALLERS = 5_000  # a computation named on more lines is left to the whole module
_DEFINED_NAME = re.compile(r"\n[ \t]+(?:ROOT[ \t]+)?%?([A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*=")
_UNINDENTED_LINE = re.compile(r"\n(?=[^ \t\r\n/])")
# An indented line after a `}` line (and blank lines): an instruction outside any computation.
# An indented line below a line that opens no computation (a `}`, a header the scanner cannot read,
# anything else), blank and `//` lines between: the module reads it outside any computation.
_INDENTED_AFTER_NON_HEADER = re.compile(
    r"\n(?![ \t\r\n]|//)(?!(?:ENTRY[ \t]+)?%?[A-Za-z_][A-Za-z0-9_.\-]*[ \t]*[({,])[^\n]*\n"
    r"(?:[ \t\r]*(?://[^\n]*)?\n)*[ \t]+[^\s/]")
# What dumps never print and a line read alone misreads: a block comment left open at its line's end, a lone
# `ROOT` marking the instruction below it, a `}` with more after it on its line (`}%v = ...`, `} ENTRY e {`:
# it may end a computation where the glance's lines do not show it; not a literal's `})`).
# Searches each from its literal prefix: one alternation tries them all at every offset (0.25 s at 40 MB).
_CROSS_LINE_FORMS = (re.compile(r"/\*(?![^\n]*?\*/)"), re.compile(r"ROOT[ \t]*(?:\r?\n|//)"),
                     re.compile(r"\n[ \t]*\}[ \t]*[^\s,/)\]}]"))
_SCHEDULED_NAME = re.compile(r"\n[ \t]*[0-9]+:([A-Za-z_][A-Za-z0-9_.\-]*)")


class _Declined(Exception):
    """The glance cannot answer for certain."""


class _Text:
    """One file's text with a coarse line index: its newlines counted per block of 64K characters."""

    def __init__(self, document: Document, text: str) -> None:
        self.document = document
        self.text = text
        counts = [text.count("\n", start, start + _BLOCK) for start in range(0, len(text), _BLOCK)]
        self._lines_before = list(itertools.accumulate(counts, initial=0))
        self.line_count = self._lines_before[-1] + 1

    def line_at(self, offset: int) -> int:
        block = offset // _BLOCK
        return self._lines_before[block] + self.text.count("\n", block * _BLOCK, offset)

    def end_line(self, offset: int) -> int:
        """The first line not before `offset` ends (the line count at the end of the text)."""
        return self.line_at(offset) if offset < len(self.text) else self.line_count

    def line_start(self, line: int) -> int:
        if not 0 <= line < self.line_count:
            raise _Declined
        block = max(bisect.bisect_left(self._lines_before, line) - 1, 0)
        offset, seen = block * _BLOCK, self._lines_before[block]
        while seen < line:
            offset = self.text.index("\n", offset) + 1
            seen += 1
        return offset

    def line(self, line: int) -> str:
        return self.line_from(self.line_start(line))

    def line_from(self, start: int) -> str:
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def prefix_on_line(self, offset: int) -> str:
        """The text between the start of the line and `offset`, without its spaces."""
        return self.text[self.text.rfind("\n", 0, offset) + 1 : offset].strip()

    def occurrences(self, needle: str, start: int = 0, end: int | None = None) -> Iterator[int]:
        stop = len(self.text) if end is None else end
        found = self.text.find(needle, start, stop)
        while found >= 0:
            yield found
            found = self.text.find(needle, found + 1, stop)

    def scan(self, line: int, state: State) -> tuple[str, LineScan]:
        text = self.line(line)
        return text, self.document.scanner.scan(state, text)

    def scan_run(self, first: int, state: State, stop: int) -> Iterator[tuple[int, str, State, LineScan]]:
        """(line, text, state entering it, scan) of the lines from `first` to before `stop`, scanned in order."""
        scan_line = self.document.scanner.scan
        start = self.line_start(first)
        for line in range(first, min(stop, self.line_count)):
            text = self.line_from(start)
            scan = scan_line(state, text)
            yield line, text, state, scan
            state, start = scan.end_state, start + len(text) + 1


class _Picks:
    """The lines picked from one file for one question: line -> (text, state entering it, scan)."""

    def __init__(self, file: _Text, base: dict[int, tuple[str, State, LineScan]] | None = None) -> None:
        self.file = file
        self.lines = dict(base or {})

    def pick(self, line: int, state: State, kinds: frozenset[str] | None = None) -> LineScan:
        picked = self.lines.get(line)
        if picked is None:
            text, scan = self.file.scan(line, state)
            picked = (text, state, scan)
        if kinds is not None and picked[2].kind not in kinds:
            raise _Declined  # (or held already as another kind of line: a module header's continuation, say)
        self.lines[line] = picked
        return picked[2]

    def document(self) -> Document:
        runs: list[Run] = []
        for line in sorted(self.lines):
            text, state, scan = self.lines[line]
            if runs and runs[-1][0] + len(runs[-1][1]) == line:
                runs[-1][1].append(text)
                runs[-1][2].append(scan)
            else:
                runs.append((line, [text], [scan], state))
        document = self.file.document
        return Document.sparse(document.kind, document.source, self.file.line_count, runs)


_INSTRUCTION = frozenset(("instruction",))
_COMPUTATION = frozenset(("computation",))


class _HloText(_Text):
    @lazy
    def head(self) -> dict[int, tuple[str, State, LineScan]]:
        """The lines from the module header through the first computation's header, scanned in
        order: the stack-frame tables a hover follows are there. None for a text whose lines read in
        states a glance does not follow (every question is declined)."""
        if self.has_cross_line_forms:
            return {}
        lines = {}
        for line, text, state, scan in self.scan_run(0, self.document.scanner.initial_state, _HEAD_LINES):
            lines[line] = (text, state, scan)
            if scan.kind == "computation":
                # a table printed below a computation is read by the module, not by the glance
                return {} if _TABLE_HEADER.search(self.text, self.line_start(line)) else lines
        return {}  # no computation near the top: every question is declined

    def scan(self, line: int, state: State) -> tuple[str, LineScan]:
        if self._starts_in_string(line):
            raise _Declined  # a string over lines: XLA reads it on through whatever its lines hold
        return super().scan(line, state)

    def scan_run(self, first: int, state: State, stop: int) -> Iterator[tuple[int, str, State, LineScan]]:
        if self._starts_in_string(first):
            raise _Declined
        yield from super().scan_run(first, state, stop)

    def _starts_in_string(self, line: int) -> bool:
        """Whether `line` may start inside a string: the nearest line above it holding a quote leaves one
        open (lines without quotes between leave a string as it is)."""
        quote = self.text.rfind('"', 0, self.line_start(line))
        if quote < 0:
            return False
        above = self.line_at(quote)
        if above in self.head:  # read in order from the top
            return in_string(self.head[above][2].end_state)
        return leaves_a_string_open(self.line(above))

    @lazy
    def has_cross_line_forms(self) -> bool:
        """Whether a line may read otherwise alone than in the file for what lines above it leave open
        (a block comment, a lone `ROOT`): forms dumps never print."""
        return any(form.search(self.text) is not None for form in _CROSS_LINE_FORMS)

    @lazy
    def defined_names(self) -> list[str]:
        """Every name an indented line defines (for the pairing vote, which needs no exact count)."""
        return _DEFINED_NAME.findall(self.text)

    @lazy
    def has_instructions_outside_computations(self) -> bool:
        """Whether some indented lines are not in any computation (a `}` or a readable header
        missing): the module does not count them as its instructions, the text search would."""
        if any(scan.kind == "instruction" for _, _, scan in self.head.values()):
            return True
        return _INDENTED_AFTER_NON_HEADER.search(self.text) is not None

    def follows_computation_end(self, line: int) -> bool:
        """Whether the nearest line above `line` that is not blank nor a `//` comment reads as a `}`
        ending a computation (as every computation header below the first follows the one before it)."""
        for above in range(line - 1, max(line - 1 - _BLANK_LINES_ABOVE, -1), -1):
            kind = self.scan(above, "comp")[1].kind
            if kind != "blank":
                return kind == "computation_end"
        return False

    def definition(self, name: str) -> int:
        """The offset of the one line that defines instruction `name` (declines for none or several):
        wherever the scanner may read a definition, `name` then `=` with any spaces or tabs between
        (`state =0(...` too), or `name` alone, its `=` below (fuzzer mutant #596970), after nothing, `%`,
        `ROOT` or `ROOT %` on its line."""
        text, blanks_end = self.text, {}  # a 200 KB line may name it thousands of times: its blanks are read once
        found = []
        for match in re.finditer(re.escape(name) + r":?[ \t]*(?:=|//|\r?\n|\Z)", text):
            line_start = text.rfind("\n", 0, match.start()) + 1
            first = blanks_end.get(line_start)
            if first is None:
                first = blanks_end[line_start] = _BLANKS.match(text, line_start).end()
            if _DEFINITION_PREFIX.fullmatch(text, min(first, match.start()), match.start()):
                found.append(match.start())
        if len(found) != 1:
            raise _Declined
        return found[0]

    def pick_instruction(self, picks: _Picks, name: str) -> None:
        """The instruction's line, the line after it, and its computation's header."""
        offset = self.definition(name)
        line = self.line_at(offset)
        scan = picks.pick(line, "comp", _INSTRUCTION)
        if scan.refs[0].name != name or scan.end_state != "comp":
            raise _Declined  # another reading of the line, or an instruction continued on the next lines
        if line > 0 and isinstance(self.scan(line - 1, "comp")[1].end_state, tuple):
            raise _Declined  # the line above leaves a string, a comment or brackets open over it
        if line + 1 < self.line_count:
            picks.pick(line + 1, "comp")
        if picks.pick(self.computation_header(offset), "top", _COMPUTATION).kind != "computation":
            raise _Declined  # held already, as another kind of line

    def occurrences_of_name(self, name: str) -> Iterator[int]:
        """The offsets of `name` standing alone (not inside a longer name)."""
        text, end = self.text, len(name)
        for offset in self.occurrences(name):
            if (offset == 0 or text[offset - 1] not in _NAME_CHARACTERS) and \
                    text[offset + end : offset + end + 1] not in _NAME_CHARACTERS:
                yield offset

    def pick_computation(self, picks: _Picks, name: str, whole: bool) -> None:
        """The computation's header; `whole`: its body too, every instruction that names it and
        their computations' headers."""
        headers = [offset for offset in self.occurrences_of_name(name)
                   if _HEADER_PREFIX.fullmatch(self.prefix_on_line(offset))
                   and self.scan(self.line_at(offset), "top")[1].kind == "computation"]
        if len(headers) != 1:
            raise _Declined
        line = self.line_at(headers[0])
        scan = picks.pick(line, "top", _COMPUTATION)
        if scan.refs[0].name != name:
            raise _Declined
        if not whole:
            return
        self._pick_body(picks, line, scan.end_state)
        callers = [offset for offset in self.occurrences_of_name(name) if self.line_at(offset) not in picks.lines]
        if len(callers) > _CALLERS:
            raise _Declined
        for offset in callers:
            caller_line, header = self.line_at(offset), self.computation_header(offset)
            if caller_line in picks.lines:  # a line naming it twice
                continue
            caller = picks.pick(caller_line, "comp", _INSTRUCTION)
            if caller.end_state != "comp" or caller.problem is not None or header == caller_line:
                raise _Declined  # an instruction continued over several lines, garbled, or outside any computation
            if self.braces_open_between(header, caller_line) != 1:
                raise _Declined  # a line between them closes more than it opens: it may end the computation
            if picks.pick(header, "top", _COMPUTATION).kind != "computation":
                raise _Declined  # held already, as another kind of line

    def _pick_body(self, picks: _Picks, header: int, state: State) -> None:
        """The lines after a header through its `}` (declines for a body cut short or very long)."""
        for line, text, entering, scan in self.scan_run(header + 1, state, header + 1 + _BODY_LINES):
            picks.lines.setdefault(line, (text, entering, scan))
            if scan.kind == "computation_end":
                return
            if scan.kind == "computation" or scan.problem is not None:
                raise _Declined
        raise _Declined

    def braces_open_between(self, first: int, last: int) -> int:
        """How many more `{` than `}` the lines from `first` up to `last` hold (1 from a computation's
        header to a line of its body, in any text XLA prints)."""
        start, end = self.line_start(first), self.line_start(last)
        return self.text.count("{", start, end) - self.text.count("}", start, end)

    def computation_header(self, offset: int) -> int:
        """The header line of the computation around `offset`: the nearest line before it that is not
        indented (a header, or a `}` or anything else the caller declines)."""
        index = bisect.bisect_right(self._unindented_starts, offset) - 1
        if index < 0:
            raise _Declined
        return self.line_at(self._unindented_starts[index])

    @lazy
    def _unindented_starts(self) -> list[int]:
        """Where each line that is neither indented, blank nor a `//` comment starts: the headers and
        `}` of the computations, and the module's top lines."""
        return [match.end() for match in _UNINDENTED_LINE.finditer(self.text)]


_HeaderLine = tuple[int, int, str, LineScan]  # offset, line, text, scan


class _BuffersText(_Text):
    @lazy
    def headers(self) -> list[_HeaderLine]:
        """Every section header line, in order."""
        found: dict[int, _HeaderLine] = {}
        for prefix in HEADER_PREFIXES:
            for offset in self.occurrences(prefix):
                if self.prefix_on_line(offset):
                    continue
                start = self.text.rfind("\n", 0, offset) + 1
                text = self.line_from(start)
                scan = self.document.scanner.scan("top", text)
                if scan.kind in _HEADER_KINDS:
                    found.setdefault(start, (start, self.line_at(start), text, scan))
        return [found[start] for start in sorted(found)]

    def headers_of(self, kind: str, after: int = -1) -> list[_HeaderLine]:
        return [header for header in self.headers if header[3].kind == kind and header[0] > after]

    def section_end(self, header: _HeaderLine) -> int:
        """Where the section a header opens ends: at the next header."""
        index = self.headers.index(header)
        return self.headers[index + 1][0] if index + 1 < len(self.headers) else len(self.text)

    @lazy
    def _header_starts(self) -> list[int]:
        return [header[0] for header in self.headers]

    def section_at(self, offset: int) -> _HeaderLine | None:
        """The header of the section `offset` is in."""
        index = bisect.bisect_right(self._header_starts, offset) - 1
        return self.headers[index] if index >= 0 else None

    def prints_one_value(self, value_id: str) -> bool:
        """Whether one value of the allocations has the id `value_id`: a garbled file may print two alike,
        and the whole module then takes the last."""
        needle = f"<{value_id} "
        return sum(self.text.count(needle, header[0], self.section_end(header))
                   for header in self.headers_of("allocations_header")) == 1

    def allocation_above(self, start: int, offset: int) -> int:
        """The offset of the nearest `allocation ` between `start` and `offset` that begins its line after
        blanks (as the scanner reads a header, a tab before it too), or -1."""
        found = self.text.rfind("allocation ", start, offset)
        while found >= 0:
            line_start = self.text.rfind("\n", 0, found) + 1
            if _BLANKS.match(self.text, line_start).end() >= found:
                return found
            found = self.text.rfind("allocation ", start, line_start)  # only a line's first word may be one
        return -1

    def numbers_one_allocation(self, index: int) -> bool:
        """Whether `allocation {index}:` is printed once: a garbled file may number two allocations
        alike, and the whole module then says which one it means."""
        return self._allocation_numbers[index] == 1

    @lazy
    def _allocation_numbers(self) -> Counter[int]:
        """How often each `allocation N:` is printed (`00` numbers 0 too): one pass, however many values
        a hover picks."""
        return Counter(map(int, _ALLOCATION_NUMBER.findall(self.text)))

    def state_entering(self, line: int) -> State:
        """The scanner's state at the start of `line`: its section's, or found by scanning from the
        nearest line before it that enters one state whatever the lines before it were."""
        start = self.line_start(line)
        header = self.section_at(start)
        if header is None:
            raise _Declined  # before any section: nothing a glance answers about
        if header[0] == start:
            return "top"  # a header reads the same in any state
        state = header[3].end_state
        resync = _RESYNC.get(state)
        if resync is None:
            return state
        needle, kind, entered = resync
        found = self.text.rfind(needle, header[0], start)
        first = header[1] + 1
        if found >= 0:
            first, state = self.line_at(found + 1), entered
            if self.scan(first, state)[1].kind != kind:
                raise _Declined
        if line - first > _RESYNC_LINES:
            raise _Declined
        for _, _, _, scan in self.scan_run(first, state, line):
            state = scan.end_state
        return state


_ALLOCATION = frozenset(("allocation",))
_AFTER_ALLOCATION = frozenset(("allocation", "used_values_header"))  # what ends an allocation's values
_SEQUENCE_ENTRY = frozenset(("sequence_entry",))
# Sections whose lines change the scanner's state: (what a line that enters the same state whatever came
# before starts with, at the start of its line; its kind; that state). In every other section each
# line is read in the state its header leaves.
_RESYNC: dict[State, tuple[str, str, State]] = {
    "used": ("\n<", "used_value", "used"),  # a value block; its positions:, uses: and instruction follow
    "alloc": ("\nallocation ", "allocation", "alloc"),  # its values, and a `reused by` list
}
_RESYNC_LINES = 5_000  # a cursor further from where its state is known is left to the whole file
_ALLOCATION_NUMBER = re.compile(r"allocation ([0-9]{1,19}):")  # as many digits as the scanner reads


class _LiveRangeSection:
    """Where the one HloLiveRange section of a module is, and its parts."""

    def __init__(self, file: _BuffersText, header: _HeaderLine) -> None:
        self.file = file
        self.header = header
        self.sequence = _only(file.headers_of("sequence_header", header[0]))
        self.ranges = _only(file.headers_of("ranges_header", header[0]))
        self.peak = _only(file.headers_of("peak_header", header[0]))
        self.breakdowns = file.headers_of("breakdown_header", header[0])

    @property
    def max_time(self) -> int:
        return self.header[3].data[0]  # type: ignore[no-any-return]

    @lazy
    def base(self) -> dict[int, tuple[str, State, LineScan]]:
        """The lines every question reads: the headers and the whole peak list."""
        lines = {header[1]: (header[2], "top", header[3])
                 for header in (self.header, self.sequence, self.ranges, self.peak, *self.breakdowns)}
        end = self.file.end_line(self.file.section_end(self.peak))
        for line, text, state, scan in self.file.scan_run(self.peak[1] + 1, self.peak[3].end_state, end):
            lines[line] = (text, state, scan)
        return lines

    def scheduled_names(self) -> list[str]:
        start, end = self.sequence[0], self.file.section_end(self.sequence)
        return _SCHEDULED_NAME.findall(self.file.text, start, end)

    def pick_ranges(self, picks: _Picks, name: str) -> list[LineScan]:
        found = []
        start, end = self.ranges[0], self.file.section_end(self.ranges)
        for offset in self.file.occurrences(name + "{", start, end):
            if self.file.prefix_on_line(offset):
                continue
            line = self.file.line_at(offset)
            text, scan = self.file.scan(line, "ranges")
            if scan.kind == "live_range" and scan.data[0] == name:
                picks.lines[line] = (text, "ranges", scan)
                found.append(scan)
        return found

    def pick_scheduled(self, picks: _Picks, time: int) -> str | None:
        """The name scheduled at `time` (its first entry), or None when nothing is."""
        start, end = self.sequence[0], self.file.section_end(self.sequence)
        match = re.compile(rf"\n[ \t]*0*{time}:").search(self.file.text, start, end)  # XLA prints no zeros
        if match is None:
            return None
        scan = picks.pick(self.file.line_at(match.start() + 1), "seq", _SEQUENCE_ENTRY)
        if scan.data[0] != time:
            raise _Declined
        return scan.data[1]  # type: ignore[no-any-return]


def _only(headers: list[_HeaderLine]) -> _HeaderLine:
    if len(headers) != 1:
        raise _Declined
    return headers[0]


class ModuleGlance:
    """Questions about one module answered from its files' text, before they are scanned."""

    # the files a glance reads (not the values file nor the report)
    KINDS = frozenset((FileKind.HLO_MODULE, FileKind.BUFFER_ASSIGNMENT, FileKind.LIVE_RANGE))
    # the files whose cursor a glance places: those, the values file and the memory report
    CURSOR_KINDS = KINDS | {FileKind.BUFFER_ASSIGNMENT_VALUES, FileKind.MEMORY_USAGE_REPORT}

    def __init__(self, stem: str, files: dict[FileKind, _Text]) -> None:
        self.stem = stem
        self._files = files

    @classmethod
    def of(cls, stem: str, documents: dict[FileKind, Document]) -> ModuleGlance | None:
        """A glance at the module's documents while their text is still at hand (None once one of
        them is scanned: the whole module is then close)."""
        files: dict[FileKind, _Text] = {}
        for kind in cls.CURSOR_KINDS:
            document = documents.get(kind)
            if document is None:
                continue
            text = document.unscanned_text()
            if text is None:
                return None
            files[kind] = (_HloText if kind is FileKind.HLO_MODULE else _BuffersText)(document, text)
        return cls(stem, files) if FileKind.HLO_MODULE in files else None

    @property
    def _hlo(self) -> _HloText:
        return self._files[FileKind.HLO_MODULE]  # type: ignore[return-value]

    def line_document(self, line: int, source: str | None = None) -> Document | None:
        """The file `source` (default the HLO file) holding only `line`, scanned in the state the
        whole file's scan enters it in; an HLO line as an instruction's line when it is indented."""
        try:
            file = self._file_of(source)
            picks = _Picks(file)
            if isinstance(file, _BuffersText):
                if self._paired is not True:
                    raise _Declined  # the whole module may answer from the buffer assignment alone
                state = file.state_entering(line)
            elif line in self._hlo.head:  # read in order from the top: the stack-frame tables
                picks.lines[line] = self._hlo.head[line]
                return picks.document()
            else:
                text = file.line(line)
                if text[:1] in (" ", "\t"):
                    state = "comp"
                elif self._hlo.follows_computation_end(line):
                    state = file.document.scanner.initial_state
                else:  # maybe the rest of an instruction continued over several lines
                    raise _Declined
            picks.pick(line, state)
            document = picks.document()
            if state == "comp" and (document.scan(line).problem is not None or document.scan(line).end_state != state):
                # garbled, or a part of an item of the lines above (in a string left open), or going on below
                raise _Declined
            return document
        except _Declined:
            return None

    def reads_as_whole(self, line_document: Document, line: int) -> bool:
        """Whether `line_document` (from `line_document`) surely reads `line` as the whole file does:
        in a buffer-assignment file always (its state is found, not guessed); in the HLO file above
        its first computation (read in order), and below it when it is a complete instruction line,
        which reads the same in any state (a line of another kind may be part of a multi-line
        literal, read in a state only the lines above it tell)."""
        if line_document.kind is not FileKind.HLO_MODULE or line in self._hlo.head:
            return True
        if self._hlo.has_cross_line_forms:
            return False
        scan = line_document.scan(line)
        return scan.kind == "instruction" and scan.problem is None and scan.end_state == "comp"

    def _file_of(self, source: str | None) -> _Text:
        if source is None:
            return self._hlo
        found = [file for file in self._files.values() if file.document.source == source]
        if not found:
            raise _Declined
        return found[0]

    def instruction_module(self, name: str, memory: bool = True) -> ModuleDump | None:
        """The module as far as instruction `name` goes: its definition, and with `memory` its
        buffer values, allocations, live ranges and the peak. None when the glance is not sure."""
        try:
            return self._instruction_module(name, memory)
        except _Declined:
            return None

    def module_about(self, kind: str, name: str, whole: bool = True) -> ModuleDump | None:
        """The module as far as an instruction, a computation or a table's row (`kind`) goes: with
        `whole`, all a hover says (an instruction's memory, a computation's body and callers), else
        its definition."""
        if kind == "instruction":
            return self.instruction_module(name, memory=whole)
        if kind == "computation":
            return self.computation_module(name, whole)
        if kind in _TABLE_KINDS:
            return self.frames_module()
        return None

    # what the cursor may be on for `module_at`
    HOVER_KINDS = frozenset(("instruction", "computation", "value", "allocation")) | _TABLE_KINDS

    def module_at(self, line_document: Document, line: int, kind: str, name: str) -> ModuleDump | None:
        """The module as far as a hover on `kind` `name`, on `line` of `line_document` (from
        `line_document`), needs. None when the glance is not sure."""
        if kind == "value":
            return self.value_module(line_document, line, name)
        if kind == "allocation":
            return self.allocation_module(line_document, line)
        return self.module_about(kind, name)

    def allocation_module(self, line_document: Document, line: int) -> ModuleDump | None:
        """The buffer assignment as far as the allocation whose header is `line` goes: the lines from it
        to the next allocation's (its values, as the whole file's reading gives them to it)."""
        try:
            file = self._file_of(line_document.source)
            header = line_document.scan(line)
            if not isinstance(file, _BuffersText) or header.kind != "allocation" or \
                    not file.numbers_one_allocation(header.data[0]) or header.data[2]:
                raise _Declined  # (outside the default space: the memory report names its space)
            picks = _Picks(file)
            for number, text, state, scan in file.scan_run(line, "alloc", line + _RESYNC_LINES):
                if number > line and scan.kind in _AFTER_ALLOCATION:
                    break
                picks.lines[number] = (text, state, scan)
            else:
                if line + len(picks.lines) < file.line_count:
                    raise _Declined  # a longer block than a glance reads
            return ModuleDump(self.stem, {file.document.kind: picks.document()})
        except _Declined:
            return None

    def frames_module(self) -> ModuleDump | None:
        """The module as far as its tables go (stack frames, their file locations, file and function
        names): the lines above its first computation, where XLA prints them. None when the glance
        is not sure."""
        if not self._hlo.head:
            return None
        return ModuleDump(self.stem, {FileKind.HLO_MODULE: _Picks(self._hlo, self._hlo.head).document()})

    def value_module(self, line_document: Document, line: int, value_id: str) -> ModuleDump | None:
        """The module as far as the value `value_id` printed on `line` of `line_document` (from
        `line_document`) goes: its instruction's memory. None when the glance is not sure."""
        scan = line_document.scan(line)
        name = mentioned_instruction(scan) if scan.data and str(scan.data[0]) == value_id else None
        allocations = self._files.get(FileKind.BUFFER_ASSIGNMENT)
        if name is None or not isinstance(allocations, _BuffersText) or not allocations.prints_one_value(value_id):
            return None
        return self.instruction_module(name)

    def computation_module(self, name: str, whole: bool = True) -> ModuleDump | None:
        """The module as far as computation `name` goes: its header, and when `whole` its body and
        callers. None when the glance is not sure."""
        try:
            if not self._hlo.head:
                raise _Declined
            hlo = _Picks(self._hlo, self._hlo.head)
            self._hlo.pick_computation(hlo, name, whole)
            return ModuleDump(self.stem, {FileKind.HLO_MODULE: hlo.document()})
        except _Declined:
            return None

    def _instruction_module(self, name: str, memory: bool) -> ModuleDump:
        if not self._hlo.head:
            raise _Declined
        hlo = _Picks(self._hlo, self._hlo.head)
        self._hlo.pick_instruction(hlo, name)
        picked = {FileKind.HLO_MODULE: hlo}
        if memory:
            if self._several_spaces or self._is_async(hlo, name):
                raise _Declined  # the peak of each space, the values it holds, the report's space names
            for scheduled in self._pick_memory(picked, name):
                self._hlo.pick_instruction(hlo, scheduled)
        module = ModuleDump(self.stem, {kind: picks.document() for kind, picks in picked.items()})
        if memory and paired_module(module.hlo, module.buffer_assignment) is None:
            raise _Declined  # the schedule's names picked are not all the module's
        return module

    def _pick_memory(self, picked: dict[FileKind, _Picks], name: str) -> set[str]:
        """Adds the buffer-assignment lines about `name`; returns the names scheduled at the times they print."""
        if self._paired is not True:
            raise _Declined
        allocations = self._files.get(FileKind.BUFFER_ASSIGNMENT)
        if isinstance(allocations, _BuffersText):
            self._pick_values(self._picks(picked, allocations), name)
        section = self._live_range
        if section is None:
            return set()
        picks = self._picks(picked, section.file)
        picks.lines.update(section.base)
        peak_time = section.peak[3].data[0]
        times = {peak_time}
        for scan in section.pick_ranges(picks, name):
            start, end = scan.data[2], scan.data[3]
            times.add(start)
            if end < section.max_time:
                times.add(end)
        return {scheduled for time in sorted(times) if (scheduled := section.pick_scheduled(picks, time))}

    def _picks(self, picked: dict[FileKind, _Picks], file: _Text) -> _Picks:
        kind = file.document.kind
        if kind not in picked:
            picked[kind] = _Picks(file)
        return picked[kind]

    @staticmethod
    def _pick_values(picks: _Picks, name: str) -> None:
        """Every value line of `name` in the allocations section, with its allocation's header."""
        file: _BuffersText = picks.file  # type: ignore[assignment]
        for header in file.headers_of("allocations_header"):
            picks.pick(header[1], "top")
        needle = " " + name
        for offset in file.occurrences(needle):
            after = file.text[offset + len(needle) : offset + len(needle) + 1]
            section = file.section_at(offset)
            if after not in _AFTER_VALUE_NAME or section is None or section[3].kind != "allocations_header":
                continue
            line = file.line_at(offset)
            if line in picks.lines:  # read already: a long line may name it thousands of times
                continue
            text, scan = file.scan(line, "alloc")
            if scan.kind != "value" or scan.data[1] != name:
                continue
            picks.lines[line] = (text, "alloc", scan)
            allocation = file.allocation_above(section[0], offset)
            if allocation < 0:
                raise _Declined  # a value before any allocation of its section
            header = picks.pick(file.line_at(allocation), "alloc", _ALLOCATION)
            if not file.numbers_one_allocation(header.data[0]):
                raise _Declined

    @lazy
    def _several_spaces(self) -> bool:
        """Whether an allocation is outside the default memory space (`allocation 8: size 786432, color 1`)."""
        allocations = self._files.get(FileKind.BUFFER_ASSIGNMENT)
        return isinstance(allocations, _BuffersText) and next(allocations.occurrences(", color "), None) is not None

    @staticmethod
    def _is_async(picks: _Picks, name: str) -> bool:
        """Whether `name` is the `*-done` of an asynchronous pair (the values it holds are its start's) or a
        `copy-start` (what it copies, between spaces the memory report names)."""
        scan = next(scan for _, _, scan in picks.lines.values() if scan.kind == "instruction" and scan.refs
                    and scan.refs[0].name == name)
        opcode = str(scan.data[3])
        return opcode.endswith("-done") or opcode == "copy-start"

    @lazy
    def _live_range(self) -> _LiveRangeSection | None:
        headers = [(file, header) for kind, file in self._files.items()
                   if kind in self.KINDS and isinstance(file, _BuffersText)
                   for header in file.headers_of("live_range_header")]
        if not headers:
            return None
        if len(headers) > 1:
            raise _Declined
        file, header = headers[0]
        return _LiveRangeSection(file, header)

    @lazy
    def _paired(self) -> bool | None:
        """Whether the HLO module is the one the buffer assignment was made for, by the vote
        `paired_module` takes; a vote too close to call with names found by text declines."""
        section = self._live_range
        if section is None:
            return True
        sample = pairing_sample(section.scheduled_names())
        if not sample:
            return True
        if self._hlo.has_instructions_outside_computations:
            return None  # the module's vote would not count them: too unsure to call
        known_names = set(sample).intersection(self._hlo.defined_names)
        known = sum(1 for name in sample if name in known_names)
        if known * 4 >= len(sample) * 3:
            return True
        if known * 4 <= len(sample):
            return False
        return None
