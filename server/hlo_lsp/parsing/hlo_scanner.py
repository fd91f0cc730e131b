"""Fast line scanner for HLO module text: line kinds, definitions and uses.

It reads each line with a few regular expressions, without building a syntax
tree, so a 40 MB module is indexed in about a second. The lark grammar
(grammar/hlo.lark) parses a line only when its structure is asked for.

States: "top" (between computations), ("table", name) inside a stack-frame
table, "comp" inside a computation body, ("cont", depth, state, owner) on the
lines of an instruction or header whose brackets are still open (depth 0: its
line ended with a comma, its attributes go on), ("string", depth, state, owner)
inside a string that goes on over lines, and ("comment", state) inside a block
comment. XLA's parser takes whitespace, line ends and comments between any two
tokens; dumps put one item on a line, and that is the fast path.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from hlo_lsp.parsing.hlo_items import item_starts
from hlo_lsp.parsing.line_scan import (
    LineProblem,
    LineScan,
    Ref,
    RefCollector,
    Role,
    State,
    as_one_line,
    as_spaces,
    bracket_balance,
    line_problem,
    make_ref,
    new_tuple,
    open_string_end,
    plain_scan,
)
from hlo_lsp.parsing.names import NAME

TOP: State = "top"
COMP: State = "comp"

_INSTRUCTION_HEAD = re.compile(rf"[ \t]*(ROOT[ \t]+)?%?({NAME}):?[ \t]*=[ \t]*")
# The common case in one match: `[ROOT] name = shape opcode(`.
# (A name with `=` glued, `q=`, takes the slow path: XLA's lexer reads it as an attribute's key.)
_INSTRUCTION_START = re.compile(rf"[ \t]*(ROOT[ \t]+)?%?({NAME})(?!=):?[ \t]*=[ \t]*(.*?)[ \t]([a-z][a-z0-9_\-]*)\(")
# XLA's lexer reads `name:` as a name: `ENTRY e: {` is the computation `e`.
_COMPUTATION_HEAD = re.compile(rf"[ \t]*(ENTRY[ \t]+)?%?({NAME}):?[ \t]*(\(|\{{|,)")
# `}`, perhaps `// name`, perhaps the computation's attributes: `}, execution_thread="main_thread"` (they may go
# on below: XLA reads `, key=value` tokens after the `}`, lines or comments between them).
_COMPUTATION_END = re.compile(rf"[ \t]*\}}[ \t]*(//[ \t]*%?({NAME})?.*|,[ \t]*(?:[A-Za-z_][A-Za-z0-9_]*=.*|//.*)?)?$")
# A name alone on a line in a computation: its `=`, shape and opcode are on the lines below.
_LONE_NAME = re.compile(rf"[ \t]*(ROOT[ \t]+)?%?({NAME}):?[ \t]*$")
# `[ENTRY] name` alone on a line outside computations: a computation header whose signature or `{` is below.
_LONE_HEADER = re.compile(rf"[ \t]*(ENTRY[ \t]+)?(?!ROOT[ \t]*$)%?({NAME}):?[ \t]*$")
# A continued item's attribute: `key=value` (XLA reads a glued `key=` as an attribute, never as a definition).
_ATTRIBUTE_START = re.compile(r"[ \t]*" + NAME + r"=")
_OPCODE = re.compile(r"[ \t=]([a-z][a-z0-9_\-]*)\(")  # `=` too: `%v=abs(p)`
_SIGIL_NAME = re.compile(rf"%({NAME})")
_TRAILING_NAME = re.compile(rf"%?({NAME})[ \t]*$")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/")
_SIGNATURE_PARAM = re.compile(rf"[(,][ \t]*(?:/\*[^*]*\*/)?[ \t]*%?({NAME})[ \t]*:")
# The keys whose value is a computation (one, or written inline `{ ... }`), then those of lists of them,
# then the other keys whose values are names.
INLINE_KEYS = ("calls", "to_apply", "condition", "body", "select", "scatter", "true_computation",
               "false_computation")
_CALLED_KEYS = (*INLINE_KEYS, "comparator", "branch_computations", "called_computations")
_REF_KEYS = (*_CALLED_KEYS, "control-predecessors", "stack_frame_id")
# `=` first, then which key precedes it: the regex engine skips to each `=` at C speed instead of trying
# the keys at every character of a long metadata string. The key is the group that matched (lastindex).
_ATTRIBUTE_REF = re.compile("=(?:" + "|".join(rf"(?<=[,{{ \t]({key})=)" for key in _REF_KEYS) + ")")
# The same keys at the very start of a line an item goes on on (`to_apply=f` below `call(s), // c`).
_LEADING_ATTRIBUTE_REF = re.compile("(?:" + "|".join(f"({key})" for key in _REF_KEYS) + ")=")
_REF_VALUE = re.compile(rf"%?({NAME})")
_FRAME_KEY_GROUP = _REF_KEYS.index("stack_frame_id") + 1
_BRACED_LIST = re.compile(r"\{([^{}]*)\}")
_INT = re.compile(r"[0-9]+")
_TABLE_ROW = re.compile(r"[ \t]*([0-9]+)[ \t]+(\"(?:[^\"\\]|\\.)*\"|\{[^{}]*\})[ \t]*$")
# A row whose id is alone on its line, or whose value goes on below (XLA reads it over lines).
_ROW_GOING_ON = re.compile(r"[ \t]*([0-9]+)[ \t]*(\{[^}]*|\"(?:[^\"\\]|\\.)*)?[ \t]*$")
_TABLE_FIELD = re.compile(r"([a-z_]+)=([0-9]+)")
TABLE_NAMES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")  # the headers of the tables
_TABLE_DEF_ROLE = {
    "FileNames": Role.FILE_NAME_DEF,
    "FunctionNames": Role.FUNCTION_NAME_DEF,
    "FileLocations": Role.LOCATION_DEF,
    "StackFrames": Role.FRAME_DEF,
}
_TABLE_FIELD_ROLE = {
    "file_name_id": Role.FILE_NAME_USE,
    "function_name_id": Role.FUNCTION_NAME_USE,
    "file_location_id": Role.LOCATION_USE,
    "parent_frame_id": Role.FRAME_USE,
}
_COMPUTATION_LIST_KEYS = frozenset(("branch_computations", "called_computations", "calls"))
_KINDS_WITH_USES = frozenset(("instruction", "computation", "table_row", "continuation", "items"))
# Opcodes whose operands are literals, not instruction names.
_LITERAL_OPCODES = frozenset(("constant", "parameter"))


def scan_hlo_line(state: State, text: str) -> LineScan:
    """Scans one line of an HLO module (without its line end) in `state`."""
    if text.endswith("\r"):
        text = text[:-1]
    if state == COMP:
        fast = _INSTRUCTION_START.match(text)
        if fast is not None:
            # Whether the fast match read the line right, by what it took for the shape: not when that
            # holds a `=` (another item, a glued `q=`) or an opcode (`v = add(p, negate(p))` has no
            # shape; a shape's own parentheses follow no lowercase name: tuples, `T(8,128)`). Inlined:
            # a 40 MB module has a million lines.
            shape = fast.group(3)
            if "=" not in shape and "/" not in shape and ("(" not in shape or _OPCODE_CALL.search(shape) is None):
                # A comment may hide how the line ends (`abs(p), /* a`): the line is read with it blanked.
                return _instruction_scan(text, fast) if "/*" not in text else _scan_with_comments(state, text)
    if isinstance(state, tuple) and state[0] in _ITEM_STATES:
        if state[0] in ("cont", "root", "entry") and "/*" in text and state[-1] not in _RAW_OWNERS:
            # an item going on: its comments too (what backend_config's braces hold is raw text: not there)
            if RAW_KEY in text:
                return _scan_with_comments(state, text)
            blanked, unclosed = blank_comments(text)
            scan = _ITEM_STATES[state[0]](state, blanked)
            return _into_comment(scan) if unclosed else scan
        return _ITEM_STATES[state[0]](state, text)
    if "/*" in text:
        return _scan_with_comments(state, text)
    return _scan_item(state, text)


_OPCODE_CALL = re.compile(r"[a-z][a-z0-9_\-]*\(")  # in what the fast match took for a shape: an opcode


def _scan_item(state: State, text: str) -> LineScan:
    stripped = text.strip()
    if not stripped or stripped.startswith("//"):
        return plain_scan("blank", state)
    if state == COMP:
        return _scan_in_computation(text, stripped)
    return _scan_at_top(state, text, stripped)


# ---- block comments: blanked (their columns kept), or a state until `*/` ----------------------------


def _scan_with_comments(state: State, text: str) -> LineScan:
    raw, owner = 0, _RAW
    if RAW_KEY in text:  # what backend_config's braces hold is raw text, comments and all: blanked first
        text, raw, owner = _raw_braces(text)
    blanked, unclosed = blank_comments(text)
    scan = scan_hlo_line(state, blanked) if "/*" not in blanked else _scan_item(state, blanked)
    if raw and isinstance(scan.end_state, tuple) and scan.end_state[-1] == _RAW:  # the braces left open, as
        end_state = ("cont", raw, scan.end_state[2], owner)                      # deep as the raw text opens them
        return LineScan(scan.kind, end_state, scan.refs, scan.data, scan.problem)
    return _into_comment(scan) if unclosed else scan


def in_block_comment(state: State) -> bool:
    """Whether a line's end state is inside a block comment."""
    return isinstance(state, tuple) and state[0] == "comment"


