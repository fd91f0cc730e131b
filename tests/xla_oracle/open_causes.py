"""The disagreements with XLA's parser found and not fixed yet: the causes the 100,000-text runs
(benchmarks/xla_parser_long.py, seed 20250611) printed, each a template of XLA's message or ours. The first
run found 1,903 disagreements in 50 causes; a later one (commit 42dcccf) 604 in 40; one at commit 043190a
114 in 24, and one at 0970b33 38 in 15. The texts of the last run's disagreements judged again on the code
that followed leave 7, in the 7 causes below (the list the tests keep): the operands of instructions nested two
deep over lines, a multi-line string in a header attribute, an attribute key where XLA expects a type,
shapes XLA infers or checks against operands and layouts. The run on commit 1a8643e found 16 in 11 causes;
its six not listed before are added: a list of called computations split over lines by the mutator, a
duplicate parameter number, a declared operand shape or a signature against XLA's inference, a bare
syntax error, a replica_groups value. Of these, two are left: a lone instruction's syntax error on its
continuation line (analysis/syntax.py keeps only its first line's), and an opcode the scanner finds in a `//`
comment after a name's `=`; a sample on 3262ff3 found two more of these roots: `expects name` and
`instruction X not exist`. A test fails on any cause not listed here; a cause fixed is taken off the list."""

from __future__ import annotations

OPEN: frozenset[str] = frozenset((
    "XLA accepts, we reject: [attribute-value] frontend_attributes: expected '{' to start frontend attributes",
    'XLA accepts, we reject: [syntax] unexpected character `"`; expected `(`, `)`, `,`, `...`, `:`, ...',
    'XLA accepts, we reject: [undefined-instruction] instruction X is not defined in this module',
    'XLA crashes on, we accept: crash (SIGABRT): hlo_instruction.cc:N] Check failed: operand->shapeS.is_unbounded_dynamicS || ShapeUtil::StaticExtentProduct(shape) == ShapeUtil::StaticExtentPr',
    'XLA rejects, we accept: Syntax error:',
    'XLA rejects, we accept: expected primitive type, saw kAttributeName',
    'XLA rejects, we accept: expects name',
    'XLA rejects, we accept: instruction X not exist: X',
))
