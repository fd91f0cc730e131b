"""The HLO scanner's states, and the owners of the lines an item goes on over.

States: "top" (between computations), ("table", name) inside a stack-frame
table, "comp" inside a computation body, ("cont", depth, state, owner) on the
lines of an instruction or header whose brackets are still open (depth 0: its
line ended with a comma, its attributes go on), ("string", depth, state, owner)
inside a string that goes on over lines, ("comment", state) inside a block
comment, and ("root", state) or ("entry", state) after a lone `ROOT` or `ENTRY`.
The owner says which part of the item the line below holds.
"""

from __future__ import annotations

from hlo_lsp.parsing.line_scan import LineScan, Role, State

TOP: State = "top"
COMP: State = "comp"

# A lone keyword's state: (the keyword, the state of the line below it).
PENDING_ROOT: State = ("root", COMP)
PENDING_TOP_ROOT: State = ("root", TOP)
PENDING_ENTRY: State = ("entry", TOP)


def in_block_comment(state: State) -> bool:
    """Whether a line's end state is inside a block comment."""
    return isinstance(state, tuple) and state[0] == "comment"


def in_string(state: State) -> bool:
    """Whether a line's end state is inside a string (XLA's strings go on over line ends)."""
    return isinstance(state, tuple) and state[0] == "string"


def into_comment(scan: LineScan) -> LineScan:
    return LineScan(scan.kind, ("comment", scan.end_state), scan.refs, scan.data, scan.problem)


ATTRIBUTES = "attribute_list"  # the owner of a line of attributes, at the top, of the item above it
HEAD_OWNER = "instruction_head"  # the owner of the lines of an instruction's shape, until its opcode
NAME_OWNER = "instruction_name"  # the owner of the lines after an instruction's name, until its `=`
# The owner of the lines of a header that goes on until its `{` (its base: the computation it opens).
HEADER_OWNER = "computation_header"

RAW = "raw_braces"  # the owner of the lines inside backend_config's braces, which XLA reads as raw text
RAW_STRING = "raw_braces_string"  # the same, of a line that starts inside a string of them
RAW_OWNERS = (RAW, RAW_STRING)

OPERANDS = "instruction_operands"  # the owner of the lines of an operand list that goes on over lines
LITERAL = "instruction_literal"  # the same of a literal (`constant({1,` / `2})`): its lines name nothing
OPERAND_OWNERS = frozenset((OPERANDS, LITERAL))

# The owner of the lines of a computation written inline, over lines (`to_apply={` and its instructions
# below, until its `}`): XLA's parser reads them as the instruction's, not as instructions of their own.
INLINE = "inline_computation"

# The owner of the line below a key that names a computation (`to_apply=` ending a line): its value, a
# name or a computation written inline.
CALLED = "called_computation"
CALLED_LIST = "called_computation_list"  # the same of a key whose value is a braced list of computations
PREDECESSORS = "control_predecessors"  # the same of `control-predecessors=`: a braced list of instructions

# The owners of the lines a braced list of names goes on over (`branch_computations={a,` / `b}`), by the
# role of its names; the owner of such a list's value line (below its key) and its lines after.
LIST_ROLES = {"computation_list": Role.COMPUTATION_USE, "predecessor_list": Role.INSTRUCTION_USE}
LIST_VALUES = {CALLED_LIST: "computation_list", PREDECESSORS: "predecessor_list"}