def in_string(state: State) -> bool:
    """Whether a line's end state is inside a string (XLA's strings go on over line ends)."""
    return isinstance(state, tuple) and state[0] == "string"


def _into_comment(scan: LineScan) -> LineScan:
    return LineScan(scan.kind, ("comment", scan.end_state), scan.refs, scan.data, scan.problem)


def _scan_in_comment(state: tuple[str, State], text: str) -> LineScan:
    end = text.find("*/")
    if end < 0:  # a line of the comment: inside an item that goes on (`abs(p), /* a`), the item's
        return plain_scan("continuation" if isinstance(state[1], tuple) and state[1][0] == "cont" else "comment", state)
    rest = " " * (end + 2) + text[end + 2 :]
    scan = scan_hlo_line(state[1], rest)
    return plain_scan("comment", scan.end_state) if scan.kind == "blank" else scan


# (a `//` comment is matched to be let be: a `/*` in it opens nothing)
_STRING_OR_BLOCK_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|/\*(?:.*?\*/|.*)|//[^\n]*', re.S)


def blank_comments(text: str) -> tuple[str, bool]:
    """`text` with its block comments (outside strings) replaced by spaces, and whether the last one
    stays open at the end of the line (blanked to the end)."""
    if "/*" not in text:
        return text, False
    unclosed = False

    def blank(found: re.Match[str]) -> str:
        nonlocal unclosed
        token = found.group()
        if token[0] == '"' or token[1] == "/":
            return token
        unclosed = len(token) < 4 or not token.endswith("*/")
        return as_spaces(token)

    return _STRING_OR_BLOCK_COMMENT.sub(blank, text), unclosed


def _scan_at_top(state: State, text: str, stripped: str) -> LineScan:
    if stripped.startswith("HloModule"):
        name = _module_name(text)
        if not name and _without_line_comment(stripped).rstrip() == "HloModule":  # its name is on the next line
            return LineScan("module_header", ("cont", 0, TOP, "module_header"))
        return _with_continuation(LineScan("module_header", TOP, data=name), text, TOP)
    if stripped in TABLE_NAMES:
        return LineScan("table_header", ("table", stripped), data=(stripped,))
    if isinstance(state, tuple) and state[0] == "table":
        row = _TABLE_ROW.match(text) or _ROW_GOING_ON.match(_without_line_comment(text))
        if row:
            return _scan_table_row(state[1], text, row)
    if stripped.startswith(","):  # the attributes of the item above (a computation's `}`, the module's name)
        return _continued(0, TOP, ATTRIBUTES, text)
    if stripped.startswith("ROOT") and _without_line_comment(stripped).rstrip() == "ROOT":
        return plain_scan("blank", _PENDING_TOP_ROOT)  # a text of one instruction, marked on the line above it
    if stripped.startswith("ENTRY") and _without_line_comment(stripped).rstrip() == "ENTRY":
        return plain_scan("blank", _PENDING_ENTRY)  # the computation it marks is on a line below
    head = _INSTRUCTION_HEAD.match(text)
    if head:
        return _outside(text, _scan_instruction(text, head, TOP), head)
    if stripped.startswith("ROOT"):  # `ROOT x` alone: a text of one instruction, its `=` below
        lone = _LONE_NAME.match(_without_line_comment(text))
        if lone is not None:
            return _outside(text, _lone_name(text, lone, TOP), lone)
    if _COMPUTATION_HEAD.match(text) or _LONE_HEADER.match(_without_line_comment(text)):
        return _scan_computation_header(text)
    if _COMPUTATION_END.match(text):
        return LineScan("computation_end", TOP, problem=line_problem(
            text, 0, len(text), "unmatched-brace", "`}` without an open computation"))
    return _unrecognized(text, state, "a computation header, an instruction or a stack-frame table row")


def _outside(text: str, scan: LineScan, head: re.Match[str]) -> LineScan:
    """An instruction outside any computation (the one instruction of a text is: see lone_instruction_line)."""
    problem = line_problem(text, head.start(2), head.end(2), "instruction-outside-computation",
                           "instruction outside any computation (a computation header or `}` is missing)")
    return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)


def _scan_in_computation(text: str, stripped: str) -> LineScan:
    head = _INSTRUCTION_HEAD.match(text)
    if head:
        if "=" in text[head.end() :] or "}" in text:  # perhaps another item after it: `a = abs(p) ROOT b = ...`
            several = several_items(COMP, text)
            if several is not None:
                return several
        return _scan_instruction(text, head, COMP)
    if stripped.startswith("ROOT") and _without_line_comment(stripped).rstrip() == "ROOT":
        return plain_scan("blank", _PENDING_ROOT)  # the instruction it marks is on a line below
    lone = _LONE_NAME.match(_without_line_comment(text) if "//" in text else text)
    if lone is not None:
        return _lone_name(text, lone)
    if _COMPUTATION_END.match(text):
        end = plain_scan("computation_end", TOP)
        return end if "," not in text else _with_continuation(end, text, TOP)
    if stripped.startswith("}"):  # `} ENTRY e {`
        several = several_items(COMP, text)
        if several is not None:
            return several
    if _COMPUTATION_HEAD.match(text) and stripped.endswith("{"):
        scan = _scan_computation_header(text)
        problem = line_problem(text, 0, len(text.rstrip()), "unclosed-computation",
                               "computation header inside another computation (its `}` is missing)")
        return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)
    return _unrecognized(text, COMP, "an instruction (`name = shape opcode(operands)`) or `}`")


ATTRIBUTES = "attribute_list"  # the owner of a line of attributes, at the top, of the item above it
_HEAD_OWNER = "instruction_head"  # the owner of the lines of an instruction's shape, until its opcode
_NAME_OWNER = "instruction_name"  # the owner of the lines after an instruction's name, until its `=`


