"""HLO lines that are not an instruction's: the module header, stack-frame tables, computation headers and ends."""

from __future__ import annotations

import re

from hlo_lsp.parsing.hlo_scanner import forms
from hlo_lsp.parsing.hlo_scanner.continuations import continued_line
from hlo_lsp.parsing.hlo_scanner.instructions import lone_name, scan_instruction, several_items
from hlo_lsp.parsing.hlo_scanner.lexing import body_open, without_line_comment
from hlo_lsp.parsing.hlo_scanner.owners import with_continuation
from hlo_lsp.parsing.hlo_scanner.states import (
    ATTRIBUTES,
    COMP,
    HEADER_OWNER,
    PENDING_ENTRY,
    PENDING_ROOT,
    PENDING_TOP_ROOT,
    TOP,
)
from hlo_lsp.parsing.line_scan import (
    LineScan,
    Role,
    State,
    bracket_balance,
    line_problem,
    make_ref,
    open_string_end,
    plain_scan,
)
from hlo_lsp.parsing.names import NAME

# The forms this module reads, bound as its own names (see forms.py).
_COMPUTATION_END = forms.COMPUTATION_END
_COMPUTATION_HEAD = forms.COMPUTATION_HEAD
_INSTRUCTION_HEAD = forms.INSTRUCTION_HEAD
_LONE_NAME = forms.LONE_NAME

# `[ENTRY] name` alone on a line outside computations: a computation header whose signature or `{` is below.
_LONE_HEADER = re.compile(rf"[ \t]*(ENTRY[ \t]+)?(?!ROOT[ \t]*$)%?({NAME}):?[ \t]*$")

TABLE_NAMES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")  # the headers of the tables
_TABLE_DEF_ROLE = {
    "FileNames": Role.FILE_NAME_DEF,
    "FunctionNames": Role.FUNCTION_NAME_DEF,
    "FileLocations": Role.LOCATION_DEF,
    "StackFrames": Role.FRAME_DEF,
}
_TABLE_ROW = re.compile(r"[ \t]*([0-9]+)[ \t]+(\"(?:[^\"\\]|\\.)*\"|\{[^{}]*\})[ \t]*$")
# A row whose id is alone on its line, or whose value goes on below (XLA reads it over lines).
_ROW_GOING_ON = re.compile(r"[ \t]*([0-9]+)[ \t]*(\{[^}]*|\"(?:[^\"\\]|\\.)*)?[ \t]*$")


def scan_at_top(state: State, text: str, stripped: str) -> LineScan:
    if stripped.startswith("HloModule"):
        name = _module_name(text)
        if not name and without_line_comment(stripped).rstrip() == "HloModule":  # its name is on the next line
            return LineScan("module_header", ("cont", 0, TOP, "module_header"))
        return with_continuation(LineScan("module_header", TOP, data=name), text, TOP)
    if stripped in TABLE_NAMES:
        return LineScan("table_header", ("table", stripped), data=(stripped,))
    if isinstance(state, tuple) and state[0] == "table":
        row = _TABLE_ROW.match(text) or _ROW_GOING_ON.match(without_line_comment(text))
        if row:
            return _scan_table_row(state[1], text, row)
    if stripped.startswith(","):  # the attributes of the item above (a computation's `}`, the module's name)
        return continued_line(0, TOP, ATTRIBUTES, text)
    if stripped.startswith("ROOT") and without_line_comment(stripped).rstrip() == "ROOT":
        return plain_scan("blank", PENDING_TOP_ROOT)  # a text of one instruction, marked on the line above it
    if stripped.startswith("ENTRY") and without_line_comment(stripped).rstrip() == "ENTRY":
        return plain_scan("blank", PENDING_ENTRY)  # the computation it marks is on a line below
    head = _INSTRUCTION_HEAD.match(text)
    if head:
        return outside_computation(text, scan_instruction(text, head, TOP), head)
    if stripped.startswith("ROOT"):  # `ROOT x` alone: a text of one instruction, its `=` below
        lone = _LONE_NAME.match(without_line_comment(text))
        if lone is not None:
            return outside_computation(text, lone_name(text, lone, TOP), lone)
    if _COMPUTATION_HEAD.match(text) or _LONE_HEADER.match(without_line_comment(text)):
        return _scan_computation_header(text)
    if _COMPUTATION_END.match(text):
        return LineScan("computation_end", TOP, problem=line_problem(
            text, 0, len(text), "unmatched-brace", "`}` without an open computation"))
    return _unrecognized(text, state, "a computation header, an instruction or a stack-frame table row")


