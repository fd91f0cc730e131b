"""The computations and instructions of one HLO module's text, kept compact for workspace/symbol over the
modules of the workspace folders that are not open: their names joined into one string and their places
in `array` columns (line, start column, container), not an object per symbol: about 32 bytes a symbol (45
where names have capitals: their lowered copy is kept too), 12 MB for the 365,000 of a 40 MB module.

It finds exactly what `workspace_symbols` finds in the module opened. Where the text is laid out as XLA
prints it, it is read without scanning each line: every distinct line template (its digits as 0, as the
scanner's own cache keys lines) is read once by the scanner itself, in each state the file may put it in;
the order of the lines' kinds is checked at once (a header opens a computation, `}` closes it, tables
and the module header stand between computations), and the names are sliced from the lines at the places
the scanner read in their templates. Any other text (a string or comment going on over lines, several
items on a line, a line the scanner reads otherwise) is scanned as an open file is.
"""

from __future__ import annotations

import bisect
import heapq
import re
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate, compress

from hlo_lsp.features.workspace_symbols import (
    COMPUTATION,
    INSTRUCTION,
    SYMBOL_KINDS,
    Candidate,
    Ranked,
    computation_candidates,
    file_name,
    instruction_candidates,
    rank,
)
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.model.priority import let_questions_first
from hlo_lsp.parsing.digit_templates import digits_as_zero
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import COMP, TABLE_NAMES, TOP, scan_hlo_line
from hlo_lsp.parsing.line_scan import LineScan, State
from hlo_lsp.parsing.text_search import PRINTED_END, PRINTED_HEADER, PRINTED_INSTRUCTION

_BLOCK = 1 << 20  # characters read between two chances for a question to go first
_TEMPLATES_KEPT = 1 << 16  # a text of few repeats: the templates read are let go of, a block at a time


# A line's kind, one letter: Instruction, Header, End of a computation, Blank (or a comment), Module header,
# Table header, table Row; X: any other.
_TABLES = tuple(("table", name) for name in TABLE_NAMES)
# The states a line of each kind is read in, and the kind the scanner must read there, state kept or entered.
_OTHER_KINDS = (("B", (TOP, COMP, *_TABLES), "blank"), ("M", (TOP, *_TABLES), "module_header"),
                ("T", (TOP, *_TABLES), "table_header"), ("R", _TABLES, "table_row"))
# The kinds in an order the scanner reads them in those states: computations closed, tables between them.
_LAYOUT = re.compile(r"(?:[BM]|T[BTR]*+|H[BI]*+E)*+(?:T[BTR]*+|H[BI]*+)?")
_NO_CONTAINER = 0  # in `containers`: no computation; k + 1: the computation k


@dataclass
class _Columns:
    """Symbols as they are read, each kind in file order."""

    computations: list[str] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)
    computation_lines: array = field(default_factory=lambda: array("I"))
    computation_columns: array = field(default_factory=lambda: array("I"))  # where each name starts (UTF-16)
    instruction_lines: array = field(default_factory=lambda: array("I"))
    instruction_columns: array = field(default_factory=lambda: array("I"))
    containers: array = field(default_factory=lambda: array("I"))  # each instruction's computation