def _lone_name(text: str, lone: re.Match[str], state: State = COMP) -> LineScan:
    """`[ROOT] name` alone on a line: the instruction it names goes on below (`= shape opcode(...)`)."""
    definition = (make_ref(text, Role.INSTRUCTION_DEF, lone.group(2), lone.start(2)),)
    data = (lone.group(2), len(text), len(text), "", lone.group(1) is not None)
    return LineScan("instruction", ("cont", 0, state, _NAME_OWNER), definition, data)


def _after_name(base: State, text: str) -> LineScan:
    """The line after an instruction's lone name: its `=`, then its shape and opcode."""
    equals = text.find("=")
    if equals < 0 or text[:equals].strip():  # the name's item ends unfinished: the grammar tells
        return scan_hlo_line(base, text)
    return _head_continued(base, " " * (equals + 1) + text[equals + 1 :])


def _unrecognized(text: str, state: State, expected: str) -> LineScan:
    start = len(text) - len(text.lstrip())
    problem = line_problem(text, start, len(text.rstrip()), "syntax", f"unexpected text: expected {expected}")
    return LineScan("unknown", state, problem=problem)


def _module_name(text: str) -> tuple[str, ...]:
    match = re.match(rf"[ \t]*HloModule[ \t]+%?({NAME})", text)
    return (match.group(1),) if match else ()


def _scan_table_row(table: str, text: str, row: re.Match[str]) -> LineScan:
    definition = (make_ref(text, _TABLE_DEF_ROLE[table], row.group(1), row.start(1)),)
    data = (table, row.group(1), row.start(2))
    if row.re is _TABLE_ROW:
        return LineScan("table_row", ("table", table), definition, data)
    depth, in_string = open_string_end(_without_line_comment(text), False)
    return LineScan("table_row", ("string" if in_string else "cont", max(depth, 0), ("table", table), "table_row"),
                    definition, data)


def _table_row_uses(text: str, body_start: int, refs: RefCollector) -> None:
    for field in _TABLE_FIELD.finditer(text, body_start):
        role = _TABLE_FIELD_ROLE.get(field.group(1))
        if role is None:
            continue
        if field.group(1) == "parent_frame_id":
            parent = printed_parent_frame(int(field.group(2)))
            if parent is not None:
                refs.refs.append(make_ref(text, role, str(parent), field.start(2), field.end(2)))
            continue
        refs.add(role, field.group(2), field.start(2))


def printed_parent_frame(printed: int) -> int | None:
    """The frame a printed `parent_frame_id` names: XLA prints the parent's id + 1, and 1 for none
    (PrintStackFrameIndex in xla/hlo/ir/hlo_module.cc)."""
    return printed - 1 if printed > 1 else None


def _scan_computation_header(text: str) -> LineScan:
    head = _COMPUTATION_HEAD.match(text)
    if head is None:
        lone = _LONE_HEADER.match(_without_line_comment(text))
        if lone is None:
            return _unrecognized(text, TOP, "a computation header")
        definition = (make_ref(text, Role.COMPUTATION_DEF, lone.group(2), lone.start(2)),)
        data = (lone.group(2), lone.group(1) is not None, -1)
        return LineScan("computation", ("cont", 0, COMP, _HEADER_OWNER), definition, data)
    definition = (make_ref(text, Role.COMPUTATION_DEF, head.group(2), head.start(2)),)
    data = (head.group(2), head.group(1) is not None, head.end(3) - 1 if head.group(3) == "(" else -1)
    if text.rstrip().endswith("{") or re.search(r"\{[ \t]*//.*$", text):
        return LineScan("computation", COMP, definition, data)
    clean = _without_line_comment(text)
    if _body_open(clean, 0, head.end(2)) < 0:  # its signature, or its `{`, is on the lines below
        return LineScan("computation", ("cont", max(bracket_balance(clean), 0), COMP, _HEADER_OWNER), definition,
                        data)
    several = several_items(TOP, text)
    if several is not None:  # `ENTRY e { p = f32[] parameter(0) }`
        return several
    problem = line_problem(text, head.start(2), head.end(2), "syntax",
                           "computation header must end with `{`")
    return LineScan("computation", COMP, definition, data, problem)


# The owner of the lines of a header that goes on until its `{` (its base: the computation it opens).
_HEADER_OWNER = "computation_header"


def _body_open(text: str, depth: int, start: int = 0) -> int:
    """Where the `{` that opens a computation's body is on a header line, `depth` brackets deep at
    `start`, or -1."""
    for index in range(start, len(text)):
        char = text[index]
        if char == "{" and depth == 0:
            return index
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
    return -1


def _header_continued(depth: int, text: str) -> LineScan:
    """A line of a computation header that goes on over lines: more of its signature, or its `{`."""
    clean = _without_line_comment(text)
    opened = _body_open(clean, depth)
    if opened >= 0:
        ended = _continuation(COMP, (_HEADER_OWNER,))
        body = clean[opened + 1 :]
        if not body.strip():
            return ended
        first = len(clean) - len(body.lstrip())  # the body's first item, on this line (`{ p = ...`)
        starts = item_starts(" " * first + clean[first:], True)
        return _items_scan(COMP, text, [first, *starts], [(0, ended)]) if len(starts) < _MAX_ITEMS_ON_A_LINE else ended
    return _continuation(("cont", max(depth + bracket_balance(clean), 0), COMP, _HEADER_OWNER), (_HEADER_OWNER,))


def _signature_uses(text: str, open_paren: int, refs: RefCollector) -> None:
    """Signature parameters name the computation's parameter instructions."""
    close = matching_paren(text, open_paren)
    end = close + 1 if close > 0 else len(text)
    for param in _SIGNATURE_PARAM.finditer(text, open_paren, end):
        refs.add(Role.INSTRUCTION_USE, param.group(1), param.start(1))


def scan_instruction_at(text: str, start: int, state: State) -> LineScan:
    """Scans the instruction text that starts at `start` (a `from instruction:` line)."""
    head = _INSTRUCTION_HEAD.match(text, start)
    if head is None:
        problem = line_problem(text, start, len(text.rstrip()), "syntax",
                               "expected an instruction `name = shape opcode(operands)`")
        return LineScan("instruction", state, problem=problem)
    return _read_instruction(text, head, state)


def _scan_instruction(text: str, head: re.Match[str], state: State) -> LineScan:
    return _with_continuation(_read_instruction(text, head, state), text, state)


def _read_instruction(text: str, head: re.Match[str], state: State) -> LineScan:
    name = head.group(2)
    definition = (make_ref(text, Role.INSTRUCTION_DEF, name, head.start(2)),)
    is_root = head.group(1) is not None
    if text[head.end(2)] == "=" and text[head.start(2) - 1] != "%":
        data = (name, head.end(), head.end(), "", is_root)
        return LineScan("instruction", state, definition, data, _glued_equals(text, head))
    opcode = _OPCODE.search(_without_line_comment(text) if "//" in text else text, head.end() - 1)
    if opcode is None:
        data = (name, head.end(), head.end(), "", is_root)
        # `v =`, `v = f32[4]`, `v = (f32[4])` or `v = (f32[],`: XLA reads the rest of its shape, and its
        # opcode, below (a line that starts an item there ends it, cut short)
        going_on = ("cont", _head_depth(0, text[head.end() :]), state, _HEAD_OWNER)
        return LineScan("instruction", going_on, definition, data)
    data = (name, head.end(), opcode.start(1), sys.intern(opcode.group(1)), is_root)
    return LineScan("instruction", state, definition, data)


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


