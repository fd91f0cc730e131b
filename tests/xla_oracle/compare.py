"""What hlo-lsp reads against what XLA's parser reads: the differences of two models, modulo the
normalizations XLA makes when it builds and prints a module.

XLA renames an instruction name that another computation already used (`a` becomes `a.1`), gives
nested instructions names of their own (`negate.anon`: hlo-lsp reads a nested instruction as part of
its user, whose operands are then those of the nested one), fills the default layout of every array
shape, infers a shape left out, marks the last instruction ROOT where none is, makes the last
computation ENTRY where none is, prints an async chain's computation on its start only, and prints the
instructions in an order of its own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from xla_oracle.ours import ComputationModel, Instruction, Model

_ARRAY = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\](\{)?")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_COUNTER = re.compile(r"\.\d+$")


def normal_shape(shape: str) -> str:
    """A shape as XLA prints it: no comments or spaces, every array's default layout written, no dim
    level types (XLA prints none for a dense array: `{0:D(C)}` as `{0}`)."""
    text = re.sub(r"\s+", "", _COMMENT.sub("", shape))
    text = re.sub(r":\}", "}", re.sub(r"D\([^)]*\)", "", text))

    def with_layout(match: re.Match[str]) -> str:
        kind, dims, brace = match.groups()
        rank = len(dims.split(",")) if dims else 0
        if brace or rank == 0 or kind in ("token", "opaque"):
            return match.group(0)
        return f"{kind}[{dims}]{{{','.join(str(d) for d in reversed(range(rank)))}}}"

    return _ARRAY.sub(with_layout, text)


def as_xla_builds(model: Model) -> Model:
    """The model with XLA's defaults: the last computation ENTRY where none is, the last instruction
    ROOT where none is."""
    entry_marked = any(computation.entry for computation in model)
    built = []
    for number, computation in enumerate(model):
        instructions = computation.instructions
        if instructions and not any(instruction.root for instruction in instructions):
            instructions = (*instructions[:-1], replace(instructions[-1], root=True))
        entry = computation.entry or (not entry_marked and number == len(model) - 1)
        built.append(ComputationModel(computation.name, entry, instructions))
    return tuple(built)


def _renaming(name: str, xla: str) -> bool:
    """Whether XLA may have renamed `name` to `xla`: a counter added or changed (`a` -> `a.1`, `a.1` -> `a.2`),
    or sanitized (`f32` -> `f32_`)."""
    return xla == name or _COUNTER.sub("", xla) == _COUNTER.sub("", name) or xla == name + "_"


def aligned_names(ours: tuple[str, ...], xla: tuple[str, ...]) -> tuple[dict[str, str], list[str], list[str]]:
    """Our names against XLA's, both in text order: (ours -> XLA's, ours XLA has no name for, XLA's names we
    did not read). A name pairs with the next of XLA's names that is itself or a renaming of it; XLA's names
    skipped on the way are its own (nested instructions, inline computations)."""
    mapping: dict[str, str] = {}
    unmatched: list[str] = []
    position = 0
    for name in ours:
        found = next((index for index in range(position, len(xla)) if _renaming(name, xla[index])), None)
        if found is None:
            unmatched.append(name)
            continue
        mapping[name] = xla[found]
        position = found + 1
    paired = set(mapping.values())
    return mapping, unmatched, [name for name in xla if name not in paired]


Names = tuple[tuple[str, tuple[str, ...]], ...]


def differences(original: Model, printed: Model, xla_names: Names) -> list[tuple[str, str]]:
    """(what differs, detail) between our model of a text and our model of XLA's printing of it; `xla_names`
    are the computations XLA built, each with its instructions, in the order it built them."""
    ours = as_xla_builds(original)
    theirs = {computation.name: _nested_inlined(computation) for computation in printed}
    names = {computation: tuple(name for name in instructions if not _ANON.search(name))
             for computation, instructions in xla_names}
    mapping, unmatched, extra = aligned_names(tuple(c.name for c in ours), tuple(names))
    found = [("computation we read, XLA does not", name) for name in unmatched]
    found += [("computation XLA reads, we do not", name) for name in extra if name in theirs]
    for computation in ours:
        other = theirs.get(mapping.get(computation.name, ""))  # not printed: an async op's wrapped computation
        if other is not None:
            found += _computation_differences(computation, other, names[other.name], mapping)
    return found


_ANON = re.compile(r"\.anon(\.\d+)?$")  # XLA's name for a nested instruction


def _nested_inlined(computation: ComputationModel) -> ComputationModel:
    """The computation with XLA's nested instructions (`negate.anon`) dropped, each user's operand that
    names one replaced by the nested instruction's own operands."""
    nested = {i.name: i for i in computation.instructions if _ANON.search(i.name)}
    if not nested:
        return computation

    def inlined(operands: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(name for operand in operands for name in (
            inlined(nested[operand].operands) if operand in nested else (operand,)))

    return replace(computation, instructions=tuple(
        replace(i, operands=inlined(i.operands)) for i in computation.instructions if i.name not in nested))


def _computation_differences(ours: ComputationModel, theirs: ComputationModel, xla_names: tuple[str, ...],
                             computations: dict[str, str]) -> list[tuple[str, str]]:
    where = f"computation {ours.name}"
    found = [] if ours.entry == theirs.entry else [("ENTRY", f"{where}: ours {ours.entry}, XLA's {theirs.entry}")]
    mapping, unmatched, extra = aligned_names(tuple(i.name for i in ours.instructions), xla_names)
    found += [("instruction we read, XLA does not", f"{where}: {name}") for name in unmatched]
    found += [("instruction XLA reads, we do not", f"{where}: {name}") for name in extra]
    printed = {instruction.name: instruction for instruction in theirs.instructions}
    for instruction in ours.instructions:
        other = printed.get(mapping.get(instruction.name, ""))
        if other is not None:
            found += _instruction_differences(_renamed(instruction, mapping, computations), other, where)
    return found


def _renamed(instruction: Instruction, mapping: dict[str, str], computations: dict[str, str]) -> Instruction:
    return replace(instruction, name=mapping.get(instruction.name, instruction.name),
                   operands=tuple(mapping.get(name, name) for name in instruction.operands),
                   called=tuple(computations.get(name, name) for name in instruction.called))


# XLA prints the computation of an async chain on its start only.
_CALLS_NOT_PRINTED = frozenset(("async-update", "async-done"))


def _printed_as_wrapped(ours: str, theirs: str) -> bool:
    """XLA prints `async-start(...), calls=c` of a computation of one instruction `op` as `op-start(...)`
    (likewise -update and -done)."""
    kind = ours.removeprefix("async")
    return ours.startswith("async-") and theirs != ours and theirs.endswith(kind)


def _instruction_differences(ours: Instruction, theirs: Instruction, where: str) -> list[tuple[str, str]]:
    found = []
    at = f"{where}, {ours.name}"
    fields = ["opcode", "operands", "root"] if ours.opcode in _CALLS_NOT_PRINTED else ["opcode", "operands",
                                                                                      "called", "root"]
    if _printed_as_wrapped(ours.opcode, theirs.opcode):
        fields = ["operands", "root"]
    for field in fields:
        mine, other = getattr(ours, field), getattr(theirs, field)
        if mine != other:
            found.append((field, f"{at}: ours {mine!r}, XLA's {other!r}"))
    if ours.shape is not None and normal_shape(ours.shape) != normal_shape(theirs.shape or ""):
        found.append(("shape", f"{at}: ours {ours.shape!r}, XLA's {theirs.shape!r}"))
    return found
