"""The names a scanned HLO line uses: operands, called computations, control predecessors, frame ids."""

from __future__ import annotations

import re

from hlo_lsp.parsing.digit_templates import digits_as_zero
from hlo_lsp.parsing.hlo_scanner import forms
from hlo_lsp.parsing.hlo_scanner.forms import CALLED_KEYS, COMPUTATION_LIST_KEYS, KEYWORDS, LITERAL_OPCODES
from hlo_lsp.parsing.hlo_scanner.lexing import (
    RAW_KEY,
    blank_comments,
    leading_comment_blanked,
    matching_paren,
    operand_list_end,
    raw_braces_blanked,
    without_line_comment,
)
from hlo_lsp.parsing.hlo_scanner.states import (
    CALLED,
    CALLED_LIST,
    INLINE,
    LIST_ROLES,
    LIST_VALUES,
    LITERAL,
    OPERAND_OWNERS,
    PREDECESSORS,
)
from hlo_lsp.parsing.hlo_scanner.template_uses import (
    KNOWN_SIGNATURES,
    KNOWN_USES,
    LineUses,
    computation_header_uses,
    learn_uses,
)
from hlo_lsp.parsing.line_scan import LineScan, Ref, RefCollector, Role, make_ref, open_string_end
from hlo_lsp.parsing.names import NAME

# The forms this module reads, bound as its own names (see forms.py).
_OPCODE = forms.OPCODE

_SIGIL_NAME = re.compile(rf"%({NAME})")
_TRAILING_NAME = re.compile(rf"%?({NAME})[ \t]*$")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/")

_REF_KEYS = (*CALLED_KEYS, "control-predecessors", "stack_frame_id")
# `=` first, then which key precedes it: the regex engine skips to each `=` at C speed instead of trying
# the keys at every character of a long metadata string. The key is the group that matched (lastindex).
_ATTRIBUTE_REF = re.compile("=(?:" + "|".join(rf"(?<=[,{{ \t]({key})=)" for key in _REF_KEYS) + ")")
# The same keys at the very start of a line an item goes on on (`to_apply=f` below `call(s), // c`).
_LEADING_ATTRIBUTE_REF = re.compile("(?:" + "|".join(f"({key})" for key in _REF_KEYS) + ")=")
_REF_VALUE = re.compile(rf"%?({NAME})")
_FRAME_KEY_GROUP = _REF_KEYS.index("stack_frame_id") + 1
_BRACED_LIST = re.compile(r"\{([^{}]*)\}")
_INT = re.compile(r"[0-9]+")

_TABLE_FIELD = re.compile(r"([a-z_]+)=([0-9]+)")
_TABLE_FIELD_ROLE = {
    "file_name_id": Role.FILE_NAME_USE,
    "function_name_id": Role.FUNCTION_NAME_USE,
    "file_location_id": Role.LOCATION_USE,
    "parent_frame_id": Role.FRAME_USE,
}
_KINDS_WITH_USES = frozenset(("instruction", "computation", "table_row", "continuation", "items"))
_VALUE_ROLES = {CALLED: Role.COMPUTATION_USE, CALLED_LIST: Role.COMPUTATION_USE, PREDECESSORS: Role.INSTRUCTION_USE}


def hlo_lines_uses(lines: list[str], scans: list[LineScan]) -> list[LineUses]:
    """Per line, the names it uses, as `hlo_line_uses` reads them; an instruction line of a template read before
    is given as the template's `KnownUses` instead of its Refs."""
    found: list[LineUses] = []
    add, known_uses, known_signatures, read = found.append, KNOWN_USES, KNOWN_SIGNATURES, hlo_line_uses
    for text, scan in zip(lines, scans):
        kind = scan.kind
        if kind == "instruction" and text.isascii():  # (inlined from hlo_line_uses: a million lines)
            data = scan.data
            known = known_uses.get(digits_as_zero(text[:-1] if text.endswith("\r") else text))
            if known is not None and data[3] and known.opcode_start == data[2] and known.opcode_length == len(data[3]):
                add(known)
                continue
        elif kind == "computation" and text.isascii():
            known = known_signatures.get(digits_as_zero(text[:-1] if text.endswith("\r") else text))
            if known is not None and known.opcode_start == scan.data[2]:
                add(known)
                continue
        add(read(text, scan) if kind in _KINDS_WITH_USES else ())
    return found


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
        template = digits_as_zero(text) if text.isascii() else None
        known = KNOWN_USES.get(template) if template is not None else None
        if known is not None and known.opcode_start == data[2] and known.opcode_length == len(data[3]):
            return known.refs(text)  # (see template_uses.learn_uses)
        written = text
        refs = RefCollector(text)  # its columns: those of the text as written, comments and all
        if "/" in text and ("/*" in text or "//" in text):  # (op_name strings hold a `/` on most lines)
            if RAW_KEY in text:  # what backend_config's braces hold is raw text, comments and all
                text = raw_braces_blanked(text)
            if "/*" in text:  # what a block comment holds names nothing, closed or left open: `abs(p /* a`
                text = blank_comments(text)[0]
            if "//" in text:  # nor what a line comment holds: `abs(p // c` (after the block comments: `*//*`)
                text = without_line_comment(text)
        open_paren = data[2] + len(data[3])
        close_paren = matching_paren(text, open_paren)
        if data[3] not in LITERAL_OPCODES:
            _collect_operands(text, open_paren + 1, close_paren if close_paren > 0 else len(text), refs)
        if close_paren > 0:
            _collect_attribute_refs(text, close_paren + 1, refs)
        if template is not None:
            learn_uses(template, written, data, refs.refs)
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
            text = blank_comments(leading_comment_blanked(text))[0]
        if "//" in text:  # what a line comment holds names nothing: `branch_computations={b1, // c`
            text = without_line_comment(text)
        if scan.data == ("instruction",):
            _collect_attribute_refs(text, 0, refs)
        elif scan.data and scan.data[0] in LIST_ROLES:
            _list_going_on_refs(text, refs, LIST_ROLES[scan.data[0]])
        elif scan.data and scan.data[0] in _VALUE_ROLES:
            _called_value_refs(text, refs, _VALUE_ROLES[scan.data[0]], scan.data[0] in LIST_VALUES)
        elif scan.data == ("table_row",):
            _table_row_uses(text, 0, refs)
        elif scan.data and scan.data[0] in OPERAND_OWNERS:
            _continued_operands(text, scan.data[1], refs, literal=scan.data[0] == LITERAL)
        elif scan.data and scan.data[0] == INLINE:  # its instructions are its own; the attributes after its `}`
            close = operand_list_end(text, scan.data[1])
            if close >= 0:
                _collect_attribute_refs(text, close + 1, refs)
        return tuple(refs.refs)
    if kind == "computation":
        return computation_header_uses(text, scan.data[2], refs)
    _table_row_uses(text, scan.data[2], refs)  # a table row: the kinds with uses are all told above
    return tuple(refs.refs)


