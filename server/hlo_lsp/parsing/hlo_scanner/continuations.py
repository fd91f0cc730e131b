"""The lines an HLO item goes on over: its shape, operands, attributes, header or raw braces, to a new item."""

from __future__ import annotations

import re

from hlo_lsp.parsing.hlo_items import item_starts
from hlo_lsp.parsing.hlo_scanner import forms, rescan
from hlo_lsp.parsing.hlo_scanner.instructions import MAX_ITEMS_ON_A_LINE, items_scan, may_start_another
from hlo_lsp.parsing.hlo_scanner.lexing import (
    RAW_KEY,
    blank_comments,
    body_open,
    brace_balance_until_closed,
    head_depth,
    operand_list_end,
    raw_braces,
    raw_braces_owner,
    string_closed,
    string_end,
    without_comments,
    without_line_comment,
)
from hlo_lsp.parsing.hlo_scanner.owners import (
    goes_on,
    list_going_on,
    opens_inline_computation,
    operands_owner,
    value_below,
)
from hlo_lsp.parsing.hlo_scanner.states import (
    CALLED,
    CALLED_LIST,
    COMP,
    HEAD_OWNER,
    HEADER_OWNER,
    INLINE,
    LIST_ROLES,
    LIST_VALUES,
    LITERAL,
    NAME_OWNER,
    OPERAND_OWNERS,
    OPERANDS,
    PREDECESSORS,
    RAW,
    RAW_OWNERS,
    RAW_STRING,
    TOP,
    into_comment,
)
from hlo_lsp.parsing.line_scan import LineScan, State, bracket_balance, line_problem, open_string_end, plain_scan
from hlo_lsp.parsing.names import NAME

# The forms this module reads, bound as its own names (see forms.py).
_COMPUTATION_END = forms.COMPUTATION_END
_COMPUTATION_HEAD = forms.COMPUTATION_HEAD
_INSTRUCTION_HEAD = forms.INSTRUCTION_HEAD
_OPCODE = forms.OPCODE

# A continued item's attribute: `key=value` (XLA reads a glued `key=` as an attribute, never as a definition).
_ATTRIBUTE_START = re.compile(r"[ \t]*" + NAME + r"=")
# The owners of the lines that may end their item and start others (a key's value below it, too: `to_apply=`
# above `add }`).
_SPLIT_OWNERS = frozenset(("instruction", OPERANDS, LITERAL, INLINE, CALLED, CALLED_LIST, PREDECESSORS))
# The owners whose lines' uses depend on how deep in brackets a line starts: where the operand list, or the
# computation written inline, closes (the attributes after it name computations: `}, body=b`).
_DEPTH_OWNERS = OPERAND_OWNERS | {INLINE}


def scan_continuation(state: tuple[str, int, State, str], text: str) -> LineScan:
    _, depth, base, owner = state
    if owner in RAW_OWNERS:
        return _raw_continued(depth, base, text, owner == RAW_STRING)
    stripped = text.strip()
    if not stripped or stripped.startswith("//"):
        return plain_scan("continuation", state)
    if owner == NAME_OWNER:
        return _after_name(base, text)
    if owner == HEADER_OWNER and (not _starts_new_item(text, stripped, base, depth) or _more_parameters(text, depth)):
        return _header_continued(depth, text)
    if owner == INLINE:  # its instructions, and the `}` that closes it, are the instruction's
        return continued_line(depth, base, owner, text)
    if owner == "module_header" and depth and _INSTRUCTION_HEAD.match(text) and not stripped.endswith("{"):
        return continued_line(depth, base, owner, text)  # inside its braces, `c = d` is more of a header attribute
    if _starts_new_item(text, stripped, base, depth):
        if owner == HEAD_OWNER and not depth:  # its opcode and operands, then other items: `abs(x) } ENTRY e {`
            continued = _head_continued(base, text)
            if continued.kind == "items":
                return continued
        # A new item starts while the previous one is still open: it was cut short. Scan this line
        # fresh so the rest of the file stays indexed (a header cut short opened no computation).
        unopened = owner == HEADER_OWNER and not depth and _COMPUTATION_HEAD.match(text)
        scan = rescan.line(TOP if unopened else base, text)
        if scan.problem is not None or (owner == HEADER_OWNER and not depth):  # the grammar tells of its `{`
            return scan
        left = f"leaves {depth} bracket(s) open" if depth else (
            "ends before its opcode" if owner == HEAD_OWNER else "ends with a comma")
        problem = line_problem(text, 0, len(text.rstrip()), "unbalanced-brackets",
                               f"the {owner.replace('_', ' ')} above {left}")
        return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)
    return continued_line(depth, base, owner, text)


def _more_parameters(text: str, depth: int) -> bool:
    """Whether an indented line inside a signature's open brackets reads as more of it, though it looks like a
    header (`  t: (s32[], f32[])) -> f32[] {`): XLA prints headers unindented, and no instruction starts it."""
    return depth > 0 and text[:1] in (" ", "\t") and _INSTRUCTION_HEAD.match(text) is None


