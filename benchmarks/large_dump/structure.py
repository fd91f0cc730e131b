"""The layer structure of the source ENTRY schedule, and the names and parameters of the new module's blocks."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from large_dump.sources import Comp, HloSource, Instr
from large_dump.text import _ARG_NAME, _FRESH_SPLIT, DumpError, op_name_of

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
