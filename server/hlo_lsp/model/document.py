"""An indexed dump file: its lines, their scans, and where every name is defined and used.

A Document is immutable. Its lines live in chunks of a few hundred lines; each
chunk keeps the scans of its lines and, built on first use, the sets of names its
lines define and use (a name's places are found again in the chunks that hold it).
`apply_edit` returns a new Document that shares every chunk the edit did not touch:
it rescans the edited lines and then only as many following lines as needed for the
scanner state to agree again with the old scan, so an edit costs work in proportion
to its size.
"""

from __future__ import annotations

import bisect
import itertools
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.line_scan import DEFINITION_ROLES, LineProblem, LineScan, Ref, Role, State
from hlo_lsp.parsing.scanners import Scanner, scanner_for
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range, python_index

CHUNK_LINES = 512
_SCAN_STEP = 8 * CHUNK_LINES  # lines scanned between two chances for a question to go first
_SPLIT_STEP = 2_000_000  # characters split into lines between two such chances

# (line, ref) pairs: where a name occurs.
Occurrence = tuple[int, Ref]
# Consecutive lines of a sparse document: its first line's number, the texts, their scans, the state entering it.
Run = tuple[int, list[str], list[LineScan], State]


class Chunk:
    """A run of consecutive lines with their scans; immutable once built."""

    __slots__ = ("lines", "scans", "start_state", "_scanner", "_uses", "_defined_names", "_used_names", "_problems",
                 "derived", "_before", "__weakref__")

    def __init__(self, lines: list[str], scans: list[LineScan], start_state: State, scanner: Scanner) -> None:
        self.lines = lines
        self.scans = scans
        self.start_state = start_state
        self._scanner = scanner
        self._uses: list[tuple[Ref, ...]] | None = None
        self._defined_names: frozenset[str] | None = None
        self._used_names: frozenset[str] | None = None
        self._problems: list[tuple[int, LineProblem]] | None = None
        # What checks derive from these lines alone, under a key of their own: kept as long as the
        # chunk, which edits share between versions (a plain dict: reads are atomic, no lock).
        self.derived = Derived()
        self._before: weakref.ref[Chunk] | None = None

    def follows(self, before: Chunk) -> None:
        """Marks this chunk as `before` edited line for line: what is read per line of it may be taken
        from `before`'s unchanged lines while `before` lives (held weakly: no chain of versions)."""
        self._before = weakref.ref(before)

    def before(self) -> Chunk | None:
        """The chunk this one was edited from, line for line (None when not known, or gone)."""
        return self._before() if self._before is not None else None

    def changed_lines(self, before: Chunk) -> list[int]:
        """The local lines whose text or scan differs from those of `before`, edited into this one."""
        return [local for local, (text, scan, old_text, old_scan)
                in enumerate(zip(self.lines, self.scans, before.lines, before.scans))
                if text != old_text or scan != old_scan]

    @property
    def end_state(self) -> State:
        return self.scans[-1].end_state if self.scans else self.start_state

    def uses(self) -> list[tuple[Ref, ...]]:
        """Per line, the names it uses (read on first request)."""
        if self._uses is None:
            read = self._scanner.uses
            before = self.before()
            with paused_collector():
                if before is not None and before._uses is not None:  # an edit: its unchanged lines' uses
                    uses = list(before._uses)
                    changed = self.changed_lines(before)
                    for local in changed:
                        uses[local] = read(self.lines[local], self.scans[local])
                else:
                    changed = None
                    uses = [read(text, scan) for text, scan in zip(self.lines, self.scans)]
                self._reread_after_comments(uses, changed)
                # With the uses, the set of the names they hold: built here, by whoever reads the
                # uses first (the check, in the background), not by the first question that looks
                # a name up, which would wait for every chunk's set.
                self._used_names = frozenset([ref.name for refs in uses for ref in refs])
                self._uses = uses
        return self._uses

    def _reread_after_comments(self, uses: list[tuple[Ref, ...]], lines: list[int] | None) -> None:
        """The uses of the `lines` (all by default) that end a block comment left open above, read again
        without what the comment holds: the line alone cannot tell where such a comment starts."""
        blanked = self._scanner.comment_end_blanked
        if blanked is None:
            return
        texts, scans = self.lines, self.scans
        if lines is None:  # (one search in C: a dump has no comment)
            lines = [local for local, text in enumerate(texts) if "*/" in text] if "*/" in "\n".join(texts) else []
        for local in lines:
            if "*/" in texts[local]:
                text = blanked(scans[local - 1].end_state if local else self.start_state, texts[local])
                if text is not None:
                    uses[local] = self._scanner.uses(text, scans[local])

    def problems(self) -> list[tuple[int, LineProblem]]:
        """(local line, problem) of the lines the scanner could not read."""
        if self._problems is None:
            self._problems = [(local, scan.problem) for local, scan in enumerate(self.scans) if scan.problem]
        return self._problems

    def definitions_of(self, name: str) -> list[tuple[int, Ref]]:
        """(local line, ref) of the definitions of `name` in this chunk, in line order."""
        if self._defined_names is None:
            with paused_collector():  # like the used names: a set, and the few lines found again
                self._defined_names = frozenset([ref.name for scan in self.scans for ref in scan.refs])
        if name not in self._defined_names:
            return []
        return [(local, ref) for local, scan in enumerate(self.scans) for ref in scan.refs if ref.name == name]

    def has_read_uses(self) -> bool:
        return self._uses is not None

    def contains(self, text: str) -> bool:
        """Whether `text` occurs in the chunk's lines (one search of their joined text)."""
        return text in "\n".join(self.lines)

    def uses_name(self, name: str) -> bool:
        """Whether a line of the chunk uses or mentions `name` (its uses are read first)."""
        if self._used_names is None:
            # A set of the distinct names (the strings are the refs' own): a third of the memory of
            # a table from each name to its places, and the places are few lines to find again.
            self.uses()
        return name in self._used_names  # type: ignore[operator]

    def occurrences_of(self, name: str) -> list[tuple[int, Ref]]:
        """(local line, ref) of every use or mention of `name` in this chunk, in line order. Before the
        chunk's uses are read, only the lines whose text holds the name are read (and not kept): a
        name is on few lines. A number is read everywhere: a parent_frame_id is printed as the
        parent's id + 1."""
        if self._uses is None and not name.isdigit():
            if not self.contains(name):  # one search of the whole chunk before any line is read
                return []
            read, scans = self._scanner.uses, self.scans
            return [(local, ref) for local, text in enumerate(self.lines) if name in text
                    for ref in read(text, scans[local]) if ref.name == name]
        if not self.uses_name(name):
            return []
        return [(local, ref) for local, refs in enumerate(self.uses()) for ref in refs if ref.name == name]


