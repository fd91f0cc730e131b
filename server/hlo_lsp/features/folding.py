"""Folding ranges (textDocument/foldingRange) of a dump file, from its line scans.

HLO modules fold their computations, stack-frame tables, multi-line instructions
and runs of `//` comments; buffer-assignment-family and memory-report files fold
their sections, allocations, Used values blocks, the parts of HloLiveRange, the
stack-trace tree, memory-report tables and protobuf-text blocks. A fold spans at
least two lines and never ends on a blank line.

A client may say how many folds it takes (`rangeLimit`: VS Code's is 5,000, and a 40 MB module
has 46,000 computations): the outermost are kept, in file order, as VS Code itself keeps them.
"""

from __future__ import annotations

from hlo_lsp.features.buffers_outline import OutlineNode, read_sections
from hlo_lsp.features.outline_lines import content_kind, numbered_lines
from hlo_lsp.features.types import Fold
from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Document, EditedFrom
from hlo_lsp.parsing.file_kinds import FileKind

# An HLO document's folds, which its next version keeps when no line changed kind
_DERIVED_KEY: DerivedKey[list[Fold]] = DerivedKey("folds")


def folding_ranges(document: Document, limit: int | None = None) -> list[Fold]:
    """The document's folds in file order; at most `limit`, the least nested first."""
    return bounded_folds(document, limit)[0]


def bounded_folds(document: Document, limit: int | None) -> tuple[list[Fold], int]:
    """At most `limit` of the document's folds (None: all), the least nested first, in file order;
    and how many it has."""
    if not document.kind.is_dump:
        return [], 0
    ordered = _hlo_folds(document) if document.kind is FileKind.HLO_MODULE else _ordered(
        _section_folds(read_sections(document, with_values=False)) + _line_folds(document))
    kept = ordered if limit is None or len(ordered) <= limit else _outermost(ordered, limit)
    return kept, len(ordered)


def _hlo_folds(document: Document) -> list[Fold]:
    folds = document.derived.get(_DERIVED_KEY)
    edit = document.edited_from
    if folds is None and edit is not None and _same_line_kinds(edit, document):
        folds = edit.previous.derived.get(_DERIVED_KEY)
    if folds is None:
        with paused_collector():  # the walk allocates a tuple per line; a full collection would visit the index
            folds = _ordered(_HloFolds().read(document))
    document.derived.put(_DERIVED_KEY, folds)
    return folds


def _same_line_kinds(edit: EditedFrom, document: Document) -> bool:
    """Whether the lines the edit replaced have what the folds read as they were: each line's kind,
    and the text of blank and continuation lines (comments, whitespace-only lines)."""
    replaced = edit.replaced_lines(document)
    return replaced is not None and all(
        old_scan.kind == new_scan.kind and (old_scan.kind not in _KINDS_READ_BY_TEXT or old_text == new_text)
        for old_text, new_text, old_scan, new_scan in replaced)


_KINDS_READ_BY_TEXT = frozenset(("blank", "continuation"))


def _ordered(folds: list[Fold]) -> list[Fold]:
    unique = {(fold.start_line, fold.end_line): fold for fold in folds if fold.end_line > fold.start_line}
    return sorted(unique.values(), key=lambda fold: (fold.start_line, -fold.end_line))


def _outermost(folds: list[Fold], limit: int) -> list[Fold]:
    """The `limit` folds of the lowest nesting levels, in file order (`folds` are in file order,
    each before the folds inside it)."""
    levels = []
    open_ends: list[int] = []  # the end lines of the folds around the one being read
    for fold in folds:
        while open_ends and open_ends[-1] < fold.start_line:
            open_ends.pop()
        levels.append(len(open_ends))
        open_ends.append(fold.end_line)
    kept = sorted(range(len(folds)), key=lambda index: (levels[index], index))[:limit]
    return [folds[index] for index in sorted(kept)]


class _ContinuedItems:
    """Folds each item (instruction, header, `from instruction:` line) over its continuation lines."""

    def __init__(self, folds: list[Fold]) -> None:
        self.folds = folds
        self.start = self.end = -1

    def add(self, line: int, kind: str) -> None:
        if kind == "continuation":
            self.end = line
        elif kind != "blank":
            self.close()
            self.start = self.end = line

    def close(self) -> None:
        if self.end > self.start >= 0:
            self.folds.append(Fold(self.start, self.end))
        self.start = self.end = -1


class _HloFolds:
    def __init__(self) -> None:
        self.folds: list[Fold] = []
        self.items = _ContinuedItems(self.folds)
        self.computation = -1  # header line of the open computation
        self.table = -1  # header line of the open stack-frame table
        self.comments = (-1, -1)  # first and last line of the run of `//` lines being read
        self.last = -1  # the last non-blank line

    def read(self, document: Document) -> list[Fold]:
        items = self.items
        line = 0
        for chunk in document.chunks:
            for text, scan in zip(chunk.lines, chunk.scans):
                if scan.kind == "instruction" and self.table < 0 and self.comments[1] < 0:
                    # what `add` does with most lines of a module, inlined: 450,000 calls at 40 MB
                    if items.end > items.start >= 0:
                        self.folds.append(Fold(items.start, items.end))
                    items.start = items.end = self.last = line
                else:
                    self.add(line, text, content_kind(scan.kind, text))
                line += 1
        self.items.close()
        self._close_comments()
        self._close_table()
        self._close_computation(self.last)
        return self.folds

    def add(self, line: int, text: str, kind: str) -> None:
        self.items.add(line, kind)
        is_comment = kind == "blank" and text.lstrip().startswith("//")
        if not is_comment or self.comments[1] != line - 1:
            self._close_comments()
        if kind == "blank":
            if is_comment:
                self.comments = (line if self.comments[0] < 0 else self.comments[0], line)
            return
        if kind == "continuation":
            self.last = line
            return
        if kind != "table_row":
            self._close_table()
        if kind in ("computation", "module_header"):
            self._close_computation(self.last)
        if kind == "computation":
            self.computation = line
        elif kind == "computation_end":
            self._close_computation(line)
        elif kind == "table_header":
            self.table = line
        self.last = line

    def _close_computation(self, end: int) -> None:
        if self.computation >= 0:
            self.folds.append(Fold(self.computation, end))
        self.computation = -1

    def _close_table(self) -> None:
        if self.table >= 0:
            self.folds.append(Fold(self.table, self.last))
        self.table = -1

    def _close_comments(self) -> None:
        start, end = self.comments
        if end > start:
            self.folds.append(Fold(start, end, "comment"))
        self.comments = (-1, -1)


def _section_folds(nodes: list[OutlineNode]) -> list[Fold]:
    folds = []
    pending = list(nodes)
    while pending:
        node = pending.pop()
        folds.append(Fold(node.line, node.end_line))
        pending.extend(child for child in node.children if isinstance(child, OutlineNode))
    return folds


def _line_folds(document: Document) -> list[Fold]:
    """Multi-line `from instruction:` lines and the `{ ... }` blocks of a protobuf-text report."""
    folds: list[Fold] = []
    items = _ContinuedItems(folds)
    open_blocks: list[int] = []
    for line, text, scan in numbered_lines(document):
        items.add(line, content_kind(scan.kind, text))
        if scan.kind != "proto":
            continue
        stripped = text.strip()
        if stripped.endswith("{"):
            open_blocks.append(line)
        elif stripped == "}" and open_blocks:
            folds.append(Fold(open_blocks.pop(), line))
    items.close()
    return folds
