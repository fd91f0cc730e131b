"""Where in a text a name may stand, found without reading the whole text for each name: the names of each block
of lines read once (`BlockNames`), and what the glance's indexes read of a line (an HLO text's definitions,
headers and calls; the values and live ranges of a buffer assignment)."""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Callable, Iterable

from hlo_lsp.parsing.hlo_scanner.forms import CALLED_KEYS
from hlo_lsp.parsing.names import NAME
from hlo_lsp.parsing.text_search import definition_offsets

# What a line of an HLO text may define or head, for any name at once (a superset of what `definition_offsets`
# finds): its first name after blanks and a `%`, and the name after a `ROOT` or an `ENTRY` there (`ROOT %x`,
# `ROOTx`, `ENTRY %main`). Each pattern starts with a newline, which the regex engine finds at C speed (the first
# line is read with one put before it).
_LINE_FIRST_NAMES = re.compile(rf"\n[^\S\n]*%?[^\S\n]*({NAME})")
_NAMES_AFTER_ROOT_OR_ENTRY = re.compile(rf"\n[^\S\n]*%?[^\S\n]*(?:ROOT|ENTRY)[^\S\n]*%?[^\S\n]*({NAME})")
# What a key naming computations (`calls=`, `branch_computations=`, ... in any context) is followed by: a braced
# list on its line, a name, or something else (a value below, a comment: unsure). Each `=` is tried: the letters
# the keys end with rule out most (`op_name=`, `source_line=`) in one test, before each key's (3x faster at 40 MB).
_CALLED_VALUE = re.compile("=(?<=[" + "".join(sorted({key[-1] for key in CALLED_KEYS})) + "]=)(?:"
                           + "|".join(f"(?<={key}=)" for key in CALLED_KEYS) + r")[ \t]*"
                           rf"(?:\{{([^{{}}\n]*)(\}}?)|%?({NAME}))?")
_VALUE_NAME = re.compile(r"<[0-9]+ (" + NAME + ")")  # `<62 ynn_fusion.1{} @0>`: how the scanner reads a value
_LINE_FIRST_NAME = re.compile(r"^[^\S\n]*(" + NAME + r")\{", re.MULTILINE)  # `  ynn_fusion.1{} : 9-10`
_NAME_ONLY = re.compile(NAME)
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/")  # on one line (one over lines makes a text no glance reads)
_INDEX_BLOCK = 1 << 18  # characters per block of a BlockNames
SEARCHES_BEFORE_INDEX = 16  # names looked for in the whole text before an index reads itself (a first hover's)

Candidates = Callable[[str, int, int], Iterable[str]]
ANYWHERE = "\n"  # a candidate that stands for every name, in every block (a form read over lines)
_ANYWHERE_KEY = hash(ANYWHERE)


class BlockNames:
    """Where in a text (or between `start` and `end`) a name may stand in one form (`candidates(text, start,
    end)`: the names of that form in lines from `start` to `end`, a few more perhaps, never fewer), without
    reading the whole text for each name: the names of each block of lines are read in one pass (0.44 s for
    an HLO text of 40 MB); a name is then looked for in the blocks that may hold it alone. Until the index is read
    (`read`: the glance reads every index in the background once its first questions are answered), or for the first
    `searches_before_index` names, a name is looked for in the whole text (8 ms at 40 MB): the first hover after
    opening a file does not wait for the index. A block keeps its names' hashes, sorted in an array, not the names:
    a few megabytes at 40 MB instead of 365,000 strings in sets, which outlived the file in the allocator's arenas
    (two names of one hash cost the search of a block more, no more)."""

    def __init__(self, text: str, candidates: Candidates, start: int = 0, end: int | None = None,
                 searches_before_index: int = SEARCHES_BEFORE_INDEX) -> None:
        self._text, self._candidates = text, candidates
        self._span = (start, len(text) if end is None else end)
        self._searches, self._searches_before_index = 0, searches_before_index
        self._blocks: list[Block] | None = None

    def spans(self, name: str) -> list[tuple[int, int]]:
        """The parts of the text (start, end) where `name` may stand."""
        if _NAME_ONLY.fullmatch(name) is None:  # no block's names hold a name of other characters
            return [self._span]
        if self._blocks is None:
            if self._searches < self._searches_before_index:
                self._searches += 1
                return [self._span]
            self.read()
        assert self._blocks is not None
        key, found = hash(name), []
        for start, end, keys in self._blocks:  # (a hover looks up a few names in a few hundred blocks: inlined)
            if keys is None:
                found.append((start, end))
                continue
            at = bisect.bisect_left(keys, key)
            if at < len(keys) and keys[at] == key:
                found.append((start, end))
        return found

    def read(self) -> None:
        """Reads the names of every block now (a first search would)."""
        if self._blocks is None:
            self._blocks = self._read_blocks()

    def spliced(self, text: str, start: int, end: int, inserted: int) -> BlockNames:
        """The index of `text`: this index's text with `start:end` replaced by `inserted` characters, no newline
        in either. The edited line's block keeps its names and gains those the line now holds (a name it no
        longer holds costs a search of that block, no more): the edit is read, not the block."""
        shift = inserted - (end - start)
        span_start, span_end = self._span
        carried = BlockNames(text, self._candidates, span_start if span_start <= start else span_start + shift,
                             span_end + shift if span_end >= end else span_end, self._searches_before_index)
        carried._searches = self._searches
        if self._blocks is not None:
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start + inserted)
            line_end = len(text) if line_end < 0 else line_end + 1
            keys = _keys(self._candidates(text, line_start, line_end))
            carried._blocks = [(*carried._span, None)] if keys is None else _with_last_line(
                [_spliced_block(block, line_start, shift, keys) for block in self._blocks], line_start, line_end, keys)
        return carried

    def _read_blocks(self) -> list[Block]:
        """Blocks of whole lines of about _INDEX_BLOCK characters: (start, end, the names they may hold); one
        block that may hold any name where a line holds a form read over lines (`ANYWHERE`)."""
        text, (start, stop) = self._text, self._span
        blocks: list[Block] = []
        while start < stop:
            end = text.find("\n", start + _INDEX_BLOCK, stop)
            end = stop if end < 0 else end + 1
            keys = _keys(self._candidates(text, start, end))
            if keys is None:
                return [(*self._span, None)]
            blocks.append((start, end, keys))
            start = end
        return blocks