DEFINITIONS_REMEMBERED = 4096
USES_REMEMBERED = 256


class Document:
    """One dump file's text and index. Build with `Document(text, kind)`.

    The text is scanned on the first question about it, not when the Document is made:
    a module's companion files are opened with it but often never asked about.
    """

    __slots__ = ("kind", "source", "scanner", "_text", "_chunks", "_starts", "_line_count", "_definitions_of",
                 "_uses_of", "_scan_lock", "edited_from", "derived", "__weakref__")

    def __init__(self, text: str, kind: FileKind, source: str = "") -> None:
        self.kind = kind
        self.source = source
        self.scanner = scanner_for(kind)
        self._text: str | None = text
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
            with self._scan_lock:  # two readers asking at once scan once
                if self._chunks is None:
                    self._scan_text()

    def _scan_text(self) -> None:
        text = self._text or ""
        with paused_collector():
            lines = _split_in_steps(text)
            scans = _scan_in_steps(self.scanner, lines)
            self._set_chunks(_make_chunks(lines, scans, self.scanner.initial_state, self.scanner))
        self._text = None  # only now: a glance may search it while the scan runs

    def unscanned_text(self) -> str | None:
        """The text as it was opened, until its scan is done (None after: its lines hold it)."""
        return self._text

    def first_lines(self, count: int) -> Document | None:
        """Until the text is scanned: a sparse document of its first `count` lines, scanned from the
        start as the whole scan will scan them (a line's scan depends only on the lines before it).
        None once the scan is done: the document itself answers then."""
        text = self._text
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
        return Document.sparse(self.kind, self.source, self._line_count,
                               [(0, lines, _scan_lines(self.scanner, state, lines), state)])

    @classmethod
    def sparse(cls, kind: FileKind, source: str, line_count: int, runs: list[Run]) -> Document:
        """A document holding only some lines of a file: runs of consecutive lines (first line number,
        texts, scans, state entering the run). The lines a question needs, read without scanning the
        rest; asking for a line it does not hold raises IndexError."""
        document = cls._without_text(kind, source, scanner_for(kind))
        document._chunks = [Chunk(lines, scans, state, document.scanner) for _, lines, scans, state in runs]
        document._starts = [first for first, _, _, _ in runs]
        document._line_count = line_count
        return document

    @classmethod
    def _without_text(cls, kind: FileKind, source: str, scanner: Scanner) -> Document:
        """A document whose chunks the caller sets (a sparse one, an edited version)."""
        document = cls.__new__(cls)
        document.kind, document.source, document.scanner = kind, source, scanner
        document._text, document._scan_lock = None, threading.Lock()
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
        chunk, local = self._locate(line)
        return chunk.lines[local]

    def scan(self, line: int) -> LineScan:
        chunk, local = self._locate(line)
        return chunk.scans[local]

    def uses_on_line(self, line: int) -> tuple[Ref, ...]:
        chunk, local = self._locate(line)
        return chunk.uses()[local]

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
        if self._chunks is None and self._text is not None:
            return self._text
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
        """The document after replacing `edit` (UTF-16 positions) with `new_text`."""
        with paused_collector():
            return self._edited(edit, new_text)

    def _edited(self, edit: Range, new_text: str) -> Document:
        start, end = _clamp(edit, self)
        self._ensure_scanned()
        first = bisect.bisect_right(self._starts, start.line) - 1
        last = bisect.bisect_right(self._starts, end.line) - 1
        base = self._starts[first]
        lines = [line for chunk in self.chunks[first : last + 1] for line in chunk.lines]
        scans = [scan for chunk in self.chunks[first : last + 1] for scan in chunk.scans]
        head, tail = start.line - base, end.line - base
        cut_from = python_index(lines[head], start.character)
        cut_to = python_index(lines[tail], end.character)
        replacement = (lines[head][:cut_from] + new_text + lines[tail][cut_to:]).split("\n")
        entering = scans[head - 1].end_state if head else self.chunks[first].start_state
        new_lines = lines[:head] + replacement
        new_scans = scans[:head] + _scan_lines(self.scanner, entering, replacement)
        agreed = _rescan_until_agreement(
            self.scanner, new_lines, new_scans, lines[tail + 1 :], scans[tail + 1 :], scans[tail].end_state
        )
        following = last + 1
        while not agreed and following < len(self.chunks):
            chunk = self.chunks[following]
            if new_scans[-1].end_state == chunk.start_state:
                break
            agreed = _rescan_until_agreement(
                self.scanner, new_lines, new_scans, chunk.lines, chunk.scans, chunk.start_state
            )
            following += 1
        region_state = self.chunks[first].start_state
        rebuilt = _make_chunks(new_lines, new_scans, region_state, self.scanner)
        if len(rebuilt) == following - first:
            for old, new in zip(self.chunks[first:following], rebuilt):
                if len(old.lines) == len(new.lines):
                    new.follows(old)
        edited = Document._without_text(self.kind, self.source, self.scanner)
        self.edited_from = None  # one version back is enough: no chain of every version kept alive
        edited.edited_from = EditedFrom(self, first, following, first + len(rebuilt))
        # the starts of the chunks around the edit are the old ones (shifted after it): no walk of them all
        region_starts = list(itertools.accumulate((len(chunk.lines) for chunk in rebuilt), initial=base))
        shift = region_starts[-1] - (self._starts[following] if following < len(self._starts) else self._line_count)
        starts = self._starts[:first] + region_starts[:-1] + [start + shift for start in self._starts[following:]]
        edited._set_chunks(self.chunks[:first] + rebuilt + self.chunks[following:], starts)
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


