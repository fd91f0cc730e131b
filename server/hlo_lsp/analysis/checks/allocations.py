"""Allocation and value structure (dump-format.md §3.1: A1-A8, V2-V6, V5t, V8)."""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.context import CheckContext, problem
from hlo_lsp.model.buffer_assignment import Allocation, BufferValue
from hlo_lsp.model.sizes import dense_size, tiled_size
from hlo_lsp.parsing.syntax import ArrayShape, TupleShape
from hlo_lsp.problems import Problem, Severity

_EXCLUSIVE_KINDS = ("parameter", "constant", "thread-local")


def check(context: CheckContext) -> Iterator[Problem]:
    buffers = context.buffers
    if buffers is None:
        return
    seen_ids: dict[int, BufferValue] = {}
    for position, allocation in enumerate(buffers.allocations):
        if allocation.index != position:
            yield problem(allocation.place, Severity.ERROR, "allocation-index",
                          f"allocation {allocation.index} is number {position} in the file; indices run 0..N-1")
        yield from _check_header(allocation)
        yield from _check_values(context, allocation)
        for value in allocation.values:
            first = seen_ids.setdefault(value.value_id, value)
            if first is not value:
                yield problem(value.place, Severity.ERROR, "duplicate-value-id",
                              f"value id {value.value_id} is also used by {first.label} "
                              f"in allocation {first.allocation}", ((first.place, "first use of the id"),))


def _check_header(allocation: Allocation) -> Iterator[Problem]:
    place = allocation.place
    if allocation.unread.strip():
        return  # a syntax problem on this header already; its kinds cannot be judged
    exclusive = [kind for kind, present in zip(_EXCLUSIVE_KINDS, (
        allocation.is_parameter, allocation.is_constant, allocation.is_thread_local)) if present]
    if len(exclusive) > 1:
        yield problem(place, Severity.ERROR, "allocation-kinds",
                      f"allocation {allocation.index} is both {' and '.join(exclusive)}")
    others = bool(exclusive) or allocation.maybe_live_out
    if allocation.is_preallocated_temp == others:
        expected = "must not be" if others else "must be"
        yield problem(place, Severity.ERROR, "preallocated-temp",
                      f"allocation {allocation.index} {expected} preallocated-temp: it is "
                      + (", ".join(allocation.kinds()) if others else "neither parameter, constant, "
                         "thread-local nor maybe-live-out"))
    if allocation.output_shape is not None and not allocation.maybe_live_out:
        yield problem(place, Severity.WARNING, "output-not-live-out",
                      f"allocation {allocation.index} holds the output but is not maybe-live-out")
    if not allocation.values:
        yield problem(place, Severity.INFO, "empty-allocation", f"allocation {allocation.index} has no values")


def _check_values(context: CheckContext, allocation: Allocation) -> Iterator[Problem]:
    previous: BufferValue | None = None
    largest_end = 0
    for value in allocation.values:
        if previous is not None and value.value_id < previous.value_id:
            yield problem(value.place, Severity.WARNING, "value-order",
                          f"value {value.value_id} listed after {previous.value_id}; values are sorted by id")
        previous = value
        largest_end = max(largest_end, value.end)
        if value.end > allocation.size:
            yield problem(value.place, Severity.ERROR, "value-outside-allocation",
                          f"{value.label} occupies bytes [{value.offset}, {value.end}) but allocation "
                          f"{allocation.index} has only {allocation.size} bytes",
                          ((allocation.place, f"allocation {allocation.index}: size {allocation.size}"),))
        if value.color is not None and value.color != allocation.color:
            yield problem(value.place, Severity.ERROR, "value-color",
                          f"{value.label} has color {value.color} but allocation {allocation.index} "
                          f"has color {allocation.color}")
        yield from _check_value_shape(context, value)
    if allocation.values and 0 < largest_end < allocation.size:
        yield problem(allocation.place, Severity.WARNING, "allocation-size",
                      f"allocation {allocation.index} is {allocation.size} bytes but its values end at "
                      f"{largest_end} ({allocation.size - largest_end} bytes unused)")
    if allocation.parameter_shape is not None:
        yield from _check_parameter_shape(context, allocation)


def _check_value_shape(context: CheckContext, value: BufferValue) -> Iterator[Problem]:
    shape = context.shape(value.shape_text)
    if shape is None:
        return
    if isinstance(shape, TupleShape):
        if not context.tiled and value.size != dense_size(shape):
            yield problem(value.place, Severity.WARNING, "value-size",
                          f"{value.label} is a tuple of {len(shape.elements)}: its table takes "
                          f"{dense_size(shape)} bytes, not {value.size}")
        return
    if context.tiled and shape.layout is None:
        yield from _check_layoutless_size(value, shape)
        return
    expected = tiled_size(shape) if context.tiled else dense_size(shape)
    if expected is not None and expected != value.size:
        rule = "tiled (padded)" if context.tiled else "dense"
        yield problem(value.place, Severity.WARNING, "value-size",
                      f"{value.label}: {value.shape_text} takes {expected} bytes ({rule}), not {value.size}")
    space = shape.layout.memory_space if isinstance(shape, ArrayShape) and shape.layout else None
    if value.color is not None and (space or 0) != value.color:
        yield problem(value.place, Severity.WARNING, "memory-space",
                      f"{value.label} has color {value.color} but its layout says memory space {space or 0}")


def _check_layoutless_size(value: BufferValue, shape: ArrayShape) -> Iterator[Problem]:
    """A TPU value printed without a layout (a reducer's scalar parameter) is padded as the backend
    sees fit (`f32[]` in 4,096 bytes): it holds at least its dense size, no more is known."""
    dense = dense_size(shape)
    if dense is not None and value.size < dense:
        yield problem(value.place, Severity.WARNING, "value-size",
                      f"{value.label}: {value.shape_text} takes at least {dense} bytes (dense), not {value.size}")


def _check_parameter_shape(context: CheckContext, allocation: Allocation) -> Iterator[Problem]:
    expected = allocation.parameter_shape
    if expected is None or expected.startswith("<"):
        return
    for value in allocation.values:
        shape = context.shape(value.shape_text)
        if shape is not None and str(shape) == expected:
            return
    yield problem(allocation.place, Severity.WARNING, "parameter-shape",
                  f"no value of allocation {allocation.index} has the parameter's shape {expected}")
