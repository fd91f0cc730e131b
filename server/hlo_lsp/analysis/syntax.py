"""Syntax problems of one document: lines the scanner could not read, and what the grammar rejects."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from hlo_lsp.analysis.edits import spliced
from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Chunk, Document
from hlo_lsp.model.hlo_module import comment_above_blanked, lone_instruction_line, text_over_lines
from hlo_lsp.parsing.ba_syntax import line_error
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.hlo_scanner import (
    RAW_KEY,
    blank_comments,
    goes_on_from_above,
    item_text,
    raw_braces_blanked,
)
from hlo_lsp.parsing.hlo_syntax import parse_table_row
from hlo_lsp.parsing.line_scan import LineScan, as_one_line
from hlo_lsp.parsing.syntax import ParseError
from hlo_lsp.parsing.validation import (
    computation_header_error,
    instruction_error,
    known_to_parse,
    module_header_error,
)
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.text import Position, Range, utf16_column

# Beyond this a line is indexed for names but not parsed with the grammar.
MAX_PARSED_CHARS = 1 << 20


def side_file_problem(source: str) -> Problem:
    """The one thing said of a side file (flags or protobuf text XLA writes beside a TPU dump)."""
    return Problem(source, Range(Position(0, 0), Position(0, 0)), Severity.INFO, "side-file",
                   "written by XLA beside the dump, but not a dump (flags or protobuf text): nothing to check")


def syntax_problems(document: Document, on_lines: Callable[[int], None] | None = None) -> list[Problem]:
    """The document's syntax problems; `on_lines` is told, now and then, how many lines are done."""
    if document.kind is FileKind.SIDE_FILE:
        return [side_file_problem(document.source)]
    known = _kept(document)
    if known is not None:  # a companion is checked again after each edit of its module's HLO file
        return _read_as_xla_reads(document, known)
    problems = _after_edit(document)
    if problems is None:
        problems = _chunks_problems(document, 0, len(document.chunks), on_lines or _ignore)
    document.derived.put(_DOCUMENT_KEY, problems)
    return _read_as_xla_reads(document, problems)


def read_before(document: Document) -> bool:
    """Whether the document's syntax problems are kept, or follow from its previous version's kept ones."""
    edit = document.edited_from
    return _kept(document) is not None or (edit is not None and _kept(edit.previous) is not None)


def _read_as_xla_reads(document: Document, problems: list[Problem]) -> list[Problem]:
    """The problems, but that of a text's one instruction outside any computation: XLA's parser reads a text
    of one instruction as a module of it (kept with the others: the next version's edit may add another)."""
    if document.kind is not FileKind.HLO_MODULE or not any(p.code == _OUTSIDE for p in problems):
        return list(problems)
    lone = lone_instruction_line(document)
    if lone is None:
        return list(problems)
    return [p for p in problems if p.code != _OUTSIDE or p.range.start.line != lone] + _grammar_problem(document, lone)


def _grammar_problem(document: Document, line: int) -> list[Problem]:
    """The grammar's problem with the instruction that starts on `line` (a line the scanner flagged is not
    parsed with the others)."""
    start, chunk = next((start, chunk) for start, chunk in reversed(document.chunks_with_starts()) if start <= line)
    last = line  # the instruction's last line: its problem may be on a continuation line
    while last + 1 < document.line_count and goes_on_from_above(document.scan(last + 1)):
        last += 1
    return [problem for problem in _chunk_problems(document, start, chunk, set())
            if line <= problem.range.start.line <= last]


def _after_edit(document: Document) -> list[Problem] | None:
    """The problems of an edited document from its previous version's: those of the chunks the edit
    replaced are found again, the others kept (shifted by the lines the edit added). An edit costs
    work in proportion to its size, not to the document's."""
    edit = document.edited_from
    if edit is None:
        return None
    before = _kept(edit.previous)
    if before is None:
        return None
    chunks = document.chunks
    # an item continued into a replaced chunk is checked again with it, from the chunk where it starts
    first = max(edit.first - 1, 0)
    while first > 0 and chunks[first].scans and goes_on_from_above(chunks[first].scans[0]):
        first -= 1
    return spliced(document, edit, before, first, _chunks_problems(document, first, edit.new_end, _ignore))


def _chunks_problems(document: Document, first: int, end: int, on_lines: Callable[[int], None]) -> list[Problem]:
    """The problems of the chunks first..end, by place."""
    problems = document.scan_problems(first, end)
    if document.kind.is_buffer_assignment_family:
        problems = [_refined(document, problem) for problem in problems]
    flagged = {problem.range.start.line for problem in problems}
    problems.extend(_grammar_problems(document, flagged, on_lines, first, end))
    return sorted(problems, key=Problem.sort_key)


def _ignore(lines: int) -> None:
    pass


