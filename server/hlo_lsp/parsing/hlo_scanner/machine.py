"""The HLO line-state machine: each line scanned in the state the line above leaves.

It reads each line with a few regular expressions, without building a syntax
tree, so a 40 MB module is indexed in about a second; an instruction line of a template read
before (digit_templates.py) is not read again. The lark grammar
(grammar/hlo.lark) parses a line only when its structure is asked for. XLA's
parser takes whitespace, line ends and comments between any two tokens; dumps
put one item on a line, and that is the fast path. Here too: the states of a
block comment, of a string over lines and of a lone `ROOT` or `ENTRY`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from hlo_lsp.parsing.digit_templates import digits_as_zero, remember, template_cache
from hlo_lsp.parsing.hlo_scanner import forms, rescan
from hlo_lsp.parsing.hlo_scanner.continuations import continued_line, scan_continuation
from hlo_lsp.parsing.hlo_scanner.instructions import instruction_scan, lone_name
from hlo_lsp.parsing.hlo_scanner.lexing import (
    RAW_KEY,
    blank_comments,
    raw_braces,
    string_closed,
    string_end,
    without_line_comment,
)
from hlo_lsp.parsing.hlo_scanner.states import COMP, RAW, RAW_OWNERS, TOP, in_string, into_comment
from hlo_lsp.parsing.hlo_scanner.structure import outside_computation, scan_at_top, scan_in_computation
from hlo_lsp.parsing.line_scan import LineScan, Ref, Role, State, line_problem, new_tuple, plain_scan
from hlo_lsp.parsing.names import NAME

# The forms this module reads, bound as its own names (see forms.py).
_COMPUTATION_HEAD = forms.COMPUTATION_HEAD
_LONE_NAME = forms.LONE_NAME

# The common case in one match: `[ROOT] name = shape opcode(`.
# (A name with `=` glued, `q=`, takes the slow path: XLA's lexer reads it as an attribute's key.)
_INSTRUCTION_START = re.compile(rf"[ \t]*(ROOT[ \t]+)?%?({NAME})(?!=):?[ \t]*=[ \t]*(.*?)[ \t]([a-z][a-z0-9_\-]*)\(")


def scan_hlo_line(state: State, text: str) -> LineScan:
    """Scans one line of an HLO module (without its line end) in `state`."""
    if text.endswith("\r"):
        text = text[:-1]
    if state == COMP:
        if text == "}":  # a computation's end: a tenth of a module's lines
            return plain_scan("computation_end", TOP)
        template = digits_as_zero(text) if text.isascii() else None
        known = _KNOWN_INSTRUCTIONS.get(template) if template is not None else None
        if known is not None:  # most lines of a large module: a template read before (inlined, as below)
            name_start, name_end, shape_start, opcode_start, opcode_end, opcode, is_root = known
            name = text[name_start:name_end]
            data = (name, shape_start, opcode_start, opcode or sys.intern(text[opcode_start:opcode_end]), is_root)
            definition = (new_tuple(Ref, (_INSTRUCTION_DEF, name, name_start, name_end)),)
            return new_tuple(LineScan, ("instruction", COMP, definition, data, None))
        fast = _INSTRUCTION_START.match(text)
        if fast is not None:
            # Whether the fast match read the line right, by what it took for the shape: not when that
            # holds a `=` (another item, a glued `q=`) or an opcode (`v = add(p, negate(p))` has no
            # shape; a shape's own parentheses follow no lowercase name: tuples, `T(8,128)`). Inlined:
            # a 40 MB module has a million lines.
            shape = fast.group(3)
            if "=" not in shape and "/" not in shape and ("(" not in shape or _OPCODE_CALL.search(shape) is None):
                # A comment may hide how the line ends (`abs(p), /* a`): the line is read with it blanked.
                if "/*" in text:
                    return _scan_with_comments(state, text)
                scan = instruction_scan(text, fast)
                if template is not None:
                    _learn_template(template, scan)
                return scan
    if isinstance(state, tuple) and state[0] in _ITEM_STATES:
        if state[0] in ("cont", "root", "entry") and "/*" in text and state[-1] not in RAW_OWNERS:
            # an item going on: its comments too (what backend_config's braces hold is raw text: not there)
            if RAW_KEY in text:
                return _scan_with_comments(state, text)
            blanked, unclosed = blank_comments(text)
            scan = _ITEM_STATES[state[0]](state, blanked)
            return into_comment(scan) if unclosed else scan
        return _ITEM_STATES[state[0]](state, text)
    if "/*" in text:
        return _scan_with_comments(state, text)
    return _scan_item(state, text) if state != TOP else _top_line(text)


rescan.line = scan_hlo_line  # for the parts below that scan a line again (rescan.py)

# An instruction line that is one whole item, by its template (digit_templates.py): (name start, name end,
# shape start, opcode start, opcode end, opcode or None where it holds a digit (`atan2`), is_root).
_KNOWN_INSTRUCTIONS: dict[bytes, tuple[int, int, int, int, int, str | None, bool]] = template_cache()
_INSTRUCTION_DEF = Role.INSTRUCTION_DEF


def _learn_template(template: bytes, scan: LineScan) -> None:
    """Keeps the scan of an instruction line that is one whole item, for the lines of its template."""
    if scan.end_state != COMP or scan.kind != "instruction" or scan.problem is not None or len(scan.refs) != 1:
        return
    name, shape_start, opcode_start, opcode, is_root = scan.data
    definition = scan.refs[0]
    known_opcode = None if any(digit in opcode for digit in "0123456789") else opcode
    opcode_end = opcode_start + len(opcode)
    remember(_KNOWN_INSTRUCTIONS, template,
             (definition.start, definition.end, shape_start, opcode_start, opcode_end, known_opcode, is_root))


_OPCODE_CALL = re.compile(r"[a-z][a-z0-9_\-]*\(")  # in what the fast match took for a shape: an opcode

# A computation header whose `{` ends its line, by its template: (name start, name end, is ENTRY, signature's `(`).
_KNOWN_HEADERS: dict[bytes, tuple[int, int, bool, int]] = template_cache()
_COMPUTATION_DEF = Role.COMPUTATION_DEF


def _top_line(text: str) -> LineScan:
    """A line outside any computation (its comments, if any, blanked): most of them a computation's header, read
    from its template where a header of it was read before, as an instruction line is."""
    if not text:
        return plain_scan("blank", TOP)
    template = digits_as_zero(text) if text.isascii() else None
    known = _KNOWN_HEADERS.get(template) if template is not None else None
    if known is not None:
        name_start, name_end, is_entry, open_paren = known
        name = text[name_start:name_end]
        definition = (new_tuple(Ref, (_COMPUTATION_DEF, name, name_start, name_end)),)
        return new_tuple(LineScan, ("computation", COMP, definition, (name, is_entry, open_paren), None))
    scan = _scan_item(TOP, text)
    if template is not None and scan.kind == "computation" and scan.end_state == COMP and scan.problem is None \
            and len(scan.refs) == 1 and scan.refs[0].name == scan.data[0]:
        ref = scan.refs[0]
        remember(_KNOWN_HEADERS, template, (ref.start, ref.end, scan.data[1], scan.data[2]))
    return scan


def _scan_item(state: State, text: str) -> LineScan:
    stripped = text.strip()
    if not stripped or stripped.startswith("//"):
        return plain_scan("blank", state)
    if state == COMP:
        return scan_in_computation(text, stripped)
    return scan_at_top(state, text, stripped)


def _scan_with_comments(state: State, text: str) -> LineScan:
    raw, owner = 0, RAW
    if RAW_KEY in text:  # what backend_config's braces hold is raw text, comments and all: blanked first
        text, raw, owner = raw_braces(text)
    blanked, unclosed = blank_comments(text)
    scan = scan_hlo_line(state, blanked) if "/*" not in blanked else _scan_item(state, blanked)
    if raw and isinstance(scan.end_state, tuple) and scan.end_state[-1] == RAW:  # the braces left open, as
        end_state = ("cont", raw, scan.end_state[2], owner)                      # deep as the raw text opens them
        return LineScan(scan.kind, end_state, scan.refs, scan.data, scan.problem)
    return into_comment(scan) if unclosed else scan


def _scan_in_comment(state: tuple[str, State], text: str) -> LineScan:
    end = text.find("*/")
    if end < 0:  # a line of the comment: inside an item that goes on (`abs(p), /* a`), the item's
        return plain_scan("continuation" if isinstance(state[1], tuple) and state[1][0] == "cont" else "comment", state)
    rest = " " * (end + 2) + text[end + 2 :]
    scan = scan_hlo_line(state[1], rest)
    return plain_scan("comment", scan.end_state) if scan.kind == "blank" else scan


def _scan_in_string(state: tuple[str, int, State, str], text: str) -> LineScan:
    _, depth, base, owner = state
    close = string_end(text, -1) if '"' in text else -1
    if close >= 0 and _ends_wrong(text, close + 1) and _resumes_after_string(text, base):
        # A quote typed or deleted above: XLA reads on in the string to this line's first quote, where
        # it cannot go on; read as an item here, the rest of the file stays indexed.
        scan = scan_hlo_line(base, text)
        if scan.problem is not None:
            return scan
        problem = line_problem(text, 0, len(text.rstrip()), "unbalanced-brackets",
                               f"the {owner.replace('_', ' ')} above leaves a string open")
        return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)
    scan = continued_line(depth, base, owner, text, in_string=True)
    closed = string_closed(text)  # a block comment left open after the string: the lines below are in it
    return into_comment(scan) if closed is not None and "/*" in closed and blank_comments(closed)[1] else scan


_AFTER_A_STRING = re.compile(rf"[\s,}})\]]|//|/\*|{NAME}=|$")


def _ends_wrong(text: str, after: int) -> bool:
    """Whether what follows a string's closing quote at `after` cannot follow a string in XLA's grammar:
    only a space, `,`, a bracket closing, a comment or an attribute's name (`"a"source_file=`) can."""
    return _AFTER_A_STRING.match(text, after) is None