def hlo_line_uses(text: str, scan: LineScan) -> tuple[Ref, ...]:
    """The names a scanned line uses: operands, called computations, frame ids.

    Kept apart from `scan_hlo_line` so that opening a large module indexes the
    definitions first and reads uses only where they are asked for.
    """
    kind = scan.kind
    if kind == "instruction":  # most lines: read here, without a call
        data = scan.data
        if not data[3]:
            return ()
        if text.endswith("\r"):
            text = text[:-1]
        refs = RefCollector(text)  # its columns: those of the text as written, comments and all
        if "/" in text and ("/*" in text or "//" in text):  # (op_name strings hold a `/` on most lines)
            if RAW_KEY in text:  # what backend_config's braces hold is raw text, comments and all
                text = raw_braces_blanked(text)
            if "/*" in text:  # what a block comment holds names nothing, closed or left open: `abs(p /* a`
                text = blank_comments(text)[0]
            if "//" in text:  # nor what a line comment holds: `abs(p // c` (after the block comments: `*//*`)
                text = _without_line_comment(text)
        open_paren = data[2] + len(data[3])
        close_paren = matching_paren(text, open_paren)
        if data[3] not in _LITERAL_OPCODES:
            _collect_operands(text, open_paren + 1, close_paren if close_paren > 0 else len(text), refs)
        if close_paren > 0:
            _collect_attribute_refs(text, close_paren + 1, refs)
        return tuple(refs.refs)
    if kind not in _KINDS_WITH_USES:
        return ()
    if text.endswith("\r"):
        text = text[:-1]
    if kind == "items":
        return tuple(ref for start, item in scan.data for ref in hlo_line_uses(item_text(text, scan, start), item))
    refs = RefCollector(text)
    if kind == "continuation":  # an instruction's operands or attributes go on here: `to_apply=add`
        if "*/" in text or "/*" in text:  # a comment that ends, opens, or both, on this line
            text = blank_comments(_comment_end_blanked(text))[0]
        if "//" in text:  # what a line comment holds names nothing: `branch_computations={b1, // c`
            text = _without_line_comment(text)
        if scan.data == ("instruction",):
            _collect_attribute_refs(text, 0, refs)
        elif scan.data and scan.data[0] in _LIST_ROLES:
            _list_going_on_refs(text, refs, _LIST_ROLES[scan.data[0]])
        elif scan.data and scan.data[0] in _VALUE_ROLES:
            _called_value_refs(text, refs, _VALUE_ROLES[scan.data[0]], scan.data[0] in _LIST_VALUES)
        elif scan.data == ("table_row",):
            _table_row_uses(text, 0, refs)
        elif scan.data and scan.data[0] in _OPERAND_OWNERS:
            _continued_operands(text, scan.data[1], refs, literal=scan.data[0] == _LITERAL)
        elif scan.data and scan.data[0] == _INLINE:  # its instructions are its own; the attributes after its `}`
            close = _operand_list_end(text, scan.data[1])
            if close >= 0:
                _collect_attribute_refs(text, close + 1, refs)
        return tuple(refs.refs)
    if kind == "computation":
        if scan.data[2] >= 0:
            _signature_uses(text, scan.data[2], refs)
        return tuple(refs.refs)
    _table_row_uses(text, scan.data[2], refs)  # a table row: the kinds with uses are all told above
    return tuple(refs.refs)


def _called_value_refs(text: str, refs: RefCollector, role: Role, a_list: bool) -> None:
    """The line below `to_apply=` (or another key naming computations, or control-predecessors): the
    names of its value (one, or a braced list, perhaps going on below where the key's value is a list; none
    in a computation written inline), then its attributes. (`text`: its comments blanked.)"""
    value_start = len(text) - len(text.lstrip())
    braced = _BRACED_LIST.match(text, value_start)
    if braced is not None:
        if "=" not in braced.group(1):  # (a computation written inline holds instructions, which are its own)
            refs.add_matches(role, _REF_VALUE.finditer(text, braced.start(1), braced.end(1)))
        _collect_attribute_refs(text, braced.end(), refs)
        return
    if a_list and text.startswith("{", value_start):  # the list goes on below: its names on this line
        refs.add_matches(role, _REF_VALUE.finditer(text, value_start + 1))
        return
    name = _REF_VALUE.match(text, value_start)
    if name is not None:
        refs.add(role, name.group(1), name.start(1))
        _collect_attribute_refs(text, name.end(), refs)


def comment_end_blanked(state: State, text: str) -> str | None:
    """`text` with its start blanked to the `*/` that ends a block comment left open above (`state`, the
    state before the line, says so), or None where no such comment ends on it. Comments do not nest: a `/*`
    before the `*/` is the comment's text (`p/* a b */`)."""
    close = text.find("*/")
    if close < 0 or not in_block_comment(state):
        return None
    return " " * (close + 2) + text[close + 2 :]


def _comment_end_blanked(text: str) -> str:
    """A line that starts inside a block comment (a `*/` before any `/*`) with that comment blanked."""
    close = text.find("*/")
    return text if close < 0 or "/*" in text[:close] else " " * (close + 2) + text[close + 2 :]


def item_text(text: str, scan: LineScan, start: int) -> str:
    """The text of the item of an "items" line that starts at `start`, the others blanked (columns kept)."""
    ends = [item_start for item_start, _ in scan.data if item_start > start]
    return " " * start + text[start : ends[0] if ends else len(text)]


def _continued_operands(text: str, depth: int, refs: RefCollector, literal: bool = False) -> None:
    """The operands on a line of an operand list open `depth` brackets deep at its start (0: the list
    opens on this line, after its opcode), and the attributes after the list's `)`; a `literal` (of
    `constant(...)`) names nothing."""
    start = 0
    if depth == 0:
        opcode = _OPCODE.search(" " + text)
        if opcode is None:
            return
        start, depth = opcode.end() - 1, 1
    elif depth > 1:  # inside an operand's brackets: a nested instruction's operands (`negate(` above `p)`;
        inner = _operand_list_end(text, depth - 1)  # a shape's or layout's numbers name nothing), then the
        if not literal:                              # list's items after they close
            end = inner if inner >= 0 else len(text)
            _collect_operands(_closings_as_commas(text, end), 0, end, refs)
        start = inner + 1
        if start == 0:
            return
    end = _operand_list_end(text[start:], 1)
    close = len(text) if end < 0 else start + end
    if not literal:
        _collect_operands(text, start, close, refs)
    if end >= 0:
        _collect_attribute_refs(text, close + 1, refs)


def _closings_as_commas(text: str, end: int) -> str:
    """`text` with each bracket before `end` that closes one opened above the line read as a comma: what
    comes before it ends an operand of the list it closes (`p)), q` below `negate(abs(`)."""
    depth, chars = 0, None
    for index in range(end):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                chars = chars or list(text)
                chars[index] = ","
            else:
                depth -= 1
    return text if chars is None else "".join(chars)


_STRING_OR_LINE_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|//')


def without_comments(text: str) -> str:
    """`text` (perhaps over lines) with its comments blanked, its offsets kept, as XLA's lexer skips them."""
    blanked = blank_comments(text)[0]
    if "//" not in blanked:
        return blanked
    # (a string may go on over a line end: a `//` after its close on the next line is a comment)
    return _STRING_OR_LINE_COMMENT_OVER_LINES.sub(
        lambda found: found.group() if found.group()[0] == '"' else " " * len(found.group()), blanked)


_STRING_OR_LINE_COMMENT_OVER_LINES = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*', re.S)


def _without_line_comment(text: str) -> str:
    """`text` with a `//` comment (outside strings) blanked to the end of the line."""
    if "//" not in text:
        return text
    for found in _STRING_OR_LINE_COMMENT.finditer(text):
        if found.group() == "//":
            return text[: found.start()] + " " * (len(text) - found.start())
    return text


