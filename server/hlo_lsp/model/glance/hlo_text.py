"""The HLO file at a glance: an instruction's definition, its computation's header and body, the stack-frame
tables, found by text search and scanned in the state the whole file's scan enters them in."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hlo_lsp.model.document import Document
from hlo_lsp.model.glance.text_index import Declined, Picks, Text
from hlo_lsp.model.lazy import lazy
from hlo_lsp.model.spliced_text import text_offsets
from hlo_lsp.parsing.block_names import BlockNames, definition_offsets_in, hlo_names
from hlo_lsp.parsing.hlo_scanner import in_string, leaves_a_string_open
from hlo_lsp.parsing.line_scan import LineScan, State
from hlo_lsp.parsing.text_search import (
    BraceBalance,
    UnindentedLinesAbove,
    defined_among,
    has_cross_line_forms,
    has_indented_line_after_non_header,
    is_header_prefix,
    line_forms,
    table_header_after,
)
from hlo_lsp.text import Range

_HEAD_LINES = 100_000  # lines before the first computation worth scanning (stack-frame tables)
_LONG_LINE = 10_000  # characters of a line whose scan is kept
_BLANK_LINES_ABOVE = 100  # blank and comment lines looked through above a computation header
_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_BODY_LINES = 20_000  # a longer computation (a large ENTRY) is left to the whole module
_CALLERS = 5_000  # a computation named on more lines is left to the whole module

_INSTRUCTION = frozenset(("instruction",))
_COMPUTATION = frozenset(("computation",))


class HloText(Text):
    # Whether the edit this text was carried past left the names its lines define as they were (set by the text
    # before it: `_carry_whole_text_reads`).
    definitions_as_before = False

    @lazy
    def head(self) -> dict[int, tuple[str, State, LineScan]]:
        """The lines from the module header through the first computation's header, scanned in
        order: the stack-frame tables a hover follows are there. None for a text whose lines read in
        states a glance does not follow (every question is declined)."""
        if self.has_cross_line_forms:
            return {}
        lines = {}
        for line, text, state, scan in self.scan_run(0, self.document.scanner.initial_state, _HEAD_LINES):
            lines[line] = (text, state, scan)
            if scan.kind == "computation":
                # a table printed below a computation is read by the module, not by the glance
                return {} if table_header_after(self.text, self.line_start(line)) else lines
        return {}  # no computation near the top: every question is declined

    def read_indexes(self) -> None:
        """Reads what questions read of the whole text: its names index, its braces and the way up to each part's
        computation header (the names defined are read by the pairing vote, `ModuleGlance._paired`, where a buffer
        assignment asks for it)."""
        self._names.read()
        _ = self._braces
        self._unindented_lines.read()

    def scan(self, line: int, state: State) -> tuple[str, LineScan]:
        kept = self._long_lines.get((line, state))
        if kept is not None:
            return kept
        if self._starts_in_string(line):
            raise Declined  # a string over lines: XLA reads it on through whatever its lines hold
        scanned = super().scan(line, state)
        if len(scanned[0]) >= _LONG_LINE:
            self._long_lines[line, state] = scanned
        return scanned

    @lazy
    def _long_lines(self) -> dict[tuple[int, State], tuple[str, LineScan]]:
        """The long lines scanned (an ENTRY computation's header names each of its parameters: every hover on one
        of its instructions reads it), kept with their scans."""
        return {}

    def scan_run(self, first: int, state: State, stop: int) -> Iterator[tuple[int, str, State, LineScan]]:
        if self._starts_in_string(first):
            raise Declined
        yield from super().scan_run(first, state, stop)

    def _starts_in_string(self, line: int) -> bool:
        """Whether `line` may start inside a string: the nearest line above it holding a quote leaves one
        open (lines without quotes between leave a string as it is)."""
        quote = self.text.rfind('"', 0, self.line_start(line))
        if quote < 0:
            return False
        above = self.line_at(quote)
        if above in self.head:  # read in order from the top
            return in_string(self.head[above][2].end_state)
        return leaves_a_string_open(self.line(above))

    @lazy
    def has_cross_line_forms(self) -> bool:
        """Whether a line may read otherwise alone than in the file for what lines above it leave open
        (a block comment, a lone `ROOT`): forms dumps never print."""
        return has_cross_line_forms(self.text)

    def defined_among(self, names: Sequence[str], enough: int | None = None) -> set[str]:
        """Those of `names` an indented line defines, or enough of them (`text_search.defined_among`; for the
        pairing vote, which needs no exact count)."""
        return defined_among(self.text, names, enough)

    @lazy
    def has_instructions_outside_computations(self) -> bool:
        """Whether some indented lines are not in any computation (a `}` or a readable header
        missing): the module does not count them as its instructions, the text search would."""
        if any(scan.kind == "instruction" for _, _, scan in self.head.values()):
            return True
        return has_indented_line_after_non_header(self.text)

    def follows_computation_end(self, line: int) -> bool:
        """Whether the nearest line above `line` that is not blank nor a `//` comment reads as a `}`
        ending a computation (as every computation header below the first follows the one before it)."""
        for above in range(line - 1, max(line - 1 - _BLANK_LINES_ABOVE, -1), -1):
            kind = self.scan(above, "comp")[1].kind
            if kind != "blank":
                return kind == "computation_end"
        return False

    def definition(self, name: str) -> int:
        """The offset of the one line that defines instruction `name` (declines for none or several):
        wherever the scanner may read a definition, `name` then `=` with any spaces or tabs between
        (`state =0(...` too), or `name` alone, its `=` below (fuzzer mutant #596970), after nothing, `%`,
        `ROOT` or `ROOT %` on its line."""
        found = definition_offsets_in(self.text, self._names, name)
        if len(found) != 1:
            raise Declined
        return found[0]

    @lazy
    def _names(self) -> BlockNames:
        return hlo_names(self.text)

    def pick_instruction(self, picks: Picks, name: str) -> None:
        """The instruction's line, the line after it, and its computation's header."""
        offset = self.definition(name)
        line = self.line_at(offset)
        scan = picks.pick(line, "comp", _INSTRUCTION)
        if scan.refs[0].name != name or scan.end_state != "comp":
            raise Declined  # another reading of the line, or an instruction continued on the next lines
        if line > 0 and isinstance(self.scan(line - 1, "comp")[1].end_state, tuple):
            raise Declined  # the line above leaves a string, a comment or brackets open over it
        if line + 1 < self.line_count:
            picks.pick(line + 1, "comp")
        if picks.pick(self.computation_header(offset), "top", _COMPUTATION).kind != "computation":
            raise Declined  # held already, as another kind of line

    def occurrences_of_name(self, name: str, start: int = 0, stop: int | None = None) -> Iterator[int]:
        """The offsets of `name` standing alone (not inside a longer name), from `start` to `stop`."""
        text, end = self.text, len(name)
        for offset in self.occurrences(name, start, stop):
            if (offset == 0 or text[offset - 1] not in _NAME_CHARACTERS) and \
                    text[offset + end : offset + end + 1] not in _NAME_CHARACTERS:
                yield offset

    def pick_computation(self, picks: Picks, name: str, whole: bool) -> None:
        """The computation's header; `whole`: its body too, every instruction that names it and
        their computations' headers."""
        # where it may head a computation or be called (the whole text, until the index is read)
        occurrences = [offset for start, stop in self._names.spans(name)
                       for offset in self.occurrences_of_name(name, start, stop)]
        headers = [offset for offset in occurrences
                   if is_header_prefix(self.prefix_on_line(offset))
                   and self.scan(self.line_at(offset), "top")[1].kind == "computation"]
        if len(headers) != 1:
            raise Declined
        line = self.line_at(headers[0])
        scan = picks.pick(line, "top", _COMPUTATION)
        if scan.refs[0].name != name:
            raise Declined
        if not whole:
            return
        self._pick_body(picks, line, scan.end_state)
        callers = [offset for offset in occurrences if self.line_at(offset) not in picks.lines]
        if len(callers) > _CALLERS:
            raise Declined
        for offset in callers:
            caller_line, header = self.line_at(offset), self.computation_header(offset)
            if caller_line in picks.lines:  # a line naming it twice
                continue
            caller = picks.pick(caller_line, "comp", _INSTRUCTION)
            if caller.end_state != "comp" or caller.problem is not None or header == caller_line:
                raise Declined  # an instruction continued over several lines, garbled, or outside any computation
            if self.braces_open_between(header, caller_line) != 1:
                raise Declined  # a line between them closes more than it opens: it may end the computation
            if picks.pick(header, "top", _COMPUTATION).kind != "computation":
                raise Declined  # held already, as another kind of line

    def _pick_body(self, picks: Picks, header: int, state: State) -> None:
        """The lines after a header through its `}` (declines for a body cut short or very long)."""
        for line, text, entering, scan in self.scan_run(header + 1, state, header + 1 + _BODY_LINES):
            picks.lines.setdefault(line, (text, entering, scan))
            if scan.kind == "computation_end":
                return
            if scan.kind == "computation" or scan.problem is not None:
                raise Declined
        raise Declined

    def braces_open_between(self, first: int, last: int) -> int:
        """How many more `{` than `}` the lines from `first` up to `last` hold (1 from a computation's
        header to a line of its body, in any text XLA prints)."""
        return self._braces.between(self.line_start(first), self.line_start(last))

    @lazy
    def _braces(self) -> BraceBalance:
        return BraceBalance(self.text)

    def computation_header(self, offset: int) -> int:
        """The header line of the computation around `offset`: the nearest line before it that is not
        indented (a header, or a `}` or anything else the caller declines)."""
        start = self._unindented_lines.start_before(offset)
        if start < 0:
            raise Declined
        return self.line_at(start)

    @lazy
    def _unindented_lines(self) -> UnindentedLinesAbove:
        return UnindentedLinesAbove(self.text)

    def after_edit(self, document: Document, edit: Range) -> HloText | None:
        """The text of `document`, this text with `edit` (UTF-16 positions, within one line) replaced: its
        line index shifted, and what was read of the whole text kept where the edit cannot change it, so the
        next questions do not read the whole text again. None for an edit that adds or removes lines."""
        text = document.unscanned_text()
        if text is None:
            return None
        start, end = text_offsets(self.lines, edit)
        inserted = len(text) - len(self.text) + end - start
        if inserted < 0 or "\n" in self.text[start:end] or "\n" in text[start : start + inserted]:
            return None
        carried = HloText(document, text)
        self._carry_whole_text_reads(carried, start, end, inserted)
        return carried

    def _carry_whole_text_reads(self, carried: HloText, start: int, end: int, inserted: int) -> None:
        """Gives `carried` what this text read of its whole text and the edit of `start:end` leaves as it was
        (what is not given is read again when asked)."""
        known, given = self.__dict__, carried.__dict__
        line_start = self.text.rfind("\n", 0, start) + 1
        old, new = line_forms(self.text, line_start), line_forms(carried.text, line_start)
        if "has_cross_line_forms" in known:
            was = known["has_cross_line_forms"]
            if not was or not old.cross_line_forms or new.cross_line_forms:
                given["has_cross_line_forms"] = was or new.cross_line_forms
        head: dict[int, tuple[str, State, LineScan]] = known.get("head") or {}
        if head and self.line_at(start) > max(head) and not new.table_header and not new.cross_line_forms:
            given["head"] = head
            if "has_instructions_outside_computations" in known and old.shape == new.shape:
                given["has_instructions_outside_computations"] = known["has_instructions_outside_computations"]
        carried.definitions_as_before = old.defined_names == new.defined_names
        if "_names" in known:
            given["_names"] = known["_names"].spliced(carried.text, start, end, inserted)
        if "_unindented_lines" in known:
            unindented = known["_unindented_lines"].spliced(carried.text, start, end, inserted)
            if unindented is not None:
                given["_unindented_lines"] = unindented
