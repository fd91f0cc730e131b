"""Finds and loads the grammar/*.lark files; the only module that builds Lark parsers.

The grammars ship inside the wheel as `hlo_lsp/grammar/`; in a source checkout
they are read from the repository's top-level `grammar/` folder.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.lark import PostLex

_OPENING = frozenset(("LPAR", "LSQB", "LBRACE"))
_CLOSING = frozenset(("RPAR", "RSQB", "RBRACE"))


def grammar_dir() -> Path:
    """The folder holding the .lark files (packaged copy first, then the checkout)."""
    packaged = resources.files("hlo_lsp") / "grammar"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[3] / "grammar"


class BracketNewlines(PostLex):
    """Drops line ends inside brackets, so only top-level newlines end an item.

    This is what lets a multi-line literal (`constant({ {1,2},\\n {3,4} })`) or a
    multi-line module attribute parse as one instruction or header.
    """

    always_accept = ("_NL",)

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        depth = 0
        previous_was_newline = True
        for token in stream:
            if token.type == "_NL":
                if depth > 0 or previous_was_newline:
                    continue
                previous_was_newline = True
                yield token
                continue
            previous_was_newline = False
            if token.type in _OPENING:
                depth += 1
            elif token.type in _CLOSING and depth > 0:
                depth -= 1
            yield token


HLO_STARTS = ("module", "instruction", "computation_header", "module_header", "table_row", "shape")


@functools.cache
def hlo_parser(transformer: Transformer | None = None) -> Lark:
    """LALR parser for HLO module text (grammar/hlo.lark): parse trees, or, with a `transformer`, what it
    builds of them as it parses (hlo_syntax's records)."""
    return Lark.open(
        str(grammar_dir() / "hlo.lark"),
        parser="lalr",
        start=list(HLO_STARTS),
        postlex=BracketNewlines(),
        transformer=transformer,
        maybe_placeholders=False,
    )


BUFFER_ASSIGNMENT_STARTS = (
    "dump", "allocation_header", "value_line", "reused_value", "value_ref", "position", "use",
    "sequence_entry", "live_range_line", "peak_line", "stack_frame_line", "stats_line",
)


@functools.cache
def buffer_assignment_parser() -> Lark:
    """LALR parser for buffer-assignment, values and live-range files (grammar/buffer_assignment.lark)."""
    return Lark.open(
        str(grammar_dir() / "buffer_assignment.lark"),
        parser="lalr",
        start=list(BUFFER_ASSIGNMENT_STARTS),
        postlex=BracketNewlines(),
        maybe_placeholders=False,
    )


@functools.cache
def memory_report_parser() -> Lark:
    """LALR parser for memory-usage reports (grammar/memory_report.lark)."""
    return Lark.open(
        str(grammar_dir() / "memory_report.lark"),
        parser="lalr",
        start="report",
        postlex=BracketNewlines(),
        maybe_placeholders=False,
    )
