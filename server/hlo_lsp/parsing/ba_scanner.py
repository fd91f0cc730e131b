"""Fast line scanner for buffer-assignment, values, live-range and memory-report files.

Sections are recognised by their header lines wherever they appear; the state is
the section (and, inside `Used values`, the part of a value block) the line is in.
Each line kind is read by one regular expression that mirrors its rule in
grammar/buffer_assignment.lark or grammar/memory_report.lark; when a line does not
match, the grammar parses it to say exactly where it goes wrong
(see `parsing.syntax_errors`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from hlo_lsp.parsing import hlo_scanner
from hlo_lsp.parsing.line_scan import (
    LineProblem,
    LineScan,
    Role,
    State,
    bracket_balance,
    line_problem,
    make_ref,
    new_tuple,
    plain_scan,
)
from hlo_lsp.parsing.names import NAME

# A count or id XLA prints as an int64 (19 digits at most): longer digit runs are not read as one.
NUMBER = r"[0-9]{1,19}(?![0-9])"
_INDEX = r"\{[0-9,]*\}"
_VALUE_REF = rf"(<({NUMBER}) ({NAME})({_INDEX})?( \(phi\))?(?: @({NUMBER}))?>)"
_HUMAN = r"[0-9]+(?:\.[0-9]+)?(?:B|KiB|MiB|GiB|TiB|PiB|EiB)"

_ALLOCATION = re.compile(rf"allocation ({NUMBER}): size ({NUMBER})(.*):[ \t]*$")
_ALLOCATION_PROPERTY = re.compile(
    rf", (?:color ({NUMBER})|page ({NUMBER})|parameter ({NUMBER}), shape \|([^|]*)\| at ShapeIndex ({_INDEX})"
    r"|output shape is \|([^|]*)\||(constant)|(thread-local)|(maybe-live-out)|(preallocated-temp))"
)
_VALUE_LINE = re.compile(rf"[ \t]*value: {_VALUE_REF} \(size=({NUMBER}),offset=({NUMBER})\): (.+?)[ \t]*$")
_REUSED_VALUE = re.compile(rf"[ \t]*value: {_VALUE_REF} \(color=({NUMBER})\)[ \t]*$")
_TOTALS = re.compile(rf"Total bytes used: ({NUMBER}) \(({_HUMAN})\)[ \t]*$")
_USED_VALUE = re.compile(rf"{_VALUE_REF}[ \t]*$")
_POSITION = re.compile(rf"[ \t]+({NAME})(?: ({_INDEX}))?[ \t]*$")
_USE = re.compile(rf"[ \t]+({NAME}), operand ({NUMBER})(?: ({_INDEX}))?[ \t]*$")
_FROM_INSTRUCTION = re.compile(r"from instruction:[ \t]*")
_LIVE_RANGE_HEADER = re.compile(rf"HloLiveRange \(max ({NUMBER})\):[ \t]*$")
_SEQUENCE_ENTRY = re.compile(rf"[ \t]*({NUMBER}):({NAME})[ \t]*$")
_LIVE_RANGE = re.compile(rf"[ \t]*({NAME})({_INDEX}):({NUMBER})-({NUMBER})[ \t]*$")
_PEAK_HEADER = re.compile(rf"[ \t]*Live ranges at ({NUMBER}) \(peak\):[ \t]*$")
_OLD_PEAK = re.compile(rf"[ \t]*({NAME}): ({NUMBER}) bytes[ \t]*$")
_NEW_PEAK = re.compile(rf"[ \t]*({NAME})({_INDEX}): ({NUMBER}) bytes \(cumulative: ({NUMBER}) bytes\)[ \t]*$")
_BREAKDOWN_HEADER = re.compile(r"[ \t]*Stack trace breakdown for peak usage: ([0-9][0-9 ]{0,30}) bytes[ \t]*$")
_BREAKDOWN_FRAME = re.compile(
    r"([ \t]*)((?:[│ ]   )*(?:[├└]── )?)(.+) \(([0-9]{1,3}(?:\.[0-9]{1,9})?)%, total: ([0-9][0-9 ]{0,30}) bytes, "
    r"current: ([0-9][0-9 ]{0,30}) bytes, remaining: ([0-9][0-9 ]{0,30}) bytes\)[ \t]*$"
)
_STATS_LINE = re.compile(rf"[ \t]*([a-z_ ]+ (?:allocation|fragmentation)):[ \t]+({_HUMAN})(?: \(([0-9.]+)%\))?[ \t]*$")
_REPORT_ROW = re.compile(rf"[ \t]*({_HUMAN})\([ 0-9.]+%\); +({_HUMAN}); (.*)$")
_REPORT_ALLOCATION = re.compile(rf"allocation ({NUMBER}): size ({_HUMAN})(.*):[ \t]*$")
_MEMORY_SPACE = re.compile(rf"Memory Space: ({NAME}) \(color=({NUMBER})\)[ \t]*$")
_MEMORY_SPACE_TOTAL = re.compile(rf"Total bytes: ({NUMBER}) \(({_HUMAN})\)[ \t]*$")
_PROTO_LINE = re.compile(rf"[ \t]*(?:{NAME}(?:: .+| \{{)|\}})[ \t]*$")

# Section headers: (prefix of the stripped line, line kind, state after it)
_SECTION_HEADERS: tuple[tuple[str, str, State], ...] = (
    ("BufferAssignment:", "allocations_header", "alloc"),
    ("BufferAssignment stats:", "stats_header", "stats"),
    ("Used values:", "used_values_header", "used"),
    ("InstructionSequence:", "sequence_header", "seq"),
    ("BufferLiveRange:", "ranges_header", "ranges"),
    ("Allocations sorted by size with their values:", "report_section", "report"),
    ("Allocations sorted by size:", "report_section", "report"),
    ("cumulative_size;", "report_table_header", "report"),
)


def scan_ba_line(state: State, text: str) -> LineScan:
    """Scans one line of a buffer-assignment-family or memory-report file in `state`."""
    if text.endswith("\r"):
        text = text[:-1]
    if isinstance(state, tuple):
        return _scan_continuation(state, text)
    stripped = text.strip()
    if not stripped:
        return plain_scan("blank", state)
    if stripped[:1] in _HEADER_INITIALS:  # (tested here, not in a call: a values file has 500,000 lines)
        header = _section_header(stripped)
        if header is not None:
            return header
    reader = _READERS.get(state, _read_anywhere)
    return reader(state, text, stripped)


_OTHER_HEADERS = ("HloLiveRange", "Total bytes used:", "Live ranges at", "Peak memory could not be determined",
                  "Stack trace breakdown", "Memory Space:")
# What every header line starts with (after its indent), in any state.
HEADER_PREFIXES = (*(header[0] for header in _SECTION_HEADERS), *_OTHER_HEADERS)
# Most lines are values and ranges: one set lookup rules them out as section headers.
_HEADER_INITIALS = frozenset(prefix[0] for prefix in HEADER_PREFIXES)


def _section_header(stripped: str) -> LineScan | None:
    if stripped[:1] not in _HEADER_INITIALS:
        return None
    for prefix, kind, next_state in _SECTION_HEADERS:
        if stripped.startswith(prefix):
            return plain_scan(kind, next_state)
    if stripped.startswith("HloLiveRange"):
        match = _LIVE_RANGE_HEADER.match(stripped)
        if match:
            return LineScan("live_range_header", "lr", data=(int(match.group(1)),))
        if stripped.startswith("HloLiveRange not available"):
            return LineScan("live_range_unavailable", "top")
    if stripped.startswith("Total bytes used:"):
        match = _TOTALS.match(stripped)
        if match:
            return LineScan("totals", "top", data=(int(match.group(1)), match.group(2)))
    if stripped.startswith("Live ranges at"):
        match = _PEAK_HEADER.match(stripped)
        if match:
            return LineScan("peak_header", "peak", data=(int(match.group(1)),))
    if stripped.startswith("Peak memory could not be determined"):
        return LineScan("peak_unknown", "top")
    if stripped.startswith("Stack trace breakdown"):
        match = _BREAKDOWN_HEADER.match(stripped)
        if match:
            return LineScan("breakdown_header", "tree", data=(_spaced_int(match.group(1)),))
    if stripped.startswith("Memory Space:"):
        match = _MEMORY_SPACE.match(stripped)
        if match:
            return LineScan("memory_space", "report", data=(match.group(1), int(match.group(2))))
    return None


def _read_allocations(state: State, text: str, stripped: str) -> LineScan:
    if stripped.startswith("allocation "):
        match = _ALLOCATION.match(stripped)
        if match:
            allocation = _allocation_data(match)
            if allocation[-1]:  # properties this version does not know: newer XLA may add some (as `page`)
                return LineScan("allocation", "alloc", data=allocation, problem=_problem(
                    text, "allocation-properties", f"unknown allocation property: {allocation[-1].strip()!r}",
                    severity=2))
            return LineScan("allocation", "alloc", data=allocation)
    elif stripped.startswith("value:"):
        match = _VALUE_LINE.match(text)
        if match:
            size, offset = match.group(7), match.group(8)
            data = _value_ref_data(match) + (
                int(size), int(offset), match.group(9), match.start(1), match.end(1))
            definition = (make_ref(text, Role.VALUE_DEF, str(int(match.group(2))), match.start(2), match.end(2)),)
            return LineScan("value", "alloc", definition, data)
    elif stripped.startswith("reused by buffers of a different color"):
        return LineScan("reused_header", "reused")
    return _read_anywhere(state, text, stripped)


def _read_reused(state: State, text: str, stripped: str) -> LineScan:
    match = _REUSED_VALUE.match(text)
    if match:
        return LineScan("reused_value", "reused", data=_value_ref_data(match) + (int(match.group(7)),))
    return _read_allocations("alloc", text, stripped)


def _read_used_values(state: State, text: str, stripped: str) -> LineScan:
    if stripped.startswith("<"):
        match = _USED_VALUE.match(stripped)
        if match:
            return new_tuple(LineScan, ("used_value", "used", (), _value_ref_data(match) + (stripped,), None))
    if stripped == "positions:":
        return plain_scan("positions_header", "positions")
    if stripped == "uses:":
        return plain_scan("uses_header", "uses")
    if stripped.startswith("from instruction:"):
        return _scan_from_instruction(text)
    if state == "positions":
        match = _POSITION.match(text)
        if match:
            return new_tuple(LineScan, ("position", "positions", (), (match.group(1), match.group(2)), None))
    if state == "uses":
        if stripped == "(none)":
            return plain_scan("no_uses", "uses")
        match = _USE.match(text)
        if match:
            return new_tuple(LineScan, ("use", "uses", (), (match.group(1), int(match.group(2)), match.group(3)), None))
    return _unrecognized(state, text, _EXPECTED[state])


def _scan_from_instruction(text: str) -> LineScan:
    start = _FROM_INSTRUCTION.search(text)
    if start is None:  # indented with other whitespace than spaces and tabs
        return _unrecognized("used", text, _EXPECTED["used"])
    instruction = hlo_scanner.scan_instruction_at(text, start.end(), "used")
    data = (start.end(),) + instruction.data
    scan = LineScan("from_instruction", "used", (), data, instruction.problem)
    depth = bracket_balance(text[start.end():])
    if depth > 0:
        return LineScan(scan.kind, ("cont", depth, "used", "from_instruction"), (), data, scan.problem)
    return scan


def _scan_continuation(state: tuple[str, int, State, str], text: str) -> LineScan:
    _, depth, base, owner = state
    stripped = text.strip()
    if (stripped.startswith("<") and _USED_VALUE.match(stripped)) or _section_header(stripped) is not None:
        # The next block starts while brackets are still open: the instruction
        # above was cut short. Scan this line fresh so the sections after it stay read.
        scan = scan_ba_line(base, text)
        problem = _problem(text, "unbalanced-brackets",
                           f"the {owner.replace('_', ' ')} above leaves {depth} bracket(s) open")
        return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)
    depth += bracket_balance(text)
    return plain_scan("continuation", base if depth <= 0 else ("cont", depth, base, owner))


def _read_live_range(state: State, text: str, stripped: str) -> LineScan:
    if state == "seq":
        match = _SEQUENCE_ENTRY.match(text)
        if match:
            return LineScan("sequence_entry", "seq", data=(int(match.group(1)), match.group(2)))
    if state == "ranges":
        match = _LIVE_RANGE.match(text)
        if match:
            data = (match.group(1), match.group(2), int(match.group(3)), int(match.group(4)))
            return LineScan("live_range", "ranges", data=data)
    if state == "peak":
        match = _NEW_PEAK.match(text)
        if match:
            data = (match.group(1), match.group(2), int(match.group(3)), int(match.group(4)))
            return LineScan("peak_entry", "peak", data=data)
        match = _OLD_PEAK.match(text)
        if match:
            return LineScan("peak_entry", "peak", data=(match.group(1), None, int(match.group(2)), None))
    if state == "tree":
        match = _BREAKDOWN_FRAME.match(text)
        if match:
            depth = (len(match.group(1)) + len(match.group(2))) // 4
            frame = (depth, match.group(3), match.start(3), float(match.group(4)),
                     _spaced_int(match.group(5)), _spaced_int(match.group(6)), _spaced_int(match.group(7)))
            return LineScan("breakdown_frame", "tree", data=frame)
    return _unrecognized(state, text, _EXPECTED[state])


def _read_stats(state: State, text: str, stripped: str) -> LineScan:
    match = _STATS_LINE.match(text)
    if match:
        return LineScan("stats_line", "stats", data=(match.group(1).strip(), match.group(2)))
    return _read_anywhere(state, text, stripped)


def _read_report(state: State, text: str, stripped: str) -> LineScan:
    if stripped.startswith("---"):
        return plain_scan("report_rule", "report")
    if stripped.startswith("The rest ") or stripped.startswith("[The rest "):
        return plain_scan("report_rest", "report")
    match = _REPORT_ROW.match(text)
    if match:
        return LineScan("report_row", "report", data=(match.group(1), match.group(2), match.group(3)))
    match = _REPORT_ALLOCATION.match(stripped)
    if match:
        return LineScan("report_allocation", "report", data=(int(match.group(1)), match.group(2)))
    match = _MEMORY_SPACE_TOTAL.match(stripped)
    if match:
        return LineScan("report_totals", "report", data=(int(match.group(1)), match.group(2)))
    return _read_anywhere(state, text, stripped)


def _read_anywhere(state: State, text: str, stripped: str) -> LineScan:
    """Lines that may stand outside a known section: the protobuf-text report."""
    if _PROTO_LINE.match(text) and not stripped.startswith(("allocation ", "value:")):
        return plain_scan("proto", state)
    return _unrecognized(state, text, _EXPECTED.get(state, "a section header"))


def _unrecognized(state: State, text: str, expected: str) -> LineScan:
    return LineScan("unknown", state, problem=_problem(text, "syntax", f"unexpected text: expected {expected}"))


def _problem(text: str, code: str, message: str, severity: int = 1) -> LineProblem:
    start = len(text) - len(text.lstrip())
    return line_problem(text, start, len(text.rstrip()), code, message, severity)


_EXPECTED: dict[State, str] = {
    "top": "a section header (BufferAssignment:, Total bytes used:, Used values:, HloLiveRange ...)",
    "alloc": "`allocation N: size S, ...:` or ` value: <id name> (size=S,offset=O): shape`",
    "reused": "` value: <id name> (color=C)`",
    "used": "a value block line (`<id name>`, positions:, uses:, from instruction:)",
    "positions": "a position (`name` or `name {index}`), or uses:",
    "uses": "a use (`name, operand N`), (none), or from instruction:",
    "lr": "InstructionSequence:",
    "seq": "`N:name`",
    "ranges": "`name{index}:start-end`",
    "peak": "`name: N bytes` or `name{index}: N bytes (cumulative: M bytes)`",
    "tree": "a stack-trace frame `label (P%, total: ..., current: ..., remaining: ...)`",
    "stats": "`<kind> allocation: <size>`",
    "report": "a memory-usage report line",
}

_READERS: dict[State, Callable[[State, str, str], LineScan]] = {
    "alloc": _read_allocations,
    "reused": _read_reused,
    "used": _read_used_values,
    "positions": _read_used_values,
    "uses": _read_used_values,
    "seq": _read_live_range,
    "ranges": _read_live_range,
    "peak": _read_live_range,
    "tree": _read_live_range,
    "stats": _read_stats,
    "report": _read_report,
}


def _value_ref_data(match: re.Match[str]) -> tuple[object, ...]:
    """(id, name, index text or None, is_phi, color or None) of a `<id name...>` match."""
    color = match.group(6)
    return (int(match.group(2)), match.group(3), match.group(4), match.group(5) is not None,
            int(color) if color is not None else None)


# index, size, color, page, (number, shape, shape index) of a parameter, output shape, flags, what is left unread
AllocationData = tuple[int, int, int, int | None, tuple[int, str, str] | None, str | None, tuple[str, ...], str]


def _allocation_data(match: re.Match[str]) -> AllocationData:
    """(index, size, color, page, parameter, output shape, flags, unread) of an allocation header."""
    color = 0
    page = None
    parameter = None
    output_shape = None
    flags: list[str] = []
    properties = match.group(3)
    position = 0
    for prop in _ALLOCATION_PROPERTY.finditer(properties):
        if prop.start() != position:
            break
        position = prop.end()
        if prop.group(1):
            color = int(prop.group(1))
        elif prop.group(2):
            page = int(prop.group(2))
        elif prop.group(3):
            parameter = (int(prop.group(3)), prop.group(4), prop.group(5))
        elif prop.group(6) is not None:
            output_shape = prop.group(6)
        else:
            flags.append(next(g for g in prop.groups()[6:] if g))
    unread = properties[position:]
    return (int(match.group(1)), int(match.group(2)), color, page, parameter, output_shape, tuple(flags), unread)


def _spaced_int(text: str) -> int:
    return int(text.replace(" ", ""))


_USED_VALUES_START = re.compile(r"^[ \t]*Used values:", re.M)
_SECTION_START = re.compile("^[ \t]*(?:" + "|".join(re.escape(prefix) for prefix in HEADER_PREFIXES) + ")", re.M)
_VALUE_OR_INSTRUCTION = re.compile(r"^[ \t]*(?:(<)|from instruction:)", re.M)


def used_value_shapes(text: str) -> dict[str, str]:
    """The shape of each used value's instruction (by the value's name, the first of a name), read as the
    scanner reads them, from the value and `from instruction:` lines of the `Used values:` section alone: a
    peak needs these shapes and nothing else of a values file of 20 MB."""
    section = _USED_VALUES_START.search(text)
    if section is None:
        return {}
    following = _SECTION_START.search(text, text.find("\n", section.end()) + 1 or len(text))
    end = following.start() if following is not None else len(text)
    shapes: dict[str, str] = {}
    name: str | None = None
    for match in _VALUE_OR_INSTRUCTION.finditer(text, section.end(), end):
        line_end = text.find("\n", match.end())
        line = text[match.start():line_end if line_end >= 0 else len(text)]
        if match.group(1) is not None:
            value = _USED_VALUE.match(line.strip())
            name = value.group(3) if value is not None else None
        elif name is not None:
            data = _scan_from_instruction(line).data
            if len(data) > 4:
                shapes.setdefault(name, sys.intern(line[data[2]:data[3]].strip()))
    return shapes
