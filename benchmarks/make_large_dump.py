"""Writes a realistic large XLA dump of a requested size, without JAX.

    .venv/bin/python benchmarks/make_large_dump.py --mb 40 --style 0.10.2 --out DIR
    .venv/bin/python benchmarks/make_large_dump.py --mb 10 --style 0.4.38 --out DIR

`--mb` is the size of the HLO module file (10^6 bytes); the buffer-assignment files
scale along. `--style` picks the source dump and the file layout: 0.10.2 writes the
split files (`-buffer-assignment.txt`, `-buffer-assignment-values.txt`,
`-live-range.txt`, `-memory-usage-report.txt` with `Memory Space:` tables), 0.4.38 the
combined `-buffer-assignment.txt` (old peak list) and the text memory-usage report.
Other scripts import `make_large_dump(mb, style, out) -> {kind: path}`.

Construction: the source is the 96-layer `large_fwd_unrolled` module of the shared
corpus. Its ENTRY schedule is split into a prologue, a run of structurally identical
layer blocks (found as the period of the instructions' opcodes and shapes) and an
epilogue. The new module has L blocks: source blocks 0..L-2 and the last one when
L <= 96, else blocks 0..94, then copies of block 94 with fresh names
(`ynn_fusion.577`, `fused_computation.2213`, ...), then block 95. Each block brings its
own parameters (renumbered, `p['layers'][L]` / `Arg_N.N+1` names) and the computations
only it calls. Operands between blocks are resolved by position within the block,
so layer k reads layer k-1's residual stream. The module is written from the source
text line by line with names substituted (no parsing beyond the line structure).

The buffer assignment is recomputed from that module the way XLA would print it:
value ids in definition order, positions copied from the source values, uses read
off the new module, live ranges from the schedule (definition to last use, entry
parameters and the output over the whole program; a `call` operand ends where the
callee reads it), parameter, constant and thread-local allocations copied per block,
the temporaries laid out again over their live ranges by XLA's global decreasing-size
best-fit heap (the output value alone in the `maybe-live-out` allocation), `Total bytes used`, the peak (time by
XLA's ComputePeakMemoryMoment, the list in the source's format), the stack-trace
breakdown and the memory-usage report recomputed.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hlo_lsp.analysis.memory import peak_moment
from hlo_lsp.model.sizes import human_bytes

ROOT = Path(__file__).resolve().parents[1]
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


# --------------------------------------------------------------------------- the source HLO module


@dataclass(eq=False)
class Instr:
    name: str
    line: str
    comp: str
    root: bool
    shape: str
    opcode: str
    operand_text: str
    attrs: str
    operands: list[str] = field(default_factory=list)
    called: list[str] = field(default_factory=list)
    number: int | None = None  # parameter number, for parameters
    template: Template | None = None


@dataclass(eq=False)
class Comp:
    name: str
    header: str
    closing: str
    instrs: list[Instr]
    entry: bool
    header_template: Template | None = None
    closing_template: Template | None = None


def parse_instruction(line: str, comp: str) -> Instr:
    match = _DEF.match(line)
    if match is None:
        raise DumpError(f"not a one-line instruction: {line[:100]!r}")
    rest = line[match.end():]
    end = shape_end(rest)
    after = rest[end + 1:]
    paren = after.index("(")
    close = matching(after, paren)
    opcode = after[:paren]
    return Instr(match.group(2), line, comp, bool(match.group(1)), rest[:end], opcode,
                 after[paren + 1:close], after[close + 1:])


@dataclass(eq=False)
class HloSource:
    header: str
    preamble: list[str]
    comps: list[Comp]
    entry: Comp
    instrs: dict[str, Instr]
    names: frozenset[str]

    @classmethod
    def parse(cls, text: str) -> HloSource:
        lines = text.split("\n")
        comps: list[Comp] = []
        first = None
        index = 1
        while index < len(lines):
            line = lines[index]
            if line and not line[0].isspace() and line.endswith("{"):
                first = index if first is None else first
                match = _COMP_HEADER.match(line)
                assert match is not None
                name = match.group(2)
                body = []
                index += 1
                while not lines[index].startswith("}"):
                    body.append(parse_instruction(lines[index], name))
                    index += 1
                comps.append(Comp(name, line, lines[index], body, bool(match.group(1))))
            index += 1
        entries = [comp for comp in comps if comp.entry]
        if len(entries) != 1 or first is None:
            raise DumpError("expected exactly one ENTRY computation")
        instrs = {instr.name: instr for comp in comps for instr in comp.instrs}
        names = frozenset(instrs) | {comp.name for comp in comps}
        comp_names = {comp.name for comp in comps}
        for comp in comps:
            comp.header_template = Template(comp.header, names)
            comp.closing_template = Template(comp.closing, names)
            for instr in comp.instrs:
                instr.template = Template(instr.line, names)
                instr.operands = [name for _, _, name in name_tokens(instr.operand_text, names) if name in instrs]
                instr.called = [name for _, _, name in name_tokens(instr.attrs, names) if name in comp_names]
                if comp.entry and instr.opcode == "parameter":
                    instr.number = int(instr.operand_text)
        return cls(lines[0], lines[1:first], comps, entries[0], instrs, names)


# --------------------------------------------------------------------------- the source buffer assignment


@dataclass(eq=False)
class SrcAlloc:
    index: int
    size: int
    rest: str  # ", parameter 7, shape |f32[64,256]| at ShapeIndex {}" (the text after the size)
    values: list[SrcValue] = field(default_factory=list)

    @property
    def parameter(self) -> int | None:
        match = re.search(r", parameter (\d+),", self.rest)
        return int(match.group(1)) if match else None

    @property
    def relaid(self) -> bool:
        """Temporaries and the output: laid out again by the generator's own heap."""
        return "preallocated-temp" in self.rest or ("maybe-live-out" in self.rest and self.parameter is None)