def scan_in_computation(text: str, stripped: str) -> LineScan:
    head = _INSTRUCTION_HEAD.match(text)
    if head:
        if "=" in text[head.end() :] or "}" in text:  # perhaps another item after it: `a = abs(p) ROOT b = ...`
            several = several_items(COMP, text)
            if several is not None:
                return several
        return scan_instruction(text, head, COMP)
    if stripped.startswith("ROOT") and without_line_comment(stripped).rstrip() == "ROOT":
        return plain_scan("blank", PENDING_ROOT)  # the instruction it marks is on a line below
    lone = _LONE_NAME.match(without_line_comment(text) if "//" in text else text)
    if lone is not None:
        return lone_name(text, lone)
    if _COMPUTATION_END.match(text):
        end = plain_scan("computation_end", TOP)
        return end if "," not in text else with_continuation(end, text, TOP)
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


def outside_computation(text: str, scan: LineScan, head: re.Match[str]) -> LineScan:
    """An instruction outside any computation (the one instruction of a text is: see lone_instruction_line)."""
    problem = line_problem(text, head.start(2), head.end(2), "instruction-outside-computation",
                           "instruction outside any computation (a computation header or `}` is missing)")
    return LineScan(scan.kind, scan.end_state, scan.refs, scan.data, problem)


def _scan_computation_header(text: str) -> LineScan:
    head = _COMPUTATION_HEAD.match(text)
    if head is None:
        lone = _LONE_HEADER.match(without_line_comment(text))
        if lone is None:
            return _unrecognized(text, TOP, "a computation header")
        definition = (make_ref(text, Role.COMPUTATION_DEF, lone.group(2), lone.start(2)),)
        data = (lone.group(2), lone.group(1) is not None, -1)
        return LineScan("computation", ("cont", 0, COMP, HEADER_OWNER), definition, data)
    definition = (make_ref(text, Role.COMPUTATION_DEF, head.group(2), head.start(2)),)
    data = (head.group(2), head.group(1) is not None, head.end(3) - 1 if head.group(3) == "(" else -1)
    if text.rstrip().endswith("{") or re.search(r"\{[ \t]*//.*$", text):
        return LineScan("computation", COMP, definition, data)
    clean = without_line_comment(text)
    if body_open(clean, 0, head.end(2)) < 0:  # its signature, or its `{`, is on the lines below
        return LineScan("computation", ("cont", max(bracket_balance(clean), 0), COMP, HEADER_OWNER), definition,
                        data)
    several = several_items(TOP, text)
    if several is not None:  # `ENTRY e { p = f32[] parameter(0) }`
        return several
    problem = line_problem(text, head.start(2), head.end(2), "syntax",
                           "computation header must end with `{`")
    return LineScan("computation", COMP, definition, data, problem)


def _scan_table_row(table: str, text: str, row: re.Match[str]) -> LineScan:
    definition = (make_ref(text, _TABLE_DEF_ROLE[table], row.group(1), row.start(1)),)
    data = (table, row.group(1), row.start(2))
    if row.re is _TABLE_ROW:
        return LineScan("table_row", ("table", table), definition, data)
    depth, in_string = open_string_end(without_line_comment(text), False)
    return LineScan("table_row", ("string" if in_string else "cont", max(depth, 0), ("table", table), "table_row"),
                    definition, data)


def _module_name(text: str) -> tuple[str, ...]:
    match = re.match(rf"[ \t]*HloModule[ \t]+%?({NAME})", text)
    return (match.group(1),) if match else ()


def _unrecognized(text: str, state: State, expected: str) -> LineScan:
    start = len(text) - len(text.lstrip())
    problem = line_problem(text, start, len(text.rstrip()), "syntax", f"unexpected text: expected {expected}")
    return LineScan("unknown", state, problem=problem)
