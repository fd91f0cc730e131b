"""The HloLiveRange schedule and buffer live ranges (dump-format.md §3.3: L1-L7, L9)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from hlo_lsp.analysis.context import CheckContext, problem
from hlo_lsp.model.buffer_assignment import LiveRangeSection
from hlo_lsp.model.hlo_module import HloModule
from hlo_lsp.problems import Problem, Severity


def check(context: CheckContext) -> Iterator[Problem]:
    buffers = context.buffers
    if buffers is None or buffers.live_range is None:
        return
    section = buffers.live_range
    yield from _check_schedule(section)
    end = _schedule_end(section)
    positions = {entry.name: entry.time for entry in section.schedule}
    allocated = {(value.name, value.index or ()) for value in buffers.values()}
    for entry in section.ranges:
        if not 0 <= entry.start <= entry.end <= end:
            yield problem(entry.place, Severity.ERROR, "live-range-bounds",
                          f"live range {entry.start}-{entry.end} of {entry.label} is outside 0..{end}"
                          + (" (it ends before it starts)" if entry.start > entry.end else ""))
        defined_at = positions.get(entry.name)
        if defined_at is None:
            yield problem(entry.place, Severity.ERROR, "unknown-live-range-name",
                          f"{entry.name} is not in the InstructionSequence",
                          ((section.place, "the schedule"),))
        elif entry.start > defined_at:
            yield problem(entry.place, Severity.WARNING, "live-range-start",
                          f"{entry.label} starts at {entry.start}, after its instruction runs at {defined_at}")
        if buffers.has_allocations_section and (entry.name, entry.index) not in allocated:
            yield problem(entry.place, Severity.WARNING, "unallocated-live-range",
                          f"{entry.label} has a live range but no allocation holds it")
    yield from _check_entry_parameters(context, end)
    yield from _check_values_have_ranges(context)


def _schedule_end(section: LiveRangeSection) -> int:
    """The schedule's end time: its length when `max` disagrees (reported once, by schedule-length)."""
    return len(section.schedule) if section.schedule else section.max_time


def _check_values_have_ranges(context: CheckContext) -> Iterator[Problem]:
    """L8, restricted as dump-format.md says: thread-local values never have a live range, nor do
    the values of computations the flat schedule leaves out (a sort's comparator, a reducer): XLA
    allocates their constants all the same. Without the HLO module, which computation holds a
    constant is unknown, so constants are not asked for one."""
    buffers = context.buffers
    if buffers is None or not context.live_ranges or buffers.live_range is None:
        return
    missing = [(allocation, value) for allocation in buffers.allocations if not allocation.is_thread_local
               for value in allocation.values if context.live_range_of(value) is None]
    if not missing:
        return
    unscheduled = _outside_schedule(context.hlo, buffers.live_range)
    for allocation, value in missing:
        if allocation.is_constant if unscheduled is None else unscheduled(value.name):
            continue
        yield problem(value.place, Severity.WARNING, "value-without-live-range",
                      f"{value.label} is allocated but has no entry under BufferLiveRange")


def _outside_schedule(hlo: HloModule | None, section: LiveRangeSection) -> Callable[[str], bool] | None:
    """Whether an instruction is defined in a computation none of whose instructions is scheduled
    (None without the module)."""
    if hlo is None:
        return None
    scheduled = set()
    for entry in section.schedule:
        site = hlo.site(entry.name)
        if site is not None:
            scheduled.add(site.computation)

    def outside(name: str) -> bool:
        site = hlo.site(name)
        return site is not None and site.computation not in scheduled

    return outside


def _check_schedule(section: LiveRangeSection) -> Iterator[Problem]:
    seen: dict[str, int] = {}
    for position, entry in enumerate(section.schedule):
        if entry.time != position:
            yield problem(entry.place, Severity.ERROR, "schedule-numbering",
                          f"schedule entry {entry.time} is number {position}; entries run 0..N-1")
        if entry.name in seen:
            yield problem(entry.place, Severity.ERROR, "schedule-duplicate",
                          f"{entry.name} is scheduled twice (also at {seen[entry.name]})")
        seen.setdefault(entry.name, entry.time)
    if section.max_time != len(section.schedule):
        yield problem(section.place, Severity.ERROR, "schedule-length",
                      f"HloLiveRange max is {section.max_time} but the InstructionSequence has "
                      f"{len(section.schedule)} entries")


def _check_entry_parameters(context: CheckContext, end: int) -> Iterator[Problem]:
    """Entry parameters that do not alias an output live over the whole program."""
    buffers = context.buffers
    if buffers is None:
        return
    aliased = context.hlo.aliased_parameters() if context.hlo is not None else None
    parameter_names = _entry_parameter_names(context)
    for allocation in buffers.allocations:
        if not allocation.is_parameter or allocation.maybe_live_out:
            continue
        for value in allocation.values:
            if parameter_names is not None and value.name not in parameter_names:
                continue
            if aliased is not None and (allocation.parameter_number, allocation.parameter_index or ()) in aliased:
                continue
            live = context.live_range_of(value)
            if live is not None and (live.start, live.end) != (0, end):
                yield problem(live.place, Severity.WARNING, "parameter-live-range",
                              f"entry parameter {value.label} is live {live.start}-{live.end}; a parameter "
                              f"that does not alias an output lives 0-{end}",
                              ((allocation.place, f"allocation {allocation.index}"),))


def _entry_parameter_names(context: CheckContext) -> set[str] | None:
    hlo = context.hlo
    if hlo is None or hlo.entry is None:
        return None
    names = set()
    for line in hlo.entry.instruction_lines:
        site = hlo.site_at_line(line)
        if site is not None and site.opcode == "parameter":
            names.add(site.name)
    return names