def _instruction_scan(text: str, match: re.Match[str]) -> LineScan:
    """The scan of an instruction line inside a computation, from one regex match."""
    name, start = match.group(2), match.start(2)
    if text.isascii():
        definition = (new_tuple(Ref, (_INSTRUCTION_DEF, name, start, start + len(name))),)
    else:
        definition = (make_ref(text, Role.INSTRUCTION_DEF, name, start),)
    # A few dozen opcodes name a million instructions: one string each.
    data = (name, match.start(3), match.start(4), sys.intern(match.group(4)), match.group(1) is not None)
    count, end, last = text.count, match.end(), text[-1:]
    # Most lines: one whole item. The last two tests are `not _may_start_another(text, end)` inlined for a
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
        blanked, raw, owner = _raw_braces(text)
        if raw:  # (perhaps after other items: `p = f32[] parameter(0) ROOT v = abs(p), backend_config={a // b`)
            several = several_items(COMP, text, blanked) if _may_start_another(blanked, end) else None
            return several or LineScan(scan.kind, ("cont", raw, COMP, owner), scan.refs, scan.data, scan.problem)
        text = blanked
    count = text.count
    opens, closes = count("{"), count("}")
    last = text[-1:] if text[-1:] not in _BLANKS and "//" not in text else _without_line_comment(text).rstrip()[-1:]
    if closes > opens or last == "{" or _may_start_another(text, end):
        # perhaps another item after it (`}` then a header: `ROOT y = abs(x) } ENTRY e {`)
        several = several_items(COMP, text)
        if several is not None:
            return several
    if opens == closes and count("(") == count(")") and count("[") == count("]") and not count('"') & 1 and \
            "//" not in text and (text[-1:] not in _GOES_ON or text[-1] == "=" and _value_below(text) is None):
        # (a line that ends with another `=` goes on when the grammar says so: its error is the line's own)
        return scan
    return _with_continuation(scan, text, COMP)


_ENDS_OPEN = frozenset(("", ",", "=", " ", "\t", "{"))  # a line that ends so may go on, or open a body
# After an instruction's opcode, what starts another item: a definition (`v =`; `%v=`, which XLA's lexer reads as
# `%v` then `=`) or `ROOT`; and the same or a line comment.
_ANOTHER_ITEM = re.compile(rf" =|ROOT|%{NAME}=")
_ANOTHER_ITEM_OR_COMMENT = re.compile(rf"{_ANOTHER_ITEM.pattern}|//")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-:")
# A name last on the line, not an attribute's value: the next instruction, its `=` on the line below.
_TRAILING_ITEM_NAME = re.compile(rf"[ \t)]%?{NAME}:?[ \t]*$")


def _may_start_another(text: str, end: int) -> bool:
    """Whether an instruction line may start another item after the instruction (from `end`, after its
    opcode): a definition (`v =`, `%v=`), `ROOT`, or a name last on the line (its `=` below)."""
    if _ANOTHER_ITEM.search(text, end) is not None:
        return True
    clean = (_without_line_comment(text) if "//" in text else text).rstrip()
    return clean[-1:] in _NAME_CHARS and _TRAILING_ITEM_NAME.search(clean, end) is not None


_GOES_ON = frozenset((",", "=", " ", "\t"))  # a line that ends so may go on below (`=`: see below)
_BLANKS = frozenset((" ", "\t"))
_MAX_ITEMS_ON_A_LINE = 64  # more on one line: a garbled line (a paste), read as one item


def several_items(state: State, text: str, raw_blanked: str | None = None) -> LineScan | None:
    """The scan of a line that holds several items (kind "items", data: (start, scan) per item, each
    scanned in the state the one before it leaves), or None where it holds one (its items found in
    `raw_blanked`, where given: the line with what backend_config's braces hold blanked)."""
    starts = item_starts(without_comments(raw_blanked or text), state != TOP)
    if not starts or len(starts) >= _MAX_ITEMS_ON_A_LINE:  # each item is scanned in a copy of the line
        return None
    return _items_scan(state, text, [0, *starts], [])


def _items_scan(state: State, text: str, starts: list[int], items: list[tuple[int, LineScan]]) -> LineScan:
    """A line of several items: `items` (read already), then one from each of `starts`, each scanned in the
    state the one before it leaves."""
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        scan = scan_hlo_line(state, " " * start + text[start:end])
        if scan.kind == "items":  # the piece read as several itself: its items, not a nested line of items
            items.extend((max(inner, start), item) for inner, item in scan.data)
        else:
            items.append((start, scan))
        state = scan.end_state
    problem = next((scan.problem for _, scan in items if scan.problem is not None), None)
    return LineScan("items", state, tuple(ref for _, scan in items for ref in scan.refs), tuple(items), problem)


def _glued_equals(text: str, head: re.Match[str]) -> LineProblem:
    """XLA's lexer reads a bare name with `=` glued to it (`q=`) as an attribute's key, never as a definition."""
    return line_problem(text, head.start(2), head.end(2) + 1, "syntax",
                        f"`{head.group(2)}=` reads as an attribute: write `{head.group(2)} =`, or `%{head.group(2)}=`")


def _with_continuation(scan: LineScan, text: str, state: State) -> LineScan:
    """Moves to a continuation state when the line leaves brackets or a string open, or ends with a
    comma or `=` (the item goes on on the next line)."""
    if isinstance(scan.end_state, tuple):  # an instruction whose opcode is still to come
        return scan
    counted = _without_line_comment(text) if "//" in text else text  # (what a `//` comment holds opens nothing)
    depth, in_string = open_string_end(counted, False) if '"' in counted else (bracket_balance(counted), False)
    owner = scan.kind
    if depth > 0 and scan.kind == "instruction":
        owner = _operands_owner(scan.data[3]) if _operands_open(text, scan) else \
            _INLINE if _opens_inline_computation(text) else _list_going_on(text) or owner
    elif depth <= 0 and scan.kind == "instruction":
        owner = _value_below(text) or owner
    if in_string:
        return LineScan(scan.kind, ("string", max(depth, 0), state, owner), scan.refs, scan.data, scan.problem)
    if depth <= 0 and not _goes_on(text):
        return scan
    return LineScan(scan.kind, ("cont", max(depth, 0), state, owner), scan.refs, scan.data, scan.problem)


_RAW = "raw_braces"  # the owner of the lines inside backend_config's braces, which XLA reads as raw text
_RAW_STRING = "raw_braces_string"  # the same, of a line that starts inside a string of them
_RAW_OWNERS = (_RAW, _RAW_STRING)
RAW_KEY = "backend_config"  # the key whose braces XLA reads as raw text
_RAW_OPENING = re.compile(r"backend_config\s*=\s*\{")  # (in a text with its comments blanked)
_RAW_KEY_ENDS = re.compile(r"(?<![\w.\-])backend_config[ \t]*=$")
_BRACE_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}]')


def raw_braces_blanked(text: str) -> str:
    """`text` with what backend_config's braces hold blanked (XLA reads it as raw text to the matching brace:
    strings are skipped, comments are more text)."""
    return _raw_braces(text)[0]


def _raw_braces(text: str) -> tuple[str, int, str]:
    """`text` with what backend_config's braces hold blanked, how many braces stay open at its end (0: they
    close), and the owner of the line below where they do (_RAW, or _RAW_STRING inside a string of them)."""
    clean = without_comments(text)
    opening = _RAW_OPENING.search(clean)
    while opening is not None:
        body = opening.end()
        balance, end = brace_balance_until_closed(text, body, 1)
        if end < 0:
            return text[:body] + as_spaces(text[body:]), 1 + balance, _raw_owner(text, body)
        text = text[:body] + as_spaces(text[body : end - 1]) + text[end - 1 :]
        clean = without_comments(text)
        opening = _RAW_OPENING.search(clean, end)
    return text, 0, _RAW


