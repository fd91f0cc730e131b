"""Mutation operators on the bytes of real dump files, for the fuzz tests.

A mutant is a dict of file name -> bytes (the files of one module, or one file on
its own) plus a description of every change made, so that a failure can be
reproduced and minimized. The bytes are decoded the way the server and the CLI
decode them (`hlo_lsp.parsing.decode.decode_dump`): mutants are free to be
invalid UTF-8, binary, CRLF, truncated mid-character.

    mutate(rng, files, long_mode=False) -> Mutant
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

KB = 1024
MB = 1024 * KB

# Integers that overflow int32/int64/float64 or are otherwise odd.
HUGE_INTEGERS = (
    "2147483648", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551616",
    "-1", "-9223372036854775809", "99999999999999999999999999999999999999", "1" + "0" * 400, "0" * 50 + "7",
)
# Names with characters an HLO name never has: letters beyond ASCII, astral emoji (two UTF-16 units),
# percent signs, quotes, brackets, an empty name.
ODD_NAMES = (
    "naïve", "名前.1", "𝔣𝔲𝔷𝔷", "a😀b", "😀", "%%x", "a%b", 'q"uote', "it's", "a b", "x{y}", "p[0]", "",
    "\u200bzero", "e\u0301", "ǅ.3", "Ⅻ", "a\tb", "-1", "..", "\ufeffbom",
)
INVALID_UTF8 = (b"\xff", b"\xfe\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf0\x9f\x98", b"\x80\x80", b"\xc0\xaf")
ODD_CHARS = ("\t", "😀", "é", "\u2028", "\x0b", "\x0c", "\x85", "\r", "\ufeff", "名", "\x00", "{", "}", "(", ")",
             "%", '"', "[", "]", ",", "=", ":", "/*", "*/", "//", "\\")

_INTEGER = re.compile(rb"(?<![A-Za-z0-9_.])[0-9]+(?![A-Za-z_])")
_NAME = re.compile(rb"%?([A-Za-z_][A-Za-z0-9_.\-]*)")
_PERCENT_NAME = re.compile(rb"%([A-Za-z_][A-Za-z0-9_.\-]*)")


@dataclass
class Mutant:
    files: dict[str, bytes]
    steps: list[str] = field(default_factory=list)
    origin: str = ""

    @property
    def description(self) -> str:
        return f"{self.origin}: " + "; ".join(self.steps)

    @property
    def size(self) -> int:
        return sum(len(data) for data in self.files.values())


# ---- helpers ------------------------------------------------------------------------------


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines)


def _line_index(rng: random.Random, lines: list[bytes]) -> int:
    return rng.randrange(len(lines)) if lines else 0


def _instruction_lines(lines: list[bytes]) -> list[int]:
    return [i for i, line in enumerate(lines)
            if (b" = " in line and b"%" in line) or (line.startswith(b"  ") and b"=" in line)]


def _short(data: bytes, limit: int = 60) -> str:
    text = repr(data[:limit])
    return text + ("..." if len(data) > limit else "")


# ---- operators: each (rng, data, long_mode) -> (bytes, description) -------------------------


def truncate(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    """Cut at a random byte: mid-line and, in non-ASCII text, mid-character."""
    at = rng.randrange(len(data) + 1)
    non_ascii = [i for i, byte in enumerate(data) if byte >= 0x80]
    if non_ascii and rng.random() < 0.3:
        at = rng.choice(non_ascii) + 1  # inside (or right after) a multi-byte character
    return data[:at], f"truncate@{at}"


def delete_lines(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    lines = _lines(data)
    start = _line_index(rng, lines)
    count = rng.choice((1, 1, 1, 2, 5, 20))
    del lines[start : start + count]
    return _join(lines), f"delete_lines@{start}+{count}"


def duplicate_lines(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    lines = _lines(data)
    start = _line_index(rng, lines)
    count = rng.choice((1, 1, 2, 5))
    where = _line_index(rng, lines) if rng.random() < 0.5 else start
    lines[where:where] = lines[start : start + count]
    return _join(lines), f"duplicate_lines@{start}+{count}->{where}"


def swap_lines(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    lines = _lines(data)
    a, b = _line_index(rng, lines), _line_index(rng, lines)
    if lines:
        lines[a], lines[b] = lines[b], lines[a]
    return _join(lines), f"swap_lines@{a},{b}"


def flip_bytes(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    if not data:
        return data, "flip_bytes(empty)"
    buffer = bytearray(data)
    where = []
    for _ in range(rng.choice((1, 1, 2, 4, 16))):
        at = rng.randrange(len(buffer))
        buffer[at] ^= 1 << rng.randrange(8) if rng.random() < 0.7 else rng.randrange(1, 256)
        where.append(at)
    return bytes(buffer), f"flip_bytes@{where}"


def insert_invalid_utf8(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    at = rng.randrange(len(data) + 1)
    junk = rng.choice(INVALID_UTF8)
    return data[:at] + junk + data[at:], f"invalid_utf8@{at}:{junk!r}"


def to_crlf(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    if rng.random() < 0.2:  # mixed endings: only some lines
        lines = _lines(data)
        chosen = sorted(rng.sample(range(len(lines)), min(len(lines), 3)))
        for i in chosen:
            lines[i] += b"\r"
        return _join(lines), f"crlf_some@{chosen}"
    if rng.random() < 0.1:
        return data.replace(b"\n", b"\r"), "cr_only"
    return data.replace(b"\n", b"\r\n"), "crlf"


def insert_tabs(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    if rng.random() < 0.3:
        return data.replace(b"  ", b"\t"), "tabs_for_indent"
    buffer = bytearray(data)
    where = sorted(rng.randrange(len(buffer) + 1) for _ in range(rng.choice((1, 3, 10))))
    for at in reversed(where):
        buffer[at:at] = b"\t"
    return bytes(buffer), f"tabs@{where}"


def insert_odd_chars(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    lines = _lines(data)
    line = _line_index(rng, lines)
    text = lines[line].decode("utf-8", errors="replace") if lines else ""
    at = rng.randrange(len(text) + 1)
    char = rng.choice(ODD_CHARS)
    if lines:
        lines[line] = (text[:at] + char + text[at:]).encode("utf-8", errors="surrogatepass")
    return _join(lines), f"odd_char@{line}:{at}:{char!r}"


def long_line(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    """A very long line: a real line padded, a long attribute, or a long run of operands."""
    size = 200 * KB
    if long_mode and rng.random() < 0.01:
        size = 10 * MB
    elif rng.random() < 0.5:
        size = rng.choice((4 * KB, 40 * KB))
    lines = _lines(data)
    line = _line_index(rng, lines)
    base = lines[line] if lines else b""
    style = rng.randrange(4)
    if style == 0:  # a long metadata string
        filler = b' metadata={op_name="' + b"x" * size + b'"}'
        lines[line:line + 1] = [base + filler]
    elif style == 1:  # many operands
        count = size // 8
        operands = b", ".join(b"%%p.%d" % (i % 97) for i in range(count))
        lines[line:line + 1] = [b"  %big = f32[] add(" + operands + b")"]
    elif style == 2:  # the line repeated on itself
        piece = base or b"x"
        lines[line:line + 1] = [piece * max(1, size // max(len(piece), 1))]
    else:  # a long shape
        dims = b",".join(b"%d" % rng.randrange(1, 9) for _ in range(size // 2))
        lines.insert(line, b"  %long = f32[" + dims + b"] parameter(0)")
    return _join(lines), f"long_line@{line}:{size}B:style{style}"


def repeated_instruction(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    """A file made of one (real) instruction line repeated many times, inside the first computation."""
    lines = _lines(data)
    candidates = _instruction_lines(lines) or [_line_index(rng, lines)]
    line = rng.choice(candidates)
    count = 20_000
    if long_mode and rng.random() < 0.05:
        count = 1_000_000
    elif long_mode:
        count = rng.choice((2_000, 20_000))
    body = lines[line] if lines else b"x"
    if len(body) > 200:
        body = body[:200]
    head = [text for text in lines[: line] if text.startswith(b"HloModule") or text.rstrip().endswith(b"{")][:2]
    return _join(head + [body] * count + [b"}", b""]), f"repeat_line@{line}x{count}:{_short(body)}"


def nested_braces(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    depth = rng.choice((50, 1000, 5000, 20000))
    lines = _lines(data)
    line = _line_index(rng, lines)
    opener, closer = rng.choice(((b"{", b"}"), (b"(", b")"), (b"[", b"]"), (b"{(", b")}")))
    balanced = rng.random() < 0.7
    attribute = b", backend_config=" + opener * depth + b"x" + (closer * depth if balanced else b"")
    if lines:
        lines[line] = lines[line] + attribute
    return _join(lines), f"nested@{line}:depth{depth}:{opener!r}:{'balanced' if balanced else 'open'}"


def huge_integers(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    matches = list(_INTEGER.finditer(data))
    if not matches:
        return data, "huge_int(none)"
    changed = []
    buffer = data
    for match in sorted(rng.sample(matches, min(len(matches), rng.choice((1, 1, 3, 10)))),
                        key=lambda m: m.start(), reverse=True):
        value = rng.choice(HUGE_INTEGERS).encode()
        buffer = buffer[: match.start()] + value + buffer[match.end() :]
        changed.append((match.start(), value[:24].decode()))
    return buffer, f"huge_int@{changed}"


def odd_names(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    """Renames one name (every occurrence, or just one) to a name with unusual characters."""
    matches = list(_PERCENT_NAME.finditer(data)) or list(_NAME.finditer(data))
    if not matches:
        return data, "odd_name(none)"
    match = rng.choice(matches)
    old = match.group(1)
    new = rng.choice(ODD_NAMES).encode("utf-8")
    if rng.random() < 0.6:
        pattern = re.compile(rb"(?<![A-Za-z0-9_.\-])" + re.escape(old) + rb"(?![A-Za-z0-9_.\-])")
        return pattern.sub(lambda _: new, data), f"rename_all:{old.decode()}->{new.decode()!r}"
    return data[: match.start(1)] + new + data[match.end(1) :], f"rename_one@{match.start(1)}:{new.decode()!r}"


def splice_line(rng: random.Random, data: bytes, long_mode: bool, other: bytes = b"") -> tuple[bytes, str]:
    """A line of another file (another kind of dump) inserted here."""
    lines, donor = _lines(data), _lines(other or data)
    at, take = _line_index(rng, lines), _line_index(rng, donor)
    lines.insert(at, donor[take] if donor else b"")
    return _join(lines), f"splice@{at}<-{take}"


def empty_or_whitespace(rng: random.Random, data: bytes, long_mode: bool) -> tuple[bytes, str]:
    choice = rng.choice((b"", b"\n", b"   ", b"\r\n\r\n", b"\xef\xbb\xbf", b"}", b"{", b"HloModule"))
    return choice, f"replace_all:{choice!r}"


Operator = Callable[[random.Random, bytes, bool], tuple[bytes, str]]

# (operator, weight): the cheap local mutations most of the time, the big ones rarely.
OPERATORS: tuple[tuple[Operator, float], ...] = (
    (truncate, 6), (delete_lines, 8), (duplicate_lines, 8), (swap_lines, 8), (flip_bytes, 8),
    (insert_invalid_utf8, 4), (to_crlf, 3), (insert_tabs, 4), (insert_odd_chars, 8), (huge_integers, 10),
    (odd_names, 10), (splice_line, 5), (nested_braces, 2), (long_line, 1.5), (repeated_instruction, 0.4),
    (empty_or_whitespace, 0.5),
)
LONG_MODE_WEIGHTS = {long_line: 0.3, repeated_instruction: 0.03, nested_braces: 0.5}


def pick_operator(rng: random.Random, long_mode: bool) -> Operator:
    operators = [op for op, _ in OPERATORS]
    weights = [LONG_MODE_WEIGHTS.get(op, weight) if long_mode else weight for op, weight in OPERATORS]
    return rng.choices(operators, weights)[0]


def mutate(rng: random.Random, files: dict[str, bytes], origin: str = "", long_mode: bool = False,
           max_steps: int = 3) -> Mutant:
    """A mutant of the module `files`: 1..max_steps operators applied to (mostly) one of its files."""
    mutant = Mutant(dict(files), origin=origin)
    names = sorted(files)
    target = rng.choice(names)
    for _ in range(rng.randint(1, max_steps)):
        if len(names) > 1 and rng.random() < 0.15:
            target = rng.choice(names)
        operator = pick_operator(rng, long_mode)
        data = mutant.files[target]
        if operator is splice_line:
            donor = mutant.files[rng.choice(names)]
            data, step = splice_line(rng, data, long_mode, donor)
        else:
            data, step = operator(rng, data, long_mode)
        mutant.files[target] = data
        mutant.steps.append(f"{target}:{step}")
        if len(data) > MB:  # one huge change per mutant is enough
            break
    return mutant


# ---- sources ----------------------------------------------------------------------------------


def module_groups(folder: Path, max_bytes: int) -> list[tuple[str, dict[str, bytes]]]:
    """The dump files under `folder` grouped by compilation (a TPU compilation's five HLO stages, its
    companions and its side files together; files larger than `max_bytes` left out); every file also on
    its own, so that a file without companions gets fuzzed too."""
    from hlo_lsp.model.dump_module import compilation_key

    groups: dict[str, dict[str, bytes]] = {}
    singles = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or not path.name.endswith((".txt", ".hlo")) or path.stat().st_size > max_bytes:
            continue
        data = path.read_bytes()
        stem = compilation_key(str(path))
        groups.setdefault(stem, {})[path.name] = data
        singles.append((stem, str(path), {path.name: data}))
    found = list(groups.items())
    return found + [(path, files) for stem, path, files in singles if len(groups[stem]) > 1]
