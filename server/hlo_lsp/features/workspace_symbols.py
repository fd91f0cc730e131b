"""Workspace symbols (workspace/symbol): computations, allocations and instructions by name.

A name matches when it contains the query, ignoring case. Exact matches come
first, then names that start with the query, then the rest; among equals, shorter
names first, then computations before allocations before instructions, then by module
(open modules first, in the order given), in file order. The modules of files not open are
searched in their compact indexes (features/symbol_index.py), ranked by the same `rank`.
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

LIMIT = 500
# The kinds in the order equal matches are listed, and the LSP symbol kind of each.
COMPUTATION, ALLOCATION, INSTRUCTION = 0, 1, 2
SYMBOL_KINDS = ("function", "struct", "variable")

# A symbol before its location is built: (name, kind, source, (line, start column, end column), container).
Candidate = tuple[str, str, str, tuple[int, int, int], str]
# The lower the better: (closeness, length, kind order, module order, place in its kind in file order).
Rank = tuple[int, int, int, int, int]
Ranked = tuple[Rank, Candidate]


def workspace_symbols(modules: Iterable[ModuleDump], query: str, limit: int = LIMIT,
                      more: Iterable[Iterable[Ranked]] = ()) -> list[WorkspaceSymbol]:
    """The best `limit` symbols of `modules` (module order 0, 1, ...) and of the ranked candidates `more`
    (each in rank order when the query is empty) whose name holds `query`."""
    lowered = query.lower()
    with paused_collector():  # a large module has hundreds of thousands of instructions to look at
        return [symbol_of(candidate) for _, candidate in best([module_candidates(modules, lowered), *more],
                                                             lowered, limit)]


def best(sources: Iterable[Iterable[Ranked]], query: str, limit: int) -> list[Ranked]:
    """The `limit` best ranked candidates of `sources` (`query` lowered). Without a query every name matches
    and each source is already in rank order: the first `limit` are taken without looking at the rest."""
    if not query:
        return list(itertools.islice(heapq.merge(*sources), limit))
    return heapq.nsmallest(limit, itertools.chain.from_iterable(sources))


def closeness(name: str, query: str) -> int | None:
    """0 when `name` is `query` (lowered), ignoring case, 1 when it starts with it, 2 when it holds it; None when
    it does not hold it."""
    lowered = name.lower()
    if query not in lowered:
        return None
    return 0 if lowered == query else 1 if lowered.startswith(query) else 2


def rank(near: int, name: str, query: str, kind: int, module: int, place: int) -> Rank:
    """The rank of a name that matches `query` with closeness `near` (no query: every name is equal but for
    its kind, module and place)."""
    return (near, len(name), kind, module, place) if query else (0, 0, kind, module, place)


def module_candidates(modules: Iterable[ModuleDump], query: str) -> Iterator[Ranked]:
    """The ranked candidates of `modules` (module order: their order) whose name holds `query` (lowered): in
    rank order when there is no query."""
    modules = list(modules)
    by_kind = ((COMPUTATION, computation_candidates), (ALLOCATION, allocation_candidates),
               (INSTRUCTION, instruction_candidates))
    for kind, candidates in by_kind:
        for number, module in enumerate(modules):
            for place, candidate in enumerate(candidates(module)):
                name = candidate[0]
                near = closeness(name, query)
                if near is not None:
                    yield rank(near, name, query, kind, number, place), candidate


def symbol_of(candidate: Candidate) -> WorkspaceSymbol:
    name, kind, source, (line, start, end), container = candidate
    return WorkspaceSymbol(name, kind, Location(source, Range.on_line(line, start, end)), container)


def file_name(source: str) -> str:
    return source.replace("\\", "/").rsplit("/", 1)[-1]


def computation_candidates(module: ModuleDump) -> Iterator[Candidate]:
    hlo = module.hlo
    if hlo is None:
        return
    source = hlo.document.source
    container = file_name(source)
    for computation in hlo.all_computations():
        where = computation.name_range
        yield computation.name, "function", source, (where.start.line, where.start.character,
                                                     where.end.character), container


def instruction_candidates(module: ModuleDump) -> Iterator[Candidate]:
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


def allocation_candidates(module: ModuleDump) -> Iterator[Candidate]:
    for document in module.buffer_assignment_documents:
        yield from _allocations_in(document)


def _allocations_in(document: Document) -> Iterator[Candidate]:
    container = file_name(document.source)
    for line, text, scan in numbered_lines(document):
        if scan.kind == "allocation":
            name = f"allocation {scan.data[0]}"
            start = len(text) - len(text.lstrip())
            yield name, "struct", document.source, (line, utf16_column(text, start),
                                                    utf16_column(text, start + len(name))), container