class SymbolIndex:
    """The computations and instructions of one HLO module file, searched as `workspace_symbols` searches."""

    __slots__ = ("source", "from_scan", "_file", "_names", "_lower", "_starts", "_lines", "_columns",
                 "_containers", "_computations")

    def __init__(self, source: str, columns: _Columns, from_scan: bool) -> None:
        self.source = source
        self.from_scan = from_scan  # read by the scanner, line by line (the text is not as XLA prints it)
        self._file = file_name(source)
        names = columns.computations + columns.instructions
        self._computations = len(columns.computations)
        # "\n" before and after each name: a name is found whole, or by its start, with one search
        self._names = "\n" + "\n".join(names) + "\n" if names else "\n"
        lower = self._names.lower()
        self._lower = self._names if lower == self._names else lower
        self._starts = array("I", accumulate(map((1).__add__, map(len, names)), initial=1))
        self._lines = columns.computation_lines + columns.instruction_lines
        self._columns = columns.computation_columns + columns.instruction_columns
        self._containers = columns.containers

    @classmethod
    def of(cls, source: str, text: str) -> SymbolIndex:
        """The index of `text`, the HLO module file `source`."""
        return cls.as_printed(source, text) or cls.scanned(source, text)

    @classmethod
    def as_printed(cls, source: str, text: str) -> SymbolIndex | None:
        """The index of a text laid out as XLA prints it, read without scanning each line (a few hundred
        milliseconds at 40 MB); None for any other text."""
        columns = _read_as_printed(text)
        return cls(source, columns, from_scan=False) if columns is not None else None

    @classmethod
    def scanned(cls, source: str, text: str) -> SymbolIndex:
        """The index of any text, scanned line by line as an open file is (seconds, and a module's memory
        meanwhile, at 40 MB)."""
        return cls(source, _read_by_scan(source, text), from_scan=True)

    def __len__(self) -> int:
        return len(self._starts) - 1

    @property
    def nbytes(self) -> int:
        """What the index holds in memory."""
        held = sys.getsizeof(self._names) + (sys.getsizeof(self._lower) if self._lower is not self._names else 0)
        columns = (self._starts, self._lines, self._columns, self._containers)
        return held + sum(sys.getsizeof(column) for column in columns) + sys.getsizeof(self)

    def search(self, query: str, limit: int, module: int = 0) -> list[Ranked]:
        """The `limit` best symbols whose name holds `query` (ignoring case), with their rank (`module`: this
        file's place among the modules searched), best first."""
        query = query.lower()
        if not query:
            return [(rank(0, "", "", *self._kind_and_place(index, module)), self._candidate(index))
                    for index in range(min(limit, len(self)))]
        if "\n" in query:
            return []
        # (closeness, length, where the name starts): in the names' order, computations first, in file order
        best = heapq.nsmallest(limit, self._matches(query, limit))
        found = []
        for near, length, start in best:
            index = bisect.bisect_left(self._starts, start)
            found.append(((near, length, *self._kind_and_place(index, module)), self._candidate(index)))
        return found

    def _matches(self, query: str, limit: int) -> Iterator[tuple[int, int, int]]:
        """(closeness, length, start) of each name that holds `query` (lowered); only of those that start with
        it when there are `limit` of them (any other ranks after them)."""
        lower, size = self._lower, len(query)
        if len(lower) != len(self._names):  # (a name lowered to another length: none XLA prints)
            yield from self._matches_one_by_one(query)
            return
        find = lower.find
        prefix = lower.count("\n" + query) >= limit
        found = find("\n" + query) + 1 if prefix else find(query)
        while found > 0:
            start = found if prefix else lower.rfind("\n", 0, found) + 1
            end = find("\n", found)
            yield (0 if end - start == size else 1) if found == start else 2, end - start, start
            found = find("\n" + query, end) + 1 if prefix else find(query, end)

    def _matches_one_by_one(self, query: str) -> Iterator[tuple[int, int, int]]:
        for index, start in enumerate(self._starts[:-1]):
            name = self._name(index)
            lowered = name.lower()
            if query in lowered:
                yield 0 if lowered == query else 1 if lowered.startswith(query) else 2, len(name), start

    def _kind_and_place(self, index: int, module: int) -> tuple[int, int, int]:
        if index < self._computations:
            return COMPUTATION, module, index
        return INSTRUCTION, module, index - self._computations

    def _name(self, index: int) -> str:
        return self._names[self._starts[index] : self._starts[index + 1] - 1]

    def _candidate(self, index: int) -> Candidate:
        name, start = self._name(index), self._columns[index]
        where = (self._lines[index], start, start + len(name))
        if index < self._computations:
            return name, SYMBOL_KINDS[COMPUTATION], self.source, where, self._file
        container = self._containers[index - self._computations]
        return (name, SYMBOL_KINDS[INSTRUCTION], self.source, where,
                self._name(container - 1) if container != _NO_CONTAINER else "")


# ---- a text as XLA prints it ---------------------------------------------------------------------------


class _Templates:
    """The kind each line template reads as (one letter; `X`: not as XLA prints it), and where an instruction's
    or a computation's name stands in it."""

    def __init__(self) -> None:
        self.kinds: dict[bytes, str] = {}
        self.slices: dict[bytes, slice] = {}  # where the name is in a line of the template
        self.starts: dict[bytes, int] = {}  # its column

    def learn(self, templates: list[bytes]) -> None:
        if len(self.kinds) > _TEMPLATES_KEPT:
            self.kinds.clear()
            self.slices.clear()
            self.starts.clear()
        for template in set(templates).difference(self.kinds):
            kind, span = _template_kind(template.decode("utf-8", "surrogatepass"))
            self.kinds[template] = kind
            if span is not None:
                self.slices[template] = slice(*span)
                self.starts[template] = span[0]


