"""A seeded generator of HLO texts for the XLA-parser conformance test: text number n of a seed is always
the same text.

    form(seed, n, max_bytes) -> Form(text, origin, expect)
    python tests/hlo_forms.py SEED N [MAX_BYTES]   # prints text N (the long run's bases by default)

The first texts are the bases, unchanged: the hand-written forms of tests/xla_oracle/catalogue.py (with
XLA's verdict on each), then the HLO module of every bundled dump (tests/data) and, when present, of
../shared/corpus and ../shared/producers, up to `max_bytes`. Every later text is a mutant of a base, one to
three operators applied, each an edit that one of the parser's rules decides: a result shape dropped, a ROOT
dropped or added, an instruction line deleted, duplicated or moved, an attribute key renamed, dropped or
repeated, an enum value changed, a literal put out of range, an operand dropped, a comment put between
tokens, two lines joined or a line split at a comma, a trailing colon, computations reordered...
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xla_oracle.catalogue import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SHARED = (ROOT.parent / "shared" / "corpus", ROOT.parent / "shared" / "producers")
SMALL = 24 * 1024  # the bases of the sample pytest runs
MEDIUM = 256 * 1024  # the bases of the long run (the 2-3 MB modules would dominate it)


@dataclass(frozen=True)
class Form:
    text: str
    origin: str
    expect: bool | None = None  # XLA's verdict, where the catalogue says it


@functools.lru_cache(maxsize=4)
def bases(max_bytes: int = SMALL) -> tuple[Form, ...]:
    """The catalogue's forms, every bundled dump's HLO module, then those of the shared corpus and producers
    of at most `max_bytes` (each text once)."""
    from hlo_lsp.parsing.file_kinds import FileKind, detect_kind

    found = [Form(entry.text, f"catalogue: {entry.name}", entry.accepted) for entry in CATALOGUE]
    seen = set()
    for folder, limit in ((DATA, None), *((shared, max_bytes) for shared in SHARED)):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if path.suffix not in (".txt", ".hlo") or not path.is_file() or path.stat().st_size > (limit or 1 << 40):
                continue
            text = path.read_text(errors="replace")
            if text not in seen and detect_kind(path.name, text) is FileKind.HLO_MODULE:
                seen.add(text)
                found.append(Form(text, f"dump: {path.relative_to(folder.parent)}"))
    return tuple(found)


def form(seed: int, number: int, max_bytes: int = SMALL) -> Form:
    """Text `number` of `seed`: a base while there are bases, then a mutant."""
    found = bases(max_bytes)
    if number < len(found):
        return found[number]
    rng = random.Random(f"{seed}:{number}")
    base = rng.choice(found)
    text, steps = base.text, []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        operator = rng.choice(OPERATORS)
        text, step = operator(rng, text)
        steps.append(step)
    return Form(text, f"#{number} (seed {seed}) {base.origin}; " + "; ".join(steps))


# ---- reading lines ------------------------------------------------------------------------------

_INSTRUCTION = re.compile(r"^(\s*(?:ROOT\s+)?%?[A-Za-z_][\w.\-]*\s*=\s*)(.*?)\s?([a-z][a-z0-9\-]*)\(")
_HEADER = re.compile(r"^(ENTRY\s+)?%?([A-Za-z_][\w.\-]*)")


def _instructions(lines: list[str]) -> list[int]:
    return [number for number, line in enumerate(lines) if _INSTRUCTION.match(line)]


def _computations(lines: list[str]) -> list[tuple[int, int]]:
    """(header line, closing line) of each computation written the way XLA prints it."""
    found, start = [], None
    for number, line in enumerate(lines):
        if line.rstrip().endswith("{") and _HEADER.match(line) and not line.startswith(" "):
            start = number
        elif line.startswith("}") and start is not None:
            found.append((start, number))
            start = None
    return found


def _matching(text: str, start: int) -> int:
    """The index just past the bracket group or the string that opens at `start`, or len(text)."""
    depth, index, quote = 0, start, None
    while index < len(text):
        char = text[index]
        if quote:
            index += 2 if char == "\\" else 1
            if char == quote:
                quote = None
                if depth == 0:
                    return index
            continue
        if char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth <= 0:
                return index + 1
        index += 1
    return len(text)


def _operands(line: str) -> tuple[int, int] | None:
    """The span inside the operand parentheses of an instruction line."""
    match = _INSTRUCTION.match(line)
    return None if match is None else (match.end(), _matching(line, match.end() - 1) - 1)


_KEY = re.compile(r",\s*([A-Za-z_][\w\-]*)=")


def _attributes(line: str) -> list[tuple[int, int, str]]:
    """(start, end, key) of each `, key=value` after the operands of an instruction line."""
    span = _operands(line)
    found: list[tuple[int, int, str]] = []
    index = span[1] + 1 if span else len(line)
    while (match := _KEY.search(line, index)) is not None:
        end = match.end()
        while end < len(line) and line[end] != ",":
            end = _matching(line, end) if line[end] in "{([\"'" else end + 1
        found.append((match.start(), end, match.group(1)))
        index = end
    return found


# ---- operators: each (rng, text) -> (text, step) -------------------------------------------------

Operator = Callable[[random.Random, str], tuple[str, str]]


def _on_instruction(edit: Callable[[random.Random, str], str | None], name: str) -> Operator:
    """An operator that edits one instruction line (one that `edit` can change)."""
    def operator(rng: random.Random, text: str) -> tuple[str, str]:
        lines = text.split("\n")
        candidates = _instructions(lines)
        rng.shuffle(candidates)
        for number in candidates[:20]:
            edited = edit(rng, lines[number])
            if edited is not None:
                lines[number] = edited
                return "\n".join(lines), f"{name}@{number + 1}"
        return text, f"{name}(none)"
    operator.__name__ = name
    return operator


def _drop_shape(rng: random.Random, line: str) -> str | None:
    match = _INSTRUCTION.match(line)
    return None if not match or not match.group(2) else match.group(1) + line[match.start(3):]


def _drop_root(rng: random.Random, line: str) -> str | None:
    return line.replace("ROOT ", "", 1) if "ROOT " in line else None


def _add_root(rng: random.Random, line: str) -> str | None:
    stripped = line.lstrip()
    return None if stripped.startswith("ROOT") else line[: len(line) - len(stripped)] + "ROOT " + stripped


KEYS = ("dimensions", "to_apply", "calls", "kind", "slice", "padding", "window", "metadata", "sharding", "index",
        "direction", "channel_id", "replica_groups", "backend_config", "custom_call_target", "api_version",
        "result_accuracy", "dimentions", "frontend_attributes", "control-predecessors", "execution_thread",
        "operand_layout_constraints", "iota_dimension", "dim_labels", "lhs_contracting_dims", "foo")


def _rename_key(rng: random.Random, line: str) -> str | None:
    spans = _attributes(line)
    if not spans:
        return None
    start, _, key = rng.choice(spans)
    at = line.index(key + "=", start)
    return line[:at] + rng.choice(KEYS) + line[at + len(key):]


def _drop_attribute(rng: random.Random, line: str) -> str | None:
    spans = _attributes(line)
    start, end, _ = rng.choice(spans) if spans else (0, 0, "")
    return line[:start] + line[end:] if spans else None


def _repeat_attribute(rng: random.Random, line: str) -> str | None:
    spans = _attributes(line)
    start, end, _ = rng.choice(spans) if spans else (0, 0, "")
    return line[:end] + line[start:end] + line[end:] if spans else None


ENUMS = {
    "kind": ("kLoop", "kInput", "kOutput", "kCustom", "kFoo", "loop"),
    "direction": ("EQ", "NE", "GE", "GT", "LE", "LT", "eq", "XX"),
    "type": ("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", "float"),
    "api_version": ("API_VERSION_ORIGINAL", "API_VERSION_TYPED_FFI", "API_VERSION_UNSPECIFIED", "API_VERSION_X"),
    "fft_type": ("FFT", "IFFT", "RFFT", "IRFFT", "fft"),
    "distribution": ("rng_uniform", "rng_normal", "RNG_UNIFORM", "uniform"),
    "algorithm": ("rng_default", "rng_three_fry", "rng_philox", "unset", "ALG_UNSET", "dot_f32_f32_f32"),
    "mode": ("cross_replica", "cross_partition", "flattened_id", "replica"),
    "padding_type": ("PADDING_VALID", "PADDING_SAME", "PADDING_X"),
    "schedule": ("SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_X"),
    "is_scheduled": ("true", "false", "1", "True"),
}
_ENUM = re.compile(r"\b(" + "|".join(ENUMS) + r")=([A-Za-z_0-9]+)")


def change_enum(rng: random.Random, text: str) -> tuple[str, str]:
    matches = list(_ENUM.finditer(text))
    if not matches:
        return text, "change_enum(none)"
    match = rng.choice(matches)
    value = rng.choice(ENUMS[match.group(1)])
    return text[: match.start(2)] + value + text[match.end(2):], f"change_enum@{match.start()}:{value}"


OUT_OF_RANGE = {"f16": ("65520", "-65520", "65519", "1e5"), "bf16": ("3.4e38", "3.3e38"), "s8": ("128", "-129"),
                "u8": ("256", "-1"), "s32": ("2147483648", "18446744073709551615", "-2147483649"),
                "f32": ("3.4028236e38", "1e39", "1e309", "nan(0x800000)", "-nan(0x7f)", "inf", "true"),
                "pred": ("2", "-1", "1.5"), "u32": ("4294967296", "-1"), "s64": ("9223372036854775808",),
                "f8e4m3fn": ("465", "449", "nan(0x1)"), "u64": ("-1", "18446744073709551616")}
_CONSTANT = re.compile(r"\b(" + "|".join(OUT_OF_RANGE) + r")\[\]\S* constant\(([^()]*)\)")


def literal_out_of_range(rng: random.Random, text: str) -> tuple[str, str]:
    matches = list(_CONSTANT.finditer(text))
    if not matches:
        number = rng.choice(("f16", "s8", "u8", "f32"))
        value = rng.choice(OUT_OF_RANGE[number])
        return _insert_line(rng, text, f"  oor = {number}[] constant({value})"), f"literal_out_of_range:new:{value}"
    match = rng.choice(matches)
    value = rng.choice(OUT_OF_RANGE[match.group(1)])
    return text[: match.start(2)] + value + text[match.end(2):], f"literal_out_of_range@{match.start()}:{value}"


# Element types XLA does not know, near those it does.
UNKNOWN_ELEMENT_TYPES = ("s3", "u5", "f8", "F32", "tuple", "bf8", "f8e4m3fnx", "c32", "int32")
_ELEMENT_TYPE = re.compile(r"(?<![A-Za-z0-9_.%\-])(pred|[suf][0-9]+|bf16|c64|c128|f8e[0-9a-z]+)\[")


def unknown_element_type(rng: random.Random, text: str) -> tuple[str, str]:
    matches = list(_ELEMENT_TYPE.finditer(text))
    if not matches:
        return text, "unknown_element_type(none)"
    match = rng.choice(matches)
    value = rng.choice(UNKNOWN_ELEMENT_TYPES)
    return text[: match.start(1)] + value + text[match.end(1):], f"unknown_element_type@{match.start()}:{value}"


def _drop_operand(rng: random.Random, line: str) -> str | None:
    span = _operands(line)
    if span is None or span[0] >= span[1]:
        return None
    inside = line[span[0]: span[1]]
    parts = _split_top(inside)
    del parts[rng.randrange(len(parts))]
    return line[: span[0]] + ",".join(parts).strip() + line[span[1]:]


def _split_top(inside: str) -> list[str]:
    parts, start, index = [], 0, 0
    while index < len(inside):
        if inside[index] in "([{\"'":
            index = _matching(inside, index)
            continue
        if inside[index] == ",":
            parts.append(inside[start:index])
            start = index + 1
        index += 1
    return [*parts, inside[start:]]


def _insert_line(rng: random.Random, text: str, line: str) -> str:
    lines = text.split("\n")
    chosen = _instructions(lines) or [0]
    lines.insert(rng.choice(chosen), line)
    return "\n".join(lines)


COMMENTS = ("/* c */", "/**/", "/* ROOT x = f32[] abs(y) */", "// c\n", "/* a\n b */", "// ROOT z\n")


def insert_comment(rng: random.Random, text: str) -> tuple[str, str]:
    """A comment between two tokens: at a space, after a comma, or before a bracket."""
    places = [m.start() for m in re.finditer(r"(?<=[ ,(\[{=])|(?=[)\]}])", text[:200_000])]
    if not places:
        return text, "insert_comment(none)"
    at, comment = rng.choice(places), rng.choice(COMMENTS)
    return text[:at] + comment + text[at:], f"insert_comment@{at}:{comment!r}"


def _lines_operator(edit: Callable[[random.Random, list[str], int], None], name: str,
                    which: Callable[[list[str]], list[int]] = _instructions) -> Operator:
    def operator(rng: random.Random, text: str) -> tuple[str, str]:
        lines = text.split("\n")
        chosen = which(lines)
        if not chosen:
            return text, f"{name}(none)"
        number = rng.choice(chosen)
        edit(rng, lines, number)
        return "\n".join(lines), f"{name}@{number + 1}"
    operator.__name__ = name
    return operator


def _delete(rng: random.Random, lines: list[str], number: int) -> None:
    del lines[number]


def _duplicate(rng: random.Random, lines: list[str], number: int) -> None:
    lines.insert(number + rng.choice((0, 1, 2)), lines[number])


def _move(rng: random.Random, lines: list[str], number: int) -> None:
    line = lines.pop(number)
    lines.insert(rng.randrange(1, len(lines) + 1) if lines else 0, line)  # (a text of one line stays one)


def _join(rng: random.Random, lines: list[str], number: int) -> None:
    if number + 1 < len(lines):
        lines[number: number + 2] = [lines[number].rstrip() + " " + lines[number + 1].lstrip()]


def _split(rng: random.Random, lines: list[str], number: int) -> None:
    commas = [m.end() for m in re.finditer(r", ", lines[number])]
    if commas:
        at = rng.choice(commas)
        lines[number: number + 1] = [lines[number][:at].rstrip(), "      " + lines[number][at:]]


def _headers(lines: list[str]) -> list[int]:
    return [number for number, line in enumerate(lines)
            if line.startswith("HloModule") or (line.rstrip().endswith("{") and _HEADER.match(line))]


def _module_headers(lines: list[str]) -> list[int]:
    return [number for number, line in enumerate(lines) if line.startswith("HloModule")]


def _entries(lines: list[str]) -> list[int]:
    return [number for number, line in enumerate(lines) if line.startswith("ENTRY")]


def _trailing_colon(rng: random.Random, lines: list[str], number: int) -> None:
    match = re.match(r"(HloModule\s+|ENTRY\s+)?%?[A-Za-z_][\w.\-]*", lines[number])
    if match:
        lines[number] = lines[number][: match.end()] + ":" + lines[number][match.end():]


def _drop_entry(rng: random.Random, lines: list[str], number: int) -> None:
    lines[number] = lines[number].replace("ENTRY ", "", 1)


def _drop_header(rng: random.Random, lines: list[str], number: int) -> None:
    del lines[number]


def _execution_thread(rng: random.Random, lines: list[str], number: int) -> None:
    lines[number] = lines[number].rstrip() + rng.choice((', execution_thread="main_thread"', ", execution_thread=x"))


def reorder_computations(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.split("\n")
    computations = _computations(lines)
    if len(computations) < 2:
        return text, "reorder_computations(none)"
    (a_start, a_end), (b_start, b_end) = sorted(rng.sample(computations, 2))
    swapped = (lines[:a_start] + lines[b_start: b_end + 1] + lines[a_end + 1: b_start] + lines[a_start: a_end + 1]
               + lines[b_end + 1:])
    return "\n".join(swapped), f"reorder_computations@{a_start + 1},{b_start + 1}"


OPERATORS: tuple[Operator, ...] = (
    _on_instruction(_drop_shape, "drop_shape"), _on_instruction(_drop_root, "drop_root"),
    _on_instruction(_add_root, "add_root"), _lines_operator(_delete, "delete_line"),
    _lines_operator(_duplicate, "duplicate_line"), _lines_operator(_move, "move_line"),
    _on_instruction(_rename_key, "rename_key"), _on_instruction(_drop_attribute, "drop_attribute"),
    _on_instruction(_repeat_attribute, "repeat_attribute"), change_enum, literal_out_of_range,
    _on_instruction(_drop_operand, "drop_operand"), insert_comment, insert_comment,
    _lines_operator(_join, "join_lines"), _lines_operator(_split, "split_line"),
    _lines_operator(_trailing_colon, "trailing_colon", _headers), _lines_operator(_drop_entry, "drop_entry", _entries),
    _lines_operator(_drop_header, "drop_header", _module_headers), reorder_computations,
    _lines_operator(_execution_thread, "execution_thread",
                    lambda lines: [end for _, end in _computations(lines)]),
    unknown_element_type,
)


if __name__ == "__main__":  # python tests/hlo_forms.py SEED N [MAX_BYTES]: prints text N of SEED, to replay it
    import sys

    chosen = form(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else MEDIUM)
    print(f"// {chosen.origin}", file=sys.stderr)
    sys.stdout.write(chosen.text)
