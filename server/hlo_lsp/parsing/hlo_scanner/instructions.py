"""HLO instruction lines: the one-match fast path, an instruction read from its head, and lines of several items."""

from __future__ import annotations

import re
import sys

from hlo_lsp.parsing.hlo_items import item_starts
from hlo_lsp.parsing.hlo_scanner import forms, rescan
from hlo_lsp.parsing.hlo_scanner.lexing import (
    RAW_KEY,
    blank_comments,
    head_depth,
    raw_braces,
    without_comments,
    without_line_comment,
)
from hlo_lsp.parsing.hlo_scanner.owners import value_below, with_continuation
from hlo_lsp.parsing.hlo_scanner.states import COMP, HEAD_OWNER, NAME_OWNER, TOP
from hlo_lsp.parsing.line_scan import (
    LineProblem,
    LineScan,
    Ref,
    Role,
    State,
    as_one_line,
    line_problem,
    make_ref,
    new_tuple,
)
from hlo_lsp.parsing.names import NAME

# The forms this module reads, bound as its own names (see forms.py).
_INSTRUCTION_HEAD = forms.INSTRUCTION_HEAD
_OPCODE = forms.OPCODE


def instruction_scan(text: str, match: re.Match[str]) -> LineScan:
    """The scan of an instruction line inside a computation, from one regex match."""
    name, start = match.group(2), match.start(2)
    if text.isascii():
        definition = (new_tuple(Ref, (_INSTRUCTION_DEF, name, start, start + len(name))),)
    else:
        definition = (make_ref(text, Role.INSTRUCTION_DEF, name, start),)
    # A few dozen opcodes name a million instructions: one string each.
    data = (name, match.start(3), match.start(4), sys.intern(match.group(4)), match.group(1) is not None)
    count, end, last = text.count, match.end(), text[-1:]
    # Most lines: one whole item. The last two tests are `not may_start_another(text, end)` inlined for a
    # line without a `//` and trailing blanks (a call per line costs 5 % of the scan of a 40 MB module).
    if count("{") == count("}") and count("(") == count(")") and count("[") == count("]") and \
            not count('"') & 1 and last not in _ENDS_OPEN and _ANOTHER_ITEM_OR_COMMENT.search(text, end) is None \
            and (last not in _NAME_CHARS or _TRAILING_ITEM_NAME.search(text, end) is None):
        return new_tuple(LineScan, ("instruction", COMP, definition, data, None))
    return _instruction_line_scan(text, end, LineScan("instruction", COMP, definition, data))


_INSTRUCTION_DEF = Role.INSTRUCTION_DEF


def _instruction_line_scan(text: str, end: int, scan: LineScan) -> LineScan:
    """An instruction line that may hold other items after it, or go on below."""
    if RAW_KEY in text:  # backend_config's braces hold raw text: blanked, or left open to the lines below
        blanked, raw, owner = raw_braces(text)
        if raw:  # (perhaps after other items: `p = f32[] parameter(0) ROOT v = abs(p), backend_config={a // b`)
            several = several_items(COMP, text, blanked) if may_start_another(blanked, end) else None
            return several or LineScan(scan.kind, ("cont", raw, COMP, owner), scan.refs, scan.data, scan.problem)
        text = blanked
    count = text.count
    opens, closes = count("{"), count("}")
    last = text[-1:] if text[-1:] not in _BLANKS and "//" not in text else without_line_comment(text).rstrip()[-1:]
    if closes > opens or last == "{" or may_start_another(text, end):
        # perhaps another item after it (`}` then a header: `ROOT y = abs(x) } ENTRY e {`)
        several = several_items(COMP, text)
        if several is not None:
            return several
    if opens == closes and count("(") == count(")") and count("[") == count("]") and not count('"') & 1 and \
            "//" not in text and (text[-1:] not in _GOES_ON or text[-1] == "=" and value_below(text) is None):
        # (a line that ends with another `=` goes on when the grammar says so: its error is the line's own)
        return scan
    return with_continuation(scan, text, COMP)


_ENDS_OPEN = frozenset(("", ",", "=", " ", "\t", "{"))  # a line that ends so may go on, or open a body
# After an instruction's opcode, what starts another item: a definition (`v =`; `%v=`, which XLA's lexer reads as
# `%v` then `=`) or `ROOT`; and the same or a line comment.
_ANOTHER_ITEM = re.compile(rf" =|ROOT|%{NAME}=")
_ANOTHER_ITEM_OR_COMMENT = re.compile(rf"{_ANOTHER_ITEM.pattern}|//")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-:")
# A name last on the line, not an attribute's value: the next instruction, its `=` on the line below.
_TRAILING_ITEM_NAME = re.compile(rf"[ \t)]%?{NAME}:?[ \t]*$")


def may_start_another(text: str, end: int) -> bool:
    """Whether an instruction line may start another item after the instruction (from `end`, after its
    opcode): a definition (`v =`, `%v=`), `ROOT`, or a name last on the line (its `=` below)."""
    if _ANOTHER_ITEM.search(text, end) is not None:
        return True
    clean = (without_line_comment(text) if "//" in text else text).rstrip()
    return clean[-1:] in _NAME_CHARS and _TRAILING_ITEM_NAME.search(clean, end) is not None


