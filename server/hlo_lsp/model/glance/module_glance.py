"""A glance at a module before its files are scanned: the lines one question needs, found by text search.

Scanning a 40 MB module takes seconds; finding a name in its text takes milliseconds. A
glance finds the few lines that say everything about one instruction (its definition and
its computation's header, the stack-frame tables, its buffer values and their
allocations, its live ranges, the schedule at the times they name, the peak) and scans
them with the same scanners. From them it builds a sparse ModuleDump (Documents holding
only those lines) that the same models and features read as they read a whole module.

The cursor may be in any file of the module (the HLO file, its buffer assignment, values, live
ranges or memory report): its line is scanned in the state the whole file's scan enters it in,
known from its section's header, or from the nearest value block or allocation above it in the
sections whose lines change the state.

A glance answers only what it can place for certain and declines the rest (None): a
name defined twice, a live-range file with two sections, a peak XLA did not print, files
of two compilations. The caller then waits for the whole module.
"""


from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from hlo_lsp.model.collector import paused_collector
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.glance import buffers_text
from hlo_lsp.model.glance.buffers_text import AFTER_ALLOCATION, ALLOCATION, BuffersText, LiveRangeSection
from hlo_lsp.model.glance.hlo_text import HloText
from hlo_lsp.model.glance.index_reading import IndexReading
from hlo_lsp.model.glance.text_index import Declined, Picks, Text
from hlo_lsp.model.lazy import lazy
from hlo_lsp.model.pairing import paired_module, pairing_sample
from hlo_lsp.parsing.ba_mentions import mentioned_instruction
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.text import Range

_TABLE_KINDS = frozenset(("frame", "location", "file_name", "function_name"))  # what the tables define
_AFTER_VALUE_NAME = frozenset("{ >")  # `<id name{index} (phi) @color>`

