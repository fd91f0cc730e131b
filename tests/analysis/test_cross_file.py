"""Names in the buffer-assignment files that the paired HLO module does not define (dump-format.md §4)."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import COMBINED_MLP, SPLIT_CONTROL_FLOW, SPLIT_MLP, copy_module, plant, plant_in_copy, problems_of, where
from hlo_lsp.problems import Problem, Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING


def planted(stem: Path, suffix: str, tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    return plant_in_copy(stem, suffix, tmp_path, old, new)


def underlined(problem: Problem, path: Path) -> str:
    start, end = problem.range.start, problem.range.end
    return path.read_text().split("\n")[start.line][start.character:end.character]


def test_use_naming_an_instruction_the_module_lacks(tmp_path: Path) -> None:
    values, line = planted(SPLIT_MLP, "-buffer-assignment-values.txt", tmp_path,
                           "  broadcast_maximum_fusion, operand 0", "  broadcast_max_fusion, operand 0")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "unknown-instruction")]
    hlo = f"{values}".replace("-buffer-assignment-values.txt", ".txt")
    assert problems[0].message == f"instruction broadcast_max_fusion is not in the HLO module {hlo}"
    assert underlined(problems[0], values) == "broadcast_max_fusion"


def test_combined_dump_position_naming_an_instruction_the_module_lacks(tmp_path: Path) -> None:
    ba, line = planted(COMBINED_MLP, "-buffer-assignment.txt", tmp_path, "  Arg_1.2\n", "  Arg_1.22\n")
    problems = problems_of(tmp_path)
    # It is also the first position, which must be the value itself.
    assert where(problems) == [(ba.name, line, ERROR, "defining-position"),
                               (ba.name, line, ERROR, "unknown-instruction")]
    assert underlined(problems[1], ba) == "Arg_1.22"


def test_allocated_value_of_an_instruction_the_module_lacks(tmp_path: Path) -> None:
    ba, line = planted(SPLIT_MLP, "-buffer-assignment.txt", tmp_path, " value: <58 ynn_fusion.2 @0>",
                       " value: <58 ynn_fusion.7 @0>")
    problems = [p for p in problems_of(tmp_path) if p.code == "unknown-instruction"]
    assert where(problems) == [(ba.name, line, ERROR, "unknown-instruction")]
    assert underlined(problems[0], ba) == "ynn_fusion.7"


def test_scheduled_instruction_the_module_lacks(tmp_path: Path) -> None:
    lr, line = planted(SPLIT_MLP, "-live-range.txt", tmp_path, "    7:ynn_fusion.2", "    7:ynn_fusion.22")
    problems = problems_of(tmp_path)
    ranges = lr.read_text().split("\n").index("    ynn_fusion.2{}:7-8")
    assert where(problems) == [(lr.name, line, ERROR, "unknown-instruction"),
                               (lr.name, ranges, ERROR, "unknown-live-range-name")]
    assert underlined(problems[0], lr) == "ynn_fusion.22"


def test_from_instruction_calling_a_computation_the_module_lacks(tmp_path: Path) -> None:
    values, line = planted(SPLIT_MLP, "-buffer-assignment-values.txt", tmp_path,
                           "kind=kLoop, calls=%fused_computation.7,", "kind=kLoop, calls=%fused_computation.70,")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "unknown-computation")]
    assert problems[0].message.startswith("computation fused_computation.70 is not in the HLO module")


def test_from_instruction_repeating_an_hlo_line_with_an_undefined_operand(tmp_path: Path) -> None:
    # The values file repeats the HLO line's text, operand and all: both files say the name is unknown.
    values, line = planted(SPLIT_MLP, "-buffer-assignment-values.txt", tmp_path,
                           "maximum(%reduce_max.3, %reduce_max.4)", "maximum(%reduce_max.3, %reduce_max.9)")
    hlo = Path(f"{values}".replace("-buffer-assignment-values.txt", ".txt"))
    hlo_line = plant(hlo, "maximum(%reduce_max.3, %reduce_max.4)", "maximum(%reduce_max.3, %reduce_max.9)")
    problems = problems_of(tmp_path)
    assert where(problems) == [(values.name, line, ERROR, "unknown-instruction"),
                               (hlo.name, hlo_line, ERROR, "undefined-instruction")]
    assert underlined(problems[0], values) == "reduce_max.9"


def mismatched(tmp_path: Path) -> Path:
    """The mlp buffer assignment next to the control-flow module under the mlp name."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    shutil.copyfile(f"{SPLIT_CONTROL_FLOW}.txt", f"{stem}.txt")
    return stem


def test_module_from_another_compilation_is_one_warning_per_file(tmp_path: Path) -> None:
    stem = mismatched(tmp_path)
    problems = [p for p in problems_of(tmp_path) if p.code == "module-mismatch"]
    assert [(Path(p.source).name, p.severity) for p in problems] == [
        (Path(f"{stem}-buffer-assignment-values.txt").name, WARNING),
        (Path(f"{stem}-buffer-assignment.txt").name, WARNING),
        (Path(f"{stem}-live-range.txt").name, WARNING)]
    assert problems[1].message == (f"14 of 21 names here are not in {stem}.txt: "
                                   "the files look like they come from different compilations")
    # The first unknown name is underlined: ws_1_.1 on allocation 0's value line.
    assert (problems[1].range.start.line, problems[1].range.start.character) == (2, 12)
    assert not [p for p in problems_of(tmp_path) if p.code == "unknown-instruction"]


def test_module_from_another_compilation_gives_only_the_mismatch_warnings(tmp_path: Path) -> None:
    mismatched(tmp_path)
    assert {p.code for p in problems_of(tmp_path)} == {"module-mismatch"}


def test_buffer_assignment_without_module_is_not_cross_checked(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    Path(f"{stem}.txt").unlink()
    plant(Path(f"{stem}-buffer-assignment-values.txt"), "  broadcast_maximum_fusion, operand 0",
          "  broadcast_max_fusion, operand 0")
    assert problems_of(tmp_path) == []


def test_value_id_with_a_leading_zero_does_not_crash_the_check(tmp_path: Path) -> None:
    planted(SPLIT_MLP, "-buffer-assignment.txt", tmp_path, " value: <61 ws_1_.1 @0>", " value: <061 ws_1_.1 @0>")
    assert "internal-error" not in {p.code for p in problems_of(tmp_path)}
