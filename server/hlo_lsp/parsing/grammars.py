"""Finds and loads the grammar/*.lark files; the only module that builds Lark parsers.

The grammars ship inside the wheel as `hlo_lsp/grammar/`; in a source checkout
they are read from the repository's top-level `grammar/` folder.
"""

from __future__ import annotations

import functools
import hashlib
import io
import pickle
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import lark
from lark import Lark, Token, Transformer
from lark.exceptions import LarkError
from lark.grammar import Rule
from lark.lark import PostLex
from lark.lexer import TerminalDef

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


_HLO_OPTIONS: dict[str, Any] = {"parser": "lalr", "start": list(HLO_STARTS), "maybe_placeholders": False}
HLO_TABLES = "hlo.tables"  # in grammar_dir(), written by scripts/grammar-tables


@functools.cache
def hlo_parser(transformer: Transformer | None = None) -> Lark:
    """LALR parser for HLO module text (grammar/hlo.lark): parse trees, or, with a `transformer`, what it
    builds of them as it parses (hlo_syntax's records). Loaded from the grammar's tables where they are
    those of this grammar and this lark (a few ms), else built from the grammar (a fifth of a second)."""
    loaded = _loaded_hlo_parser(transformer)
    if loaded is not None:
        return loaded
    return Lark.open(str(grammar_dir() / "hlo.lark"), postlex=BracketNewlines(), transformer=transformer,
                     **_HLO_OPTIONS)


def hlo_tables() -> bytes:
    """The HLO parser's tables, as scripts/grammar-tables writes them to grammar/hlo.tables: lark's
    serialized LALR parser (plain data) and the digest of what it was built from."""
    parser = Lark.open(str(grammar_dir() / "hlo.lark"), postlex=BracketNewlines(), **_HLO_OPTIONS)
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    for option in ("postlex", "transformer", "lexer_callbacks"):  # given again on loading
        data["options"].pop(option, None)
    tables = {"digest": hlo_grammar_digest(), "data": data, "memo": memo}
    return pickle.dumps(_plain(tables), protocol=4)


def _plain(value: Any) -> Any:
    """`value` with lark's tokens (the names of terminals a grammar imports) as the strings they are."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {_plain(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(item) for item in value)
    return value


def hlo_grammar_digest() -> str:
    """What the HLO parser's tables hang on: the grammar's files, the parser's options and lark's version."""
    digest = hashlib.sha256(f"{lark.__version__} {sorted(_HLO_OPTIONS.items())}".encode())
    for name in ("hlo.lark", "common.lark"):
        digest.update((grammar_dir() / name).read_bytes())
    return digest.hexdigest()


def _loaded_hlo_parser(transformer: Transformer | None) -> Lark | None:
    try:
        tables = _DataOnly(io.BytesIO((grammar_dir() / HLO_TABLES).read_bytes())).load()
        if tables["digest"] != hlo_grammar_digest():
            return None
        return Lark._load_from_dict(tables["data"], tables["memo"], transformer=transformer,
                                    postlex=BracketNewlines())
    except (OSError, pickle.UnpicklingError, LarkError, KeyError, TypeError, ValueError, AttributeError):
        return None  # no tables, or not lark's: built from the grammar


class _DataOnly(pickle.Unpickler):
    """Reads plain data only (dicts, lists, strings, numbers): the tables name no class to build."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"the parser tables hold plain data, not {module}.{name}")


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
