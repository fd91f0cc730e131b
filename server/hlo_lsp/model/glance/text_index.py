"""One file's text with a coarse line index, and the picked lines a glance scans (`Picks`)."""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.model.chunk import Chunk
from hlo_lsp.model.document import Document, Run
from hlo_lsp.parsing.line_scan import LineScan, State
from hlo_lsp.parsing.text_search import LineIndex


class Declined(Exception):
    """The glance cannot answer for certain."""


class Text:
    """One file's text with its line index (`LineIndex`: the document's, shifted by each edit)."""

    def __init__(self, document: Document, text: str) -> None:
        self.document = document
        self.text = text
        lines = document.unscanned_lines()
        self.lines = lines if lines is not None and lines.text is text else LineIndex(text)
        self.line_count = self.lines.line_count

    def line_at(self, offset: int) -> int:
        return self.lines.line_at(offset)

    def end_line(self, offset: int) -> int:
        """The first line not before `offset` ends (the line count at the end of the text)."""
        return self.line_at(offset) if offset < len(self.text) else self.line_count

    def line_start(self, line: int) -> int:
        if not 0 <= line < self.line_count:
            raise Declined
        return self.lines.line_start(line)

    def line(self, line: int) -> str:
        return self.line_from(self.line_start(line))

    def line_from(self, start: int) -> str:
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def prefix_on_line(self, offset: int) -> str:
        """The text between the start of the line and `offset`, without its spaces."""
        return self.text[self.text.rfind("\n", 0, offset) + 1 : offset].strip()

    def occurrences(self, needle: str, start: int = 0, end: int | None = None) -> Iterator[int]:
        stop = len(self.text) if end is None else end
        found = self.text.find(needle, start, stop)
        while found >= 0:
            yield found
            found = self.text.find(needle, found + 1, stop)

    def scan(self, line: int, state: State) -> tuple[str, LineScan]:
        text = self.line(line)
        return text, self.document.scanner.scan(state, text)

    def scan_run(self, first: int, state: State, stop: int) -> Iterator[tuple[int, str, State, LineScan]]:
        """(line, text, state entering it, scan) of the lines from `first` to before `stop`, scanned in order."""
        scan_line = self.document.scanner.scan
        start = self.line_start(first)
        for line in range(first, min(stop, self.line_count)):
            text = self.line_from(start)
            scan = scan_line(state, text)
            yield line, text, state, scan
            state, start = scan.end_state, start + len(text) + 1


class Picks:
    """The lines picked from one file for one question: line -> (text, state entering it, scan)."""

    def __init__(self, file: Text, base: dict[int, tuple[str, State, LineScan]] | None = None) -> None:
        self.file = file
        self.lines = dict(base or {})
        self._shared: list[tuple[int, Chunk]] = []  # (first line, chunk): lines every question reads

    def share(self, first: int, chunk: Chunk) -> None:
        """Adds the lines of `chunk` from `first` on, as that chunk: what is read of it is read once for
        every question (a 12,000-line peak list)."""
        if chunk.lines:
            self._shared.append((first, chunk))

    def _in_shared(self, line: int) -> LineScan | None:
        for first, chunk in self._shared:
            if first <= line < first + len(chunk.lines):
                return chunk.scans[line - first]
        return None

    def pick(self, line: int, state: State, kinds: frozenset[str] | None = None) -> LineScan:
        shared = self._in_shared(line)
        if shared is not None:
            if kinds is not None and shared.kind not in kinds:
                raise Declined
            return shared
        picked = self.lines.get(line)
        if picked is None:
            text, scan = self.file.scan(line, state)
            picked = (text, state, scan)
        if kinds is not None and picked[2].kind not in kinds:
            raise Declined  # (or held already as another kind of line: a module header's continuation, say)
        self.lines[line] = picked
        return picked[2]

    def document(self) -> Document:
        runs: list[Run] = []
        for line in sorted(self.lines):
            if self._in_shared(line) is not None:
                continue
            text, state, scan = self.lines[line]
            if runs and runs[-1][0] + len(runs[-1][1]) == line:
                runs[-1][1].append(text)
                runs[-1][2].append(scan)
            else:
                runs.append((line, [text], [scan], state))
        document = self.file.document
        return Document.sparse(document.kind, document.source, self.file.line_count, runs, tuple(self._shared))
