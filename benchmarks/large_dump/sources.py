"""The source module and buffer assignment, read line by line: instructions, computations, allocations and values."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from large_dump.text import (
    _ALLOCATION,
    _COMP_HEADER,
    _DEF,
    _LIVE_RANGE,
    _USED_VALUE,
    _VALUE_LINE,
    DumpError,
    Template,
    matching,
    name_tokens,
    shape_end,
)

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
