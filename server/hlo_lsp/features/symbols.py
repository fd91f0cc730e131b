"""The outline of a dump file (textDocument/documentSymbol), read in one pass over its line scans.

An HLO module file gives the module, its stack-frame tables and its computations
(the ENTRY computation first) with their instructions. A buffer-assignment-family
or memory-report file gives its sections, the allocations with their values, the
Used values blocks and the parts of HloLiveRange. No line is parsed with the grammar:
a large module has hundreds of thousands of instructions.

`bounded_outline` keeps at most a given number of symbols (a 40 MB module has 365,000, a
100 MB answer): in an HLO module the ENTRY computation with its instructions first, then the
other computations and tables, then their children; elsewhere level by level. Instructions
beyond the bound are never made into symbols.
"""

from __future__ import annotations

from dataclasses import replace

from hlo_lsp.features.buffers_outline import read_sections, to_symbol
from hlo_lsp.features.hlo_outline import hlo_outline
from hlo_lsp.features.types import Symbol
from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.parsing.file_kinds import FileKind


def document_symbols(module: ModuleDump, document: Document) -> list[Symbol]:
    """The document's outline. (`module` is the dump the document belongs to; the outline needs
    only the document itself, which may be newer than the module's other files.)"""
    return bounded_outline(document, None)[0]


def bounded_outline(document: Document, limit: int | None) -> tuple[list[Symbol], int]:
    """The outline with at most `limit` symbols (None: all), and how many the whole outline has."""
    if not document.kind.is_dump:
        return [], 0
    with paused_collector():  # a large module's outline is a million small objects
        if document.kind is FileKind.HLO_MODULE:
            return hlo_outline(document, limit)
        symbols = [to_symbol(node) for node in read_sections(document, with_values=True) if node.in_outline]
        total = _count(symbols)
        return (symbols if limit is None or total <= limit else _level_by_level(symbols, limit)), total


def _count(symbols: tuple[Symbol, ...] | list[Symbol]) -> int:
    return sum(1 + _count(symbol.children) for symbol in symbols)


def _level_by_level(symbols: list[Symbol], limit: int) -> list[Symbol]:
    """The first `limit` symbols in breadth-first order, each kept under its parent."""
    kept: dict[int, int] = {}  # id(symbol) -> how many of its children stay
    level, budget = symbols[:limit], limit - min(len(symbols), limit)
    while level and budget:
        below: list[Symbol] = []
        for symbol in level:
            taken = min(len(symbol.children), budget)
            kept[id(symbol)], budget = taken, budget - taken
            below.extend(symbol.children[:taken])
        level = below

    def cut(symbol: Symbol) -> Symbol:
        taken = kept.get(id(symbol), 0)
        return replace(symbol, children=tuple(cut(child) for child in symbol.children[:taken]))

    return [cut(symbol) for symbol in symbols[:limit]]