def _raw_owner(text: str, start: int) -> str:
    """The owner of the line below one that leaves backend_config's braces open from `start`: inside a string
    of them, or not."""
    tokens = [found.group() for found in _BRACE_OR_STRING.finditer(text, start)]
    unclosed = bool(tokens) and tokens[-1][0] == '"' and _CLOSED_STRING.fullmatch(tokens[-1]) is None
    return _RAW_STRING if unclosed else _RAW


_CLOSED_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def brace_balance_until_closed(text: str, start: int, depth: int) -> tuple[int, int]:
    """(brace balance, index after the brace that closes `depth` braces) from `start`, strings skipped; the
    index is -1 where they stay open."""
    balance = 0
    for found in _BRACE_OR_STRING.finditer(text, start):
        token = found.group()
        if token[0] == '"':
            continue
        balance += 1 if token == "{" else -1
        if depth + balance == 0:
            return balance, found.end()
    return balance, -1


def _raw_continued(depth: int, base: State, text: str, in_string: bool = False) -> LineScan:
    """A line inside backend_config's braces, `depth` deep at its start (0: the line below `backend_config=`,
    its value to come), perhaps inside a string of them: raw text to the brace that closes them (a line that
    reads like an instruction is more of it); the instruction goes on after it."""
    start = 0
    if in_string:  # XLA's lexer skips a string to its closing quote, line ends and all
        close = _string_end(text, -1)
        if close < 0:
            return _continuation(("cont", depth, base, _RAW_STRING), (_RAW,))
        start = close + 1
    elif not depth:
        clean = without_comments(text)
        start = len(clean) - len(clean.lstrip())
        if not clean.strip():
            return _continuation(("cont", 0, base, _RAW), (_RAW,))
        if clean[start] != "{":  # a string
            return _continued(0, base, "instruction", text)
        start, depth = start + 1, 1
    balance, end = brace_balance_until_closed(text, start, depth)
    if end < 0:
        return _continuation(("cont", depth + balance, base, _raw_owner(text, start)), (_RAW,))
    rest = text[end:]
    # after the braces: comments again; the braces read as one token (a `0` where they close), so that a `}` after
    # them ends the computation (`json} }`)
    blanked, unclosed = blank_comments(" " * (end - 1) + "0" + rest)
    scan = _continued(0, base, "instruction", blanked)
    scan = _continuation(scan.end_state, (_RAW,)) if scan.kind == "continuation" and "=" not in rest else scan
    return _into_comment(scan) if unclosed else scan


_OPERANDS = "instruction_operands"  # the owner of the lines of an operand list that goes on over lines
_LITERAL = "instruction_literal"  # the same of a literal (`constant({1,` / `2})`): its lines name nothing
_OPERAND_OWNERS = frozenset((_OPERANDS, _LITERAL))


def _operands_owner(opcode: str) -> str:
    return _LITERAL if opcode in _LITERAL_OPCODES else _OPERANDS


# The owner of the lines of a computation written inline, over lines (`to_apply={` and its instructions
# below, until its `}`): XLA's parser reads them as the instruction's, not as instructions of their own.
_INLINE = "inline_computation"
_INLINE_OPEN = re.compile(r"(?<![\w.\-])(?:" + "|".join(INLINE_KEYS) + r")[ \t]*=[ \t]*\{")


# The owner of the line below a key that names a computation (`to_apply=` ending a line): its value, a
# name or a computation written inline.
_CALLED = "called_computation"
_CALLED_LIST = "called_computation_list"  # the same of a key whose value is a braced list of computations
_PREDECESSORS = "control_predecessors"  # the same of `control-predecessors=`: a braced list of instructions
_KEYS_ENDING = re.compile(r"(?<![\w.\-])(?:(" + "|".join(_CALLED_KEYS) + r")|control-predecessors)[ \t]*=$")
_LIST_ONLY_KEYS = frozenset(("branch_computations", "called_computations"))


# The owners of the lines a braced list of names goes on over (`branch_computations={a,` / `b}`), by the
# role of its names; the owner of such a list's value line (below its key) and its lines after.
_LIST_ROLES = {"computation_list": Role.COMPUTATION_USE, "predecessor_list": Role.INSTRUCTION_USE}
_LIST_VALUES = {_CALLED_LIST: "computation_list", _PREDECESSORS: "predecessor_list"}
_VALUE_ROLES = {_CALLED: Role.COMPUTATION_USE, _CALLED_LIST: Role.COMPUTATION_USE, _PREDECESSORS: Role.INSTRUCTION_USE}
_LIST_OPEN = re.compile(r"(?<![\w.\-])(?:(" + "|".join(sorted(_COMPUTATION_LIST_KEYS)) + r")|control-predecessors)"
                        r"[ \t]*=[ \t]*\{[^{}]*$")


def _list_going_on(text: str) -> str | None:
    """The owner of the line below when the line leaves open a braced list of names, else None."""
    found = _LIST_OPEN.search(_without_line_comment(text).rstrip()) if "{" in text else None
    return None if found is None else "computation_list" if found.group(1) else "predecessor_list"


def _list_going_on_refs(text: str, refs: RefCollector, role: Role) -> None:
    """A line of a braced list of names that goes on from above: its names to the `}`, then attributes."""
    close = text.find("}")
    refs.add_matches(role, _REF_VALUE.finditer(text, 0, close if close >= 0 else len(text)))
    if close >= 0:
        _collect_attribute_refs(text, close + 1, refs)


def _value_below(text: str) -> str | None:
    """The owner of the line below when the line ends with a key whose value, computations, control
    predecessors or backend_config's raw braces, is on that line (_CALLED, _CALLED_LIST, _PREDECESSORS, _RAW),
    else None."""
    clean = _without_line_comment(text).rstrip()
    if clean.endswith("=") and _RAW_KEY_ENDS.search(clean):
        return _RAW
    key = _KEYS_ENDING.search(clean)
    if key is None:
        return None
    return _PREDECESSORS if not key.group(1) else _CALLED_LIST if key.group(1) in _LIST_ONLY_KEYS else _CALLED


def _opens_inline_computation(text: str) -> bool:
    """Whether the line leaves open the `{` of a computation written inline (`to_apply={`)."""
    return "{" in text and any(_operand_list_end(text[found.end() :], 1) < 0 for found in _INLINE_OPEN.finditer(text))


def _operands_open(text: str, scan: LineScan) -> bool:
    opcode_start, opcode = scan.data[2], scan.data[3]
    return bool(opcode) and matching_paren(text, opcode_start + len(opcode)) < 0


def _goes_on(text: str) -> bool:
    """Whether a line ends with a comma or `=` (a line comment aside): the item's next attribute, or
    its value, is on the next line."""
    if "//" in text:
        text = _without_line_comment(text)
    return text.rstrip().endswith((",", "="))