class ModuleGlance:
    """Questions about one module answered from its files' text, before they are scanned."""

    # the files a glance reads (not the values file nor the report)
    KINDS = frozenset((FileKind.HLO_MODULE, FileKind.BUFFER_ASSIGNMENT, FileKind.LIVE_RANGE))
    # the files whose cursor a glance places: those, the values file and the memory report
    CURSOR_KINDS = KINDS | {FileKind.BUFFER_ASSIGNMENT_VALUES, FileKind.MEMORY_USAGE_REPORT}

    def __init__(self, stem: str, files: dict[FileKind, Text]) -> None:
        self.stem = stem
        self._files = files
        self.indexes = IndexReading()

    @contextlib.contextmanager
    def question(self) -> Iterator[None]:
        """Around each question: the collector paused while it is answered (a first question reads tens of thousands
        of lines); once a first is answered, the indexes are read in the background (`read_index`), and a question
        asked meanwhile waits for them."""
        with self.indexes.question(self), paused_collector():
            yield

    def read_indexes(self) -> None:
        """Reads at once what the questions after a first read of the files' whole texts (`read_index`)."""
        step = 0
        while self.read_index(step):
            step += 1

    def read_index(self, step: int) -> bool:
        """Reads one of the indexes the questions after a first read of the files' whole texts: the HLO text's names
        index, each buffer-assignment file's, the live ranges' section and its peak list, the pairing vote. A first
        question reads only what it needs; each of these reads tens to hundreds of milliseconds of a 40 MB module,
        and read by the questions that first need them, one by one, each of those would wait. False past the last,
        or when what they read declines (a question that needs it declines too)."""
        reads: list[Callable[[], object]] = [self._hlo.read_indexes]
        reads += [file.read_indexes for kind, file in self._files.items()
                  if kind in self.KINDS and isinstance(file, BuffersText)]
        reads += [self._read_live_range_index, lambda: (self._several_spaces, self._paired)]
        if step >= len(reads):
            return False
        try:
            reads[step]()
        except Declined:
            return False
        return True

    def _read_live_range_index(self) -> None:
        section = self._live_range
        if section is not None:
            section.read_indexes()

    @classmethod
    def of(cls, stem: str, documents: dict[FileKind, Document]) -> ModuleGlance | None:
        """A glance at the module's documents while their text is still at hand (None once one of
        them is scanned: the whole module is then close)."""
        files: dict[FileKind, Text] = {}
        for kind in cls.CURSOR_KINDS:
            document = documents.get(kind)
            if document is None:
                continue
            text = document.unscanned_text()
            if text is None:
                return None
            files[kind] = (HloText if kind is FileKind.HLO_MODULE else BuffersText)(document, text)
        return cls(stem, files) if FileKind.HLO_MODULE in files else None

    def after_edit(self, document: Document, edited: Document, edit: Range) -> ModuleGlance | None:
        """The glance at the module once `edit` of its HLO file `document` made `edited` (not scanned): the
        companions' texts as they are, and what was read of the HLO text carried past the edit, in time
        proportional to the edit, not to the text. None when `document` is not this glance's HLO file or the
        edit is not within one line (a glance is then made afresh)."""
        if self._hlo.document is not document:
            return None
        hlo = self._hlo.after_edit(edited, edit)
        if hlo is None:
            return None
        carried = ModuleGlance(self.stem, {**self._files, FileKind.HLO_MODULE: hlo})
        if self.indexes.started and not self.indexes.reading:  # (else its questions start a reading)
            carried.indexes = self.indexes
        known, given = self.__dict__, carried.__dict__
        for companions_only in ("_several_spaces", "_live_range"):
            if companions_only in known:
                given[companions_only] = known[companions_only]
        outside = "has_instructions_outside_computations"
        if "_paired" in known and hlo.definitions_as_before and (outside not in self._hlo.__dict__
                                                                 or outside in hlo.__dict__):
            given["_paired"] = known["_paired"]  # (its vote read the names defined and this, or nothing, of the text)
        return carried

    @property
    def _hlo(self) -> HloText:
        return self._files[FileKind.HLO_MODULE]  # type: ignore[return-value]

    def line_document(self, line: int, source: str | None = None) -> Document | None:
        """The file `source` (default the HLO file) holding only `line`, scanned in the state the
        whole file's scan enters it in; an HLO line as an instruction's line when it is indented."""
        try:
            file = self._file_of(source)
            picks = Picks(file)
            if isinstance(file, BuffersText):
                if self._paired is not True:
                    raise Declined  # the whole module may answer from the buffer assignment alone
                state = file.state_entering(line)
            elif line in self._hlo.head:  # read in order from the top: the stack-frame tables
                picks.lines[line] = self._hlo.head[line]
                return picks.document()
            else:
                text = file.line(line)
                if text[:1] in (" ", "\t"):
                    state = "comp"
                elif self._hlo.follows_computation_end(line):
                    state = file.document.scanner.initial_state
                else:  # maybe the rest of an instruction continued over several lines
                    raise Declined
            picks.pick(line, state)
            document = picks.document()
            if state == "comp" and (document.scan(line).problem is not None or document.scan(line).end_state != state):
                # garbled, or a part of an item of the lines above (in a string left open), or going on below
                raise Declined
            return document
        except Declined:
            return None

    def reads_as_whole(self, line_document: Document, line: int) -> bool:
        """Whether `line_document` (from `line_document`) surely reads `line` as the whole file does:
        in a buffer-assignment file always (its state is found, not guessed); in the HLO file above
        its first computation (read in order), and below it when it is a complete instruction line,
        which reads the same in any state (a line of another kind may be part of a multi-line
        literal, read in a state only the lines above it tell)."""
        if line_document.kind is not FileKind.HLO_MODULE or line in self._hlo.head:
            return True
        if self._hlo.has_cross_line_forms:
            return False
        scan = line_document.scan(line)
        return scan.kind == "instruction" and scan.problem is None and scan.end_state == "comp"

    def _file_of(self, source: str | None) -> Text:
        if source is None:
            return self._hlo
        found = [file for file in self._files.values() if file.document.source == source]
        if not found:
            raise Declined
        return found[0]

    def instruction_module(self, name: str, memory: bool = True) -> ModuleDump | None:
        """The module as far as instruction `name` goes: its definition, and with `memory` its
        buffer values, allocations, live ranges and the peak. None when the glance is not sure."""
        try:
            return self._instruction_module(name, memory)
        except Declined:
            return None

    def module_about(self, kind: str, name: str, whole: bool = True) -> ModuleDump | None:
        """The module as far as an instruction, a computation or a table's row (`kind`) goes: with
        `whole`, all a hover says (an instruction's memory, a computation's body and callers), else
        its definition."""
        if kind == "instruction":
            return self.instruction_module(name, memory=whole)
        if kind == "computation":
            return self.computation_module(name, whole)
        if kind in _TABLE_KINDS:
            return self.frames_module()
        return None

    # what the cursor may be on for `module_at`
    HOVER_KINDS = frozenset(("instruction", "computation", "value", "allocation")) | _TABLE_KINDS

    def module_at(self, line_document: Document, line: int, kind: str, name: str) -> ModuleDump | None:
        """The module as far as a hover on `kind` `name`, on `line` of `line_document` (from
        `line_document`), needs. None when the glance is not sure."""
        if kind == "value":
            return self.value_module(line_document, line, name)
        if kind == "allocation":
            return self.allocation_module(line_document, line)
        return self.module_about(kind, name)

    def allocation_module(self, line_document: Document, line: int) -> ModuleDump | None:
        """The buffer assignment as far as the allocation whose header is `line` goes: the lines from it
        to the next allocation's (its values, as the whole file's reading gives them to it)."""
        try:
            file = self._file_of(line_document.source)
            header = line_document.scan(line)
            if not isinstance(file, BuffersText) or header.kind != "allocation" or \
                    not file.numbers_one_allocation(header.data[0]) or header.data[2]:
                raise Declined  # (outside the default space: the memory report names its space)
            picks = Picks(file)
            for number, text, state, scan in file.scan_run(line, "alloc", line + buffers_text.RESYNC_LINES):
                if number > line and scan.kind in AFTER_ALLOCATION:
                    break
                picks.lines[number] = (text, state, scan)
            else:
                if line + len(picks.lines) < file.line_count:
                    raise Declined  # a longer block than a glance reads
            return ModuleDump(self.stem, {file.document.kind: picks.document()})
        except Declined:
            return None

    def frames_module(self) -> ModuleDump | None:
        """The module as far as its tables go (stack frames, their file locations, file and function
        names): the lines above its first computation, where XLA prints them. None when the glance
        is not sure."""
        if not self._hlo.head:
            return None
        return ModuleDump(self.stem, {FileKind.HLO_MODULE: Picks(self._hlo, self._hlo.head).document()})

    def value_module(self, line_document: Document, line: int, value_id: str) -> ModuleDump | None:
        """The module as far as the value `value_id` printed on `line` of `line_document` (from
        `line_document`) goes: its instruction's memory. None when the glance is not sure."""
        scan = line_document.scan(line)
        name = mentioned_instruction(scan) if scan.data and str(scan.data[0]) == value_id else None
        allocations = self._files.get(FileKind.BUFFER_ASSIGNMENT)
        if name is None or not isinstance(allocations, BuffersText) or not allocations.prints_one_value(value_id):
            return None
        return self.instruction_module(name)

    def computation_module(self, name: str, whole: bool = True) -> ModuleDump | None:
        """The module as far as computation `name` goes: its header, and when `whole` its body and
        callers. None when the glance is not sure."""
        try:
            if not self._hlo.head:
                raise Declined
            hlo = Picks(self._hlo, self._hlo.head)
            self._hlo.pick_computation(hlo, name, whole)
            return ModuleDump(self.stem, {FileKind.HLO_MODULE: hlo.document()})
        except Declined:
            return None

    def _instruction_module(self, name: str, memory: bool) -> ModuleDump:
        if not self._hlo.head:
            raise Declined
        hlo = Picks(self._hlo, self._hlo.head)
        self._hlo.pick_instruction(hlo, name)
        picked = {FileKind.HLO_MODULE: hlo}
        if memory:
            if self._several_spaces or self._is_async(hlo, name):
                raise Declined  # the peak of each space, the values it holds, the report's space names
            for scheduled in self._pick_memory(picked, name):
                self._hlo.pick_instruction(hlo, scheduled)
        module = ModuleDump(self.stem, {kind: picks.document() for kind, picks in picked.items()})
        if memory and paired_module(module.hlo, module.buffer_assignment) is None:
            raise Declined  # the schedule's names picked are not all the module's
        return module

    def _pick_memory(self, picked: dict[FileKind, Picks], name: str) -> set[str]:
        """Adds the buffer-assignment lines about `name`; returns the names scheduled at the times they print."""
        if self._paired is not True:
            raise Declined
        allocations = self._files.get(FileKind.BUFFER_ASSIGNMENT)
        if isinstance(allocations, BuffersText):
            self._pick_values(self._picks(picked, allocations), name)
        section = self._live_range
        if section is None:
            return set()
        picks = self._picks(picked, section.file)
        section.share_lines(picks)
        peak_time = section.peak[3].data[0]
        times = {peak_time}
        for scan in section.pick_ranges(picks, name):
            start, end = scan.data[2], scan.data[3]
            times.add(start)
            if end < section.max_time:
                times.add(end)
        return {scheduled for time in sorted(times) if (scheduled := section.pick_scheduled(picks, time))}

    def _picks(self, picked: dict[FileKind, Picks], file: Text) -> Picks:
        kind = file.document.kind
        if kind not in picked:
            picked[kind] = Picks(file)
        return picked[kind]

    @staticmethod
    def _pick_values(picks: Picks, name: str) -> None:
        """Every value line of `name` in the allocations section, with its allocation's header."""
        file: BuffersText = picks.file  # type: ignore[assignment]
        for header in file.headers_of("allocations_header"):
            picks.pick(header[1], "top")
        needle = " " + name
        for offset in file.value_name_occurrences(name):
            after = file.text[offset + len(needle) : offset + len(needle) + 1]
            section = file.section_at(offset)
            if after not in _AFTER_VALUE_NAME or section is None or section[3].kind != "allocations_header":
                continue
            line = file.line_at(offset)
            if line in picks.lines:  # read already: a long line may name it thousands of times
                continue
            text, scan = file.scan(line, "alloc")
            if scan.kind != "value" or scan.data[1] != name:
                continue
            picks.lines[line] = (text, "alloc", scan)
            allocation = file.allocation_above(section[0], offset)
            if allocation < 0:
                raise Declined  # a value before any allocation of its section
            allocation_scan = picks.pick(file.line_at(allocation), "alloc", ALLOCATION)
            if not file.numbers_one_allocation(allocation_scan.data[0]):
                raise Declined

    @lazy
    def _several_spaces(self) -> bool:
        """Whether an allocation is outside the default memory space (`allocation 8: size 786432, color 1`)."""
        allocations = self._files.get(FileKind.BUFFER_ASSIGNMENT)
        return isinstance(allocations, BuffersText) and next(allocations.occurrences(", color "), None) is not None

    @staticmethod
    def _is_async(picks: Picks, name: str) -> bool:
        """Whether `name` is the `*-done` of an asynchronous pair (the values it holds are its start's) or a
        `copy-start` (what it copies, between spaces the memory report names)."""
        scan = next(scan for _, _, scan in picks.lines.values() if scan.kind == "instruction" and scan.refs
                    and scan.refs[0].name == name)
        opcode = str(scan.data[3])
        return opcode.endswith("-done") or opcode == "copy-start"

    @lazy
    def _live_range(self) -> LiveRangeSection | None:
        headers = [(file, header) for kind, file in self._files.items()
                   if kind in self.KINDS and isinstance(file, BuffersText)
                   for header in file.headers_of("live_range_header")]
        if not headers:
            return None
        if len(headers) > 1:
            raise Declined
        file, header = headers[0]
        return LiveRangeSection(file, header)

    @lazy
    def _paired(self) -> bool | None:
        """Whether the HLO module is the one the buffer assignment was made for, by the vote
        `paired_module` takes; a vote too close to call with names found by text declines."""
        section = self._live_range
        if section is None:
            return True
        sample = pairing_sample(section.scheduled_names())
        if not sample:
            return True
        if self._hlo.has_instructions_outside_computations:
            return None  # the module's vote would not count them: too unsure to call
        sure = -(-len(sample) * 3 // 4)  # three quarters of the sample, rounded up: enough to call it paired
        known_names = self._hlo.defined_among(sample, enough=sure)
        known = sum(1 for name in sample if name in known_names)
        if known >= sure:
            return True
        if known * 4 <= len(sample):
            return False
        return None
