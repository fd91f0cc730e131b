"""Workspace symbols (workspace/symbol): computations, allocations and instructions by name.

A name matches when it contains the query, ignoring case. Exact matches come
first, then names that start with the query, then the rest; among equals, shorter
names first, then computations before allocations before instructions, in file order.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator

from hlo_lsp.features.outline_lines import numbered_lines
from hlo_lsp.features.types import Location, WorkspaceSymbol
from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.text import Range, utf16_column

# A symbol before its location is built: (name, kind, source, range maker args, container).
_Candidate = tuple[str, str, str, tuple[int, int, int], str]


def workspace_symbols(modules: Iterable[ModuleDump], query: str, limit: int = 500) -> list[WorkspaceSymbol]:
    modules = list(modules)
    candidates = itertools.chain((c for m in modules for c in _computations(m)),
                                 (c for m in modules for c in _allocations(m)),
                                 (c for m in modules for c in _instructions(m)))
    with paused_collector():  # a large module has hundreds of thousands of instructions to look at
        if not query:
            chosen = list(itertools.islice(candidates, limit))
        else:
            chosen = [candidate for _, candidate in heapq.nsmallest(limit, _ranked(candidates, query.lower()))]
    return [_symbol(candidate) for candidate in chosen]


def _ranked(candidates: Iterator[_Candidate], query: str) -> Iterator[tuple[tuple[int, int, int], _Candidate]]:
    """(rank, candidate) of every candidate whose name contains the query; the lower the rank the better."""
    for order, candidate in enumerate(candidates):
        name = candidate[0].lower()
        if query not in name:
            continue
        closeness = 0 if name == query else 1 if name.startswith(query) else 2
        yield (closeness, len(name), order), candidate


def _symbol(candidate: _Candidate) -> WorkspaceSymbol:
    name, kind, source, (line, start, end), container = candidate
    return WorkspaceSymbol(name, kind, Location(source, Range.on_line(line, start, end)), container)


def _file_name(source: str) -> str:
    return source.replace("\\", "/").rsplit("/", 1)[-1]


def _computations(module: ModuleDump) -> Iterator[_Candidate]:
    hlo = module.hlo
    if hlo is None:
        return
    source = hlo.document.source
    container = _file_name(source)
    for computation in hlo.all_computations():
        where = computation.name_range
        yield computation.name, "function", source, (where.start.line, where.start.character,
                                                     where.end.character), container


def _instructions(module: ModuleDump) -> Iterator[_Candidate]:
    document = module.hlo_document
    if document is None:
        return
    source = document.source
    computation = ""
    for line, _, scan in numbered_lines(document):
        kind = scan.kind
        if kind == "instruction":
            ref = scan.refs[0]
            yield ref.name, "variable", source, (line, ref.start, ref.end), computation
        elif kind == "computation":
            computation = scan.data[0]
        elif kind == "computation_end":
            computation = ""


def _allocations(module: ModuleDump) -> Iterator[_Candidate]:
    for document in module.buffer_assignment_documents:
        yield from _allocations_in(document)


def _allocations_in(document: Document) -> Iterator[_Candidate]:
    container = _file_name(document.source)
    for line, text, scan in numbered_lines(document):
        if scan.kind == "allocation":
            name = f"allocation {scan.data[0]}"
            start = len(text) - len(text.lstrip())
            yield name, "struct", document.source, (line, utf16_column(text, start),
                                                    utf16_column(text, start + len(name))), container
