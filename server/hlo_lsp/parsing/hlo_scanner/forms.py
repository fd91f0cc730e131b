"""The HLO line forms the scanner tells apart, and the attribute keys whose values name computations."""

from __future__ import annotations

import re

from hlo_lsp.parsing.names import NAME

# A module that reads a form binds it as its own name (`_OPCODE = forms.OPCODE`), not by `from ... import`:
# CPython calls a method of a name an import binds through a bound method made on each call, which the scan
# of a million lines would pay for.

INSTRUCTION_HEAD = re.compile(rf"[ \t]*(ROOT[ \t]+)?%?({NAME}):?[ \t]*=[ \t]*")
# XLA's lexer reads `name:` as a name: `ENTRY e: {` is the computation `e`.
COMPUTATION_HEAD = re.compile(rf"[ \t]*(ENTRY[ \t]+)?%?({NAME}):?[ \t]*(\(|\{{|,)")
# `}`, perhaps `// name`, perhaps the computation's attributes: `}, execution_thread="main_thread"` (they may go
# on below: XLA reads `, key=value` tokens after the `}`, lines or comments between them).
COMPUTATION_END = re.compile(rf"[ \t]*\}}[ \t]*(//[ \t]*%?({NAME})?.*|,[ \t]*(?:[A-Za-z_][A-Za-z0-9_]*=.*|//.*)?)?$")
# A name alone on a line in a computation: its `=`, shape and opcode are on the lines below.
LONE_NAME = re.compile(rf"[ \t]*(ROOT[ \t]+)?%?({NAME}):?[ \t]*$")
OPCODE = re.compile(r"[ \t=]([a-z][a-z0-9_\-]*)\(")  # `=` too: `%v=abs(p)`

# The keys whose value is a computation (one, or written inline `{ ... }`), then those of lists of them.
INLINE_KEYS = ("calls", "to_apply", "condition", "body", "select", "scatter", "true_computation",
               "false_computation")
CALLED_KEYS = (*INLINE_KEYS, "comparator", "branch_computations", "called_computations")
COMPUTATION_LIST_KEYS = frozenset(("branch_computations", "called_computations", "calls"))
# Opcodes whose operands are literals, not instruction names.
LITERAL_OPCODES = frozenset(("constant", "parameter"))
# The words XLA's lexer reads as keywords or numbers, not names: an instruction spelt so needs its `%`.
KEYWORDS = frozenset(("true", "false", "inf", "nan", "HloModule", "ENTRY", "ROOT", "maximal", "replicated", "manual",
                      "last_tile_dim_replicate", "shard_as", "shard_like", "unknown"))