def _scan_continuation(state: tuple[str, int, State, str], text: str) -> LineScan:
    _, depth, base, owner = state
    if owner in _RAW_OWNERS:
        return _raw_continued(depth, base, text, owner == _RAW_STRING)
    stripped = text.strip()
    if not stripped or stripped.startswith("//"):
        return plain_scan("continuation", state)
    if owner == _NAME_OWNER:
        return _after_name(base, text)
    if owner == _HEADER_OWNER and (not _starts_new_item(text, stripped, base, depth) or _more_parameters(text, depth)):
        return _header_continued(depth, text)
    if owner == _INLINE:  # its instructions, and the `}` that closes it, are the instruction's
        return _continued(depth, base, owner, text)
    if owner == "module_header" and depth and _INSTRUCTION_HEAD.match(text) and not stripped.endswith("{"):
        return _continued(depth, base, owner, text)  # inside its braces, `c = d` is more of a header attribute
    if _starts_new_item(text, stripped, base, depth):
        if owner == _HEAD_OWNER and not depth:  # its opcode and operands, then other items: `abs(x) } ENTRY e {`
            continued = _head_continued(base, text)
            if continued.kind == "items":
                return continued
        # A new item starts while the previous one is still open: it was cut short. Scan this line
        # fresh so the rest of the file stays indexed (a header cut short opened no computation).
        unopened = owner == _HEADER_OWNER and not depth and _COMPUTATION_HEAD.match(text)
        scan = scan_hlo_line(TOP if unopened else base, text)
        if scan.problem is not None or (owner == _HEADER_OWNER and not depth):  # the grammar tells of its `{`
            return scan
        left = f"leaves {depth} bracket(s) open" if depth else (
            "ends before its opcode" if owner == _HEAD_OWNER else "ends with a comma")
        problem = line_problem(text, 0, len(text.rstrip()), "unbalanced-brackets",
                               f"the {owner.replace('_', ' ')} above {left}")
        return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)
    return _continued(depth, base, owner, text)


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


def _continued(depth: int, base: State, owner: str, text: str, in_string: bool = False) -> LineScan:
    """A continuation line, and the state after it."""
    if owner == _HEAD_OWNER:
        return _head_continued(base, text, depth)
    data: tuple[object, ...] = (owner, depth) if owner in _DEPTH_OWNERS else (owner,)  # (depth: on entering)
    if RAW_KEY in text and not in_string:  # backend_config's braces hold raw text: blanked, or left open below
        blanked, raw, raw_owner = _raw_braces(text)
        if raw:  # (perhaps those of another item after the one this line ends: `p) ROOT v = abs(q), backend_config={`)
            more = _ended_then_more(text, depth, _continuation(base, data), blanked) if owner in _SPLIT_OWNERS else None
            return more or _continuation(("cont", raw, base, raw_owner), data)
        text = blanked
    counted = _without_line_comment(text) if "//" in text and not in_string else text
    # (a line that starts inside a string: what it holds after the string's closing quote, its comments blanked;
    # "" where it holds none)
    outside = text if not in_string else _string_closed(text) or ""
    if in_string and "/" in outside:
        outside = without_comments(outside)
        close = _string_end(text, -1) + 1
        counted = text[:close] + outside[close:]
    balance, in_string = open_string_end(counted, in_string) if in_string or '"' in counted else (
        bracket_balance(counted), False)
    entering, depth = depth, max(depth + balance, 0)
    if owner in _OPERAND_OWNERS:
        owner = owner if depth > 0 and _operand_list_end(text, entering) < 0 else "instruction"
    elif owner == _CALLED:  # this line holds the value: a name, or the `{` of a computation written inline
        owner = _INLINE if depth > entering else "instruction"
    elif owner in _LIST_VALUES:  # its value: a name, or a braced list, which may go on below (`{// c` / `a}`)
        owner = _LIST_VALUES[owner] if depth > entering else "instruction"
    elif owner in _LIST_ROLES:  # the list's names go on to its `}`
        owner = owner if "}" not in _without_line_comment(text) else "instruction"
    elif owner == _INLINE and depth == 0:  # it closed: the instruction's attributes go on (`},` above `body=b`)
        owner = "instruction"
    # (its operands too; or its operand list closes on this line, then an inline computation opens: `), calls={`)
    if owner == "instruction" and (depth > entering or depth > 0 and data[0] in _OPERAND_OWNERS) and \
            _opens_inline_computation(outside):
        owner = _INLINE
    if owner == "instruction" and depth > 0:  # a list of names left open: `p), branch_computations={b1,`
        owner = _list_going_on(outside) or owner
    if owner == "instruction" and depth == 0:
        owner = _value_below(outside) or owner
    # the item may end on this line, and others start (the last may go on below: brackets or a string open)
    more = _ended_then_more(outside, entering, _continuation(base, data)) if data[0] in _SPLIT_OWNERS else None
    if more is not None:
        return more
    if in_string:
        return _continuation(("string", depth, base, owner), data)
    if depth > 0 or _goes_on(outside):
        return _continuation(("cont", depth, base, owner), data)
    return _continuation(base, data)


# (a key's value below it, too: `to_apply=` above `add }`)
_SPLIT_OWNERS = frozenset(("instruction", _OPERANDS, _LITERAL, _INLINE, _CALLED, _CALLED_LIST, _PREDECESSORS))
# The owners whose lines' uses depend on how deep in brackets a line starts: where the operand list, or the
# computation written inline, closes (the attributes after it name computations: `}, body=b`).
_DEPTH_OWNERS = _OPERAND_OWNERS | {_INLINE}


def _ended_then_more(text: str, entering: int, ended: LineScan, raw_blanked: str | None = None) -> LineScan | None:
    """A line that ends the instruction above it and goes on with other items, as XLA reads tokens, not
    lines (`p), calls=w ROOT d = ...`, `f32[] abs(p) }`): kind "items", the first the instruction's end (its
    items found in `raw_blanked`, where given: the line with what backend_config's braces hold blanked)."""
    if ended.end_state != COMP or ("=" not in text and "}" not in text and not _may_start_another(text, 0)):
        return None
    flat = without_comments(raw_blanked or text)
    closed = not entering or ended.data[0] == "instruction"  # (else the operand list is open: depth `entering`)
    starts = item_starts(flat, True, operands_closed=closed)
    # none, or a start inside the brackets still open: items are looked for after they close (`}, body={...} }`)
    if entering and (not starts or entering + bracket_balance(text[: starts[0]]) > 0):
        close = _operand_list_end(flat, entering)
        # (a `)` where they close: the instruction's, whatever bracket it was, so that a `}` after it ends more)
        starts = item_starts(" " * close + ")" + flat[close + 1 :], True, operands_closed=True) if close >= 0 else []
    if not starts or len(starts) >= _MAX_ITEMS_ON_A_LINE:
        return None
    return _items_scan(COMP, text, starts, [(0, ended)])


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


def _head_continued(base: State, text: str, depth: int = 0) -> LineScan:
    """A line of an instruction whose opcode has not come yet (`v =` above it), `depth` brackets of its shape
    open at the line's start: its shape, or its opcode and operands."""
    if "(" not in _without_line_comment(text):
        return _continuation(("cont", _head_depth(depth, text), base, _HEAD_OWNER), (_HEAD_OWNER,))
    opcode = _OPCODE.search(" " + text)  # the opcode may start the line
    if opcode is None:  # a tuple shape: the opcode is still to come
        return _continuation(("cont", _head_depth(depth, text), base, _HEAD_OWNER), (_HEAD_OWNER,))
    open_paren = opcode.end() - 2
    return _continued(0, base, _operands_owner(opcode.group(1)), " " * open_paren + text[open_paren:])


def _head_depth(depth: int, text: str) -> int:
    """The brackets of a shape open after a line of it (`(f32[4]{0 // c`: 2), `depth` open before it: a `}`
    below closes one of them, not the computation."""
    return max(depth + bracket_balance(_without_line_comment(text) if "//" in text else text), 0)


def _operand_list_end(text: str, depth: int) -> int:
    """Where the operand list, open `depth` brackets deep at the line's start, closes on this line, or -1."""
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
    return -1


