"""Fast line scanner for HLO module text: line kinds, definitions and uses.

The modules, from the entry down:
- machine: `scan_hlo_line`, one line in the state the line above leaves (states.py tells them);
- instructions, structure, continuations: instruction lines, the module's other items (header, tables,
  computation headers and ends), and the lines an item goes on over;
- first_item: a text's first item, a lone name, read by the token after it (a look-ahead);
- owners: whether an item goes on below its line, and which of its parts the line below holds;
- uses: the names a scanned line uses, read only where they are asked for; template_uses: those of a line of a
  template read before, kept by template;
- lexing, forms: comments, strings and brackets as XLA's lexer reads them, and the line forms told apart;
- rescan: how the parts below the machine reach its entry point again, without importing it back.
"""

from hlo_lsp.parsing.hlo_scanner.continuations import continued_end, goes_on_from_above
from hlo_lsp.parsing.hlo_scanner.first_item import LOOK_AHEAD as FIRST_ITEM_LOOK_AHEAD
from hlo_lsp.parsing.hlo_scanner.first_item import first_item_looks_ahead, first_item_rescan
from hlo_lsp.parsing.hlo_scanner.forms import INLINE_KEYS
from hlo_lsp.parsing.hlo_scanner.instructions import continued_instruction_data, scan_instruction_at, several_items
from hlo_lsp.parsing.hlo_scanner.lexing import (
    RAW_KEY,
    blank_comments,
    brace_balance_until_closed,
    comment_end_blanked,
    matching_paren,
    raw_braces_blanked,
    string_start_blanked,
    without_comments,
)
from hlo_lsp.parsing.hlo_scanner.machine import leaves_a_string_open, scan_hlo_line
from hlo_lsp.parsing.hlo_scanner.states import ATTRIBUTES, COMP, TOP, in_block_comment, in_string
from hlo_lsp.parsing.hlo_scanner.structure import TABLE_NAMES
from hlo_lsp.parsing.hlo_scanner.template_uses import KnownUses, LineUses
from hlo_lsp.parsing.hlo_scanner.uses import hlo_line_uses, hlo_lines_uses, item_text, printed_parent_frame

__all__ = [
    "ATTRIBUTES",
    "COMP",
    "FIRST_ITEM_LOOK_AHEAD",
    "INLINE_KEYS",
    "KnownUses",
    "LineUses",
    "RAW_KEY",
    "TABLE_NAMES",
    "TOP",
    "blank_comments",
    "brace_balance_until_closed",
    "comment_end_blanked",
    "continued_end",
    "continued_instruction_data",
    "first_item_looks_ahead",
    "first_item_rescan",
    "goes_on_from_above",
    "hlo_line_uses",
    "hlo_lines_uses",
    "in_block_comment",
    "in_string",
    "item_text",
    "leaves_a_string_open",
    "matching_paren",
    "printed_parent_frame",
    "raw_braces_blanked",
    "scan_hlo_line",
    "scan_instruction_at",
    "several_items",
    "string_start_blanked",
    "without_comments",
]
