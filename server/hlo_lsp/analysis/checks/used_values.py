"""The Used values block against the allocations (dump-format.md §3.2: U1-U7)."""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.context import CheckContext, problem
from hlo_lsp.model.buffer_assignment import BufferValue, UsedValue, format_index
from hlo_lsp.parsing.syntax import TupleShape, subshape
from hlo_lsp.problems import Problem, Severity


def check(context: CheckContext) -> Iterator[Problem]:
    buffers = context.buffers
    if buffers is None or not buffers.has_used_values_section:
        return
    compare = buffers.has_allocations_section
    previous: UsedValue | None = None
    for used in buffers.used_values:
        if previous is not None and used.value_id < previous.value_id:
            yield problem(used.place, Severity.WARNING, "used-value-order",
                          f"value {used.value_id} listed after {previous.value_id}; Used values are sorted by id")
        previous = used
        yield from _check_block(used)
        if not compare:
            continue
        value = context.values_by_id.get(used.value_id)
        if value is None:
            yield problem(used.place, Severity.ERROR, "unallocated-used-value",
                          f"value {used.value_id} ({used.label}) is not in any allocation")
            continue
        yield from _check_header(used, value)
        yield from _check_shape(context, used, value)
    if compare:
        listed = {used.value_id for used in buffers.used_values}
        for value_id, value in context.values_by_id.items():
            if value_id not in listed:
                yield problem(value.place, Severity.ERROR, "missing-used-value",
                              f"{value.label} (value {value_id}) has no block under Used values")


def _check_header(used: UsedValue, value: BufferValue) -> Iterator[Problem]:
    expected = value.short_string
    if used.header != expected:
        yield problem(used.place, Severity.ERROR, "value-header",
                      f"header {used.header} differs from the allocation's {expected}",
                      ((value.place, f"allocation {value.allocation}"),))


def _check_block(used: UsedValue) -> Iterator[Problem]:
    if used.positions:
        first = used.positions[0]
        if first.name != used.name or (first.index or ()) != (used.index or ()):
            spaced = "" if first.index is None else " " + format_index(first.index)
            yield problem(first.place, Severity.ERROR, "defining-position",
                          f"first position {first.name}{spaced} is not the value's own {used.label}")
    if used.instruction_name is not None and used.instruction_name != used.name:
        yield problem(used.instruction_place or used.place, Severity.ERROR, "from-instruction-name",
                      f"value {used.label} comes from instruction {used.instruction_name}")


def _check_shape(context: CheckContext, used: UsedValue, value: BufferValue) -> Iterator[Problem]:
    instruction_shape = context.shape(used.instruction_shape) if used.instruction_shape else None
    if instruction_shape is None:
        return
    is_tuple = isinstance(instruction_shape, TupleShape)
    if is_tuple != (used.index is not None):
        what = "a tuple, so the value needs an index" if is_tuple else "not a tuple, so the value has no index"
        yield problem(used.place, Severity.ERROR, "value-index", f"{used.label}: instruction {used.name} is {what}")
        return
    own = subshape(instruction_shape, used.index or ())
    allocated = context.shape(value.shape_text)
    place = used.instruction_place or used.place
    if own is None:
        yield problem(place, Severity.ERROR, "value-shape",
                      f"{used.label}: instruction shape {instruction_shape} has no index {format_index(used.index)}")
    elif allocated is not None and str(own) != str(allocated):
        yield problem(place, Severity.ERROR, "value-shape",
                      f"{used.label} is {allocated} in its allocation but its instruction gives {own}",
                      ((value.place, f"allocation {value.allocation}"),))
