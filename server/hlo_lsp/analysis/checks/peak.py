"""The peak XLA printed against its own peak method (dump-format.md §3.5: P1-P5).

The peak time is recomputed with XLA's algorithm (analysis/memory.py), never as
the naive argmax of live bytes (P6), and the peak bytes are not compared with
Total bytes used (P7): both are known false positives on real output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from hlo_lsp.analysis.context import CheckContext, problem
from hlo_lsp.analysis.memory import SizedRange, live_at, new_format_peak, peak_moment
from hlo_lsp.model.buffer_assignment import LiveRangeSection
from hlo_lsp.problems import Problem, Severity


def check(context: CheckContext) -> Iterator[Problem]:
    buffers = context.buffers
    if buffers is None or buffers.live_range is None or buffers.live_range.peak_time is None:
        return
    section = buffers.live_range
    yield from _check_cumulative(section)
    sized = context.sized_live_ranges
    if sized is None:
        return  # some instruction's shape is unknown: the sizes cannot be recomputed
    moment = peak_moment((s.live_range.start, s.live_range.end, s.instruction_bytes) for s in sized)
    if moment != section.peak_time and section.peak_place is not None:
        yield problem(section.peak_place, Severity.WARNING, "peak-time",
                      f"the peak is at {moment} by XLA's own accounting, not {section.peak_time}")
        return
    if section.peak_format == "new":
        yield from _check_new_list(section, sized)
    elif section.peak_format == "old":
        yield from _check_old_list(section, sized)


def _check_cumulative(section: LiveRangeSection) -> Iterator[Problem]:
    # A line is wrong when its cumulative agrees neither with the sum of the sizes so far
    # nor with the previous line's cumulative plus its size: one bad number, one error.
    running = previous = 0
    for entry in section.peak:
        if entry.cumulative is None:
            return
        running += entry.size
        if entry.cumulative not in (running, previous + entry.size):
            yield problem(entry.place, Severity.ERROR, "peak-cumulative",
                          f"cumulative is {entry.cumulative} but the sizes so far add up to {running}")
        previous = entry.cumulative


def _check_new_list(section: LiveRangeSection, sized: list[SizedRange]) -> Iterator[Problem]:
    assert section.peak_time is not None
    expected = new_format_peak(sized, section.peak_time)
    printed = [(entry.label, entry.size) for entry in section.peak]
    yield from _compare_members(section, Counter(label for label, _ in expected))
    sizes = dict(expected)
    for entry in section.peak:
        size = sizes.get(entry.label)
        if size is not None and size != entry.size:
            yield problem(entry.place, Severity.WARNING, "peak-bytes",
                          f"{entry.label} takes {size} bytes, not {entry.size}")
    if sorted(printed) == sorted(expected) and printed != expected:
        yield problem(section.peak[0].place, Severity.WARNING, "peak-order",
                      "the peak list is not sorted by bytes (largest first), then name and index")


def _check_old_list(section: LiveRangeSection, sized: list[SizedRange]) -> Iterator[Problem]:
    assert section.peak_time is not None
    live = live_at(sized, section.peak_time)
    expected = Counter(item.live_range.name for item in live)
    printed = Counter(entry.name for entry in section.peak)
    for name in (printed - expected):
        entry = next(e for e in section.peak if e.name == name)
        yield problem(entry.place, Severity.ERROR, "peak-list",
                      f"{name} is listed {printed[name]} time(s) at the peak, but {expected[name]} of its "
                      f"values are live at {section.peak_time}")
    for name in (expected - printed):
        yield _missing(section, name)
    whole = {item.live_range.name: item.instruction_bytes for item in live}
    for entry in section.peak:
        if entry.name in whole and whole[entry.name] != entry.size:
            yield problem(entry.place, Severity.WARNING, "peak-bytes",
                          f"{entry.name} takes {whole[entry.name]} bytes, not {entry.size}")


def _compare_members(section: LiveRangeSection, expected: Counter[str]) -> Iterator[Problem]:
    listed: Counter[str] = Counter()
    for entry in section.peak:
        listed[entry.label] += 1
        if listed[entry.label] > expected[entry.label]:
            reason = "more than once" if expected[entry.label] else f"but is not live at {section.peak_time}"
            yield problem(entry.place, Severity.ERROR, "peak-list", f"{entry.label} is listed at the peak {reason}")
    for label in sorted(expected - listed):
        yield _missing(section, label)


def _missing(section: LiveRangeSection, label: str) -> Problem:
    assert section.peak_place is not None
    return problem(section.peak_place, Severity.ERROR, "peak-list",
                   f"{label} is live at {section.peak_time} but missing from the peak list")