def _template_kind(text: str) -> tuple[str, tuple[int, int] | None]:
    """The kind of a line template, and its name's span for an instruction or a computation header, as the
    scanner reads it in each state the layout may put it in; `X` where it reads otherwise."""
    for kind, form, states, scanned, end in (("I", PRINTED_INSTRUCTION, (COMP,), "instruction", COMP),
                                             ("H", PRINTED_HEADER, (TOP, *_TABLES), "computation", COMP),
                                             ("E", PRINTED_END, (COMP,), "computation_end", TOP)):
        match = form.match(text)
        if match is None:
            continue
        span = match.span(1) if kind != "E" else None
        for state in states:
            scan = scan_hlo_line(state, text)
            if scan.kind != scanned or scan.end_state != end or not _defines(scan, match, kind):
                return "X", None
        return kind, span
    for kind, states, scanned in _OTHER_KINDS:
        scans = [scan_hlo_line(state, text) for state in states]
        if all(scan.kind == scanned for scan in scans) and _keeps_state(kind, states, scans):
            return kind, None
    return "X", None


def _defines(scan: LineScan, match: re.Match[str], kind: str) -> bool:
    """Whether the scan defines the name the form found, where it found it (a computation: as its name)."""
    if kind == "E":
        return True
    refs, data = scan.refs, scan.data
    if not refs or (refs[0].name, refs[0].start, refs[0].end) != (match.group(1), *match.span(1)):
        return False
    return kind == "I" or data[0] == match.group(1)


def _keeps_state(kind: str, states: tuple[State, ...], scans: list[LineScan]) -> bool:
    """A blank line or a table's row leaves the state as it was; a module header leaves the top; a table's
    header enters its table."""
    ends = [scan.end_state for scan in scans]
    if kind in ("B", "R"):
        return ends == list(states)
    if kind == "M":
        return all(end == TOP for end in ends)
    return len(set(ends)) == 1 and ends[0] in _TABLES


def _read_as_printed(text: str) -> _Columns | None:
    """The symbols of a text laid out as XLA prints it, None for any other text."""
    columns, templates, layout = _Columns(), _Templates(), []
    line, start = 0, 0
    while start <= len(text):
        end = text.find("\n", start + _BLOCK)
        end = len(text) if end < 0 else end
        block = text[start:end]
        texts, shapes, kinds = _block_kinds(block, templates)
        if "X" in kinds:
            return None
        layout.append(kinds)
        _read_block(texts, shapes, kinds, templates, line, columns)
        line, start = line + len(texts), end + 1
        let_questions_first()
    return columns if _LAYOUT.fullmatch("".join(layout)) is not None else None


def _block_kinds(block: str, templates: _Templates) -> tuple[list[str], list[bytes], str]:
    """The lines of a block, their templates and their kinds, one letter each."""
    shapes = digits_as_zero(block).split(b"\n")  # (UTF-8 puts no newline inside a character)
    templates.learn(shapes)
    return block.split("\n"), shapes, "".join(map(templates.kinds.__getitem__, shapes))


def _read_block(texts: list[str], shapes: list[bytes], kinds: str, templates: _Templates, first_line: int,
                columns: _Columns) -> None:
    """Adds the symbols of a block's lines (`first_line` the first). Each step maps over the block's lines in
    C: no Python call per line or per symbol."""
    numbers = range(first_line, first_line + len(texts))
    headers, instructions = list(map("H".__eq__, kinds)), list(map("I".__eq__, kinds))
    # in a text as XLA prints it, an instruction is in the computation of the last header above it
    headers_above = accumulate(headers, initial=len(columns.computations))
    next(headers_above)
    columns.containers.extend(compress(headers_above, instructions))
    for chosen_lines, names, lines, starts in (
            (headers, columns.computations, columns.computation_lines, columns.computation_columns),
            (instructions, columns.instructions, columns.instruction_lines, columns.instruction_columns)):
        chosen = list(compress(shapes, chosen_lines))
        names.extend(map(str.__getitem__, compress(texts, chosen_lines), map(templates.slices.__getitem__, chosen)))
        lines.extend(compress(numbers, chosen_lines))
        starts.extend(map(templates.starts.__getitem__, chosen))


# ---- any other text ------------------------------------------------------------------------------------


def _read_by_scan(source: str, text: str) -> _Columns:
    """The symbols `workspace_symbols` finds in the module of `text` opened alone."""
    document = Document(text, FileKind.HLO_MODULE, source)
    module = ModuleDump(module_stem(source), {FileKind.HLO_MODULE: document})
    columns, first_of_name = _Columns(), dict[str, int]()
    for name, _, _, (line, start, _), _ in computation_candidates(module):
        first_of_name.setdefault(name, len(columns.computations) + 1)
        columns.computations.append(name)
        columns.computation_lines.append(line)
        columns.computation_columns.append(start)
    for name, _, _, (line, start, _), container in instruction_candidates(module):
        columns.instructions.append(name)
        columns.instruction_lines.append(line)
        columns.instruction_columns.append(start)
        columns.containers.append(first_of_name[container] if container else _NO_CONTAINER)
    return columns
