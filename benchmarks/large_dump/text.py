"""The source dump's files and what every part shares: paths, the file suffixes, name patterns, and the text
templates a line is rewritten with."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
CORPUS = ROOT.parent / "shared" / "corpus"
SOURCES = {
    "0.10.2": CORPUS / "jax-0.10.2/large_fwd_unrolled/module_0000.jit_fwd.cpu_after_optimizations",
    "0.4.38": CORPUS / "jax-0.4.38/large_fwd_unrolled/module_0001.jit_fwd.cpu_after_optimizations",
}
SUFFIXES = {
    "hlo": ".txt",
    "buffer-assignment": "-buffer-assignment.txt",
    "buffer-assignment-values": "-buffer-assignment-values.txt",
    "live-range": "-live-range.txt",
    "memory-usage-report": "-memory-usage-report.txt",
}
MB = 1_000_000
ALIGNMENT = 64  # offsets of the relaid temporaries

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_DEF = re.compile(rf"  (ROOT )?%?({_NAME}) = ")
_COMP_HEADER = re.compile(rf"(ENTRY )?%?({_NAME})")
_TOKEN = re.compile(rf"(?<![A-Za-z0-9_.\-]){_NAME}")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_PARAMETER = re.compile(r"\bparameter\((\d+)\)")
_OP_NAME = re.compile(r'op_name="((?:[^"\\]|\\.)*)"')
_FRESH_SPLIT = re.compile(r"^(.*?)(?:\.(\d+))?((?:\.clone)*)$")
_ARG_NAME = re.compile(r"^Arg_(\d+)\.(\d+)$")
_INDEX_COMMENT = re.compile(r"/\*index=\d+\*/")
_ALLOCATION = re.compile(r"allocation (\d+): size (\d+)(.*):$")
_VALUE_REF = rf"<(\d+) ({_NAME}?)(\{{[0-9,]*\}})?( \(phi\))?(?: @(\d+))?>"
_VALUE_LINE = re.compile(rf" value: {_VALUE_REF} \(size=(\d+),offset=(\d+)\): (.*)$")
_USED_VALUE = re.compile(rf"{_VALUE_REF}$")
_LIVE_RANGE = re.compile(rf"    ({_NAME}?)(\{{[0-9,]*\}}):(\d+)-(\d+)$")
_BYTE_WIDTHS = {
    "pred": 1, "s1": 1, "s2": 1, "s4": 1, "s8": 1, "u1": 1, "u2": 1, "u4": 1, "u8": 1,
    "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4,
    "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16, "token": 0, "opaque": 8,
}


class DumpError(Exception):
    """The source dump does not have the structure this generator relies on."""


# --------------------------------------------------------------------------- text helpers


class Template:
    """A line with the known names in it replaced by slots: rendered with a name resolver."""

    __slots__ = ("parts", "slots")

    def __init__(self, text: str, names: set[str] | frozenset[str]) -> None:
        self.parts: list[str] = []
        self.slots: list[str] = []
        position = 0
        for start, end, name in name_tokens(text, names):
            self.parts.append(text[position:start])
            self.slots.append(name)
            position = end
        self.parts.append(text[position:])

    def render(self, resolve: Callable[[str], str]) -> str:
        if not self.slots:
            return self.parts[0]
        out = [self.parts[0]]
        for name, part in zip(self.slots, self.parts[1:]):
            out.append(resolve(name))
            out.append(part)
        return "".join(out)


def name_tokens(text: str, names: set[str] | frozenset[str]) -> list[tuple[int, int, str]]:
    """Known names in `text` outside quoted strings, skipping opcodes `x(` and attribute keys `x=`."""
    found = []
    position = 0
    quotes = list(_QUOTED.finditer(text)) if '"' in text else []
    for stop, resume in [(q.start(), q.end()) for q in quotes] + [(len(text), len(text))]:
        for match in _TOKEN.finditer(text, position, stop):
            token = match.group()
            if token in names and text[match.end():match.end() + 1] not in ("(", "="):
                found.append((match.start(), match.end(), token))
        position = resume
    return found


def matching(text: str, start: int, opening: str = "(", closing: str = ")") -> int:
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return index
    raise DumpError(f"unbalanced {opening}{closing} in {text[:80]!r}")


def _top_level(text: str, separator: str) -> Iterator[int]:
    """Indices of `separator` outside brackets."""
    depth = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == separator and depth == 0:
            yield index


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    items, start = [], 0
    for index in _top_level(text, ","):
        items.append(text[start:index].strip())
        start = index + 1
    if text[start:].strip():
        items.append(text[start:].strip())
    return items


def shape_end(text: str) -> int:
    """End of the shape at the start of `text` (the first space outside brackets)."""
    return next(_top_level(text, " "), len(text))


def dense_size(shape: str) -> int:
    """ShapeUtil::ByteSizeOf with 8-byte pointers: arrays dense, tuples their pointer table."""
    shape = shape.strip()
    if shape.startswith("("):
        return 8 * len(split_top_level(shape[1:matching(shape, 0)]))
    bracket = shape.find("[")
    element = shape if bracket < 0 else shape[:bracket]
    if element not in _BYTE_WIDTHS:
        raise DumpError(f"unknown element type in shape {shape!r}")
    if bracket < 0:
        return _BYTE_WIDTHS[element]
    count = 1
    for dim in shape[bracket + 1:shape.index("]")].split(","):
        if dim:
            count *= int(dim.lstrip("<="))
    return count * _BYTE_WIDTHS[element]


def strip_layout(shape: str) -> str:
    return re.sub(r"\{[^}]*\}", "", shape)


def spaced(number: int) -> str:
    return f"{number:,}".replace(",", " ")


def op_name_of(line: str) -> str | None:
    match = _OP_NAME.search(line)
    if match is None:
        return None
    return re.sub(r"\\(.)", r"\1", match.group(1))


def replace_in_op_name(line: str, old: str, new: str) -> str:
    match = _OP_NAME.search(line)
    if match is None or old not in match.group(1):
        return line
    inner = match.group(1).replace(old, new, 1)
    return line[:match.start(1)] + inner + line[match.end(1):]