@dataclass(eq=False)
class SrcValue:
    name: str
    index: str | None
    phi: bool
    color: int | None
    size: int
    offset: int
    shape: str
    positions: list[tuple[str, str | None]] = field(default_factory=list)
    from_template: Template | None = None


@dataclass(eq=False)
class BaSource:
    allocs: list[SrcAlloc]
    values: dict[int, SrcValue]
    none_uses: bool  # an empty uses list prints `(none)` (newest XLA)
    new_peak: bool  # peak lines `name{}: N bytes (cumulative: M bytes)`
    breakdown: list[str]  # the stack-trace breakdown lines, if any
    peak_time: int | None
    ranges: dict[str, tuple[int, int]]

    @classmethod
    def parse(cls, text: str, names: frozenset[str]) -> BaSource:
        allocs: list[SrcAlloc] = []
        values: dict[int, SrcValue] = {}
        section = "top"
        current: SrcValue | None = None
        part = None
        none_uses = new_peak = False
        breakdown: list[str] = []
        peak_time = None
        ranges: dict[str, tuple[int, int]] = {}
        for line in text.split("\n"):
            stripped = line.strip()
            if stripped == "BufferAssignment:":
                section = "alloc"
            elif stripped == "Used values:":
                section = "used"
            elif stripped.startswith("HloLiveRange"):
                section = "lr"
            elif stripped.startswith("Live ranges at"):
                section = "peak"
                peak_time = int(stripped.split()[3])
            elif stripped.startswith("Stack trace breakdown"):
                section = "tree"
                breakdown.append(line)
            elif section == "alloc" and line.startswith("allocation "):
                match = _ALLOCATION.match(line)
                assert match is not None
                allocs.append(SrcAlloc(int(match.group(1)), int(match.group(2)), match.group(3)))
            elif section == "alloc" and line.startswith(" value: "):
                match = _VALUE_LINE.match(line)
                assert match is not None
                vid, name, index, phi, color, size, offset, shape = match.groups()
                value = SrcValue(name, index, bool(phi), None if color is None else int(color), int(size),
                                 int(offset), shape)
                allocs[-1].values.append(value)
                values[int(vid)] = value
            elif section == "used":
                if line.startswith("<"):
                    match = _USED_VALUE.match(line)
                    assert match is not None
                    current = values[int(match.group(1))]
                    part = None
                elif stripped in ("positions:", "uses:"):
                    part = stripped
                elif stripped.startswith("from instruction: ") and current is not None:
                    current.from_template = Template(stripped[len("from instruction: "):], names)
                elif part == "positions:" and stripped and current is not None:
                    name, _, index = stripped.partition(" ")
                    current.positions.append((name, index or None))
                elif part == "uses:" and stripped == "(none)":
                    none_uses = True
            elif section == "lr":
                match = _LIVE_RANGE.match(line)
                if match:
                    ranges[match.group(1) + match.group(2)] = (int(match.group(3)), int(match.group(4)))
            elif section == "peak" and "(cumulative:" in line:
                new_peak = True
            elif section == "tree" and stripped:
                breakdown.append(line)
        return cls(allocs, values, none_uses, new_peak, breakdown, peak_time, ranges)


# --------------------------------------------------------------------------- layer structure


Key = tuple  # ("i", offset) | ("p", slot) | ("c", rank) | ("ci", rank, position)


@dataclass(eq=False)
class Structure:
    """The ENTRY split into prologue, `count` periodic blocks and epilogue, and what each block owns."""

    prologue: list[Instr]
    blocks: list[list[Instr]]
    epilogue: list[Instr]
    block_params: list[list[Instr]]
    block_comps: list[list[Comp]]
    comp_owner: dict[str, int | None]  # block owning a computation, None when shared
    key_of: dict[str, tuple[int, Key]]  # block-owned name -> (block, key)
    names_of: list[dict[Key, str]]  # block -> key -> name
    param_base: int
    params_per_block: int
    segment_of: dict[str, str | int]  # ENTRY compute instruction -> "pro" | "epi" | block


