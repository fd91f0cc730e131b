"""The HloLiveRange schedule and buffer live ranges (dump-format.md §3.3) planted into real dumps."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import COMBINED_MLP, FLAX_SCAN, SPLIT_MLP, copy_module, plant, plant_in_copy, problems_of, where
from hlo_lsp.problems import Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING
SPLIT_LR, COMBINED_LR = (SPLIT_MLP, "-live-range.txt"), (COMBINED_MLP, "-buffer-assignment.txt")


def planted(dump: tuple[Path, str], tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    return plant_in_copy(*dump, tmp_path, old, new)


def line_of(path: Path, text: str) -> int:
    return path.read_text().split("\n").index(text)


@pytest.mark.parametrize(("dump", "old", "new", "message"), [
    (SPLIT_LR, "    8:broadcast_maximum_fusion", "    18:broadcast_maximum_fusion", "schedule entry 18 is number 8"),
    (COMBINED_LR, "    4:broadcast_maximum_fusion", "    5:broadcast_maximum_fusion", "schedule entry 5 is number 4"),
])
def test_schedule_numbering_gap(dump: tuple[Path, str], old: str, new: str, message: str, tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, ERROR, "schedule-numbering")]
    assert problems[0].message == message + "; entries run 0..N-1"


@pytest.mark.parametrize(("dump", "old", "new", "max_time"), [
    (SPLIT_LR, "HloLiveRange (max 15):", "HloLiveRange (max 16):", 16),
    (COMBINED_LR, "HloLiveRange (max 15):", "HloLiveRange (max 14):", 14),
])
def test_max_differs_from_the_sequence_length(dump: tuple[Path, str], old: str, new: str, max_time: int,
                                              tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    problems = [p for p in problems_of(tmp_path) if p.code == "schedule-length"]
    assert where(problems) == [(path.name, line, ERROR, "schedule-length")]
    assert problems[0].message == f"HloLiveRange max is {max_time} but the InstructionSequence has 15 entries"


def test_wrong_max_is_reported_once(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "HloLiveRange (max 15):", "HloLiveRange (max 16):")
    assert where(problems_of(tmp_path)) == [(path.name, line, ERROR, "schedule-length")]


def test_instruction_scheduled_twice(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    8:broadcast_maximum_fusion", "    8:ynn_fusion.2")
    problems = problems_of(tmp_path)
    # broadcast_maximum_fusion, no longer scheduled, now has a live range naming an unknown instruction.
    assert where(problems) == [(path.name, line, ERROR, "schedule-duplicate"),
                               (path.name, line_of(path, "    broadcast_maximum_fusion{}:8-9"), ERROR,
                                "unknown-live-range-name")]
    assert problems[0].message == "ynn_fusion.2 is scheduled twice (also at 7)"


def test_live_range_past_the_end_of_the_schedule(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    broadcast_subtract_fusion{}:14-15",
                         "    broadcast_subtract_fusion{}:14-16")
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, ERROR, "live-range-bounds")]
    assert problems[0].message == "live range 14-16 of broadcast_subtract_fusion{} is outside 0..15"


def test_live_range_that_ends_before_it_starts(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    ynn_fusion.2{}:7-8", "    ynn_fusion.2{}:8-7")
    problems = problems_of(tmp_path)
    # Without ynn_fusion.2 the running sum peaks one step later; that is XLA's accounting, so it is reported too.
    assert where(problems) == [(path.name, line, ERROR, "live-range-bounds"),
                               (path.name, line, WARNING, "live-range-start"),
                               (path.name, line_of(path, "  Live ranges at 9 (peak):"), WARNING, "peak-time")]
    assert problems[0].message.endswith("(it ends before it starts)")


@pytest.mark.parametrize(("dump", "old", "new"), [
    (SPLIT_LR, "    ynn_fusion.2{}:7-8", "    ynn_fusion.9{}:7-8"),
    (COMBINED_LR, "    dot.8{}:2-4", "    dot.9{}:2-4"),
])
def test_live_range_naming_an_unknown_instruction(dump: tuple[Path, str], old: str, new: str, tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    name = new.strip().split("{")[0]
    renamed = old.strip().split("{")[0]
    problems = problems_of(tmp_path)
    # The value whose entry was renamed is left without a live range (L8) on its allocation line.
    value = next(p for p in problems if p.code == "value-without-live-range")
    assert value.message == f"{renamed} is allocated but has no entry under BufferLiveRange"
    problems = [p for p in problems if p is not value]
    assert where(problems) == [(path.name, line, WARNING, "unallocated-live-range"),
                               (path.name, line, ERROR, "unknown-instruction"),
                               (path.name, line, ERROR, "unknown-live-range-name")]
    assert problems[2].message == f"{name} is not in the InstructionSequence"
    assert problems[2].related[0].message == "the schedule"
    assert problems[2].related[0].range.start.line == line_of(path, "HloLiveRange (max 15):")
    assert problems[1].message.startswith(f"instruction {name} is not in the HLO module")


@pytest.mark.parametrize(("dump", "old", "new", "message"), [
    (SPLIT_LR, "    ynn_fusion.2{}:7-8", "    ynn_fusion.2{}:8-8",
     "ynn_fusion.2{} starts at 8, after its instruction runs at 7"),
    (COMBINED_LR, "    dot.8{}:2-4", "    dot.8{}:3-4", "dot.8{} starts at 3, after its instruction runs at 2"),
])
def test_live_range_starting_after_its_instruction(dump: tuple[Path, str], old: str, new: str, message: str,
                                                   tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, WARNING, "live-range-start")]
    assert problems[0].message == message


def test_live_range_of_a_value_no_allocation_holds(tmp_path: Path) -> None:
    path, line = planted(SPLIT_LR, tmp_path, "    x.1{}:0-15", "    x.1{0}:0-15")
    problems = problems_of(tmp_path)
    assert where(problems)[1:] == [(path.name, line, WARNING, "unallocated-live-range")]
    assert problems[1].message == "x.1{0} has a live range but no allocation holds it"
    # and x.1{} itself is left without one
    assert (problems[0].code, problems[0].message) == ("value-without-live-range",
                                                       "x.1 is allocated but has no entry under BufferLiveRange")


@pytest.mark.parametrize(("dump", "old", "new", "message"), [
    (SPLIT_LR, "    x.1{}:0-15", "    x.1{}:0-12", "entry parameter x.1 is live 0-12; a parameter that does not "
                                                    "alias an output lives 0-15"),
    (COMBINED_LR, "    Arg_6.7{}:0-15", "    Arg_6.7{}:1-15", "entry parameter Arg_6.7 is live 1-15"),
])
def test_entry_parameter_not_live_over_the_whole_program(dump: tuple[Path, str], old: str, new: str, message: str,
                                                         tmp_path: Path) -> None:
    path, line = planted(dump, tmp_path, old, new)
    problems = problems_of(tmp_path)
    assert where(problems) == [(path.name, line, WARNING, "parameter-live-range")]
    assert problems[0].message.startswith(message)
    ba = Path(str(path).replace("-live-range.txt", "-buffer-assignment.txt"))
    assert [(Path(r.source).name, r.range.start.line, r.message) for r in problems[0].related] == [
        (ba.name, 5, "allocation 2")]


def test_parameter_aliased_to_the_output_may_end_early(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    plant(Path(f"{stem}-live-range.txt"), "    x.1{}:0-15", "    x.1{}:0-12")
    plant(Path(f"{stem}.txt"), "HloModule jit_mlp, is_scheduled=true, ",
          "HloModule jit_mlp, is_scheduled=true, input_output_alias={ {}: (6, {}, may-alias) }, ")
    assert problems_of(tmp_path) == []


def test_constants_of_computations_the_schedule_leaves_out_need_no_live_range(tmp_path: Path) -> None:
    """A sort comparator's constant (`constant.278` in `compare`) is allocated and has no live range."""
    assert problems_of(FLAX_SCAN.parent) == []
    path, line = planted((FLAX_SCAN, "-live-range.txt"), tmp_path, "    constant.68{}:3-13\n", "")
    ba = path.with_name(FLAX_SCAN.name + "-buffer-assignment.txt")
    problems = problems_of(tmp_path)
    assert [(Path(p.source).name, p.code, p.message) for p in problems] == [
        (ba.name, "value-without-live-range", "constant.68 is allocated but has no entry under BufferLiveRange")]
