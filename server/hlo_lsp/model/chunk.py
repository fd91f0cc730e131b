"""A run of a document's consecutive lines with their scans, and what is read of them on first use.

A chunk keeps the scans of its lines and, built when first asked for, their uses and the sets of
names its lines define and use (a name's places are found again in the few lines that hold it).
Edits share every chunk they do not touch between a document's versions.
"""

from __future__ import annotations

import bisect
import weakref
from array import array
from collections.abc import Callable, Iterable, Sequence

from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.derived import Derived
from hlo_lsp.parsing.hlo_scanner import KnownUses, LineUses
from hlo_lsp.parsing.line_scan import LineProblem, LineScan, Ref, State
from hlo_lsp.parsing.scanners import Scanner

_MAY_START_IN_A_STRING = frozenset(("continuation", "items"))  # (a string closes, the item goes on)
# By local line: every line's uses, or some lines'.
_LineUses = list[tuple[Ref, ...]] | list[LineUses] | dict[int, tuple[Ref, ...]]


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
        self._used_names: array[int] | None = None  # the sorted hashes of the names its lines use (`_may_use`)
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
        """Per line, the names it uses (read on first request, and kept)."""
        if self._uses is None:
            self._uses = self._read_uses()
        return self._uses

    def uses_in_passing(self) -> Sequence[LineUses]:
        """Per line, the names it uses, as `uses()`, but not kept when not read before: a check that reads every
        line's uses once would otherwise keep a hundred megabytes of them at 40 MB. The hashes of the names they
        hold are kept (`uses_name`), and a chunk that may hold a name asked about reads its uses again then.
        An instruction line of a template read before may be given as the template's places (`KnownUses`: its
        names are the line's text there), which builds no object per use."""
        if self._uses is not None:
            return self._uses
        read_lines, before = self._scanner.lines_uses, self.before()
        if read_lines is None or (before is not None and before._uses is not None):
            return self._read_uses()
        with paused_collector():
            uses = read_lines(self.lines, self.scans)
            self._settle(uses, None)
        return uses

    def line_uses(self, local: int) -> tuple[Ref, ...]:
        """The names line `local` uses, as `uses()[local]`: read alone when the chunk's uses are not kept."""
        if self._uses is not None:
            return self._uses[local]
        text, scan = self.lines[local], self.scans[local]
        if "*/" not in text and scan.kind not in _MAY_START_IN_A_STRING:  # (most lines: nothing to read again)
            return self._scanner.uses(text, scan)
        uses = {local: self._scanner.uses(text, scan)}
        self._reread_after_comments(uses, [local])
        self._reread_after_strings(uses, [local])
        return uses[local]

    def _read_uses(self) -> list[tuple[Ref, ...]]:
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
            self._settle(uses, changed)
        return uses

    def _settle(self, uses: list[tuple[Ref, ...]] | list[LineUses], lines: list[int] | None) -> None:
        """The uses of the `lines` read (all by default) read again where a comment or a string from above changes
        them, and the hashes of the names the chunk uses found, when they are not yet."""
        self._reread_after_comments(uses, lines)
        self._reread_after_strings(uses, lines)
        if self._used_names is None:
            self._used_names = _used_name_hashes(self.lines, uses)

    def _reread_after_comments(self, uses: _LineUses, lines: list[int] | None) -> None:
        """The uses of the `lines` (all by default) that end a block comment left open above, read again
        without what the comment holds: the line alone cannot tell where such a comment starts."""
        blanked = self._scanner.comment_end_blanked
        if blanked is None:
            return
        texts = self.lines
        if lines is None:  # (one search in C: a dump has no comment)
            lines = [local for local, text in enumerate(texts) if "*/" in text] if "*/" in "\n".join(texts) else []
        self._reread(uses, (local for local in lines if "*/" in texts[local]), blanked)

    def _reread_after_strings(self, uses: _LineUses, lines: list[int] | None) -> None:
        """The uses of the `lines` (all by default) that start inside a string left open above, read again
        without what the string holds (`calls={a` in a string names nothing): the line alone cannot tell."""
        blanked = self._scanner.string_start_blanked
        if blanked is None:
            return
        scans = self.scans
        candidates = range(len(scans)) if lines is None else lines
        self._reread(uses, (local for local in candidates if scans[local].kind in _MAY_START_IN_A_STRING), blanked)

    def _reread(self, uses: _LineUses, lines: Iterable[int],
                blanked: Callable[[State, str], str | None]) -> None:
        """The uses of `lines` read again from their text as `blanked` gives it for the state entering each
        (None: the line's own uses stand)."""
        texts, scans = self.lines, self.scans
        for local in lines:
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
        """Whether a line of the chunk may use or mention `name` (its uses are read first): it does, or another
        name of its hash does."""
        if self._used_names is None:
            self.uses()
        return self._may_use(name)

    def _may_use(self, name: str) -> bool:
        keys, key = self._used_names, hash(name)
        assert keys is not None
        at = bisect.bisect_left(keys, key)
        return at < len(keys) and keys[at] == key

    def occurrences_of(self, name: str) -> list[tuple[int, Ref]]:
        """(local line, ref) of every use or mention of `name` in this chunk, in line order. When the chunk keeps
        no uses, only the lines whose text holds the name are read (and not kept): a name is on few lines. A
        number is read everywhere: a parent_frame_id is printed as the parent's id + 1."""
        if self._uses is None and not name.isdigit():
            if not (self._may_use(name) if self._used_names is not None else self.contains(name)):
                return []  # one lookup, or one search of the whole chunk, before any line is read
            return [(local, ref) for local, text in enumerate(self.lines) if name in text
                    for ref in self.line_uses(local) if ref.name == name]
        if not self.uses_name(name):
            return []
        return [(local, ref) for local, refs in enumerate(self.uses()) for ref in refs if ref.name == name]


def _used_name_hashes(lines: list[str], uses: Sequence[LineUses]) -> array[int]:
    """The sorted hashes of the names the lines use: found by whoever reads the uses first (the check, in the
    background), not by the first question that looks a name up, which would wait for every chunk's. Their
    hashes, not the names: the uses are not kept, and the names' strings would be (15 MB at 40 MB, and as much
    again for sets of them); two names of one hash cost a reading of the chunk's lines, no more."""
    known = [(text, line_uses.places) for text, line_uses in zip(lines, uses) if isinstance(line_uses, KnownUses)]
    hashes = {hash(text[start:end]) for text, places in known for _, start, end in places}
    if len(known) < len(uses):
        hashes.update([hash(ref.name) for line_uses in uses if not isinstance(line_uses, KnownUses)
                       for ref in line_uses])
    return array("q", sorted(hashes))