def _starts_new_item(text: str, stripped: str, base: State, depth: int) -> bool:
    if _ATTRIBUTE_START.match(text):
        return False  # `key=value`: the attributes of the item above go on, or the fields of its `{...}`
    # A `}` inside open brackets closes one, as XLA's lexer reads it (`metadata={...` / `}`): the
    # computation's own `}` then comes later, or the structure check tells it is missing.
    return bool(_INSTRUCTION_HEAD.match(text) or (base == COMP and not depth and _COMPUTATION_END.match(text)) or (
        stripped.endswith("{") and _COMPUTATION_HEAD.match(text) and "=" not in stripped))


def _after_name(base: State, text: str) -> LineScan:
    """The line after an instruction's lone name: its `=`, then its shape and opcode."""
    equals = text.find("=")
    if equals < 0 or text[:equals].strip():  # the name's item ends unfinished: the grammar tells
        return rescan.line(base, text)
    return _head_continued(base, " " * (equals + 1) + text[equals + 1 :])


def _header_continued(depth: int, text: str) -> LineScan:
    """A line of a computation header that goes on over lines: more of its signature, or its `{`."""
    clean = without_line_comment(text)
    opened = body_open(clean, depth)
    if opened >= 0:
        ended = _continuation(COMP, (HEADER_OWNER,))
        body = clean[opened + 1 :]
        if not body.strip():
            return ended
        first = len(clean) - len(body.lstrip())  # the body's first item, on this line (`{ p = ...`)
        starts = item_starts(" " * first + clean[first:], True)
        return items_scan(COMP, text, [first, *starts], [(0, ended)]) if len(starts) < MAX_ITEMS_ON_A_LINE else ended
    return _continuation(("cont", max(depth + bracket_balance(clean), 0), COMP, HEADER_OWNER), (HEADER_OWNER,))


def _head_continued(base: State, text: str, depth: int = 0) -> LineScan:
    """A line of an instruction whose opcode has not come yet (`v =` above it), `depth` brackets of its shape
    open at the line's start: its shape, or its opcode and operands."""
    if "(" not in without_line_comment(text):
        return _continuation(("cont", head_depth(depth, text), base, HEAD_OWNER), (HEAD_OWNER,))
    opcode = _OPCODE.search(" " + text)  # the opcode may start the line
    if opcode is None:  # a tuple shape: the opcode is still to come
        return _continuation(("cont", head_depth(depth, text), base, HEAD_OWNER), (HEAD_OWNER,))
    open_paren = opcode.end() - 2
    return continued_line(0, base, operands_owner(opcode.group(1)), " " * open_paren + text[open_paren:])


def continued_line(depth: int, base: State, owner: str, text: str, in_string: bool = False) -> LineScan:
    """A continuation line, and the state after it."""
    if owner == HEAD_OWNER:
        return _head_continued(base, text, depth)
    data: tuple[object, ...] = (owner, depth) if owner in _DEPTH_OWNERS else (owner,)  # (depth: on entering)
    if RAW_KEY in text and not in_string:  # backend_config's braces hold raw text: blanked, or left open below
        blanked, raw, raw_owner = raw_braces(text)
        if raw:  # (perhaps those of another item after the one this line ends: `p) ROOT v = abs(q), backend_config={`)
            more = _ended_then_more(text, depth, _continuation(base, data), blanked) if owner in _SPLIT_OWNERS else None
            return more or _continuation(("cont", raw, base, raw_owner), data)
        text = blanked
    counted = without_line_comment(text) if "//" in text and not in_string else text
    # (a line that starts inside a string: what it holds after the string's closing quote, its comments blanked;
    # "" where it holds none)
    outside = text if not in_string else string_closed(text) or ""
    if in_string and "/" in outside:
        outside = without_comments(outside)
        close = string_end(text, -1) + 1
        counted = text[:close] + outside[close:]
    balance, in_string = open_string_end(counted, in_string) if in_string or '"' in counted else (
        bracket_balance(counted), False)
    entering, depth = depth, max(depth + balance, 0)
    if owner in OPERAND_OWNERS:
        owner = owner if depth > 0 and operand_list_end(text, entering) < 0 else "instruction"
    elif owner == CALLED:  # this line holds the value: a name, or the `{` of a computation written inline
        owner = INLINE if depth > entering else "instruction"
    elif owner in LIST_VALUES:  # its value: a name, or a braced list, which may go on below (`{// c` / `a}`)
        owner = LIST_VALUES[owner] if depth > entering else "instruction"
    elif owner in LIST_ROLES:  # the list's names go on to its `}`
        owner = owner if "}" not in without_line_comment(text) else "instruction"
    elif owner == INLINE and depth == 0:  # it closed: the instruction's attributes go on (`},` above `body=b`)
        owner = "instruction"
    # (its operands too; or its operand list closes on this line, then an inline computation opens: `), calls={`)
    if owner == "instruction" and (depth > entering or depth > 0 and data[0] in OPERAND_OWNERS) and \
            opens_inline_computation(outside):
        owner = INLINE
    if owner == "instruction" and depth > 0:  # a list of names left open: `p), branch_computations={b1,`
        owner = list_going_on(outside) or owner
    if owner == "instruction" and depth == 0:
        owner = value_below(outside) or owner
    # the item may end on this line, and others start (the last may go on below: brackets or a string open)
    more = _ended_then_more(outside, entering, _continuation(base, data)) if data[0] in _SPLIT_OWNERS else None
    if more is not None:
        return more
    if in_string:
        return _continuation(("string", depth, base, owner), data)
    if depth > 0 or goes_on(outside):
        return _continuation(("cont", depth, base, owner), data)
    return _continuation(base, data)


