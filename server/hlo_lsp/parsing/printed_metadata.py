"""An instruction's metadata read from its line as XLA prints it, without the grammar.

A hover shows the metadata (`metadata={op_name="a/b" source_line=3}`), and parsing the whole instruction for it was
most of a hover's work.

Only the printed form is read here: one `metadata={...}` outside strings and brackets, `key=value` pairs split by
spaces, each value a string, a run of digits or a name; no comment on the line. Any other form gives None, and the
grammar reads the line (`hlo_syntax.parse_instruction`). Where both read it, they give the same pairs: the tokens
`_pairs` of the grammar's transformer keeps, as written (compared on every instruction of the bundled dumps by
tests/model/test_hlo_module.py, on random metadata by tests/parsing/test_printed_metadata.py).
"""

from __future__ import annotations

import re

from hlo_lsp.parsing.syntax import Metadata

# What the line's brackets are counted past: strings (their brackets are text), brackets, the word `metadata`, and
# what makes the line a form not read here (a comment, a quote that opens a string the line does not close).
_TOKENS = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|/[/*]|["']|[{}()\[\]]|(?<![\w.\-%])metadata\b""")
_KEY = r"[A-Za-z_][A-Za-z0-9_]*"
_VALUE = r'"(?:[^"\\\n]|\\.)*"|[0-9]+(?![\w.\-])|[A-Za-z_][A-Za-z0-9_.\-]*'
_PAIRS = re.compile(rf"=\{{[ ]*((?:{_KEY}=(?:{_VALUE})(?:[ ]+|(?=[ ]*\}})))*)[ ]*\}}")
_PAIR = re.compile(rf"({_KEY})=({_VALUE})")
_OPENING, _CLOSING = frozenset("{(["), frozenset("})]")


def printed_metadata(text: str) -> Metadata | None:
    """The metadata of the instruction `text` (its line), None where the line holds none or holds it in another form
    than XLA prints."""
    depth, found = 0, None
    for token in _TOKENS.finditer(text):
        kind = token.group()
        if kind in _OPENING:
            depth += 1
        elif kind in _CLOSING:
            depth -= 1
        elif kind == "metadata":
            if found is not None or depth != 0:
                return None  # a second one, or one inside another value
            found = _PAIRS.match(text, token.end())
            if found is None:
                return None
        elif kind[0] == "/" or len(kind) == 1:  # a comment, or a quote left open
            return None
    return Metadata(tuple(_PAIR.findall(found.group(1)))) if found is not None else None
