"""What XLA's lexer skips or reads whole on an HLO line: comments, strings, brackets, backend_config's raw braces."""

from __future__ import annotations

import re

from hlo_lsp.parsing.hlo_scanner.states import RAW, RAW_STRING, in_block_comment, in_string
from hlo_lsp.parsing.line_scan import State, as_spaces, bracket_balance

# (a `//` comment is matched to be let be: a `/*` in it opens nothing)
_STRING_OR_BLOCK_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|/\*(?:.*?\*/|.*)|//[^\n]*', re.S)


def blank_comments(text: str) -> tuple[str, bool]:
    """`text` with its block comments (outside strings) replaced by spaces, and whether the last one
    stays open at the end of the line (blanked to the end)."""
    if "/*" not in text:
        return text, False
    unclosed = False

    def blank(found: re.Match[str]) -> str:
        nonlocal unclosed
        token = found.group()
        if token[0] == '"' or token[1] == "/":
            return token
        unclosed = len(token) < 4 or not token.endswith("*/")
        return as_spaces(token)

    return _STRING_OR_BLOCK_COMMENT.sub(blank, text), unclosed


def comment_end_blanked(state: State, text: str) -> str | None:
    """`text` with its start blanked to the `*/` that ends a block comment left open above (`state`, the
    state before the line, says so), or None where no such comment ends on it. Comments do not nest: a `/*`
    before the `*/` is the comment's text (`p/* a b */`)."""
    close = text.find("*/")
    if close < 0 or not in_block_comment(state):
        return None
    return " " * (close + 2) + text[close + 2 :]


def string_start_blanked(state: State, text: str) -> str | None:
    """`text` with its start blanked to the quote that closes a string left open above (`state`, the state
    before the line, says so; all of it where the string goes on below), or None where it starts in none."""
    return (string_closed(text) or " " * len(text)) if in_string(state) else None


def leading_comment_blanked(text: str) -> str:
    """A line that starts inside a block comment (a `*/` before any `/*`) with that comment blanked."""
    close = text.find("*/")
    return text if close < 0 or "/*" in text[:close] else " " * (close + 2) + text[close + 2 :]


_STRING_OR_LINE_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|//')


def without_comments(text: str) -> str:
    """`text` (perhaps over lines) with its comments blanked, its offsets kept, as XLA's lexer skips them."""
    blanked = blank_comments(text)[0]
    if "//" not in blanked:
        return blanked
    # (a string may go on over a line end: a `//` after its close on the next line is a comment)
    return _STRING_OR_LINE_COMMENT_OVER_LINES.sub(
        lambda found: found.group() if found.group()[0] == '"' else " " * len(found.group()), blanked)


_STRING_OR_LINE_COMMENT_OVER_LINES = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*', re.S)


def without_line_comment(text: str) -> str:
    """`text` with a `//` comment (outside strings) blanked to the end of the line."""
    if "//" not in text:
        return text
    for found in _STRING_OR_LINE_COMMENT.finditer(text):
        if found.group() == "//":
            return text[: found.start()] + " " * (len(text) - found.start())
    return text


def string_end(text: str, quote: int) -> int:
    """Index of the quote closing the string that opens at `quote`, or -1 (a backslash escapes the next character,
    a line end too)."""
    rest = _STRING_REST.match(text, quote + 1)
    return -1 if rest is None else rest.end() - 1


_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def string_closed(text: str) -> str | None:
    """A line that starts inside a string with the string's rest blanked, or None where it does not close."""
    close = string_end(text, -1)
    return None if close < 0 else " " * (close + 1) + text[close + 1 :]


def matching_paren(text: str, open_index: int) -> int:
    """Index of the `)` closing the `(` at `open_index`, or -1."""
    close = text.find(")", open_index + 1)
    if close < 0:
        return -1
    if text.find("(", open_index + 1, close) < 0:
        return close
    depth = 0
    index = open_index
    while index < len(text):
        ch = text[index]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return index
        elif ch == '"':
            index = string_end(text, index)
            if index < 0:
                return -1
        index += 1
    return -1


def operand_list_end(text: str, depth: int) -> int:
    """Where the operand list, open `depth` brackets deep at the line's start, closes on this line, or -1."""
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def body_open(text: str, depth: int, start: int = 0) -> int:
    """Where the `{` that opens a computation's body is on a header line, `depth` brackets deep at
    `start`, or -1."""
    for index in range(start, len(text)):
        char = text[index]
        if char == "{" and depth == 0:
            return index
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
    return -1


def head_depth(depth: int, text: str) -> int:
    """The brackets of a shape open after a line of it (`(f32[4]{0 // c`: 2), `depth` open before it: a `}`
    below closes one of them, not the computation."""
    return max(depth + bracket_balance(without_line_comment(text) if "//" in text else text), 0)


RAW_KEY = "backend_config"  # the key whose braces XLA reads as raw text
# (in a text with its comments blanked; a string is matched whole: the key in a string opens nothing)
_RAW_OPENING_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?|backend_config\s*=\s*\{')
_BRACE_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}]')
_CLOSED_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def raw_braces_blanked(text: str) -> str:
    """`text` with what backend_config's braces hold blanked (XLA reads it as raw text to the matching brace:
    strings are skipped, comments are more text)."""
    return raw_braces(text)[0]


def raw_braces(text: str) -> tuple[str, int, str]:
    """`text` with what backend_config's braces hold blanked, how many braces stay open at its end (0: they
    close), and the owner of the line below where they do (RAW, or RAW_STRING inside a string of them)."""
    clean = without_comments(text)
    opening = _raw_opening(clean, 0)
    while opening >= 0:
        balance, end = brace_balance_until_closed(text, opening, 1)
        if end < 0:
            return text[:opening] + as_spaces(text[opening:]), 1 + balance, raw_braces_owner(text, opening)
        text = text[:opening] + as_spaces(text[opening : end - 1]) + text[end - 1 :]
        clean = without_comments(text)
        opening = _raw_opening(clean, end)
    return text, 0, RAW


def _raw_opening(clean: str, start: int) -> int:
    """Where the braces of backend_config open after `start` (after its `{`), outside strings; -1: nowhere."""
    for found in _RAW_OPENING_OR_STRING.finditer(clean, start):
        if found.group()[0] != '"':
            return found.end()
    return -1


def raw_braces_owner(text: str, start: int) -> str:
    """The owner of the line below one that leaves backend_config's braces open from `start`: inside a string
    of them, or not."""
    tokens = [found.group() for found in _BRACE_OR_STRING.finditer(text, start)]
    unclosed = bool(tokens) and tokens[-1][0] == '"' and _CLOSED_STRING.fullmatch(tokens[-1]) is None
    return RAW_STRING if unclosed else RAW


def brace_balance_until_closed(text: str, start: int, depth: int) -> tuple[int, int]:
    """(brace balance, index after the brace that closes `depth` braces) from `start`, strings skipped; the
    index is -1 where they stay open."""
    balance = 0
    for found in _BRACE_OR_STRING.finditer(text, start):
        token = found.group()
        if token[0] == '"':
            continue
        balance += 1 if token == "{" else -1
        if depth + balance == 0:
            return balance, found.end()
    return balance, -1