def item_text(text: str, scan: LineScan, start: int) -> str:
    """The text of the item of an "items" line that starts at `start`, the others blanked (columns kept)."""
    ends = [item_start for item_start, _ in scan.data if item_start > start]
    return " " * start + text[start : ends[0] if ends else len(text)]


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
        nested = _NESTED_OPCODE.search(item) if "(" in item else None
        if nested is not None and nested.group(1) in LITERAL_OPCODES:
            continue  # a nested constant: its literal names nothing (`constant(inf`, its `)` below)
        match = _TRAILING_NAME.search(item)
        if match and match.group(1) in KEYWORDS and item[match.start()] != "%":
            continue  # `inf`, `true`: a literal's token (`constant(` above), or no name at all
        if match:
            refs.add(Role.INSTRUCTION_USE, match.group(1), item_start + match.start(1))
        elif nested is not None:  # a nested instruction, `negate(p)`: its operands are used
            close = matching_paren(text, item_start + nested.end() - 1)
            if close < 0 or close > item_end or item.rstrip().endswith(")"):  # (its list may go on below the
                end = close if 0 < close <= item_end else item_end             # line: `negate(abs(p)`, `tuple(p,`)
                _collect_operands(text, item_start + nested.end(), end, refs)


_NESTED_OPCODE = re.compile(r"(?<![%\w.\-])([a-z][a-z0-9_\-]*)\(")
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
        inner = operand_list_end(text, depth - 1)  # a shape's or layout's numbers name nothing), then the
        if not literal:                            # list's items after they close
            end = inner if inner >= 0 else len(text)
            _collect_operands(_closings_as_commas(text, end), 0, end, refs)
        start = inner + 1
        if start == 0:
            return
    end = operand_list_end(text[start:], 1)
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


def _collect_attribute_refs(text: str, start: int, refs: RefCollector) -> None:
    if text.find("=", start) < 0:
        return
    leading = _LEADING_ATTRIBUTE_REF.match(text) if start == 0 else None
    if leading is not None:
        _attribute_ref(text, leading, refs)
    for match in _ATTRIBUTE_REF.finditer(text, start):
        if text.count('"', start, match.start()) % 2 and open_string_end(text[start : match.start()], False)[1]:
            continue  # a key in a string names nothing: `op_name="x, calls={y"` (escaped quotes are no ends)
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
    if text.startswith("{", value_start) and (key in COMPUTATION_LIST_KEYS or role is Role.INSTRUCTION_USE):
        braced = _BRACED_LIST.match(text, value_start)
        if braced:
            refs.add_matches(role, _REF_VALUE.finditer(text, braced.start(1), braced.end(1)))
        elif "}" not in text[value_start:]:  # the list goes on below (`{a` / `}`): its names on this line
            refs.add_matches(role, _REF_VALUE.finditer(text, value_start + 1))
        return
    name = _REF_VALUE.match(text, value_start)
    if name:
        refs.add(role, name.group(1), name.start(1))


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


def _list_going_on_refs(text: str, refs: RefCollector, role: Role) -> None:
    """A line of a braced list of names that goes on from above: its names to the `}`, then attributes."""
    close = text.find("}")
    refs.add_matches(role, _REF_VALUE.finditer(text, 0, close if close >= 0 else len(text)))
    if close >= 0:
        _collect_attribute_refs(text, close + 1, refs)
