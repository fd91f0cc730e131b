"""Whether an HLO item goes on below its line, and which of its parts (its owner) the line below holds."""

from __future__ import annotations

import re

from hlo_lsp.parsing.hlo_scanner.forms import CALLED_KEYS, COMPUTATION_LIST_KEYS, INLINE_KEYS, LITERAL_OPCODES
from hlo_lsp.parsing.hlo_scanner.lexing import matching_paren, operand_list_end, without_line_comment
from hlo_lsp.parsing.hlo_scanner.states import CALLED, CALLED_LIST, INLINE, LITERAL, OPERANDS, PREDECESSORS, RAW
from hlo_lsp.parsing.line_scan import LineScan, State, bracket_balance, open_string_end

_INLINE_OPEN = re.compile(r"(?<![\w.\-])(?:" + "|".join(INLINE_KEYS) + r")[ \t]*=[ \t]*\{")
_KEYS_ENDING = re.compile(r"(?<![\w.\-])(?:(" + "|".join(CALLED_KEYS) + r")|control-predecessors)[ \t]*=$")
_LIST_ONLY_KEYS = frozenset(("branch_computations", "called_computations"))
_LIST_OPEN = re.compile(r"(?<![\w.\-])(?:(" + "|".join(sorted(COMPUTATION_LIST_KEYS)) + r")|control-predecessors)"
                        r"[ \t]*=[ \t]*\{[^{}]*$")
_RAW_KEY_ENDS = re.compile(r"(?<![\w.\-])backend_config[ \t]*=$")


def with_continuation(scan: LineScan, text: str, state: State) -> LineScan:
    """Moves to a continuation state when the line leaves brackets or a string open, or ends with a
    comma or `=` (the item goes on on the next line)."""
    if isinstance(scan.end_state, tuple):  # an instruction whose opcode is still to come
        return scan
    counted = without_line_comment(text) if "//" in text else text  # (what a `//` comment holds opens nothing)
    depth, in_string = open_string_end(counted, False) if '"' in counted else (bracket_balance(counted), False)
    owner = scan.kind
    if depth > 0 and scan.kind == "instruction":
        owner = operands_owner(scan.data[3]) if _operands_open(text, scan) else \
            INLINE if opens_inline_computation(text) else list_going_on(text) or owner
    elif depth <= 0 and scan.kind == "instruction":
        owner = value_below(text) or owner
    if in_string:
        return LineScan(scan.kind, ("string", max(depth, 0), state, owner), scan.refs, scan.data, scan.problem)
    if depth <= 0 and not goes_on(text):
        return scan
    return LineScan(scan.kind, ("cont", max(depth, 0), state, owner), scan.refs, scan.data, scan.problem)


def operands_owner(opcode: str) -> str:
    return LITERAL if opcode in LITERAL_OPCODES else OPERANDS


def _operands_open(text: str, scan: LineScan) -> bool:
    opcode_start, opcode = scan.data[2], scan.data[3]
    return bool(opcode) and matching_paren(text, opcode_start + len(opcode)) < 0


def opens_inline_computation(text: str) -> bool:
    """Whether the line leaves open the `{` of a computation written inline (`to_apply={`)."""
    return "{" in text and any(operand_list_end(text[found.end() :], 1) < 0 for found in _INLINE_OPEN.finditer(text))


def list_going_on(text: str) -> str | None:
    """The owner of the line below when the line leaves open a braced list of names, else None."""
    found = _LIST_OPEN.search(without_line_comment(text).rstrip()) if "{" in text else None
    return None if found is None else "computation_list" if found.group(1) else "predecessor_list"


def value_below(text: str) -> str | None:
    """The owner of the line below when the line ends with a key whose value, computations, control
    predecessors or backend_config's raw braces, is on that line (CALLED, CALLED_LIST, PREDECESSORS, RAW),
    else None."""
    clean = without_line_comment(text).rstrip()
    if clean.endswith("=") and _RAW_KEY_ENDS.search(clean):
        return RAW
    key = _KEYS_ENDING.search(clean)
    if key is None:
        return None
    return PREDECESSORS if not key.group(1) else CALLED_LIST if key.group(1) in _LIST_ONLY_KEYS else CALLED


def goes_on(text: str) -> bool:
    """Whether a line ends with a comma or `=` (a line comment aside): the item's next attribute, or
    its value, is on the next line."""
    if "//" in text:
        text = without_line_comment(text)
    return text.rstrip().endswith((",", "="))