def _ended_then_more(text: str, entering: int, ended: LineScan, raw_blanked: str | None = None) -> LineScan | None:
    """A line that ends the instruction above it and goes on with other items, as XLA reads tokens, not
    lines (`p), calls=w ROOT d = ...`, `f32[] abs(p) }`): kind "items", the first the instruction's end (its
    items found in `raw_blanked`, where given: the line with what backend_config's braces hold blanked)."""
    if ended.end_state != COMP or ("=" not in text and "}" not in text and not may_start_another(text, 0)):
        return None
    flat = without_comments(raw_blanked or text)
    closed = not entering or ended.data[0] == "instruction"  # (else the operand list is open: depth `entering`)
    starts = item_starts(flat, True, operands_closed=closed)
    # none, or a start inside the brackets still open: items are looked for after they close (`}, body={...} }`)
    if entering and (not starts or entering + bracket_balance(text[: starts[0]]) > 0):
        close = operand_list_end(flat, entering)
        # (a `)` where they close: the instruction's, whatever bracket it was, so that a `}` after it ends more)
        starts = item_starts(" " * close + ")" + flat[close + 1 :], True, operands_closed=True) if close >= 0 else []
    if not starts or len(starts) >= MAX_ITEMS_ON_A_LINE:
        return None
    return items_scan(COMP, text, starts, [(0, ended)])


def _raw_continued(depth: int, base: State, text: str, in_string: bool = False) -> LineScan:
    """A line inside backend_config's braces, `depth` deep at its start (0: the line below `backend_config=`,
    its value to come), perhaps inside a string of them: raw text to the brace that closes them (a line that
    reads like an instruction is more of it); the instruction goes on after it."""
    start = 0
    if in_string:  # XLA's lexer skips a string to its closing quote, line ends and all
        close = string_end(text, -1)
        if close < 0:
            return _continuation(("cont", depth, base, RAW_STRING), (RAW,))
        start = close + 1
    elif not depth:
        clean = without_comments(text)
        start = len(clean) - len(clean.lstrip())
        if not clean.strip():
            return _continuation(("cont", 0, base, RAW), (RAW,))
        if clean[start] != "{":  # a string
            return continued_line(0, base, "instruction", text)
        start, depth = start + 1, 1
    balance, end = brace_balance_until_closed(text, start, depth)
    if end < 0:
        return _continuation(("cont", depth + balance, base, raw_braces_owner(text, start)), (RAW,))
    rest = text[end:]
    # after the braces: comments again; the braces read as one token (a `0` where they close), so that a `}` after
    # them ends the computation (`json} }`)
    blanked, unclosed = blank_comments(" " * (end - 1) + "0" + rest)
    scan = continued_line(0, base, "instruction", blanked)
    scan = _continuation(scan.end_state, (RAW,)) if scan.kind == "continuation" and "=" not in rest else scan
    return into_comment(scan) if unclosed else scan


_CONTINUATIONS: dict[tuple[State, tuple[object, ...]], LineScan] = {}


def _continuation(next_state: State, data: tuple[object, ...]) -> LineScan:
    """A continuation line of an item: `data` is (the item's kind,) — its attributes may name
    computations — or (OPERANDS, the brackets open at the line's start). One shared scan per state."""
    scan = _CONTINUATIONS.get((next_state, data))
    if scan is None:
        scan = LineScan("continuation", next_state, data=data)
        if len(_CONTINUATIONS) < 4096:
            _CONTINUATIONS[next_state, data] = scan
    return scan


def goes_on_from_above(scan: LineScan) -> bool:
    """Whether a line goes on with the item of a line above it (then perhaps starts others)."""
    return scan.kind == "continuation" or scan.kind == "items" and scan.data[0][1].kind == "continuation"


def continued_end(scan: LineScan, text: str) -> int | None:
    """Where the text of the item above stops on a line that goes on with it: the line's end, the start of
    the line's next item, or None when the line does not go on with the item above."""
    if scan.kind == "continuation":
        return len(text)
    if scan.kind == "items" and scan.data[0][1].kind == "continuation":
        return scan.data[1][0]
    return None
