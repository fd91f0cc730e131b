"""hlo-opcodes: what XLA's HLO text parser checks on each instruction: known opcodes, operand
counts, the attributes each opcode takes and the syntax of their values, constant literals,
parameter numbers, async chains, and the inputs on which the parser crashes.

The modules, from the pass down:
- module_pass: the pass over a module's chunks, with the findings kept per chunk;
- verdicts, text_keys: each line's text judged once (digits zeroed), and what it still needs;
- line_rules, opcode_rules, parameters: the rules of an instruction's own line;
- cross_line, async_chains, channels (with other_lines): the rules that read other lines;
- signatures, inferred_operands (with inference, shape_rules): a computation's signature against its
  root, and the shapes XLA infers where none is written;
- reader, findings: an instruction's parts, and what the rules report;
- dropped_operands: the operands spelt like opcodes that XLA's parser drops, read again without them;
- tables, values, structured_values, literals: what XLA's parser requires of each opcode, each
  attribute value and each constant literal;
- layouts, shardings: the layouts of shapes and the `sharding=` values, as XLA's parser reads them.
"""

from hlo_lsp.analysis.checks.opcodes.module_pass import check

__all__ = ["check"]