Block = tuple[int, int, "array[int] | None"]  # start, end, the sorted hashes of the names the lines between
# may hold (None: any name)


def _keys(names: Iterable[str]) -> array[int] | None:
    hashes = set(map(hash, names))
    return None if _ANYWHERE_KEY in hashes else array("q", sorted(hashes))


def _spliced_block(block: Block, line_start: int, shift: int, edited_keys: array[int]) -> Block:
    """A block of whole lines after an edit of the line at `line_start` (holding the names of `edited_keys` now)
    that moved what follows it by `shift`."""
    first, end, keys = block
    if end <= line_start:
        return block
    if first > line_start:
        return first + shift, end + shift, keys
    return first, end + shift, _with_keys(keys, edited_keys)


def _with_last_line(blocks: list[Block], line_start: int, line_end: int, edited_keys: array[int]) -> list[Block]:
    """`blocks`, the last one holding the edited line from `line_start` to `line_end` where the line is past them all
    (a line typed at the end of the text, after its last line end)."""
    if blocks and blocks[-1][1] > line_start:
        return blocks
    first, keys = (blocks[-1][0], blocks[-1][2]) if blocks else (line_start, array("q"))
    return [*blocks[:-1], (first, line_end, _with_keys(keys, edited_keys))]


def _with_keys(keys: array[int] | None, edited_keys: array[int]) -> array[int] | None:
    """A block's keys with an edited line's (None, any name, stays so)."""
    return None if keys is None else array("q", sorted({*keys, *edited_keys}))


def hlo_names(text: str, searches_before_index: int = SEARCHES_BEFORE_INDEX) -> BlockNames:
    """Where in an HLO text a name may be defined (`definition_offsets`), head a computation or be named by a
    key that calls computations."""
    return BlockNames(text, _defined_headed_or_called, searches_before_index=searches_before_index)


def definition_offsets_in(text: str, where: BlockNames, name: str) -> list[int]:
    """`definition_offsets(text, name)`, looked for where `where` (`hlo_names(text)`) says it may be."""
    return [offset for start, end in where.spans(name) for offset in definition_offsets(text, name, start, end)]


def _defined_headed_or_called(text: str, start: int, end: int) -> list[str]:
    """The names lines from `start` (a line's start) to `end` may define or head (`ROOTx = ...` defines `x` and
    `ROOTx`), and those keys calling computations name there (`ANYWHERE` for a value the line does not end)."""
    lines = "\n" + text[start:end]
    if "/*" in lines:  # read with its comments blanked too, as the scanner reads them (`/*c*/%x` heads `x`), and
        # as they are (what looks like a comment may be in a string)
        lines += _BLOCK_COMMENT.sub(lambda comment: " " * len(comment[0]), lines)
    names = _LINE_FIRST_NAMES.findall(lines)
    names += _NAMES_AFTER_ROOT_OR_ENTRY.findall(lines)
    for listed, closed, single in _CALLED_VALUE.findall(lines):
        if single:
            names.append(single)
        elif closed:
            names += _NAME_ONLY.findall(listed)
        else:  # a list going on below, a value on the next line, a comment before it
            names.append(ANYWHERE)
    return names


def value_names(text: str, start: int, end: int) -> list[str]:
    """The names of the values printed from `start` to `end` (`<62 ynn_fusion.1{} @0>`), and perhaps more."""
    return _VALUE_NAME.findall(text, start, end)


def line_first_names(text: str, start: int, end: int) -> list[str]:
    """The names that open a line (after its blanks) with a `{` after them (a live range), from `start` (a line's
    start) to `end`."""
    return _LINE_FIRST_NAME.findall(text, start, end)
