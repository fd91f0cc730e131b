"""The disagreements with XLA's parser found and not fixed yet: the causes the 100,000-text runs
(benchmarks/xla_parser_long.py, seed 20250611) printed, each a template of XLA's message or ours, and the
shape inferences known open (dot, reduce-window, unary operands). The first run found 1,903 disagreements
in 50 causes; a later one (commit 42dcccf) 604 in 40. 10,000-text samples since: 136 in 27 causes (96 of
them computations written inline, read then as part of their instruction), then, with inline computations
checked and modelled as XLA builds them, async chains and control-predecessors read by name on lines of
several items and a text of one instruction read as a module of it, 16 in 10; with lines that end an
instruction and start others read as XLA reads tokens, 11 in 8 (commit 60087f7). Some listed causes the
samples did not see are kept: the test's seeded sample draws smaller texts than the long run. What is
left: block comments over lines inside a line of several items, `ROOT` alone on a line outside computations,
a computation's attribute whose value is on the line below its `}` (`}, execution_thread=` / `"main"`), a
glued `%v=` after another item on its line, some multi-line strings, shapes XLA infers or checks against
operands. A test fails on any cause not listed here; a cause fixed is taken off the list."""

from __future__ import annotations

OPEN: frozenset[str] = frozenset((
    'XLA accepts, we reject: [attribute-value] execution_thread: expects a quoted string, e.g. execution_thread="main"',
    "XLA accepts, we reject: [attribute-value] frontend_attributes: expected '{' to start frontend attributes",
    "XLA accepts, we reject: [attribute-value] input_output_alias: output index {N} is not an index of the entry computation's result shape S",
    "XLA accepts, we reject: [attribute-value] metadata: expects '{' to start sub attributes",
    'XLA accepts, we reject: [attribute-value] replica_groups: expects a list of replica groups, e.g. {{N,N},{N,N}}',
    'XLA accepts, we reject: [empty-computation] computation X has no instruction',
    'XLA accepts, we reject: [empty-module] the module has no computation',
    'XLA accepts, we reject: [missing-attribute] attribute X is expected but not seen (fusion requires it)',
    'XLA accepts, we reject: [root-count] computation X has N ROOT instructions; it may have one (without, its last instruction is its root)',
    'XLA accepts, we reject: [syntax] computation X must end with `{`',
    'XLA accepts, we reject: [syntax] expected `shape opcode(operands)` after `=`',
    'XLA accepts, we reject: [syntax] expected the computation X `ENTRY` marks',
    'XLA accepts, we reject: [syntax] expected the instruction `ROOT` marks',
    'XLA accepts, we reject: [syntax] unexpected `(`; expected `)`, `,`, `[`, end of line',
    'XLA accepts, we reject: [syntax] unexpected `=`; expected `(`, `,`, `...`, `[`, `{`, ...',
    'XLA accepts, we reject: [syntax] unexpected `ROOT`; expected `,`, end of line',
    'XLA accepts, we reject: [syntax] unexpected `X`; expected `,`, end of line',
    'XLA accepts, we reject: [syntax] unexpected `]`; expected `(`, `,`, `...`, `:`, `=`, ...',
    'XLA accepts, we reject: [syntax] unexpected end of text; expected `(`, `)`, `,`, `...`, `:`, ...',
    'XLA accepts, we reject: [syntax] unexpected end of text; expected `(`, `,`, `...`, `:`, `=`, ...',
    'XLA accepts, we reject: [syntax] unexpected end of text; expected `(`, `...`, `[`, `{`, a name, ...',
    'XLA accepts, we reject: [syntax] unexpected end of text; expected a name',
    'XLA accepts, we reject: [syntax] unexpected `}`; expected `,`, end of line',
    'XLA accepts, we reject: [syntax] unexpected end of text; expected `(`, `)`, `,`, `...`, `{`, ...',
    'XLA accepts, we reject: [syntax] unexpected text: expected a computation X, an instruction X a stack-frame table row',
    'XLA accepts, we reject: [syntax] unexpected text: expected an instruction (`name = shape opcode(operands)`) or `}`',
    'XLA accepts, we reject: [unclosed-computation] computation X has no closing `}`',
    'XLA accepts, we reject: [undefined-instruction] instruction X is not defined in this module',
    'XLA crashes on, we accept: crash (SIGABRT): hlo_computation.cc:N] Check failed: param_no >= N && param_no < parameter_count',
    'XLA rejects, we accept: AsyncUpdate expects the op shape to be the same as the operand shape.',
    'XLA rejects, we accept: Computation w is called by more than one async op.',
    'XLA rejects, we accept: Operand layout constraint shape S for operand N is not compatible with operand shape S',
    'XLA rejects, we accept: Shape of computation X, S, is not compatible with that of its root instruction X, S',
    'XLA rejects, we accept: The declared operand shape S is not compatible with the shape of the operand instruction X',
    'XLA rejects, we accept: computation X not exist: X',
    'XLA rejects, we accept: expects name',
    'XLA rejects, we accept: expected primitive type, saw kInt',
    'XLA rejects, we accept: failed to infer shape for opcode: X, error: Cannot infer shape for dot operation: S <dot> S. Must specify the same number of contracting dimensions for lhs and ',
    'XLA rejects, we accept: failed to infer shape for opcode: X, error: Expected array argument for operand of unary operation, but got S.',
    'XLA rejects, we accept: failed to infer shape for opcode: X, error: Unknown operation for unary shape inference: "opt-barrier".',
    'XLA rejects, we accept: failed to infer shape for opcode: X, error: Window has dimension N but base shape has dimension N',
    'XLA rejects, we accept: instruction X not exist: X',
    'model: opcode',
    'model: operands',
    'model: shape',
))