def find_period(signatures: list[int]) -> tuple[int, int, int]:
    """(start, period, run): signatures[i] == signatures[i + period] for i in [start, start + run)."""
    best = (0, 0, 0, 0)
    for period in range(1, len(signatures) // 3 + 1):
        equal = "".join("1" if a == b else "0" for a, b in zip(signatures, signatures[period:]))
        run = max(map(len, equal.split("0")))
        if run and run + period > best[0]:
            best = (run + period, period, equal.find("1" * run), run)
    _, period, start, run = best
    if period == 0:
        raise DumpError("the ENTRY computation has no repeating layer structure")
    return start, period, run


def analyse(hlo: HloSource) -> Structure:
    compute = [instr for instr in hlo.entry.instrs if instr.opcode != "parameter"]
    kinds: dict[tuple, int] = {}
    signatures = []
    for instr in compute:
        kind = re.search(r"kind=(\w+)", instr.attrs)
        key = (instr.opcode, instr.shape, len(instr.operands), kind.group(1) if kind else None)
        signatures.append(kinds.setdefault(key, len(kinds)))
    start, period, run = find_period(signatures)
    problems = []
    for rotation in range(period):
        count = (run + period - rotation) // period
        if count < 3:
            break
        try:
            return _segment(hlo, compute, start + rotation, period, count)
        except DumpError as error:
            problems.append(str(error))
    raise DumpError("no block alignment gives consistent layers: " + "; ".join(problems[:3]))


def _segment(hlo: HloSource, compute: list[Instr], start: int, period: int, count: int) -> Structure:
    blocks = [compute[start + j * period:start + (j + 1) * period] for j in range(count)]
    prologue, epilogue = compute[:start], compute[start + count * period:]
    segment_of: dict[str, str | int] = {instr.name: "pro" for instr in prologue}
    segment_of.update({instr.name: "epi" for instr in epilogue})
    for j, block in enumerate(blocks):
        segment_of.update({instr.name: j for instr in block})
    # Parameters used by one block only are that block's.
    users: dict[str, set] = {}
    for instr in compute:
        for operand in instr.operands:
            users.setdefault(operand, set()).add(segment_of[instr.name])
    params = [instr for instr in hlo.entry.instrs if instr.opcode == "parameter"]
    block_params: list[list[Instr]] = [[] for _ in blocks]
    for param in params:
        owners = users.get(param.name, set())
        if len(owners) == 1 and isinstance(next(iter(owners)), int):
            block_params[next(iter(owners))].append(param)
    per_block = len(block_params[0])
    base = min((p.number for p in block_params[0]), default=0)
    for j, own in enumerate(block_params):
        own.sort(key=lambda p: p.number)
        if [p.number for p in own] != list(range(base + j * per_block, base + (j + 1) * per_block)):
            raise DumpError(f"the parameters of block {j} are not numbered contiguously")
    for param in params:
        owned = any(param in own for own in block_params)
        if not owned and base <= param.number < base + count * per_block:
            raise DumpError(f"shared parameter {param.name} is numbered inside the layers' parameters")
    # Computations called from one block only are that block's (found in call order).
    comps = {comp.name: comp for comp in hlo.comps}
    reach: dict[str, set] = {}
    order: dict[str, list[str]] = {}

    def visit(name: str, segment: str | int, seen: list[str]) -> None:
        if segment in reach.setdefault(name, set()):
            return
        reach[name].add(segment)
        seen.append(name)
        for instr in comps[name].instrs:
            for called in instr.called:
                visit(called, segment, seen)

    for instr in compute:
        segment = segment_of[instr.name]
        for called in instr.called:
            visit(called, segment, order.setdefault(str(segment), []))
    comp_owner: dict[str, int | None] = {}
    for name, segments in reach.items():
        only = next(iter(segments))
        comp_owner[name] = only if len(segments) == 1 and isinstance(only, int) else None
    block_comps = [[comps[name] for name in order.get(str(j), []) if comp_owner[name] == j] for j in range(count)]
    # Block 0 reads the prologue's output and may fuse differently; the others are alike.
    shape = [len(c.instrs) for c in block_comps[1]]
    for j in range(2, count):
        if [len(c.instrs) for c in block_comps[j]] != shape:
            raise DumpError(f"block {j} calls computations of another shape than block 1")
    key_of: dict[str, tuple[int, Key]] = {}
    names_of: list[dict[Key, str]] = []
    for j in range(count):
        names: dict[Key, str] = {}
        names.update({("i", offset): instr.name for offset, instr in enumerate(blocks[j])})
        names.update({("p", slot): param.name for slot, param in enumerate(block_params[j])})
        for rank, comp in enumerate(block_comps[j]):
            names[("c", rank)] = comp.name
            names.update({("ci", rank, position): instr.name for position, instr in enumerate(comp.instrs)})
        names_of.append(names)
        key_of.update({name: (j, key) for key, name in names.items()})
    return Structure(prologue, blocks, epilogue, block_params, block_comps, comp_owner, key_of, names_of,
                     base, per_block, segment_of)


# --------------------------------------------------------------------------- the new module's names


class Namer:
    """Fresh XLA-like names: the source's base name with the next free number (`ynn_fusion.577`)."""

    def __init__(self, all_names: Iterable[str], taken: set[str]) -> None:
        self.taken = taken
        self.next: dict[tuple[str, str], int] = {}
        for name in all_names:
            base, number, tail = self.split(name)
            if number is not None:
                key = (base, tail)
                self.next[key] = max(self.next.get(key, 1), int(number) + 1)

    @staticmethod
    def split(name: str) -> tuple[str, str | None, str]:
        match = _FRESH_SPLIT.match(name)
        assert match is not None
        return match.group(1), match.group(2), match.group(3)

    def claim(self, name: str) -> bool:
        if name in self.taken:
            return False
        self.taken.add(name)
        return True

    def fresh(self, name: str) -> str:
        base, _, tail = self.split(name)
        key = (base, tail)
        number = self.next.get(key, 1)
        while f"{base}.{number}{tail}" in self.taken:
            number += 1
        self.next[key] = number + 1
        fresh = f"{base}.{number}{tail}"
        self.taken.add(fresh)
        return fresh


@dataclass(eq=False)
class NewParam:
    name: str
    number: int
    source: Instr
    position: int  # new block, -1 for shared parameters
    block: int  # source block, -1 for shared parameters


@dataclass(eq=False)
class Plan:
    """Which source block each new block copies, and every new name."""

    layers: int
    order: list[int]  # new block -> source block
    names: list[dict[Key, str]]  # new block -> key -> name
    shared: dict[str, str]  # renamed shared names (parameters)
    params: list[NewParam]  # by new number
    rename_layers: bool  # op_name `[j]` of a copied block's parameters becomes `[i]`
    structure: Structure

    def resolver(self, position: int, block: int) -> Callable[[str], str]:
        """Names as seen from new block `position`, a copy of source block `block` (-1 prologue, count epilogue)."""
        cache: dict[str, str] = {}
        key_of, names, shared, layers = self.structure.key_of, self.names, self.shared, self.layers

        def resolve(name: str) -> str:
            found = cache.get(name)
            if found is not None:
                return found
            owner = key_of.get(name)
            if owner is None:
                found = shared.get(name, name)
            else:
                target = position + owner[0] - block
                if not 0 <= target < layers:
                    raise DumpError(f"{name} of block {owner[0]} has no counterpart seen from new block {position}")
                found = names[target].get(owner[1])
                if found is None:
                    raise DumpError(f"{name} of block {owner[0]} has no counterpart in new block {target}")
            cache[name] = found
            return found

        return resolve


def make_plan(hlo: HloSource, structure: Structure, layers: int) -> Plan:
    count = len(structure.blocks)
    if layers <= count:
        order = list(range(layers - 1)) + [count - 1] if layers > 1 else [0]
    else:
        order = list(range(count - 1)) + [count - 2] * (layers - count) + [count - 1]
    used = set(order)
    dropped = {name for j in range(count) if j not in used for name in structure.names_of[j].values()}
    params = [instr for instr in hlo.entry.instrs if instr.opcode == "parameter"]
    arg_style = all((m := _ARG_NAME.match(p.name)) and int(m.group(1)) == p.number for p in params)
    taken = set(hlo.names) - dropped
    if arg_style:
        taken -= {p.name for p in params}
    namer = Namer(hlo.names, taken)
    per_block, base = structure.params_per_block, structure.param_base
    layer_names = all(re.search(rf"(?<=_){j}(?=_)", p.name) for j, own in enumerate(structure.block_params)
                      for p in own)
    layer_op_names = all(f"[{j}]" in (op_name_of(p.line) or "") for j, own in enumerate(structure.block_params)
                         for p in own)

    def param_name(source: Instr, number: int, position: int, block: int, first: bool) -> str:
        if arg_style:
            name = f"Arg_{number}.{number + 1}"
            return name if namer.claim(name) else namer.fresh(source.name)
        if first and position == block:
            return source.name
        if layer_names and position >= 0:
            name = re.sub(rf"(?<=_){block}(?=_)", str(position), source.name, count=1)
            if namer.claim(name):
                return name
        return namer.fresh(source.name)

    new_params: list[NewParam] = []
    shared: dict[str, str] = {}
    for param in params:
        if any(param in own for own in structure.block_params):
            continue
        number = param.number if param.number < base else param.number + (layers - count) * per_block
        name = param_name(param, number, -1, -1, True)
        if name != param.name:
            shared[param.name] = name
        new_params.append(NewParam(name, number, param, -1, -1))
    names: list[dict[Key, str]] = []
    seen: set[int] = set()
    for position, block in enumerate(order):
        first = block not in seen
        seen.add(block)
        own: dict[Key, str] = {}
        for key, name in structure.names_of[block].items():
            if key[0] != "p":
                own[key] = name if first else namer.fresh(name)
        for slot, param in enumerate(structure.block_params[block]):
            number = base + position * per_block + slot
            own[("p", slot)] = param_name(param, number, position, block, first)
            new_params.append(NewParam(own[("p", slot)], number, param, position, block))
        names.append(own)
    new_params.sort(key=lambda p: p.number)
    if [p.number for p in new_params] != list(range(len(new_params))):
        raise DumpError("the new parameters are not numbered 0..N-1")
    return Plan(layers, order, names, shared, new_params, layer_op_names, structure)


# --------------------------------------------------------------------------- writing the module


@dataclass(eq=False)
class Emitted:
    """What the buffer assignment needs to know about the new module."""

    text: str
    opcode: dict[str, str]
    shape: dict[str, str]
    line: dict[str, str]
    def_order: dict[str, int]
    users: dict[str, list[tuple[str, int]]]
    members: dict[str, list[str]]  # computation -> its instructions
    called: dict[str, list[str]]
    entry: list[str]
    entry_name: str
    root: str
    params: dict[str, NewParam]


def emit_hlo(hlo: HloSource, plan: Plan) -> Emitted:
    structure = plan.structure
    count = len(structure.blocks)
    layers = plan.layers
    out: list[str] = [rebuild_module_header(hlo.header, plan.params), *hlo.preamble]
    opcode: dict[str, str] = {}
    shape: dict[str, str] = {}
    line_of: dict[str, str] = {}
    users: dict[str, list[tuple[str, int]]] = {}
    members: dict[str, list[str]] = {}
    called: dict[str, list[str]] = {}

    def record(instr: Instr, resolve: Callable[[str], str], comp: str, text: str) -> str:
        name = resolve(instr.name)
        opcode[name] = instr.opcode
        shape[name] = instr.shape
        line_of[name] = text
        members[comp].append(name)
        for k, operand in enumerate(instr.operands):
            users.setdefault(resolve(operand), []).append((name, k))
        if instr.called:
            called[name] = [resolve(c) for c in instr.called]
        return name

    positions = {j: [i for i, b in enumerate(plan.order) if b == j] for j in range(count)}
    for comp in hlo.comps:
        if comp.entry:
            continue
        owner = structure.comp_owner.get(comp.name)
        views = [(-1, -1)] if owner is None else [(i, owner) for i in positions[owner]]
        for position, block in views:
            resolve = plan.resolver(position, block)
            name = resolve(comp.name)
            members[name] = []
            out.append(comp.header_template.render(resolve))
            for instr in comp.instrs:
                text = instr.template.render(resolve)
                out.append(text)
                record(instr, resolve, name, text)
            out.append(comp.closing_template.render(resolve))
            out.append("")
    # ENTRY: parameters first (0.10.2) or each right before its first user (0.4.38).
    entry = hlo.entry
    resolve_global = plan.resolver(-1, -1)
    entry_name = resolve_global(entry.name)
    members[entry_name] = []
    out.append(rebuild_entry_header(entry, plan.params, resolve_global))
    source_params = sum(1 for instr in entry.instrs if instr.opcode == "parameter")
    params_first = all(instr.opcode == "parameter" for instr in entry.instrs[:source_params])
    new_params = {p.name: p for p in plan.params}
    emitted_params: set[str] = set()

    def emit_param(param: NewParam) -> None:
        resolve = plan.resolver(param.position, param.block)
        text = param_text(param.source.template.render(resolve), param, plan)
        out.append(text)
        record(param.source, resolve, entry_name, text)
        emitted_params.add(param.name)

    sequence = [(instr, -1, -1) for instr in structure.prologue]
    for position, block in enumerate(plan.order):
        sequence.extend((instr, position, block) for instr in structure.blocks[block])
    sequence.extend((instr, layers, count) for instr in structure.epilogue)
    if params_first:
        for param in plan.params:
            emit_param(param)
    root = None
    for instr, position, block in sequence:
        resolve = plan.resolver(position, block)
        if not params_first:
            for operand in instr.operands:
                source = hlo.instrs[operand]
                if source.opcode == "parameter" and source.comp == entry.name:
                    new = resolve(operand)
                    if new not in emitted_params:
                        emit_param(new_params[new])
        text = instr.template.render(resolve)
        out.append(text)
        name = record(instr, resolve, entry_name, text)
        if instr.root:
            root = name
    for param in plan.params:
        if param.name not in emitted_params:
            raise DumpError(f"parameter {param.name} has no user")
    out.append(entry.closing_template.render(resolve_global))
    out.append("")
    assert root is not None
    text = "\n".join(out) + "\n"
    def_order = {}
    for comp_members in members.values():
        for name in comp_members:
            def_order[name] = len(def_order)
    return Emitted(text, opcode, shape, line_of, def_order, users, members, called, members[entry_name],
                   entry_name, root, new_params)


def param_text(text: str, param: NewParam, plan: Plan) -> str:
    """A parameter's instruction text with its new number and, for a copied layer, its layer in op_name."""
    text = _PARAMETER.sub(f"parameter({param.number})", text, count=1)
    if plan.rename_layers and param.position >= 0 and param.position != param.block:
        text = replace_in_op_name(text, f"[{param.block}]", f"[{param.position}]")
    return text


def rebuild_module_header(header: str, params: list[NewParam]) -> str:
    for key in ("input_output_alias=", "buffer_donor="):
        if key in header:
            raise DumpError(f"modules with {key} are not supported")
    key = "entry_computation_layout={("
    start = header.find(key)
    if start >= 0:
        open_paren = start + len(key) - 1
        close = matching(header, open_paren)
        items = split_top_level(_INDEX_COMMENT.sub("", header[open_paren + 1:close]))
        new = [items[p.source.number] for p in params]
        text = ", ".join((f"/*index={k}*/" if k and k % 5 == 0 else "") + item for k, item in enumerate(new))
        header = header[:open_paren + 1] + text + header[close:]
    key = "allow_spmd_sharding_propagation_to_parameters={"
    start = header.find(key)
    if start >= 0:
        open_brace = start + len(key) - 1
        close = matching(header, open_brace, "{", "}")
        items = header[open_brace + 1:close].split(",")
        header = header[:open_brace + 1] + ",".join(items[p.source.number] for p in params) + header[close:]
    return header


def rebuild_entry_header(entry: Comp, params: list[NewParam], resolve: Callable[[str], str]) -> str:
    open_paren = entry.header.find("(")
    if open_paren < 0:
        return entry.header_template.render(resolve)  # `ENTRY main.16205 {`: no signature
    close = matching(entry.header, open_paren)
    shapes = {}
    for item in split_top_level(entry.header[open_paren + 1:close]):
        name, _, item_shape = item.partition(": ")
        shapes[name] = item_shape
    signature = ", ".join(f"{p.name}: {shapes[p.source.name]}" for p in params)
    return entry.header[:open_paren + 1] + signature + entry.header[close:]


# --------------------------------------------------------------------------- the buffer assignment


@dataclass(eq=False)
class NewValue:
    name: str
    index: str | None
    phi: bool
    color: int | None
    size: int
    shape: str
    positions: list[tuple[str, str | None]]
    from_text: str
    vid: int = 0
    offset: int = 0
    start: int | None = None
    end: int | None = None

    @property
    def short(self) -> str:
        phi = " (phi)" if self.phi else ""
        color = "" if self.color is None else f" @{self.color}"
        return f"<{self.vid} {self.name}{self.index or ''}{phi}{color}>"

    @property
    def label(self) -> str:
        return f"{self.name}{self.index or '{}'}"


@dataclass(eq=False)
class NewAlloc:
    size: int
    rest: str
    values: list[NewValue]
    order: tuple
    index: int = 0

    @property
    def header(self) -> str:
        return f"allocation {self.index}: size {self.size}{self.rest}:"


def owner_views(name: str, structure: Structure, plan: Plan) -> list[tuple[int, int]]:
    """The (new block, source block) views in which a source value defined by `name` exists."""
    owner = structure.key_of.get(name)
    if owner is not None:
        return [(i, owner[0]) for i, block in enumerate(plan.order) if block == owner[0]]
    if structure.segment_of.get(name) == "epi":
        return [(plan.layers, len(structure.blocks))]
    return [(-1, -1)]


def build_buffers(ba: BaSource, plan: Plan, emitted: Emitted) -> tuple[list[NewAlloc], list[str]]:
    """The allocations of the new module, and its HloLiveRange schedule."""
    structure = plan.structure
    entry_params = {p.source.name for p in plan.params}
    allocs: list[NewAlloc] = []
    pool: list[NewValue] = []
    output_rest = None
    for source in ba.allocs:
        if source.relaid:
            if "maybe-live-out" in source.rest:
                output_rest = source.rest
            for value in source.values:
                for position, block in owner_views(value.name, structure, plan):
                    pool.append(new_value(value, plan.resolver(position, block), plan, emitted, entry_params))
            continue
        views = {tuple(owner_views(value.name, structure, plan)) for value in source.values}
        if len(views) != 1:
            raise DumpError(f"allocation {source.index} holds values of different layers")
        for position, block in views.pop():
            resolve = plan.resolver(position, block)
            values = [new_value(value, resolve, plan, emitted, entry_params) for value in source.values]
            for value, old in zip(values, source.values):
                value.offset = old.offset
            rest = source.rest
            if source.parameter is not None:
                number = emitted.params[values[0].name].number
                rest = re.sub(r", parameter \d+,", f", parameter {number},", rest, count=1)
                order: tuple = (0, -source.size, number)
            elif "constant" in rest:
                order = (1, source.index, position)
            else:
                order = (2, source.index, position)
            allocs.append(NewAlloc(source.size, rest, values, order))
    every = [value for alloc in allocs for value in alloc.values] + pool
    every.sort(key=lambda v: (emitted.def_order[v.name], v.index or ""))
    for vid, value in enumerate(every):
        value.vid = vid
    schedule = flatten_schedule(emitted)
    times = {name: t for t, name in enumerate(schedule)}
    end = len(schedule)
    for value in every:
        live_range(value, times, end, emitted, entry_params)
    outputs = [v for v in pool if any(name == emitted.root for name, _ in v.positions)]
    temps = [v for v in pool if v not in outputs]
    if outputs:
        if output_rest is None:
            raise DumpError("the output value is not in a maybe-live-out allocation")
        offset = 0
        for value in outputs:
            value.offset = offset
            offset += value.size
        allocs.append(NewAlloc(offset, output_rest, outputs, (0, -offset, -1)))
    if temps:
        allocs.append(NewAlloc(best_fit(temps), ", preallocated-temp", temps, (3,)))
    allocs.sort(key=lambda a: a.order)
    for index, alloc in enumerate(allocs):
        alloc.index = index
        alloc.values.sort(key=lambda v: v.vid)
    return allocs, schedule


def new_value(value: SrcValue, resolve: Callable[[str], str], plan: Plan, emitted: Emitted,
              entry_params: set[str]) -> NewValue:
    name = resolve(value.name)
    assert value.from_template is not None
    text = value.from_template.render(resolve)
    if value.name in entry_params:
        text = param_text(text, emitted.params[name], plan)
    positions = [(resolve(p), index) for p, index in value.positions]
    return NewValue(name, value.index, value.phi, value.color, value.size, value.shape, positions, text)


def flatten_schedule(emitted: Emitted) -> list[str]:
    """HloLiveRange's module-scoped sequence: a `call`'s computation runs right before the call."""
    schedule: list[str] = []

    def walk(names: list[str]) -> None:
        for name in names:
            if emitted.opcode[name] == "call":
                for comp in emitted.called[name]:
                    walk(emitted.members[comp])
            elif emitted.opcode[name] in ("while", "conditional", "async-start"):
                raise DumpError(f"{emitted.opcode[name]} in the ENTRY computation is not supported")
            schedule.append(name)

    walk(emitted.entry)
    return schedule


def live_range(value: NewValue, times: dict[str, int], end: int, emitted: Emitted, entry_params: set[str]) -> None:
    """XLA's live range: definition to the last use or position (a call's use ends in its callee)."""
    definition = value.positions[0][0]
    if definition not in times:
        return  # values of computations that are not scheduled (fusions, reducers): thread-local
    if definition in emitted.params:
        value.start, value.end = 0, end
        return
    last = times[definition]
    for name, _ in value.positions:
        if name == emitted.root:
            value.start, value.end = times[definition], end
            return
        last = max(last, times.get(name, last))
        for user, _ in emitted.users.get(name, ()):
            if emitted.opcode[user] != "call" and user in times:
                last = max(last, times[user])
    value.start, value.end = times[definition], last


def best_fit(values: list[NewValue]) -> int:
    """Offsets by XLA's GlobalDecreasingSizeBestFitHeap: largest first, each in the tightest gap left by
    the values already placed whose live ranges meet its own; returns the heap's size."""
    by_time: dict[int, list[NewValue]] = {}
    size = 0
    for value in sorted(values, key=lambda v: (-v.size, v.start - v.end, v.start, v.vid)):
        if value.start is None or value.end is None:
            raise DumpError(f"temporary {value.name} has no live range")
        busy = {id(other): other for t in range(value.start, value.end + 1) for other in by_time.get(t, ())}
        best: tuple[int, int] | None = None  # (gap size, offset)
        cursor = 0
        for low, high in sorted((other.offset, other.offset + other.size) for other in busy.values()):
            if low - cursor >= value.size and (best is None or low - cursor < best[0]):
                best = (low - cursor, cursor)
            cursor = max(cursor, -(-high // ALIGNMENT) * ALIGNMENT)
        value.offset = best[1] if best is not None else cursor
        for t in range(value.start, value.end + 1):
            by_time.setdefault(t, []).append(value)
        size = max(size, value.offset + value.size)
    return size


def uses_of(value: NewValue, emitted: Emitted, times: dict[str, int]) -> list[str]:
    lines = []
    for name, index in value.positions:
        users = sorted(emitted.users.get(name, ()),
                       key=lambda u: (times.get(u[0], -1), emitted.def_order[u[0]], u[1]))
        tuple_operand = emitted.shape[name].startswith("(")
        for user, k in users:
            lines.append(f"  {user}, operand {k}" + (f" {index or '{}'}" if tuple_operand else ""))
    return lines


# --------------------------------------------------------------------------- peak and reports


@dataclass(eq=False)
class Peak:
    time: int
    live: list[NewValue]
    instruction_bytes: dict[int, int]
    value_bytes: dict[int, int]


def compute_peak(values: list[NewValue], emitted: Emitted) -> Peak:
    ranged = [v for v in values if v.start is not None]
    whole = {v.vid: dense_size(emitted.shape[v.positions[0][0]]) for v in ranged}
    own = {v.vid: dense_size(v.shape) for v in ranged}
    moment = peak_moment((v.start, v.end, whole[v.vid]) for v in ranged)
    live = [v for v in ranged if v.start <= moment <= v.end]
    return Peak(moment, live, whole, own)


def peak_lines(peak: Peak, new_format: bool) -> list[str]:
    if not new_format:
        return [f"    {v.name}: {peak.instruction_bytes[v.vid]} bytes" for v in peak.live]
    ordered = sorted(peak.live, key=lambda v: (-peak.value_bytes[v.vid], v.name, v.index or ""))
    lines, cumulative = [], 0
    for value in ordered:
        cumulative += peak.value_bytes[value.vid]
        lines.append(f"    {value.label}: {peak.value_bytes[value.vid]} bytes (cumulative: {cumulative} bytes)")
    return lines


def breakdown_path(name: str, index: str | None, line: str) -> list[str]:
    """The stack-trace tree's path of a value: its op_name (a jax key path `p['w1']` split), else its name."""
    op_name = op_name_of(line)
    if op_name is None:
        return [name + (index or "")]
    match = re.fullmatch(r"([A-Za-z_]\w*)((?:\['[^'\]]*'\])+)", op_name)
    if match is None:
        return [op_name]
    return [match.group(1), *re.findall(r"\['([^'\]]*)'\]", match.group(2))]


def breakdown_lines(root: str, items: list[tuple[list[str], int]]) -> list[str]:
    """`Stack trace breakdown for peak usage`: a tree of (path, bytes) with totals, largest first."""
    tree: dict = {"current": 0, "children": {}}
    for path, size in items:
        node = tree
        for label in path:
            node = node["children"].setdefault(label, {"current": 0, "children": {}})
        node["current"] += size

    def total(node: dict) -> int:
        node["total"] = node["current"] + sum(total(child) for child in node["children"].values())
        return node["total"]

    grand = total(tree)
    remaining = grand
    lines = [f"  Stack trace breakdown for peak usage: {spaced(grand)} bytes"]

    def text(label: str, node: dict) -> str:
        nonlocal remaining
        remaining -= node["current"]
        share = 100.0 * node["total"] / grand if grand else 0.0
        return (f"{label} ({share:.1f}%, total: {spaced(node['total'])} bytes, current: {spaced(node['current'])} "
                f"bytes, remaining: {spaced(remaining)} bytes)")

    def walk(node: dict, prefix: str) -> None:
        children = sorted(node["children"].items(), key=lambda item: (-item[1]["total"], item[0]))
        for k, (label, child) in enumerate(children):
            last = k == len(children) - 1
            lines.append(prefix + ("└── " if last else "├── ") + text(label, child))
            walk(child, prefix + ("    " if last else "│   "))

    lines.append("    " + text(root, tree))
    walk(tree, "      ")
    return lines


def source_breakdown_matches(hlo: HloSource, ba: BaSource) -> bool:
    """Whether breakdown_lines() rebuilds the source's own tree exactly (else the section is left out)."""
    if not ba.breakdown or ba.peak_time is None:
        return False
    items = []
    for value in ba.values.values():
        label = value.name + (value.index or "{}")
        span = ba.ranges.get(label)
        if span is None or not span[0] <= ba.peak_time <= span[1]:
            continue
        instr = hlo.instrs[value.name]
        if instr.comp != hlo.entry.name:
            return False
        items.append((breakdown_path(value.name, value.index, instr.line), dense_size(value.shape)))
    return breakdown_lines(hlo.entry.name, items) == ba.breakdown


def report_rows(alloc: NewAlloc, sort_shapes: bool) -> list[tuple[int, int, int, str]]:
    """(size, offset, values, shapes) per offset: the memory-usage report's table of an allocation."""
    groups: dict[int, list[NewValue]] = {}
    for value in alloc.values:
        groups.setdefault(value.offset, []).append(value)
    rows = []
    for offset, values in groups.items():
        counts = Counter(strip_layout(v.shape) for v in values)
        items = sorted(counts.items(), key=lambda item: (item[1], item[0])) if sort_shapes else list(counts.items())
        shapes = ", ".join(shape if n == 1 else f"{n}×{shape}" for shape, n in items)
        rows.append((max(v.size for v in values), offset, len(values), shapes))
    rows.sort(key=lambda row: (-row[0], row[1]))
    return rows


def table_lines(alloc: NewAlloc, indent: str, sort_shapes: bool) -> list[str]:
    rows = report_rows(alloc, sort_shapes)
    total = sum(row[0] for row in rows) or 1
    lines = [f"{indent}cumulative_size;       size;       offset; used_by_n_values; shapes_list", indent + "-" * 60]
    cumulative = 0
    for size, offset, count, shapes in rows:
        cumulative += size
        lines.append(f"{indent}{human_bytes(cumulative):>9}({100 * cumulative / total:3.0f}%); "
                     f"{human_bytes(size):>10}; {offset:>12}; {count:>16}; {shapes}")
    return lines


def memory_report(allocs: list[NewAlloc], total: int, new_format: bool) -> str:
    by_size = sorted(allocs, key=lambda a: -a.size)
    shown = 0
    cumulative = 0
    for alloc in by_size:
        shown += 1
        cumulative += alloc.size
        if cumulative >= 0.95 * total:
            break
    if new_format:
        lines = ["Memory Space: default (color=0)", f"Total bytes: {total} ({human_bytes(total)})"]
        for alloc in by_size[:shown]:
            lines += [*table_lines(alloc, "  ", True), ""]
        return "\n".join([*lines, ""]) + "\n"
    lines = [f"Total bytes used: {total} ({human_bytes(total)})", "", "Allocations sorted by size:", "",
             "cumulative_size; total_size - cumulative_size; allocation", "-" * 78]
    cumulative = 0
    for alloc in by_size[:shown]:
        cumulative += alloc.size
        lines.append(f"{human_bytes(cumulative):>10}({100 * cumulative / total:3.0f}%); "
                     f"{human_bytes(total - cumulative):>10}; allocation {alloc.index}: size "
                     f"{human_bytes(alloc.size)}{alloc.rest}:")
    if len(by_size) > shown:
        lines.append(f"The rest {len(by_size) - shown} allocations are less than 5% of the total size and not shown.")
    lines += ["", "", "Allocations sorted by size with their values:"]
    for alloc in by_size:
        lines.append(f"allocation {alloc.index}: size {human_bytes(alloc.size)}{alloc.rest}:")
        if len(alloc.values) > 1:
            lines += ["", *table_lines(alloc, "\t", False), ""]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the whole dump


@dataclass(eq=False)
class Source:
    stem: Path
    hlo_text: str
    hlo: HloSource
    ba: BaSource
    structure: Structure
    split: bool
    new_report: bool
    breakdown: bool

    @classmethod
    def load(cls, style: str) -> Source:
        if style not in SOURCES:
            raise ValueError(f"unknown style {style!r}; expected one of {', '.join(SOURCES)}")
        stem = SOURCES[style]
        hlo_text = Path(str(stem) + SUFFIXES["hlo"]).read_text(encoding="utf-8")
        hlo = HloSource.parse(hlo_text)
        split = Path(str(stem) + SUFFIXES["buffer-assignment-values"]).exists()
        kinds = ("buffer-assignment", "buffer-assignment-values", "live-range") if split else ("buffer-assignment",)
        ba_text = "\n".join(Path(str(stem) + SUFFIXES[kind]).read_text(encoding="utf-8") for kind in kinds)
        ba = BaSource.parse(ba_text, hlo.names)
        report = Path(str(stem) + SUFFIXES["memory-usage-report"])
        new_report = report.exists() and report.read_text(encoding="utf-8").startswith("Memory Space:")
        return cls(stem, hlo_text, hlo, ba, analyse(hlo), split, new_report, source_breakdown_matches(hlo, ba))

    def block_bytes(self) -> float:
        """Average bytes one layer block adds to the module text."""
        structure = self.structure
        sizes = []
        for j, block in enumerate(structure.blocks):
            size = sum(len(instr.line) + 1 for instr in block)
            size += sum(len(comp.header) + len(comp.closing) + 3 + sum(len(i.line) + 1 for i in comp.instrs)
                        for comp in structure.block_comps[j])
            for param in structure.block_params[j]:
                # its line, its entry in the signature and in entry_computation_layout, `true,`
                size += len(param.line) + 1 + len(param.name) + len(strip_layout(param.shape)) + 4
                size += len(param.shape) + 2 + 5
            sizes.append(size)
        return sum(sizes) / len(sizes)


@functools.lru_cache(maxsize=len(SOURCES))
def load_source(style: str) -> Source:
    """The parsed source of a style (parsed once per process: build() does not change it)."""
    return Source.load(style)


def layers_for(source: Source, megabytes: float) -> int:
    per_block = source.block_bytes()
    fixed = len(source.hlo_text.encode()) - per_block * len(source.structure.blocks)
    return max(1, round((megabytes * MB - fixed) / per_block))


def build(source: Source, layers: int) -> dict[str, str]:
    """The text of every file of a dump with `layers` blocks, by kind."""
    plan = make_plan(source.hlo, source.structure, layers)
    emitted = emit_hlo(source.hlo, plan)
    allocs, schedule = build_buffers(source.ba, plan, emitted)
    times = {name: t for t, name in enumerate(schedule)}
    values = sorted((v for alloc in allocs for v in alloc.values), key=lambda v: v.vid)
    total = sum(alloc.size for alloc in allocs)
    allocation_lines = ["BufferAssignment:"]
    for alloc in allocs:
        allocation_lines.append(alloc.header)
        allocation_lines.extend(f" value: {v.short} (size={v.size},offset={v.offset}): {v.shape}" for v in alloc.values)
    used_lines = [f"Total bytes used: {total} ({human_bytes(total)})", "", "Used values:"]
    for value in values:
        used_lines.append(value.short)
        used_lines.append(" positions:")
        used_lines.extend(f"  {name}" + (f" {index}" if emitted.shape[name].startswith("(") else "")
                          for name, index in value.positions)
        used_lines.append(" uses:")
        uses = uses_of(value, emitted, times)
        used_lines.extend(uses or (["  (none)"] if source.ba.none_uses else []))
        used_lines.append(f" from instruction: {value.from_text}")
    peak = compute_peak(values, emitted)
    live_lines = [f"HloLiveRange (max {len(schedule)}):", "  InstructionSequence:"]
    live_lines.extend(f"    {t}:{name}" for t, name in enumerate(schedule))
    live_lines.append("  BufferLiveRange:")
    live_lines.extend(f"    {v.label}:{v.start}-{v.end}" for v in values if v.start is not None)
    live_lines.append(f"  Live ranges at {peak.time} (peak):")
    live_lines.extend(peak_lines(peak, source.ba.new_peak))
    if source.breakdown:
        items = [(breakdown_path(v.name, v.index, emitted.line[v.name]), peak.value_bytes[v.vid]) for v in peak.live]
        live_lines.extend(breakdown_lines(emitted.entry_name, items))
    files = {"hlo": emitted.text}
    if source.split:
        files["buffer-assignment"] = "\n".join(allocation_lines) + "\n"
        files["buffer-assignment-values"] = "\n" + "\n".join(used_lines) + "\n"
        files["live-range"] = "\n".join(live_lines) + "\n"
    else:
        files["buffer-assignment"] = "\n".join([*allocation_lines, "", *used_lines, "", "", *live_lines]) + "\n"
    files["memory-usage-report"] = memory_report(allocs, total, source.new_report)
    return files


def make_large_dump(mb: float, style: str, out: Path) -> dict[str, Path]:
    """Writes a dump whose HLO module is about `mb` MB into `out`; returns the files by kind."""
    source = load_source(style)
    layers = layers_for(source, mb)
    files = build(source, layers)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for kind, text in files.items():
        path = out / (source.stem.name + SUFFIXES[kind])
        path.write_text(text, encoding="utf-8")
        written[kind] = path
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40.0, help="size of the HLO module file in MB (10^6 bytes)")
    parser.add_argument("--style", choices=sorted(SOURCES), default="0.10.2")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        written = make_large_dump(args.mb, args.style, args.out)
    except (DumpError, OSError) as error:
        print(f"make_large_dump: {error}", file=sys.stderr)
        return 1
    for kind, path in written.items():
        print(f"{path.stat().st_size / MB:9.2f} MB  {path}  ({kind})")
    print(f"written in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
