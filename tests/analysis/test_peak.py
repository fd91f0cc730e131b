"""The peak XLA printed against its own peak method (dump-format.md §3.5) on real dumps, both formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import (
    COMBINED_MLP,
    GPU_SEED,
    SPLIT_MLP,
    TPU_JAX_SEED,
    TPU_SEED,
    module_of,
    plant_in_copy,
    problems_of,
    where,
)
from hlo_lsp.analysis.memory import ShapeLookup, sized_ranges
from hlo_lsp.problems import Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING
SPLIT_LR, COMBINED_LR = (SPLIT_MLP, "-live-range.txt"), (COMBINED_MLP, "-buffer-assignment.txt")
GPU, TPU, TPU_JAX = (GPU_SEED, ""), (TPU_SEED, ""), (TPU_JAX_SEED, "")


def planted(dump: tuple[Path, str], tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    return plant_in_copy(*dump, tmp_path, old, new)


def header(path: Path) -> int:
    """The line of `Live ranges at T (peak):`."""
    return next(n for n, line in enumerate(path.read_text().split("\n")) if line.startswith("  Live ranges at "))


def test_new_format_value_missing_from_the_peak_list(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    bs_2_.1{}: 40 bytes (cumulative: 487464 bytes)\n", "")
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, header(path), ERROR, "peak-list")]
    assert problems[0].message == "bs_2_.1{} is live at 9 but missing from the peak list"


def test_new_format_value_listed_but_not_live(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    x.1{}: 16384 bytes (cumulative: 475136 bytes)",
                         "    ynn_fusion.2{}: 16384 bytes (cumulative: 475136 bytes)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, header(path), ERROR, "peak-list"), (path.name, line, ERROR, "peak-list")]
    assert problems[0].message == "x.1{} is live at 9 but missing from the peak list"
    assert problems[1].message == "ynn_fusion.2{} is listed at the peak but is not live at 9"


def test_new_format_value_listed_twice(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    bs_2_.1{}: 40 bytes (cumulative: 487464 bytes)",
                         "    bs_2_.1{}: 40 bytes (cumulative: 487464 bytes)\n"
                         "    bs_2_.1{}: 40 bytes (cumulative: 487504 bytes)")
    assert where(problems_of(tmp_path)) == [(path.name, line + 1, ERROR, "peak-list")]


@pytest.mark.parametrize(("dump", "entry", "time"), [(COMBINED_LR, "    Arg_4.5: 1024 bytes\n", 4),
                                                     (GPU, "    p14.238.0: 512 bytes\n", 58)])
def test_old_format_value_missing_from_the_peak_list(dump: tuple[Path, str], entry: str, time: int,
                                                     tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, entry, "")
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, header(path), ERROR, "peak-list")]
    assert problems[0].message == f"{entry.split(':')[0].strip()} is live at {time} but missing from the peak list"


@pytest.mark.parametrize(("dump", "old", "new", "message"), [
    (COMBINED_LR, "    Arg_4.5: 1024 bytes", "    dot.20: 1024 bytes",
     "dot.20 is listed 1 time(s) at the peak, but 0 of its values are live at 4"),
    (GPU, "    tuple: 32 bytes", "    tuple.292.0: 32 bytes",
     "tuple.292.0 is listed 1 time(s) at the peak, but 0 of its values are live at 58"),
])
def test_old_format_value_listed_but_not_live(dump: tuple[Path, str], old: str, new: str, message: str,
                                              tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, header(path), ERROR, "peak-list"), (path.name, line, ERROR, "peak-list")]
    assert problems[1].message == message
    assert problems[0].message.endswith("but missing from the peak list")


def test_old_format_value_listed_twice(tmp_path: Path) -> None:
    path, line = planted(COMBINED_LR, tmp_path, "    Arg_5.6: 40 bytes", "    Arg_5.6: 40 bytes\n    Arg_5.6: 40 bytes")
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, ERROR, "peak-list")]
    assert problems[0].message == "Arg_5.6 is listed 2 time(s) at the peak, but 1 of its values are live at 4"


def test_old_format_lists_one_line_per_live_tuple_element() -> None:
    # tpu-allreduce-mlp: only copy-start{0} of the 3-tuple is live at 11, printed as `copy-start: 24 bytes`.
    buffers = module_of(TPU_SEED).buffer_assignment
    assert buffers is not None and buffers.live_range is not None
    assert [(e.name, e.size) for e in buffers.live_range.peak if e.name == "copy-start"] == [("copy-start", 24)]
    assert problems_of(TPU_SEED) == []


@pytest.mark.parametrize(("dump", "old", "new", "printed", "running"), [
    (SPLIT_LR, "(cumulative: 487464 bytes)", "(cumulative: 487465 bytes)", 487465, 487464),
    (TPU_JAX, "(cumulative: 43200 bytes)", "(cumulative: 43100 bytes)", 43100, 43200),
])
def test_wrong_cumulative(dump: tuple[Path, str], old: str, new: str, printed: int, running: int,
                          tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, ERROR, "peak-cumulative")]
    assert problems[0].message == f"cumulative is {printed} but the sizes so far add up to {running}"


def test_one_wrong_cumulative_in_the_middle_is_one_error(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "(cumulative: 475136 bytes)", "(cumulative: 475137 bytes)")
    assert where(problems_of(tmp_path)) == [(path.name, line, ERROR, "peak-cumulative")]


def test_new_format_list_not_sorted_by_bytes_then_name(tmp_path: Path) -> None:
    broadcast = "    broadcast_maximum_fusion{}: 32768 bytes (cumulative: 425984 bytes)\n"
    ynn = "    ynn_fusion.1{}: 32768 bytes (cumulative: 458752 bytes)\n"
    path, line = planted(SPLIT_LR, tmp_path, broadcast + ynn,
                         ynn.replace("458752", "425984") + broadcast.replace("425984", "458752"))
    problems = problems_of(tmp_path)
    # A property of the whole list: reported on its first entry.
    assert where(problems) == [(path.name, header(path) + 1, WARNING, "peak-order")]
    assert problems[0].message == "the peak list is not sorted by bytes (largest first), then name and index"


def test_new_format_peak_bytes_differ_from_the_value_size(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    x.1{}: 16384 bytes (cumulative: 475136 bytes)",
                         "    x.1{}: 16380 bytes (cumulative: 475136 bytes)")
    problems = problems_of(tmp_path)
    # The printed cumulative no longer adds up either.
    assert where(problems) == [(path.name, line, WARNING, "peak-bytes"), (path.name, line, ERROR, "peak-cumulative")]
    assert problems[0].message == "x.1{} takes 16384 bytes, not 16380"


def test_old_format_peak_bytes_differ_from_the_instruction_size(tmp_path: Path) -> None:
    path, line = planted(COMBINED_LR, tmp_path, "    Arg_4.5: 1024 bytes", "    Arg_4.5: 1000 bytes")
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, WARNING, "peak-bytes")]
    assert problems[0].message == "Arg_4.5 takes 1024 bytes, not 1000"


@pytest.mark.parametrize(("dump", "old", "new", "message"), [
    (SPLIT_LR, "  Live ranges at 9 (peak):", "  Live ranges at 10 (peak):", "the peak is at 9 by XLA's own "
     "accounting, not 10"),
    (COMBINED_LR, "  Live ranges at 4 (peak):", "  Live ranges at 5 (peak):", "the peak is at 4 by XLA's own "
     "accounting, not 5"),
    (TPU, "  Live ranges at 11 (peak):", "  Live ranges at 10 (peak):", "the peak is at 11 by XLA's own "
     "accounting, not 10"),
])
def test_wrong_peak_time(dump: tuple[Path, str], old: str, new: str, message: str, tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    problems = problems_of(tmp_path)
    # The list is not compared against a moment XLA did not pick.
    assert where(problems) == [(path.name, line, WARNING, "peak-time")]
    assert problems[0].message == message


@pytest.mark.parametrize(("stem", "printed", "naive"), [(TPU_SEED, 11, 9), (SPLIT_MLP, 9, 8)])
def test_no_peak_time_warning_where_the_naive_argmax_differs(stem: Path, printed: int, naive: int) -> None:
    module = module_of(stem if stem.is_file() else Path(f"{stem}.txt"))
    buffers = module.buffer_assignment
    assert buffers is not None and buffers.live_range is not None
    sized = sized_ranges(buffers.live_range.ranges, ShapeLookup(module.hlo, buffers).shape)
    assert sized is not None
    live = [sum(s.value_bytes for s in sized if s.live_range.start <= t <= s.live_range.end)
            for t in range(buffers.live_range.max_time + 1)]
    assert buffers.live_range.peak_time == printed and live.index(max(live)) == naive
    assert problems_of(stem if stem.is_file() else stem.parent) == []