def _refined(document: Document, problem: Problem) -> Problem:
    """A line the scanner could not read, with the grammar's word on where it goes wrong."""
    line = problem.range.start.line
    if problem.code != "syntax":
        return problem
    text = document.line(line).rstrip("\r")
    error = line_error(text, document.scan(line).end_state)
    if error is None:
        return problem
    return _located(document, line, text, error.start, error.end, error.message)


def _grammar_problems(document: Document, flagged: set[int], on_lines: Callable[[int], None],
                      first: int, end: int) -> list[Problem]:
    """The grammar's problems in the chunks first..end, chunk by chunk. A chunk's problems are kept
    with the chunk: the chunks an edit did not touch are the same objects, and are not parsed again."""
    spans = document.chunks_with_starts()
    source = document.source
    problems: list[Problem] = []
    for index in range(first, end):
        start, chunk = spans[index]
        if index % _REPORT_EVERY_CHUNKS == 0:
            on_lines(start)
        after = spans[index + 1][1] if index + 1 < len(spans) else None
        # an item continued in the next chunk depends on it: such a chunk is not kept
        keep = after is None or not after.scans or not goes_on_from_above(after.scans[0])
        found = _kept_problems(chunk, source, start) if keep else None
        if found is None:
            found = _edited_chunk_problems(document, start, chunk, flagged) if keep else None
        if found is None:
            found = list(_chunk_problems(document, start, chunk, flagged))
        if keep:
            _keep(chunk, source, start, found)
        if found:
            problems.extend(found)
    return problems


_REPORT_EVERY_CHUNKS = 16
_DOCUMENT_KEY: DerivedKey[list[Problem]] = DerivedKey("syntax problems")  # a document's problems


def _kept(document: Document) -> list[Problem] | None:
    kept = document.derived.get(_DOCUMENT_KEY)
    return kept if isinstance(kept, list) else None

# A chunk's grammar problems: (source, first line, problems)
_DERIVED_KEY: DerivedKey[tuple[str, int, list[Problem]]] = DerivedKey("syntax")


def _kept_problems(chunk: Chunk, source: str, start: int) -> list[Problem] | None:
    kept = chunk.derived.get(_DERIVED_KEY)
    if kept is None or kept[0] != source:
        return None
    shift = start - kept[1]
    return kept[2] if shift == 0 or not kept[2] else [problem.shifted(shift) for problem in kept[2]]


def _keep(chunk: Chunk, source: str, start: int, problems: list[Problem]) -> None:
    chunk.derived.put(_DERIVED_KEY, (source, start, problems))


def _edited_chunk_problems(document: Document, start: int, chunk: Chunk, flagged: set[int]) -> list[Problem] | None:
    """The problems of a chunk edited line for line from one whose problems are kept: those of its unchanged
    lines taken from them, its changed lines checked again, when each is an instruction alone on its line
    before and after (an edit of a name, a shape or an attribute); else None."""
    before = chunk.before()
    kept = _kept_problems(before, document.source, start) if before is not None else None
    if before is None or kept is None:
        return None
    changed = chunk.changed_lines(before)
    if not all(_alone(chunk, local) and _alone(before, local) for local in changed):
        return None
    lines = {start + local for local in changed}
    problems = [problem for problem in kept if problem.range.start.line not in lines]
    problems += _chunk_problems(document, start, chunk, flagged, changed)
    return sorted(problems, key=Problem.sort_key)


def _alone(chunk: Chunk, local: int) -> bool:
    """Whether line `local` of the chunk is an instruction read alone: entered and left outside any item, the
    next line no continuation of it, no block comment's end or start on it."""
    scans, text = chunk.scans, chunk.lines[local]
    entered = scans[local - 1].end_state if local else chunk.start_state
    following = scans[local + 1] if local + 1 < len(scans) else None
    return (scans[local].kind == "instruction" and scans[local].end_state == "comp" and entered == "comp"
            and (following is None or not goes_on_from_above(following)) and "/*" not in text and "*/" not in text)


