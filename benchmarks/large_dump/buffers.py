"""The new module's buffer assignment, recomputed the way XLA prints it: values, live ranges and the relaid
temporaries."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from large_dump.emit import Emitted, param_text
from large_dump.sources import BaSource, SrcValue
from large_dump.structure import Plan, Structure
from large_dump.text import ALIGNMENT, DumpError

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