_CONTINUATIONS: dict[tuple[State, tuple[object, ...]], LineScan] = {}


def _continuation(next_state: State, data: tuple[object, ...]) -> LineScan:
    """A continuation line of an item: `data` is (the item's kind,) — its attributes may name
    computations — or (_OPERANDS, the brackets open at the line's start). One shared scan per state."""
    scan = _CONTINUATIONS.get((next_state, data))
    if scan is None:
        scan = LineScan("continuation", next_state, data=data)
        if len(_CONTINUATIONS) < 4096:
            _CONTINUATIONS[next_state, data] = scan
    return scan


def _scan_in_string(state: tuple[str, int, State, str], text: str) -> LineScan:
    _, depth, base, owner = state
    close = _string_end(text, -1) if '"' in text else -1
    if close >= 0 and _ends_wrong(text, close + 1) and _resumes_after_string(text, base):
        # A quote typed or deleted above: XLA reads on in the string to this line's first quote, where
        # it cannot go on; read as an item here, the rest of the file stays indexed.
        scan = scan_hlo_line(base, text)
        if scan.problem is not None:
            return scan
        problem = line_problem(text, 0, len(text.rstrip()), "unbalanced-brackets",
                               f"the {owner.replace('_', ' ')} above leaves a string open")
        return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)
    scan = _continued(depth, base, owner, text, in_string=True)
    closed = _string_closed(text)  # a block comment left open after the string: the lines below are in it
    return _into_comment(scan) if closed is not None and "/*" in closed and blank_comments(closed)[1] else scan


_IN_A_STRING: State = ("string", 0, COMP, "instruction")


def leaves_a_string_open(text: str) -> bool:
    """Whether a line of a computation ends inside a string, read from outside one or from inside one left
    open above (XLA's strings go on over line ends)."""
    return any(in_string(scan_hlo_line(state, text).end_state) for state in (COMP, _IN_A_STRING))


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


_PENDING_ROOT: State = ("root", COMP)
_PENDING_TOP_ROOT: State = ("root", TOP)
_PENDING_ENTRY: State = ("entry", TOP)
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
        lone = _LONE_NAME.match(_without_line_comment(text))                 # of a text's one instruction
        scan = _outside(text, _lone_name(text, lone, TOP), lone) if lone is not None else scan
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
    "cont": _scan_continuation, "string": _scan_in_string, "comment": _scan_in_comment,
    "root": _scan_after_mark, "entry": _scan_after_mark}


def matching_paren(text: str, open_index: int) -> int:
    """Index of the `)` closing the `(` at `open_index`, or -1."""
    close = text.find(")", open_index + 1)
    if close < 0:
        return -1
    if text.find("(", open_index + 1, close) < 0:
        return close
    depth = 0
    index = open_index
    while index < len(text):
        ch = text[index]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return index
        elif ch == '"':
            index = _string_end(text, index)
            if index < 0:
                return -1
        index += 1
    return -1


def _string_closed(text: str) -> str | None:
    """A line that starts inside a string with the string's rest blanked, or None where it does not close."""
    close = _string_end(text, -1)
    return None if close < 0 else " " * (close + 1) + text[close + 1 :]


def _string_end(text: str, quote: int) -> int:
    """Index of the quote closing the string that opens at `quote`, or -1."""
    index = quote + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            return index
        index += 1
    return -1


def _collect_operands(text: str, start: int, end: int, refs: RefCollector) -> None:
    sigils = text.count("%", start, end)
    if sigils and sigils > text.count(",", start, end):  # as dumps print them: every operand has its sigil
        refs.add_matches(Role.INSTRUCTION_USE, _SIGIL_NAME.finditer(text, start, end))
        return
    if sigils:  # commas inside shapes and literals too: the operands counted by the list's own commas
        matches = list(_SIGIL_NAME.finditer(text, start, end))
        if len(matches) > _top_level_commas(text[start:end]):
            refs.add_matches(Role.INSTRUCTION_USE, matches)
            return  # every operand has its sigil; else some have not: `add(f32[4] p, %q)`
    for item_start, item_end in _top_level_items(text, start, end):
        item = text[item_start:item_end]
        if "/*" in item:
            item = _BLOCK_COMMENT.sub(lambda m: " " * len(m.group(0)), item)
        match = _TRAILING_NAME.search(item)
        if match:
            refs.add(Role.INSTRUCTION_USE, match.group(1), item_start + match.start(1))
        elif item.rstrip().endswith(")"):  # a nested instruction, `negate(p)`: its operands are used
            nested = _NESTED_OPCODE.search(item)
            close = matching_paren(text, item_start + nested.end() - 1) if nested else -1
            if nested:  # (its list may go on below the line: `negate(abs(p)` above `), q`)
                _collect_operands(text, item_start + nested.end(), close if 0 < close <= item_end else item_end, refs)


_NESTED_OPCODE = re.compile(r"(?<![%\w.\-])[a-z][a-z0-9_\-]*\(")
_BRACKETED = re.compile(r"\[[^\[\]]*\]|\{[^{}]*\}|\([^()]*\)")


def _top_level_commas(segment: str) -> int:
    """The commas of an operand list outside the brackets of its shapes and literals."""
    while True:
        inner = _BRACKETED.sub("", segment)
        if inner == segment:
            return segment.count(",")
        segment = inner


def _top_level_items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of the comma-separated items between `start` and `end`."""
    segment = text[start:end]
    if not any(c in segment for c in "([{"):
        items = []
        position = start
        for part in segment.split(","):
            items.append((position, position + len(part)))
            position += len(part) + 1
        return items
    items = []
    depth = 0
    item_start = start
    for index in range(start, end):
        ch = text[index]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append((item_start, index))
            item_start = index + 1
    items.append((item_start, end))
    return items


def _collect_attribute_refs(text: str, start: int, refs: RefCollector) -> None:
    if text.find("=", start) < 0:
        return
    leading = _LEADING_ATTRIBUTE_REF.match(text) if start == 0 else None
    if leading is not None:
        _attribute_ref(text, leading, refs)
    for match in _ATTRIBUTE_REF.finditer(text, start):
        if match.lastindex == _FRAME_KEY_GROUP:  # on every line of a dump: read here, without a call
            number = _INT.match(text, match.end())
            if number:
                refs.add(Role.FRAME_USE, number.group(0), match.end())
                continue
        _attribute_ref(text, match, refs)


def _attribute_ref(text: str, match: re.Match[str], refs: RefCollector) -> None:
    """The names the value of the attribute `match` found (its key, then `=`) refers to."""
    key = match[match.lastindex]  # type: ignore[index]
    value_start = match.end()
    if text[value_start : value_start + 1] in (" ", "\t"):  # `to_apply= %f`: spaces (comments blanked)
        value_start = len(text) - len(text[value_start:].lstrip(" \t"))
    if key == "stack_frame_id":
        number = _INT.match(text, value_start)
        if number:
            refs.add(Role.FRAME_USE, number.group(0), value_start)
        return
    role = Role.INSTRUCTION_USE if key == "control-predecessors" else Role.COMPUTATION_USE
    if text.startswith("{", value_start) and (key in _COMPUTATION_LIST_KEYS or role is Role.INSTRUCTION_USE):
        braced = _BRACED_LIST.match(text, value_start)
        if braced:
            refs.add_matches(role, _REF_VALUE.finditer(text, braced.start(1), braced.end(1)))
        elif "}" not in text[value_start:]:  # the list goes on below (`{a` / `}`): its names on this line
            refs.add_matches(role, _REF_VALUE.finditer(text, value_start + 1))
        return
    name = _REF_VALUE.match(text, value_start)
    if name:
        refs.add(role, name.group(1), name.start(1))
