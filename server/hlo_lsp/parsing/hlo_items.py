"""Where the items of a line start when one line holds several: XLA's parser reads tokens, not lines, so
`ENTRY e { p = f32[] parameter(0) ROOT a = f32[] abs(p) }` is a computation header, two instructions
and a closing brace. Dumps never print this; the scanner asks only for lines that look like it.

An item ends, at bracket depth 0 and outside strings and comments:
- a computation header, at the `{` that opens its body (not a layout's `{` glued to `]`, not a value's
  after `=`);
- an instruction, once its operand list has closed, where `ROOT` or a defined name (`name =`, the `=`
  not glued to a bare name, or below the name last on the line) comes, or a `}`;
- a `}` (and its `, execution_thread=...`), where a name or `ENTRY` comes.
"""

from __future__ import annotations

import re

from hlo_lsp.parsing.names import NAME

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|%?' + NAME + r':?|->|[()\[\]{},=]|\S')
_OPEN, _CLOSE = "([{", ")]}"


def item_starts(text: str, in_computation: bool, operands_closed: bool = False) -> list[int]:
    """The offsets where the second and later items of the line `text` (comments blanked) start;
    `operands_closed`: the line goes on with an instruction whose operand list closed above it."""
    tokens = [(match.start(), match.group()) for match in _TOKEN.finditer(text)]
    starts: list[int] = []
    depth, item, index = 0, _first_item(tokens, in_computation), 0
    previous = ""
    while index < len(tokens):
        at, token = tokens[index]
        following = tokens[index + 1][1] if index + 1 < len(tokens) else ""
        if depth == 0 and index > 0 and _starts_item(item, token, following, text, at, operands_closed, previous):
            starts.append(at)
            item, operands_closed = ("header" if item == "end" else _item_at(token)), False
        elif depth == 0 and item == "header" and _opens_body(token, previous, text, at) and index + 1 < len(tokens):
            starts.append(tokens[index + 1][0])  # the body's first item follows the `{`
            item, operands_closed = _item_at(tokens[index + 1][1]), False
            previous, index = token, index + 1
            continue
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            depth = max(depth - 1, 0)
            operands_closed = operands_closed or (item == "instruction" and depth == 0 and token == ")")
        previous = token
        index += 1
    return starts


def _first_item(tokens: list[tuple[int, str]], in_computation: bool) -> str:
    if not tokens:
        return "none"
    return _item_at(tokens[0][1]) if in_computation else "header"


def _item_at(token: str) -> str:
    """The kind of an item inside a computation body that starts with `token`."""
    return "end" if token == "}" else "instruction"


def _starts_item(item: str, token: str, following: str, text: str, at: int, operands_closed: bool,
                 previous: str) -> bool:
    """Whether `token`, at depth 0, starts a new item after the current one (`item`)."""
    if item == "instruction":
        if not operands_closed:
            return False
        return (token == "}" and _stands_apart(text, at)) or token == "ROOT" or (
            previous != "=" and (following or previous != ",") and _defines(token, following, text, at))
    if item == "end":
        return token not in (",", "=") and previous not in (",", "=") and _is_name(token)
    return False


def _defines(token: str, following: str, text: str, at: int) -> bool:
    """`name =` or `%name=`: a definition; `name=` is an attribute's key to XLA's lexer. A name last on the
    line (`following` empty) is one too: its `=` is on a line below."""
    if following not in ("=", "") or not _is_name(token):
        return False
    if not following:  # standing apart: glued to a `}` or `]`, it is part of a garbled value
        return text[at - 1 : at] in (" ", "\t", ")")
    return token.startswith("%") or not text.startswith("=", at + len(token))


def _stands_apart(text: str, at: int) -> bool:
    """A `}` after a space or the operands' `)`, not glued to a name after it: `di}ensions` and
    `metadata=?op_name="x"}` are garbled attributes, not a closing brace."""
    before, after = text[at - 1 : at], text[at + 1 : at + 2]
    return before in (" ", "\t", ")") and not (after.isalnum() or after == "_")


def _is_name(token: str) -> bool:
    return token[:1].isalpha() or token[:1] in "_%"


def _opens_body(token: str, previous: str, text: str, at: int) -> bool:
    """A header's `{` that opens its body: not a value's (`key={...}`), not a layout's glued to `]`."""
    return token == "{" and previous != "=" and not (at > 0 and text[at - 1] == "]")
