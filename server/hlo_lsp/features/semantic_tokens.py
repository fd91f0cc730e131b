"""Semantic tokens (textDocument/semanticTokens/full and /range) for any client.

Each line is cut into tokens by one regular expression that tries, at each place,
a string, a comment, a shape, an attribute key (`name=`), a name, then a number;
the line's index says what a name is: an instruction (`variable`, `declaration` where
it is defined; a computation's signature names its `parameter`s), a computation
(`function`), or, read off the line scan, the opcode (`method`), `ROOT`/`ENTRY`/
`HloModule` and the section headers of buffer-assignment files (`keyword`), the
module's name (`namespace`). Shapes are `type`s, attribute keys `property`s.

Work is per line: a range request reads only its lines, and a whole file is read
chunk by chunk, each chunk's tokens kept while the chunk is part of the document
(an edit re-reads only the chunks it touched).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator

from hlo_lsp.model.derived import DerivedKey
from hlo_lsp.model.document import Chunk, Document
from hlo_lsp.parsing.file_kinds import FileKind
from hlo_lsp.parsing.line_scan import LineScan, Ref, Role
from hlo_lsp.text import Utf16Columns

TOKEN_TYPES = ("namespace", "function", "parameter", "variable", "keyword", "method", "type", "property",
               "string", "number", "comment")
TOKEN_MODIFIERS = ("declaration",)

_NAMESPACE, _FUNCTION, _PARAMETER, _VARIABLE, _KEYWORD, _METHOD, _TYPE, _PROPERTY, _STRING, _NUMBER, _COMMENT = range(
    len(TOKEN_TYPES))
_DECLARATION = 1

# (line, start, length, type, modifiers); columns in UTF-16 code units.
Token = tuple[int, int, int, int, int]

_ELEMENT_TYPE = r"(?:pred|token|opaque|bf16|[suf][0-9]{1,2}|c64|c128|f8e[0-9a-z]+|f4e2m1fn)"
_LEXER = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*"?)'
    r"|(?P<comment>/\*.*?\*/|//.*$)"
    rf"|(?P<shape>(?<![\w.%\-]){_ELEMENT_TYPE}\[[0-9,<=?]*\](?:\{{[^{{}}]*\}})?)"
    r"|(?P<key>(?<![\w.%\-])[A-Za-z_][\w\-]*(?==(?!=)))"
    r"|(?P<name>%?[A-Za-z_][\w.\-]*)"
    r"|(?P<number>(?:(?<![\w.])-)?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
)
_NUMBER_WORDS = frozenset(("inf", "nan"))
_HLO_KEYWORDS = frozenset(("ROOT", "ENTRY", "HloModule"))
_TABLE_KEYWORDS = frozenset(("FileNames", "FunctionNames", "FileLocations", "StackFrames"))
# The fixed words that start the lines of buffer-assignment, live-range and memory-report files.
_BA_KEYWORDS = re.compile(
    r"[ \t]*(BufferAssignment:|allocation(?= [0-9])|value:|Total bytes used:|Used values:|positions:|uses:"
    r"|from instruction:|HloLiveRange|InstructionSequence:|BufferLiveRange:|Live ranges at"
    r"|Stack trace breakdown for peak usage:|Memory Space:|Total bytes:|BufferAssignment stats:"
    r"|Allocations sorted by size(?: with their values)?:|reused by buffers of a different color:)"
)
_ALLOCATION_WORDS = frozenset(("size", "color", "page", "parameter", "shape", "at", "ShapeIndex", "output", "is",
                               "constant", "thread-local", "maybe-live-out", "preallocated-temp"))
_ROLE_TYPES = {
    Role.INSTRUCTION_DEF: (_VARIABLE, _DECLARATION),
    Role.INSTRUCTION_USE: (_VARIABLE, 0),
    Role.INSTRUCTION_MENTION: (_VARIABLE, 0),
    Role.COMPUTATION_DEF: (_FUNCTION, _DECLARATION),
    Role.COMPUTATION_USE: (_FUNCTION, 0),
    Role.COMPUTATION_MENTION: (_FUNCTION, 0),
}
_LONG_LINE = 1 << 20  # characters: a longer line (a garbled file) gets no tokens


def semantic_tokens(document: Document, first: int = 0, last: int | None = None) -> Iterator[Token]:
    """The tokens of lines `first` to `last` (inclusive; default: to the end), in order."""
    last = document.line_count - 1 if last is None else min(last, document.line_count - 1)
    first = max(first, 0)
    start = 0
    for chunk in document.chunks:
        end = start + len(chunk.lines)
        if end > first and start <= last:
            if first <= start and end - 1 <= last:
                flat = _chunk_tokens(chunk, document.kind)
                for at in range(0, len(flat), 5):
                    yield start + flat[at], flat[at + 1], flat[at + 2], flat[at + 3], flat[at + 4]
            else:
                for local in range(max(first - start, 0), min(last - start, len(chunk.lines) - 1) + 1):
                    for column, length, kind, modifiers in _line_tokens(
                            chunk.lines[local], chunk.scans[local], chunk.uses()[local], document.kind):
                        yield start + local, column, length, kind, modifiers
        start = end
        if start > last:
            break


# Tokens of whole chunks, kept on the chunk: chunks are immutable and shared by the documents an edit
# makes, so only the chunks an edit replaced are read again. Flat (line, column, length, type, modifiers)
# integers: 20 bytes a token, where a tuple of the five takes 88.
_CHUNK_TOKENS: DerivedKey[tuple[FileKind, array[int]]] = DerivedKey("semantic tokens")


def _chunk_tokens(chunk: Chunk, kind: FileKind) -> array[int]:
    kept = chunk.derived.get(_CHUNK_TOKENS)
    if kept is not None and kept[0] is kind:
        return kept[1]
    tokens = array("i", [number for local, (text, scan, uses) in enumerate(zip(chunk.lines, chunk.scans, chunk.uses()))
                         for token in _line_tokens(text, scan, uses, kind) for number in (local, *token)])
    chunk.derived.put(_CHUNK_TOKENS, (kind, tokens))
    return tokens


def _line_tokens(text: str, scan: LineScan, uses: tuple[Ref, ...], kind: FileKind) -> list[tuple[int, int, int, int]]:
    """(start, length, type, modifiers) of each token of one line, in UTF-16 columns."""
    if text.endswith("\r"):
        text = text[:-1]
    if not text or len(text) > _LONG_LINE or scan.kind == "blank" and not text.lstrip().startswith("//"):
        return []
    columns = None if text.isascii() else Utf16Columns(text)
    roles = {ref.start: ref.role for ref in scan.refs}
    for ref in uses:
        roles.setdefault(ref.start, ref.role)
    special = _special_words(text, scan, kind)
    tokens: list[tuple[int, int, int, int]] = []
    keyword_end = 0
    if kind is not FileKind.HLO_MODULE:
        header = _BA_KEYWORDS.match(text)
        if header is not None:
            keyword_end = header.end()
            start = header.start(1)
            tokens.append(_token(columns, start, header.end(1), _KEYWORD, 0))
    for match in _LEXER.finditer(text, keyword_end):
        group = match.lastgroup
        start, end = match.span()
        if group == "name":
            token = _name_token(text, start, end, roles, special, scan, columns)
            if token is not None:
                tokens.append(token)
        elif group == "key":
            tokens.append(_token(columns, start, end, _PROPERTY, 0))
        elif group == "shape":
            tokens.append(_token(columns, start, end, _TYPE, 0))
        elif group == "number":
            tokens.append(_token(columns, start, end, _NUMBER, 0))
        elif group == "string":
            tokens.append(_token(columns, start, end, _STRING, 0))
        else:
            tokens.append(_token(columns, start, end, _COMMENT, 0))
    return tokens


def _special_words(text: str, scan: LineScan, kind: FileKind) -> dict[int, int]:
    """Python index -> token type of the words the line scan locates: the opcode, the module name."""
    special: dict[int, int] = {}
    data = scan.data
    if scan.kind == "instruction" and len(data) > 3 and data[3]:
        special[data[2]] = _METHOD
    elif scan.kind == "from_instruction" and len(data) > 4 and data[4]:
        special[data[3]] = _METHOD
    elif scan.kind == "module_header" and data:
        name_start = text.find(data[0], text.find("HloModule") + len("HloModule"))
        if name_start >= 0:
            special[name_start] = _NAMESPACE
    return special


def _name_token(text: str, start: int, end: int, roles: dict[int, Role], special: dict[int, int],
                scan: LineScan, columns: Utf16Columns | None) -> tuple[int, int, int, int] | None:
    bare = start + 1 if text[start] == "%" else start
    role = roles.get(columns.column(bare) if columns is not None else bare)
    if role is not None and role in _ROLE_TYPES:
        token_type, modifiers = _ROLE_TYPES[role]
        if role is Role.INSTRUCTION_USE and scan.kind == "computation":
            token_type = _PARAMETER  # a name in a computation's signature
        return _token(columns, start, end, token_type, modifiers)
    if start in special:
        return _token(columns, start, end, special[start], 0)
    word = text[start:end]
    if word in _HLO_KEYWORDS and scan.kind in ("instruction", "computation", "module_header"):
        return _token(columns, start, end, _KEYWORD, 0)
    if word in _TABLE_KEYWORDS and scan.kind == "table_header":
        return _token(columns, start, end, _KEYWORD, 0)
    if word in _NUMBER_WORDS:
        return _token(columns, start, end, _NUMBER, 0)
    if scan.kind == "allocation" and word in _ALLOCATION_WORDS:
        return _token(columns, start, end, _KEYWORD, 0)
    return None


def _token(columns: Utf16Columns | None, start: int, end: int, token_type: int,
           modifiers: int) -> tuple[int, int, int, int]:
    if columns is None:
        return start, end - start, token_type, modifiers
    first = columns.column(start)
    return first, columns.column(end) - first, token_type, modifiers
