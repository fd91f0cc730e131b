"""The element types XLA's HLO lexer reads, and where a line names one (`f32` of `f32[4]{0}`).

The grammar reads an array shape's element type as any name: what tells `s4[]` from `s3[]` (which XLA's parser
reads as an opcode, and rejects) is this list, checked apart from the grammar, whose verdicts are kept by
template (names and digits aside).
"""

from __future__ import annotations

import re

from hlo_lsp.parsing.hlo_scanner import RAW_KEY, raw_braces_blanked, without_comments
from hlo_lsp.parsing.line_scan import as_spaces

# primitive_util's names for the array and token types (xla/primitive_util.cc); `tuple` names no array.
ELEMENT_TYPES = frozenset((
    "pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4", "u8", "u16", "u32", "u64",
    "f16", "bf16", "f32", "f64", "c64", "c128",
    "f4e2m1fn", "f8e8m0fnu", "f8e3m4", "f8e4m3", "f8e4m3fn", "f8e4m3fnuz", "f8e4m3b11fnuz", "f8e5m2", "f8e5m2fnuz",
    "token", "opaque",
))

_SHAPE_START = re.compile(r"(?<![A-Za-z0-9_.%\-])([A-Za-z_][A-Za-z0-9_]*)\[")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.S)


def element_type_spans(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each name before a `[` in `text` (perhaps over lines): the element types of its
    shapes, outside strings, comments and what backend_config's braces hold (`replica_groups=mesh['x'=2]`,
    XLA's mesh of replica groups, is no shape)."""
    if "[" not in text:
        return ()
    clean = without_comments(raw_braces_blanked(text) if RAW_KEY in text else text)
    if '"' in clean:
        clean = _STRING.sub(lambda found: as_spaces(found.group()), clean)
    return tuple(found.span(1) for found in _SHAPE_START.finditer(clean)
                 if found.group(1) != "mesh" or clean[found.start() - 1 : found.start()] != "=")


def unknown_element_type(text: str, spans: tuple[tuple[int, int], ...]) -> tuple[int, int] | None:
    """The first of `spans` of `text` that names no element type, or None."""
    for start, end in spans:
        if text[start:end] not in ELEMENT_TYPES:
            return start, end
    return None