_GOES_ON = frozenset((",", "=", " ", "\t"))  # a line that ends so may go on below (`=`: see below)
_BLANKS = frozenset((" ", "\t"))
MAX_ITEMS_ON_A_LINE = 64  # more on one line: a garbled line (a paste), read as one item


def several_items(state: State, text: str, raw_blanked: str | None = None) -> LineScan | None:
    """The scan of a line that holds several items (kind "items", data: (start, scan) per item, each
    scanned in the state the one before it leaves), or None where it holds one (its items found in
    `raw_blanked`, where given: the line with what backend_config's braces hold blanked)."""
    starts = item_starts(without_comments(raw_blanked or text), state != TOP)
    if not starts or len(starts) >= MAX_ITEMS_ON_A_LINE:  # each item is scanned in a copy of the line
        return None
    return items_scan(state, text, [0, *starts], [])


def items_scan(state: State, text: str, starts: list[int], items: list[tuple[int, LineScan]]) -> LineScan:
    """A line of several items: `items` (read already), then one from each of `starts`, each scanned in the
    state the one before it leaves."""
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        scan = rescan.line(state, " " * start + text[start:end])
        if scan.kind == "items":  # the piece read as several itself: its items, not a nested line of items
            items.extend((max(inner, start), item) for inner, item in scan.data)
        else:
            items.append((start, scan))
        state = scan.end_state
    problem = next((scan.problem for _, scan in items if scan.problem is not None), None)
    return LineScan("items", state, tuple(ref for _, scan in items for ref in scan.refs), tuple(items), problem)


def scan_instruction_at(text: str, start: int, state: State) -> LineScan:
    """Scans the instruction text that starts at `start` (a `from instruction:` line)."""
    head = _INSTRUCTION_HEAD.match(text, start)
    if head is None:
        problem = line_problem(text, start, len(text.rstrip()), "syntax",
                               "expected an instruction `name = shape opcode(operands)`")
        return LineScan("instruction", state, problem=problem)
    return _read_instruction(text, head, state)


def scan_instruction(text: str, head: re.Match[str], state: State) -> LineScan:
    return with_continuation(_read_instruction(text, head, state), text, state)


def _read_instruction(text: str, head: re.Match[str], state: State) -> LineScan:
    name = head.group(2)
    definition = (make_ref(text, Role.INSTRUCTION_DEF, name, head.start(2)),)
    is_root = head.group(1) is not None
    if text[head.end(2)] == "=" and text[head.start(2) - 1] != "%":
        data = (name, head.end(), head.end(), "", is_root)
        return LineScan("instruction", state, definition, data, _glued_equals(text, head))
    opcode = _OPCODE.search(without_line_comment(text) if "//" in text else text, head.end() - 1)
    if opcode is None:
        data = (name, head.end(), head.end(), "", is_root)
        # `v =`, `v = f32[4]`, `v = (f32[4])` or `v = (f32[],`: XLA reads the rest of its shape, and its
        # opcode, below (a line that starts an item there ends it, cut short)
        going_on = ("cont", head_depth(0, text[head.end() :]), state, HEAD_OWNER)
        return LineScan("instruction", going_on, definition, data)
    data = (name, head.end(), opcode.start(1), sys.intern(opcode.group(1)), is_root)
    return LineScan("instruction", state, definition, data)


def _glued_equals(text: str, head: re.Match[str]) -> LineProblem:
    """XLA's lexer reads a bare name with `=` glued to it (`q=`) as an attribute's key, never as a definition."""
    return line_problem(text, head.start(2), head.end(2) + 1, "syntax",
                        f"`{head.group(2)}=` reads as an attribute: write `{head.group(2)} =`, or `%{head.group(2)}=`")


def continued_instruction_data(text: str, data: tuple) -> tuple:
    """The scan data (name, shape start, opcode start, opcode, is_root) of an instruction whose opcode
    is on a line below its first (`v =` above `f32[4] abs(p)`): offsets into its whole `text`. `data`
    itself when its opcode is on its first line."""
    if data[3]:
        return data
    clean = as_one_line(blank_comments(text)[0])
    opcode = _OPCODE.search(clean, max(data[1] - 1, 0))
    if opcode is None:
        return data
    rest = clean[data[1] :].lstrip()
    if rest.startswith("="):  # a lone name above its `=`
        rest = rest[1:].lstrip()
    shape_start = len(clean) - len(rest)
    return (data[0], min(shape_start, opcode.start(1)), opcode.start(1), sys.intern(opcode.group(1)), data[4])


def lone_name(text: str, lone: re.Match[str], state: State = COMP) -> LineScan:
    """`[ROOT] name` alone on a line: the instruction it names goes on below (`= shape opcode(...)`)."""
    definition = (make_ref(text, Role.INSTRUCTION_DEF, lone.group(2), lone.start(2)),)
    data = (lone.group(2), len(text), len(text), "", lone.group(1) is not None)
    return LineScan("instruction", ("cont", 0, state, NAME_OWNER), definition, data)
