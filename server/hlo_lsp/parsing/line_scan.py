"""The result of scanning one line: its kind, the names it defines or mentions, its data.

A scan depends only on the line's text and the scanner state at its start, and
yields the state for the next line. That is what makes re-indexing after an edit
proportional to the edit: a line is scanned again only when its text or its
incoming state changed. Scans and refs are named tuples: a large module has a
million of them, and tuples are the cheapest immutable records to build.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import IntEnum
from typing import Any, NamedTuple

from hlo_lsp.text import Utf16Columns, utf16_column

# Scanner states are small hashable values: a section name, or a tuple for a
# construct that continues over several lines.
State = Any


class Role(IntEnum):
    """What a name occurrence does."""

    INSTRUCTION_DEF = 1  # `%x = ...` in an HLO module
    INSTRUCTION_USE = 2  # an operand, control-predecessors, a signature parameter
    COMPUTATION_DEF = 3  # a computation header
    COMPUTATION_USE = 4  # calls=, to_apply=, condition=, body=, branch_computations=...
    INSTRUCTION_MENTION = 5  # an instruction named in a buffer-assignment / live-range file
    COMPUTATION_MENTION = 6  # a computation named in a buffer-assignment file
    VALUE_DEF = 7  # a value's id on its allocation line
    VALUE_MENTION = 8  # a value's id elsewhere (Used values header)
    FRAME_DEF = 9  # a StackFrames row id
    FRAME_USE = 10  # stack_frame_id=N, parent_frame_id=N
    LOCATION_DEF = 11
    LOCATION_USE = 12
    FILE_NAME_DEF = 13
    FILE_NAME_USE = 14
    FUNCTION_NAME_DEF = 15
    FUNCTION_NAME_USE = 16


DEFINITION_ROLES = frozenset(
    (Role.INSTRUCTION_DEF, Role.COMPUTATION_DEF, Role.VALUE_DEF, Role.FRAME_DEF,
     Role.LOCATION_DEF, Role.FILE_NAME_DEF, Role.FUNCTION_NAME_DEF)
)


class Ref(NamedTuple):
    role: Role
    name: str
    start: int  # UTF-16 columns
    end: int


class LineProblem(NamedTuple):
    start: int  # UTF-16 columns
    end: int
    code: str
    message: str
    severity: int = 1  # problems.Severity value; ERROR unless said otherwise


class LineScan(NamedTuple):
    kind: str
    end_state: State
    refs: tuple[Ref, ...] = ()
    data: tuple[Any, ...] = ()
    problem: LineProblem | None = None


# Builds a named tuple from a tuple of all its fields, in C: the named tuple's own constructor is a Python
# call, and the hot paths build a million refs and scans for a 40 MB module.
new_tuple = tuple.__new__

_PLAIN_SCANS: dict[tuple[str, State], LineScan] = {}
_PLAIN_SCANS_KEPT = 4096


def plain_scan(kind: str, state: State) -> LineScan:
    """A scan with no names, data or problem, shared by every line of that kind and state: a large
    dump has hundreds of thousands of blank lines, `}`, `positions:` and `uses:` headers."""
    scan = _PLAIN_SCANS.get((kind, state))
    if scan is None:
        scan = LineScan(kind, state)
        if len(_PLAIN_SCANS) < _PLAIN_SCANS_KEPT:  # continuation states carry a depth: bounded, not all kept
            _PLAIN_SCANS[kind, state] = scan
    return scan


_NO_ITEM_KINDS = frozenset(("blank", "comment"))


def first_item_index(scans: Iterable[LineScan]) -> int | None:
    """The index of the first scan that reads an item (not a blank or comment line), or None."""
    return next((index for index, scan in enumerate(scans) if scan.kind not in _NO_ITEM_KINDS), None)


class RefCollector:
    """Builds Refs for one line, converting Python indices to UTF-16 columns once."""

    __slots__ = ("_columns", "refs")

    def __init__(self, text: str) -> None:
        self._columns = None if text.isascii() else Utf16Columns(text)
        self.refs: list[Ref] = []

    def add(self, role: Role, name: str, start: int) -> None:
        end = start + len(name)
        if self._columns is not None:
            start, end = self._columns.column(start), self._columns.column(end)
        self.refs.append(new_tuple(Ref, (role, name, start, end)))

    def add_matches(self, role: Role, matches: Iterable[re.Match[str]]) -> None:
        """A ref for group 1 of each match (a list comprehension where columns need no conversion:
        the operands of a large module are a million names)."""
        if self._columns is None:
            self.refs.extend([new_tuple(Ref, (role, match[1], match.start(1), match.end(1))) for match in matches])
            return
        for match in matches:
            self.add(role, match[1], match.start(1))


def make_ref(text: str, role: Role, name: str, start: int, end: int | None = None) -> Ref:
    """A Ref for `name` found at Python index `start` (to `end`, default start + len(name)) of `text`."""
    end = start + len(name) if end is None else end
    if text.isascii():
        return new_tuple(Ref, (role, name, start, end))
    return Ref(role, name, utf16_column(text, start), utf16_column(text, end))


def line_problem(text: str, start: int, end: int, code: str, message: str, severity: int = 1) -> LineProblem:
    """A problem between Python indices `start` and `end` of `text` (never ending before it starts)."""
    return LineProblem(utf16_column(text, start), utf16_column(text, max(start, end)), code, message, severity)


def bracket_balance(text: str) -> int:
    """Opened minus closed brackets on a line, not counting those inside strings."""
    count = text.count
    if count("(") == count(")") and count("{") == count("}") and count("[") == count("]"):
        return 0  # the common case; strings rarely hold brackets, and never unbalanced ones here
    if '"' in text:
        text = strip_strings(text)
        count = text.count
    return count("(") + count("[") + count("{") - count(")") - count("]") - count("}")


def open_string_end(text: str, in_string: bool) -> tuple[int, bool]:
    """(bracket balance, whether a string is still open at the end) of a line of an item that may
    hold multi-line strings (XLA's parser takes raw newlines inside quotes), starting inside one or not."""
    balance, index, length = 0, 0, len(text)
    while index < length:
        char = text[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "([{":
            balance += 1
        elif char in ")]}":
            balance -= 1
        index += 1
    return balance, in_string


def strip_strings(text: str) -> str:
    """`text` with the contents of double-quoted strings removed (quotes kept)."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        j = text.find('"', i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i : j + 1])
        k = j + 1
        while k < n and text[k] != '"':
            k += 2 if text[k] == "\\" else 1
        out.append('"')
        i = k + 1
    return "".join(out)


_STRING_LINE_COMMENT_OR_LINE_END = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*|[\r\n]')


def as_one_line(text: str) -> str:
    """An item written over several lines as one line of the same length (its offsets kept): XLA reads
    line ends, and `//` comments to them, as whitespace between any two tokens."""
    return _STRING_LINE_COMMENT_OR_LINE_END.sub(
        lambda found: found.group() if found.group()[0] == '"' else " " * len(found.group()), text)


_NOT_LINE_END = re.compile(r"[^\n]")


def as_spaces(text: str) -> str:
    """`text` blanked, its line ends kept (a comment over lines read as a space keeps its lines' numbers)."""
    return " " * len(text) if "\n" not in text else _NOT_LINE_END.sub(" ", text)
