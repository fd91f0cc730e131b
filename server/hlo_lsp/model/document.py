"""An indexed dump file: its lines, their scans, and where every name is defined and used.

A Document is immutable. Its lines live in chunks of a few hundred lines; each
chunk keeps the scans of its lines and, built on first use, the sets of names its
lines define and use (a name's places are found again in the chunks that hold it).
`apply_edit` returns a new Document that shares every chunk the edit did not touch:
it rescans the edited lines and then only as many following lines as needed for the
scanner state to agree again with the old scan, so an edit costs work in proportion
to its size. The chunk is `model/chunk.py`'s, the scanning and rescanning `model/scanning.py`'s.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from hlo_lsp.model.chunk import Chunk
from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived
from hlo_lsp.model.priority import holding, let_questions_first
from hlo_lsp.model.scanning import (
    clamp_edit,
    make_chunks,
    rescan_edited,
    scan_in_steps,
    scan_lines,
    settle_first_item,
    split_in_steps,
)
from hlo_lsp.model.spliced_text import spliced
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.line_scan import DEFINITION_ROLES, LineScan, Ref, Role, State
from hlo_lsp.parsing.scanners import Scanner, scanner_for
from hlo_lsp.parsing.text_search import LineIndex
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range

Pending = tuple["Document", Range, str]  # a version whose text waits for an edit: the version before, the edit

__all__ = [
    "CHUNK_LINES", "DEFINITIONS_REMEMBERED", "USES_REMEMBERED", "Chunk", "Document", "EditedFrom", "Occurrence", "Run",
    "document_state_signature",
]

CHUNK_LINES = 512
_SCAN_STEP = CHUNK_LINES  # lines scanned between two chances for a question to go first (a few milliseconds)
_SPLIT_STEP = 2_000_000  # characters split into lines between two such chances

# (line, ref) pairs: where a name occurs.
Occurrence = tuple[int, Ref]
# Consecutive lines of a sparse document: its first line's number, the texts, their scans, the state entering it.
Run = tuple[int, list[str], list[LineScan], State]

DEFINITIONS_REMEMBERED = 4096
USES_REMEMBERED = 256


class Document:
    """One dump file's text and index. Build with `Document(text, kind)`.

    The text is scanned on the first question about it, not when the Document is made:
    a module's companion files are opened with it but often never asked about.
    """

    __slots__ = ("kind", "source", "scanner", "_text", "_text_lines", "_pending", "_chunks", "_starts", "_line_count",
                 "_definitions_of", "_uses_of", "_scan_lock", "edited_from", "derived", "__weakref__")

    def __init__(self, text: str, kind: FileKind, source: str = "") -> None:
        self.kind = kind
        self.source = source
        self.scanner = scanner_for(kind)
        self._text: str | None = text
        self._text_lines: LineIndex | None = None
        self._pending: Pending | None = None
        self._chunks: list[Chunk] | None = None
        self._line_count = text.count("\n") + 1
        self._definitions_of: dict[tuple[str, frozenset[Role]], list[Occurrence]] = {}
        self._uses_of: dict[tuple[str, frozenset[Role] | None], list[Occurrence]] = {}
        self._scan_lock = threading.Lock()
        self.edited_from: EditedFrom | None = None
        # What features derive from the whole document, under a key of their own: kept as long as the
        # document (a plain dict: reads are atomic, no lock), and a newer version may start from it.
        self.derived = Derived()

    @property
    def chunks(self) -> list[Chunk]:
        self._ensure_scanned()
        return self._chunks  # type: ignore[return-value]

    def _ensure_scanned(self) -> None:
        if self._chunks is None:
            with holding(self._scan_lock):  # two readers asking at once scan once
                if self._chunks is None:
                    self._scan_text()

    def _scan_text(self) -> None:
        text = self._unscanned() or ""
        with paused_collector():
            lines = split_in_steps(text, _SPLIT_STEP)
            scans = scan_in_steps(self.scanner, lines, _SCAN_STEP)
            settle_first_item(self.scanner, lines, scans)
            self._set_chunks(make_chunks(lines, scans, self.scanner.initial_state, self.scanner, CHUNK_LINES))
        self._text, self._text_lines = None, None  # only now: a glance may search it while the scan runs

    def unscanned_text(self) -> str | None:
        """The text as it was opened, until its scan is done (None after: its lines hold it)."""
        return self._unscanned()

    def _unscanned(self) -> str | None:
        """The text not scanned yet, the edits it waits for spliced in first (`apply_edit`)."""
        if self._pending is not None:
            self._splice_pending()
        return self._text

    def _splice_pending(self) -> None:
        """Splices the edits this version waits for into the nearest version above it that has its text (once: two
        threads asking at once may both splice, and keep the same text)."""
        waiting, base = [], self
        while (pending := base._pending) is not None:
            waiting.append(pending)
            base = pending[0]
        lines = base.unscanned_lines() or LineIndex(base.text)
        lines = spliced(lines, ((edit, new_text) for _, edit, new_text in reversed(waiting)))
        self._text, self._text_lines, self._pending = lines.text, lines, None

    def unscanned_lines(self) -> LineIndex | None:
        """The line index of `unscanned_text()` (built on first use: 15 ms at 40 MB), None once it is scanned."""
        text = self._unscanned()
        if text is None:
            return None
        lines = self._text_lines
        if lines is None or lines.text is not text:
            lines = self._text_lines = LineIndex(text)
        return lines

    def first_lines(self, count: int) -> Document | None:
        """Until the text is scanned: a sparse document of its first `count` lines, scanned from the
        start as the whole scan will scan them (a line's scan depends only on the lines before it).
        None once the scan is done: the document itself answers then."""
        text = self._unscanned()
        if text is None or self._chunks is not None:
            return None
        end = -1
        for _ in range(max(count, 1)):
            end = text.find("\n", end + 1)
            if end < 0:
                end = len(text)
                break
        lines = text[:end].split("\n")
        state = self.scanner.initial_state
        scans = scan_lines(self.scanner, state, lines)
        settle_first_item(self.scanner, lines, scans)
        return Document.sparse(self.kind, self.source, self._line_count, [(0, lines, scans, state)])

    @classmethod
    def sparse(cls, kind: FileKind, source: str, line_count: int, runs: list[Run],
               shared: tuple[tuple[int, Chunk], ...] = ()) -> Document:
        """A document holding only some lines of a file: runs of consecutive lines (first line number,
        texts, scans, state entering the run), and chunks built already (first line number, chunk) that
        the documents of several questions share, with what is derived from them. The lines a question
        needs, read without scanning the rest; asking for a line it does not hold raises IndexError."""
        document = cls._without_text(kind, source, scanner_for(kind))
        built = [(first, Chunk(lines, scans, state, document.scanner)) for first, lines, scans, state in runs]
        chunks = sorted([*built, *shared], key=lambda started: started[0]) if shared else built
        document._chunks = [chunk for _, chunk in chunks]
        document._starts = [first for first, _ in chunks]
        document._line_count = line_count
        return document

    @classmethod
    def _without_text(cls, kind: FileKind, source: str, scanner: Scanner) -> Document:
        """A document whose chunks the caller sets (a sparse one, an edited version)."""
        document = cls.__new__(cls)
        document.kind, document.source, document.scanner = kind, source, scanner
        document._text, document._text_lines, document._pending = None, None, None
        document._scan_lock = threading.Lock()
        document._definitions_of, document._uses_of = {}, {}
        document.edited_from, document.derived = None, Derived()
        return document

    def _set_chunks(self, chunks: list[Chunk], starts: list[int] | None = None) -> None:
        # name lookups of this (immutable) document: a hover asks the same stack-frame rows
        # many times, and each first lookup visits every chunk
        self._definitions_of, self._uses_of = {}, {}
        if starts is None:
            sizes = (len(chunk.lines) for chunk in chunks[:-1])
            starts = list(itertools.accumulate(sizes, initial=0)) if chunks else []
        self._starts = starts
        self._line_count = starts[-1] + len(chunks[-1].lines) if chunks else 0
        self._chunks = chunks

    # ---- lines and scans -------------------------------------------------------

    @property
    def line_count(self) -> int:
        return self._line_count

    def chunk_start(self, index: int) -> int:
        """The first line of chunk `index` (the line count for the index past the last chunk)."""
        self._ensure_scanned()
        return self._starts[index] if index < len(self._starts) else self._line_count

    def _locate(self, line: int) -> tuple[Chunk, int]:
        chunks = self._chunks if self._chunks is not None else self.chunks  # (asked a million times)
        index = bisect.bisect_right(self._starts, line) - 1
        local = line - self._starts[index]
        if index < 0 or local >= len(chunks[index].lines):  # only a sparse document has such gaps
            raise IndexError(f"line {line} is not held")
        return chunks[index], local

    def line(self, line: int) -> str:
        lines = self.unscanned_lines() if self._chunks is None else None
        if lines is not None and 0 <= line < lines.line_count:  # read from the text: a line's columns scan no file
            start = lines.line_start(line)
            return lines.text[start : lines.line_end(start)]
        chunk, local = self._locate(line)
        return chunk.lines[local]

    def scan(self, line: int) -> LineScan:
        chunk, local = self._locate(line)
        return chunk.scans[local]

    def uses_on_line(self, line: int) -> tuple[Ref, ...]:
        chunk, local = self._locate(line)
        return chunk.line_uses(local)

    def refs_on_line(self, line: int) -> tuple[Ref, ...]:
        """Definitions and uses on a line, in column order."""
        refs = self.scan(line).refs + self.uses_on_line(line)
        return tuple(sorted(refs, key=lambda ref: ref.start))

    def ref_at(self, position: Position) -> Ref | None:
        """The name under `position` (a cursor just after a name or on its `%` counts)."""
        if not 0 <= position.line < self._line_count:
            return None
        refs = self.refs_on_line(position.line)
        for ref in refs:
            if ref.start <= position.character < ref.end:
                return ref
        for ref in refs:
            if position.character in (ref.start - 1, ref.end):
                return ref
        return None

    def chunks_with_starts(self) -> list[tuple[int, Chunk]]:
        """Each chunk with the number of its first line (chunks are shared between versions)."""
        chunks = self.chunks
        return list(zip(self._starts, chunks))

    def scans(self) -> Iterator[tuple[int, LineScan]]:
        for start, chunk in self.chunks_with_starts():
            let_questions_first()
            for local, scan in enumerate(chunk.scans):
                yield start + local, scan

    def lines_of_kind(self, *kinds: str) -> Iterator[tuple[int, LineScan]]:
        wanted = frozenset(kinds)
        for line, scan in self.scans():
            if scan.kind in wanted:
                yield line, scan

    @property
    def text(self) -> str:
        text = self._unscanned() if self._chunks is None else None
        if text is not None:
            return text
        return "\n".join(line for chunk in self.chunks for line in chunk.lines)

    # ---- names -------------------------------------------------------------------

    def definitions(self, name: str, roles: frozenset[Role] = DEFINITION_ROLES) -> list[Occurrence]:
        known = self._definitions_of.get((name, roles))
        if known is not None:
            return list(known)
        found = []
        with paused_collector():  # the first call builds every chunk's set of defined names
            for start, chunk in self.chunks_with_starts():
                for local, ref in chunk.definitions_of(name):
                    if ref.role in roles:
                        found.append((start + local, ref))
        if len(self._definitions_of) >= DEFINITIONS_REMEMBERED:  # a check asks every name once
            self._definitions_of.clear()
        self._definitions_of[name, roles] = found
        return list(found)

    def uses(self, name: str, roles: frozenset[Role] | None = None) -> list[Occurrence]:
        # The editor asks again and again for the same name (highlights follow the cursor).
        known = self._uses_of.get((name, roles))
        if known is not None:
            return list(known)
        found = self._find_uses(name, roles)
        if len(self._uses_of) >= USES_REMEMBERED:
            self._uses_of.clear()
        self._uses_of[name, roles] = found
        return list(found)

    def _find_uses(self, name: str, roles: frozenset[Role] | None) -> list[Occurrence]:
        found = []
        with paused_collector():
            for start, chunk in self.chunks_with_starts():
                for local, ref in chunk.occurrences_of(name):  # read only where the text holds the name
                    if roles is None or ref.role in roles:
                        found.append((start + local, ref))
        return found

    def all_uses(self) -> Iterator[Occurrence]:
        for start, chunk in self.chunks_with_starts():
            with paused_collector():
                uses = chunk.uses()
            for local, refs in enumerate(uses):
                for ref in refs:
                    yield start + local, ref

    # ---- problems ------------------------------------------------------------------

    def scan_problems(self, first_chunk: int = 0, end_chunk: int | None = None) -> list[Problem]:
        """Problems the line scanner found (lines it could not read), in the chunks first..end."""
        found = []
        for start, chunk in self.chunks_with_starts()[first_chunk:end_chunk]:
            for local, problem in chunk.problems():
                line = start + local
                found.append(Problem(self.source, Range.on_line(line, problem.start, problem.end),
                                     Severity(problem.severity), problem.code, problem.message))
        return found

    # ---- editing -------------------------------------------------------------------

    def apply_edit(self, edit: Range, new_text: str) -> Document:
        """The document after replacing `edit` (UTF-16 positions) with `new_text`. A document not scanned yet
        gives one not scanned either, whose text is spliced when first read (a glance goes on answering from it;
        a 40 MB text no one reads is not copied at each edit)."""
        if self._chunks is None and (self._pending is not None or self._text is not None):
            return self._waiting_for(edit, new_text)
        with paused_collector():
            return self._edited(edit, new_text)

    def _waiting_for(self, edit: Range, new_text: str) -> Document:
        """The unscanned document of this text with `edit` replaced by `new_text`, spliced when first read (no
        incremental check starts from it: `edited_from` stays None)."""
        start, end = clamp_edit(edit, self.line_count)
        edited = Document._without_text(self.kind, self.source, self.scanner)
        edited._pending, edited._chunks = (self, edit, new_text), None
        edited._line_count = self.line_count + new_text.count("\n") - (end.line - start.line)
        return edited

    def _edited(self, edit: Range, new_text: str) -> Document:
        start, end = clamp_edit(edit, self.line_count)
        chunks, starts = self.chunks, self._starts
        first, following, lines, scans = rescan_edited(self.scanner, chunks, starts, start, end, new_text)
        rebuilt = make_chunks(lines, scans, chunks[first].start_state, self.scanner, CHUNK_LINES)
        if len(rebuilt) == following - first:
            for old, new in zip(chunks[first:following], rebuilt):
                if len(old.lines) == len(new.lines):
                    new.follows(old)
        edited = Document._without_text(self.kind, self.source, self.scanner)
        self.edited_from = None  # one version back is enough: no chain of every version kept alive
        edited.edited_from = EditedFrom(self, first, following, first + len(rebuilt))
        # the starts of the chunks around the edit are the old ones (shifted after it): no walk of them all
        region_starts = list(itertools.accumulate((len(chunk.lines) for chunk in rebuilt), initial=starts[first]))
        shift = region_starts[-1] - (starts[following] if following < len(starts) else self._line_count)
        new_starts = starts[:first] + region_starts[:-1] + [line + shift for line in starts[following:]]
        edited._set_chunks(chunks[:first] + rebuilt + chunks[following:], new_starts)
        return edited


@dataclass(frozen=True, slots=True)
class EditedFrom:
    """Which chunks an edit replaced: `previous.chunks[first:old_end]` became `chunks[first:new_end]`;
    the chunks before and after are the same objects (those after, shifted by whole lines). What is
    derived per chunk over a whole document can be derived from the previous version's in
    proportion to the edit."""

    previous: Document
    first: int
    old_end: int
    new_end: int

    def replaced_lines(self, document: Document) -> list[tuple[str, str, LineScan, LineScan]] | None:
        """(old text, new text, old scan, new scan) of each line of the replaced chunks, when the edit
        replaced them line for line (None when it added or removed lines)."""
        before = self.previous.chunks[self.first : self.old_end]
        after = document.chunks[self.first : self.new_end]
        if len(before) != len(after) or any(len(old.lines) != len(new.lines) for old, new in zip(before, after)):
            return None
        return [row for old, new in zip(before, after) for row in zip(old.lines, new.lines, old.scans, new.scans)]


def document_state_signature(document: Document) -> list[tuple[str, LineScan, tuple[Ref, ...]]]:
    """Everything the index holds, line by line: for comparing two documents."""
    result: list[tuple[str, LineScan, tuple[Ref, ...]]] = []
    for chunk in document.chunks:
        for text, scan, uses in zip(chunk.lines, chunk.scans, chunk.uses()):
            result.append((text, scan, uses))
    return result