def _resumes_after_string(text: str, base: State) -> bool:
    """Whether a line where a string left open above ends wrongly is an item of its own: inside a
    computation, a whole instruction or a lone `}`; anywhere, a computation header as XLA prints it
    (unindented, ending with `{`). (Outside computations, as in a header's attribute, an instruction or `}`
    could not be an item.)"""
    if base != TOP and (_INSTRUCTION_START.match(text) or text.strip() == "}"):
        return True
    return text[:1] not in (" ", "\t") and text.rstrip().endswith("{") and bool(_COMPUTATION_HEAD.match(text))


_IN_A_STRING: State = ("string", 0, COMP, "instruction")


def leaves_a_string_open(text: str) -> bool:
    """Whether a line of a computation ends inside a string, read from outside one or from inside one left
    open above (XLA's strings go on over line ends)."""
    return any(in_string(scan_hlo_line(state, text).end_state) for state in (COMP, _IN_A_STRING))


# A lone keyword's state: (the keyword, the state of the line below it); the kind of item it marks, and
# that item named.
_MARKS = {"root": ("instruction", "the instruction `ROOT` marks"),
          "entry": ("computation", "the computation header `ENTRY` marks")}


def _scan_after_mark(state: tuple[str, State], text: str) -> LineScan:
    """The line after a lone `ROOT` or `ENTRY`: the item it marks, or more blank or comment lines."""
    base, (kind, marked) = state[1], _MARKS[state[0]]
    scan = scan_hlo_line(base, text)
    if scan.kind in ("blank", "comment") and scan.end_state in (base, ("comment", base)):
        return LineScan(scan.kind, ("comment", state) if scan.end_state != base else state, scan.refs, scan.data)
    if scan.kind == "items" and scan.data[0][1].kind == kind and scan.problem is None:  # `e { p = ... }`
        first = _marked(scan.data[0][1], kind)
        return LineScan(scan.kind, scan.end_state, scan.refs, ((0, first), *scan.data[1:]), scan.problem)
    if scan.kind == "computation" and kind == "instruction" and base == TOP:  # `ROOT` / `x` / `= ...`: the name
        lone = _LONE_NAME.match(without_line_comment(text))                    # of a text's one instruction
        scan = outside_computation(text, lone_name(text, lone, TOP), lone) if lone is not None else scan
    twice = scan.kind == kind and _already_marked(scan)  # `ROOT` / `ROOT x = ...`
    if scan.kind != kind or scan.problem is not None or twice:
        problem = (None if twice else scan.problem) or line_problem(
            text, 0, len(text.rstrip()), "syntax", f"expected {marked}")
        return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)
    return _marked(scan, kind)


def _already_marked(scan: LineScan) -> bool:
    """Whether an instruction is written with its own `ROOT`, a computation with its own `ENTRY`."""
    if scan.kind == "instruction":
        return len(scan.data) >= 5 and scan.data[4] is True
    return len(scan.data) >= 2 and scan.data[1] is True


def _marked(scan: LineScan, kind: str) -> LineScan:
    """The scan of the item a lone `ROOT` or `ENTRY` above it marks, marked so."""
    data = scan.data[:4] + (True,) if kind == "instruction" else (scan.data[0], True, *scan.data[2:])
    return LineScan(scan.kind, scan.end_state, scan.refs, data, scan.problem)


_ITEM_STATES: dict[str, Callable[[State, str], LineScan]] = {
    "cont": scan_continuation, "string": _scan_in_string, "comment": _scan_in_comment,
    "root": _scan_after_mark, "entry": _scan_after_mark}