def _rescan_until_agreement(
    scanner: Scanner,
    new_lines: list[str],
    new_scans: list[LineScan],
    old_lines: list[str],
    old_scans: list[LineScan],
    old_entering: State,
) -> bool:
    """Appends `old_lines`, rescanning them until the state agrees with the old scan.

    Returns True when it agreed (the old scans of the remaining lines were kept),
    False when every line had to be rescanned and the next chunk must be checked.
    """
    state = new_scans[-1].end_state
    for index, text in enumerate(old_lines):
        entering_before = old_scans[index - 1].end_state if index else old_entering
        if state == entering_before:
            new_lines.extend(old_lines[index:])
            new_scans.extend(old_scans[index:])
            return True
        scan = scanner.scan(state, text)
        new_lines.append(text)
        new_scans.append(scan)
        state = scan.end_state
    return False


def _split_in_steps(text: str) -> list[str]:
    """`text.split("\n")`, a few MB at a time: splitting 40 MB at once holds the interpreter for a
    fifth of a second, which a question asked meanwhile (a glance's hover) would wait for."""
    lines: list[str] = []
    start = 0
    while True:
        let_questions_first()
        cut = text.find("\n", start + _SPLIT_STEP)
        if cut < 0:
            lines += text[start:].split("\n")
            return lines
        lines += text[start:cut].split("\n")
        start = cut + 1


