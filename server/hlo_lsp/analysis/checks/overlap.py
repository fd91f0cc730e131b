"""Inconsistent offsets: values that share bytes while both are live (dump-format.md §3.4, O1).

Two values of one allocation whose byte ranges [offset, offset+size) intersect
must not be live at the same time: if their live ranges share more than an
endpoint (max(start) < min(end)), one overwrites the other.
"""

from __future__ import annotations

from collections.abc import Iterator

from hlo_lsp.analysis.context import CheckContext, problem
from hlo_lsp.model.buffer_assignment import Allocation, BufferValue, LiveRange
from hlo_lsp.problems import Problem, Severity


def check(context: CheckContext) -> Iterator[Problem]:
    buffers = context.buffers
    if buffers is None or buffers.live_range is None:
        return
    for allocation in buffers.allocations:
        timed = _timed_values(context, allocation)
        if timed is not None:
            yield from _overlaps(allocation, timed)


def _timed_values(context: CheckContext, allocation: Allocation) -> list[tuple[BufferValue, LiveRange]] | None:
    """The allocation's sized values with their live ranges; None if some value has none."""
    timed = []
    for value in allocation.values:
        if value.size == 0:
            continue
        live = context.live_range_of(value)
        if live is None:
            return None  # thread-local or otherwise unscheduled: the check cannot judge
        timed.append((value, live))
    return timed


def _overlaps(allocation: Allocation, timed: list[tuple[BufferValue, LiveRange]]) -> Iterator[Problem]:
    """Sweeps the values in order of their live ranges' starts, comparing each with the values still
    live: XLA's heap reuses the same bytes for many values over time, so few are live at once while
    many share bytes."""
    timed.sort(key=lambda pair: pair[1].start)
    live_now: list[tuple[BufferValue, LiveRange]] = []
    for value, live in timed:
        if live.end <= live.start:
            continue  # live for an instant only: it shares no more than an endpoint with anything
        live_now = [pair for pair in live_now if pair[1].end > live.start]
        for other, other_live in live_now:
            if other.offset < value.end and value.offset < other.end:
                yield from _report(allocation, other, other_live, value, live)
        live_now.append((value, live))


def _report(allocation: Allocation, first: BufferValue, first_live: LiveRange,
            second: BufferValue, second_live: LiveRange) -> Iterator[Problem]:
    shared_from = max(first.offset, second.offset)
    shared_to = min(first.end, second.end)
    both_live = f"{max(first_live.start, second_live.start)}-{min(first_live.end, second_live.end)}"
    for this, this_live, other, other_live in ((first, first_live, second, second_live),
                                                (second, second_live, first, first_live)):
        message = (f"{this.label} overlaps {other.label} in allocation {allocation.index}: both use bytes "
                   f"[{shared_from}, {shared_to}) while both are live ({both_live}; live ranges "
                   f"{this_live.start}-{this_live.end} and {other_live.start}-{other_live.end})")
        yield problem(this.place, Severity.ERROR, "overlapping-values", message,
                      ((other.place, f"{other.label}: offset {other.offset}, size {other.size}"),
                       (other_live.place, f"live range of {other.label}")))