def _chunk_problems(document: Document, start: int, chunk: Chunk, flagged: set[int],
                    only: list[int] | None = None) -> Iterator[Problem]:
    """The grammar's problems of the chunk's lines (`only`: of those local lines)."""
    parsers = _HLO_PARSERS if document.kind is FileKind.HLO_MODULE else _BA_PARSERS
    lines, scans = chunk.lines, chunk.scans
    last = len(scans) - 1
    for local, scan in enumerate(scans) if only is None else ((local, scans[local]) for local in only):
        kind = scan.kind
        if kind == "instruction" and local < last and scans[local + 1].kind not in _GOES_ON:
            text = lines[local]  # most lines: an instruction alone on its line, of a template known to parse
            if "/*" not in text and "*/" not in text and len(text) <= MAX_PARSED_CHARS and \
                    known_to_parse(text.rstrip("\r")):
                continue
        parse = parsers.get(kind)
        if (parse is None and kind != "items") or start + local in flagged:
            continue
        offset = 0
        if kind == "from_instruction":
            if len(scan.data) <= 1:
                continue
            offset = scan.data[0]
        following = scans[local + 1] if local < last else None  # (inlined: a million lines at 40 MB)
        one_line = following is not None and following.kind != "continuation" and (
            following.kind != "items" or not goes_on_from_above(following))
        text = lines[local].rstrip("\r") if one_line else _item_text(document, start + local)
        if len(text) > MAX_PARSED_CHARS:
            yield _too_long(document, start + local, len(text))
            continue
        if one_line and "*/" in text:  # a block comment from above may end on it (_item_text blanks it itself)
            text = comment_above_blanked(document, start + local, text)
        parsed = text if "/*" not in text else _comments_blanked(text)
        if parse is not None:  # the common case: the line (and its continuation lines) is one item
            item = parsed[offset:] if offset else parsed
            if "\n" in item:
                error = _grammar_error(parse, item)
            else:  # (most lines: the grammar's own call; backend_config's braces read as raw text where it fails)
                error = parse(item)
                if error is not None and RAW_KEY in item:
                    error = _grammar_error(parse, item)
            if error is not None:
                yield _located(document, start + local, text, offset + error.start, offset + error.end,
                               error.message)
            continue
        for parse_item, item in _items(parsers, scan, parsed):
            error = _grammar_error(parse_item, item)
            if error is not None:
                yield _located(document, start + local, text, error.start, error.end, error.message)


def _comments_blanked(text: str) -> str:
    """An item's `text` with its block comments blanked, what backend_config's braces hold first (raw
    text: a `/*` in them opens no comment)."""
    source = raw_braces_blanked(text) if RAW_KEY in text else text
    return blank_comments(source)[0]


def _grammar_error(parse: Callable[[str], ParseError | None], text: str) -> ParseError | None:
    """The grammar's error in an item's `text` (perhaps over lines, its block comments blanked). XLA reads
    what backend_config's braces hold as raw text (a `//` in it is no comment): blanked, where the grammar
    finds an error (dumps print JSON it reads)."""
    flat = as_one_line(text) if "\n" in text else text
    error = parse(flat)
    if error is None or RAW_KEY not in text:
        return error
    raw_blanked = raw_braces_blanked(text)
    return parse(as_one_line(raw_blanked) if "\n" in raw_blanked or "//" in raw_blanked else raw_blanked)


def _items(parsers: dict[str, Callable[[str], ParseError | None]], scan: LineScan,
           text: str) -> Iterator[tuple[Callable[[str], ParseError | None], str]]:
    """(parser, text) of each item of a line of several items, `text` (the others blanked; the last
    goes on over the continuation lines in `text`)."""
    for start, item in scan.data:
        parse = parsers.get(item.kind)
        if parse is not None and item.problem is None:
            yield parse, item_text(text, scan, start)


def _table_row(text: str) -> ParseError | None:
    result = parse_table_row(text)
    return result if isinstance(result, ParseError) else None


_GOES_ON = frozenset(("continuation", "items"))  # a line's kinds that may hold the item of the line above going on
_HLO_PARSERS: dict[str, Callable[[str], ParseError | None]] = {
    "instruction": instruction_error,
    "computation": computation_header_error,
    "module_header": module_header_error,
    "table_row": _table_row,
}
_BA_PARSERS: dict[str, Callable[[str], ParseError | None]] = {"from_instruction": instruction_error}


def _item_text(document: Document, line: int) -> str:
    """The line with its continuation lines (a multi-line literal or header)."""
    return text_over_lines(document, line)


_OUTSIDE = "instruction-outside-computation"


def _located(document: Document, line: int, text: str, start: int, end: int, message: str) -> Problem:
    """A problem at Python offsets of a (possibly multi-line) item that starts on `line`."""
    first = _position(line, text, start)
    last = _position(line, text, max(end, start))
    if last.line != first.line:
        last = Position(first.line, first.character + 1)
    return Problem(document.source, Range(first, last), Severity.ERROR, "syntax", message)


def _position(line: int, text: str, offset: int) -> Position:
    before = text[:offset]
    line_offset = before.count("\n")
    line_start = before.rfind("\n") + 1
    return Position(line + line_offset, utf16_column(text[line_start:], offset - line_start))


def _too_long(document: Document, line: int, length: int) -> Problem:
    return Problem(document.source, Range.on_line(line, 0, 1), Severity.INFO, "long-line",
                   f"line of {length:,} characters: indexed for names, not checked against the grammar")