def _scan_in_steps(scanner: Scanner, lines: list[str]) -> list[LineScan]:
    """The scans of a whole file, stepping aside for questions between steps."""
    scans: list[LineScan] = []
    state = scanner.initial_state
    for start in range(0, len(lines), _SCAN_STEP):
        let_questions_first()
        scans += _scan_lines(scanner, state, lines[start : start + _SCAN_STEP])
        state = scans[-1].end_state
    return scans


def _scan_lines(scanner: Scanner, state: State, lines: list[str]) -> list[LineScan]:
    scan = scanner.scan
    scans = []
    for text in lines:
        result = scan(state, text)
        scans.append(result)
        state = result.end_state
    return scans


def _make_chunks(lines: list[str], scans: list[LineScan], state: State, scanner: Scanner) -> list[Chunk]:
    chunks = []
    for offset in range(0, max(len(lines), 1), CHUNK_LINES):
        piece_scans = scans[offset : offset + CHUNK_LINES]
        chunks.append(Chunk(lines[offset : offset + CHUNK_LINES], piece_scans, state, scanner))
        if piece_scans:
            state = piece_scans[-1].end_state
    return chunks


def _clamp(edit: Range, document: Document) -> tuple[Position, Position]:
    start, end = sorted((edit.start, edit.end))
    last = document.line_count - 1

    def clamp(position: Position) -> Position:
        # Like editors do: before the text means its start, after it means its end.
        if position.line < 0:
            return Position(0, 0)
        if position.line > last:
            return Position(last, 1 << 30)
        return Position(position.line, max(position.character, 0))

    return clamp(start), clamp(end)


def document_state_signature(document: Document) -> list[tuple[str, LineScan, tuple[Ref, ...]]]:
    """Everything the index holds, line by line: for comparing two documents."""
    result: list[tuple[str, LineScan, tuple[Ref, ...]]] = []
    for chunk in document.chunks:
        for text, scan, uses in zip(chunk.lines, chunk.scans, chunk.uses()):
            result.append((text, scan, uses))
    return result

