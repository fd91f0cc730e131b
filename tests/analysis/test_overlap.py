"""Inconsistent offsets (dump-format.md §3.4, O1): values that share bytes while both are live."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from helpers import COMBINED_MLP, SPLIT_CONTROL_FLOW, SPLIT_MLP, copy_module, module_of, plant, problems_of, where
from hlo_lsp.analysis.checks import overlap
from hlo_lsp.problems import Severity

ERROR = Severity.ERROR


def line_of(path: Path, text: str) -> int:
    """The 0-based line of the one line of `path` that contains `text`."""
    lines = [number for number, line in enumerate(path.read_text().split("\n")) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def live_range(stem: Path, name: str) -> tuple[int, int]:
    buffers = module_of(Path(f"{stem}.txt")).buffer_assignment
    assert buffers is not None
    entry = buffers.live_range_of(name)
    assert entry is not None, name
    return entry.start, entry.end


def test_split_dump_overlap_is_an_error_on_both_values_pointing_at_each_other(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    ba, lr = Path(f"{stem}-buffer-assignment.txt"), Path(f"{stem}-live-range.txt")
    assert problems_of(tmp_path) == []
    # add_reduce_fusion (offset 0, size 128) is live 12-14, reduce_log_fusion 13-14: both live at 13.
    assert live_range(stem, "add_reduce_fusion") == (12, 14)
    assert live_range(stem, "reduce_log_fusion") == (13, 14)
    line = plant(ba, "<69 reduce_log_fusion @0> (size=128,offset=128)", "<69 reduce_log_fusion @0> (size=128,offset=0)")
    other = line_of(ba, "<68 add_reduce_fusion @0>")

    problems = problems_of(tmp_path)

    assert where(problems) == [(ba.name, other, ERROR, "overlapping-values"),
                               (ba.name, line, ERROR, "overlapping-values")]
    first, second = problems
    assert first.message.startswith("add_reduce_fusion overlaps reduce_log_fusion in allocation 14")
    assert second.message.startswith("reduce_log_fusion overlaps add_reduce_fusion in allocation 14")
    for problem in problems:
        assert "bytes [0, 128)" in problem.message and "both are live (13-14" in problem.message
    assert [(Path(r.source).name, r.range.start.line) for r in first.related] == [
        (ba.name, line), (lr.name, line_of(lr, "reduce_log_fusion{}:13-14"))]
    assert [(Path(r.source).name, r.range.start.line) for r in second.related] == [
        (ba.name, other), (lr.name, line_of(lr, "add_reduce_fusion{}:12-14"))]
    assert "offset 0, size 128" in first.related[0].message


def test_combined_dump_overlap_is_an_error_on_both_values(tmp_path: Path) -> None:
    stem = copy_module(COMBINED_MLP, tmp_path)
    ba = Path(f"{stem}-buffer-assignment.txt")
    assert problems_of(tmp_path) == []
    assert live_range(stem, "add_reduce_fusion") == (12, 14)
    assert live_range(stem, "reduce_log_fusion") == (13, 14)
    line = plant(ba, "<66 reduce_log_fusion @0> (size=128,offset=128)", "<66 reduce_log_fusion @0> (size=128,offset=0)")
    other = line_of(ba, " value: <65 add_reduce_fusion @0>")

    problems = problems_of(tmp_path)

    assert where(problems) == [(ba.name, other, ERROR, "overlapping-values"),
                               (ba.name, line, ERROR, "overlapping-values")]
    assert [(r.range.start.line) for r in problems[0].related] == [line, line_of(ba, "    reduce_log_fusion{}:13-14")]
    assert [(r.range.start.line) for r in problems[1].related] == [other, line_of(ba, "    add_reduce_fusion{}:12-14")]
    assert "both use bytes [0, 128)" in problems[1].message


def test_control_flow_overlap_of_long_lived_scalars(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_CONTROL_FLOW, tmp_path)
    ba = Path(f"{stem}-buffer-assignment.txt")
    assert problems_of(tmp_path) == []
    assert live_range(stem, "copy.5") == (20, 40)
    assert live_range(stem, "wrapped_clamp") == (19, 37)
    line = plant(ba, "<122 wrapped_clamp @0> (size=4,offset=1088)", "<122 wrapped_clamp @0> (size=4,offset=1024)")

    problems = problems_of(tmp_path)

    copy5 = line_of(ba, "<119 copy.5 @0>")
    assert where(problems) == [(ba.name, copy5, ERROR, "overlapping-values"),
                               (ba.name, line, ERROR, "overlapping-values")]
    assert "in allocation 22: both use bytes [1024, 1028) while both are live (20-37" in problems[1].message
    assert problems[1].related[0].range.start.line == copy5


def test_touching_live_ranges_in_real_output_are_not_an_error() -> None:
    # ynn_fusion (11-14) and broadcast_subtract_fusion (14-15) share allocation 4's bytes and meet at 14.
    buffers = module_of(Path(f"{SPLIT_MLP}.txt")).buffer_assignment
    assert buffers is not None
    first, second = buffers.allocations[4].values
    assert (first.offset, first.size) == (second.offset, second.size)
    one, two = buffers.live_range_of(first.name, first.index), buffers.live_range_of(second.name, second.index)
    assert one is not None and two is not None
    assert max(one.start, two.start) == min(one.end, two.end) == 14
    assert problems_of(SPLIT_MLP.parent) == []


def test_moving_a_value_onto_one_it_only_touches_is_not_an_error(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    # ynn_fusion.1 (9-10) onto broadcast_maximum_fusion (8-9) and ynn_fusion.2 (7-8): they meet at 9 at most.
    plant(Path(f"{stem}-buffer-assignment.txt"), "<62 ynn_fusion.1 @0> (size=32768,offset=0)",
          "<62 ynn_fusion.1 @0> (size=32768,offset=32768)")
    assert problems_of(tmp_path) == []


def test_combined_dump_touching_values_are_not_an_error(tmp_path: Path) -> None:
    stem = copy_module(COMBINED_MLP, tmp_path)
    # dot.20 (6-8) onto broadcast_maximum_fusion (4-6) and dot.8 (2-4).
    plant(Path(f"{stem}-buffer-assignment.txt"), "<59 dot.20 @0> (size=32768,offset=0)",
          "<59 dot.20 @0> (size=32768,offset=32768)")
    assert problems_of(tmp_path) == []


def test_thread_local_values_have_no_live_range_and_are_not_checked() -> None:
    buffers = module_of(Path(f"{SPLIT_MLP}.txt")).buffer_assignment
    assert buffers is not None
    thread_local = [v for a in buffers.allocations if a.is_thread_local for v in a.values]
    assert len(thread_local) == 6
    assert all(buffers.live_range_of(value.name, value.index) is None for value in thread_local)
    assert problems_of(SPLIT_MLP.parent) == []


def test_allocation_with_a_value_without_live_range_is_not_judged(tmp_path: Path) -> None:
    # §3.4: restrict O1 to allocations whose values all have live ranges.
    stem = copy_module(SPLIT_MLP, tmp_path)
    plant(Path(f"{stem}-buffer-assignment.txt"), "<69 reduce_log_fusion @0> (size=128,offset=128)",
          "<69 reduce_log_fusion @0> (size=128,offset=0)")
    line = plant(Path(f"{stem}-buffer-assignment.txt"), "<64 add_maximum_fusion @0>", "<64 add_maximum_fusion @0>")
    plant(Path(f"{stem}-live-range.txt"), "    add_maximum_fusion{}:10-11\n", "")
    # The missing live range is reported (L8); the overlap in that allocation is not judged.
    problems = problems_of(tmp_path)
    assert [(p.range.start.line, p.code) for p in problems] == [(line, "value-without-live-range")]


def test_zero_size_values_are_skipped(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    ba = Path(f"{stem}-buffer-assignment.txt")
    # A zero-size value (a token, say) at the bytes of a value live at the same time.
    line = plant(ba, "<69 reduce_log_fusion @0> (size=128,offset=128)", "<69 reduce_log_fusion @0> (size=0,offset=0)")
    # Only the size itself is wrong; a value of no bytes overlaps nothing.
    assert where(problems_of(tmp_path)) == [(ba.name, line, Severity.WARNING, "value-size")]


@dataclass
class _Value:
    label: str
    offset: int
    end: int


@dataclass
class _Live:
    start: int
    end: int


values_and_ranges = st.lists(st.tuples(st.integers(0, 64), st.integers(1, 32), st.integers(0, 20), st.integers(0, 20)),
                             max_size=25)


@given(values_and_ranges)
def test_the_sweep_finds_exactly_the_pairs_a_comparison_of_every_pair_finds(drawn: list) -> None:  # type: ignore[type-arg]
    """Sharing bytes and sharing more than an endpoint of their live ranges, over random values."""
    timed = [(_Value(f"v{i}", offset, offset + size), _Live(min(a, b), max(a, b)))
             for i, (offset, size, a, b) in enumerate(drawn)]
    expected = {frozenset((first.label, second.label)) for (first, first_live), (second, second_live)
                in itertools.combinations(timed, 2)
                if max(first.offset, second.offset) < min(first.end, second.end)
                and max(first_live.start, second_live.start) < min(first_live.end, second_live.end)}
    found = []
    with mock.patch.object(overlap, "_report", lambda allocation, a, a_live, b, b_live: iter([(a.label, b.label)])):
        found = list(overlap._overlaps(None, list(timed)))  # type: ignore[arg-type]
    assert len(found) == len(expected) and {frozenset(pair) for pair in found} == expected
