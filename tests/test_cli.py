"""`hlo-lsp check` and `hlo-lsp memory` as a user runs them, on copies of real dumps."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import (
    COMBINED_CONTROL_FLOW,
    COMBINED_MLP,
    DATA,
    HANDWRITTEN,
    PAIR_NARROW,
    PAIR_WIDE,
    PRODUCERS,
    SPLIT_CONTROL_FLOW,
    SPLIT_MLP,
    TPU_MATMUL,
    TPU_SEED,
    copy_module,
    plant,
    pyproject_version,
)
from hlo_lsp.cli import main
from hlo_lsp.parsing.file_kinds import dump_name

BA, LR = "-buffer-assignment.txt", "-live-range.txt"
NAME = SPLIT_MLP.name


@pytest.fixture
def split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the split mlp dump, with the working folder set to it so paths print as file names."""
    monkeypatch.chdir(tmp_path)
    return copy_module(SPLIT_MLP, tmp_path)


def overlap(stem: Path) -> None:
    plant(Path(f"{stem}{BA}"), "<69 reduce_log_fusion @0> (size=128,offset=128)",
          "<69 reduce_log_fusion @0> (size=128,offset=0)")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_clean_dump_exits_0_and_prints_only_the_summary(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "check", str(split.parent))
    assert (code, lines) == (0, [])
    assert err == "checked 5 file(s) in 1 module(s): 0 error(s), 0 warning(s), 0 note(s)\n"


def test_errors_print_like_a_compiler_with_notes_and_exit_1(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    overlap(split)
    code, lines, err = run(capsys, "check", str(split.parent))
    assert code == 1
    assert lines == [
        f"{NAME}{BA}:36:9: error: add_reduce_fusion overlaps reduce_log_fusion in allocation 14: both use bytes "
        "[0, 128) while both are live (13-14; live ranges 12-14 and 13-14) [overlapping-values]",
        f"{NAME}{BA}:37:9: note: reduce_log_fusion: offset 0, size 128",
        f"{NAME}{LR}:32:5: note: live range of reduce_log_fusion",
        f"{NAME}{BA}:37:9: error: reduce_log_fusion overlaps add_reduce_fusion in allocation 14: both use bytes "
        "[0, 128) while both are live (13-14; live ranges 13-14 and 12-14) [overlapping-values]",
        f"{NAME}{BA}:36:9: note: add_reduce_fusion: offset 0, size 128",
        f"{NAME}{LR}:31:5: note: live range of add_reduce_fusion",
    ]
    assert err == "checked 5 file(s) in 1 module(s): 2 error(s), 0 warning(s), 0 note(s)\n"


def test_naming_one_file_checks_its_companions_too(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    overlap(split)
    code, lines, err = run(capsys, "check", f"{split}{LR}")
    assert code == 1 and len([line for line in lines if ": error: " in line]) == 2
    assert err.startswith("checked 5 file(s) in 1 module(s): 2 error(s)")


def test_warnings_alone_exit_0(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plant(Path(f"{split}{LR}"), "  Live ranges at 9 (peak):", "  Live ranges at 10 (peak):")
    code, lines, err = run(capsys, "check", str(split.parent))
    assert code == 0
    assert lines == [f"{NAME}{LR}:34:3: warning: the peak is at 9 by XLA's own accounting, not 10 [peak-time]"]
    assert err == "checked 5 file(s) in 1 module(s): 0 error(s), 1 warning(s), 0 note(s)\n"


def test_information_prints_as_note(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plant(Path(f"{split}.txt"), 'metadata={op_name="x"}', 'metadata={op_name="' + "x" * (1 << 20) + '"}')
    code, lines, err = run(capsys, "check", str(split.parent))
    assert code == 0
    assert lines == [f"{NAME}.txt:122:1: note: line of 1,048,637 characters: indexed for names, not checked "
                     "against the grammar [long-line]"]
    assert err.endswith("0 error(s), 0 warning(s), 1 note(s)\n")


def test_json_output(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    overlap(split)
    code = main(["check", "--format", "json", str(split.parent)])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and len(report) == 2
    assert report[0] == {
        "path": f"{split}{BA}", "line": 36, "column": 9, "end_line": 36, "end_column": 34,
        "severity": "error", "code": "overlapping-values", "message": report[0]["message"],
        "related": [
            {"path": f"{split}{BA}", "line": 37, "column": 9, "message": "reduce_log_fusion: offset 0, size 128"},
            {"path": f"{split}{LR}", "line": 32, "column": 5, "message": "live range of reduce_log_fusion"}],
    }
    assert report[0]["message"].startswith("add_reduce_fusion overlaps reduce_log_fusion in allocation 14")
    assert report[1]["line"] == 37


def test_json_output_of_a_clean_dump_is_an_empty_list(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "json", str(split.parent)]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_missing_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-dump"
    code, lines, err = run(capsys, "check", str(missing))
    assert code == 1
    assert lines == [f"{missing}:1:1: error: no such file or folder [missing]"]
    assert err == "checked 0 file(s) in 0 module(s): 1 error(s), 0 warning(s), 0 note(s)\n"


def test_binary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "module_0000.jit_f.hlo.pb.txt").write_bytes(b"\x08\x01\x12\x00HloModule\x00\xff\xfe" * 50)
    code, lines, err = run(capsys, "check", "module_0000.jit_f.hlo.pb.txt")
    assert code == 1
    assert lines == ["module_0000.jit_f.hlo.pb.txt:1:1: error: binary file: not an XLA text dump "
                     "(a .pb proto? dump with --xla_dump_hlo_as_text) [binary-file]"]


def test_binary_proto_named_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "module_0000.jit_f.hlo.pb").write_bytes(b"\x08\x01\x12\x00HloModule\x00\xff\xfe" * 50)
    code, lines, err = run(capsys, "check", "module_0000.jit_f.hlo.pb")
    assert (code, [line.rsplit(" ", 1)[-1] for line in lines]) == (1, ["[binary-file]"])


def test_memory_of_a_split_dump(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "memory", str(split.parent), "--top", "3")
    assert (code, err) == (0, "")
    assert lines[:3] == [NAME, "  allocated: 488,768 bytes (477.3KiB) in 15 allocations",
                         "  peak: 487,464 bytes (476.0KiB) live at schedule step 9 (ynn_fusion.1), 9 buffers"]
    # Each row: size, value, live range, allocation and offset, then kind, source and op_name.
    assert [line.split() for line in lines[3:6]] == [
        ["256.0KiB", "ws_1_.1{}", "live", "0-15", "allocation", "0", "@", "0", "parameter", "ws[1]"],
        ["128.0KiB", "ws_0_.1{}", "live", "0-15", "allocation", "1", "@", "0", "parameter", "ws[0]"],
        ["32.0KiB", "broadcast_maximum_fusion{}", "live", "8-9", "allocation", "14", "@", "32768", "temporary",
         "gen_dumps.py:171", "jit(mlp)/jit(relu)/max"]]
    assert lines[6:] == ["    ... and 6 smaller buffer(s)",
                         "  at the peak: parameters 421,928 bytes (412.0KiB), temporaries 65,536 bytes (64.0KiB)", ""]


def test_memory_of_a_combined_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy_module(COMBINED_MLP, tmp_path)
    code, lines, err = run(capsys, "memory", str(tmp_path))
    assert code == 0
    assert lines[:3] == [COMBINED_MLP.name, "  allocated: 488,768 bytes (477.3KiB) in 15 allocations",
                         "  peak: 487,464 bytes (476.0KiB) live at schedule step 4 (broadcast_maximum_fusion), "
                         "9 buffers"]
    # The default shows ten buffers: all nine, largest first.
    assert [line.split()[1] for line in lines[3:12]] == [
        "Arg_1.2{}", "Arg_0.1{}", "broadcast_maximum_fusion{}", "dot.8{}", "Arg_6.7{}", "Arg_2.3{}", "Arg_3.4{}",
        "Arg_4.5{}", "Arg_5.6{}"]
    assert lines[12:] == [
        "  at the peak: parameters 421,928 bytes (412.0KiB), temporaries 65,536 bytes (64.0KiB)", ""]


def test_memory_without_buffer_assignment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "memory", str(HANDWRITTEN))
    assert (code, lines) == (1, [])
    assert err == f"no buffer-assignment files found under {HANDWRITTEN}\n"


def test_memory_rows_name_kind_source_and_op_name(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "memory", str(split.parent))
    row = next(line for line in lines if "ynn_fusion.1{}" in line)
    assert row.split() == ["32.0KiB", "ynn_fusion.1{}", "live", "9-10", "allocation", "14", "@", "0", "temporary",
                           "gen_dumps.py:169", "jit(mlp)/dot_general"]


def test_memory_shows_a_busier_step_and_fragmentation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stem = copy_module(SPLIT_CONTROL_FLOW, tmp_path)
    assert "    add_maximum_fusion" not in Path(f"{stem}{LR}").read_text()
    assert "(cumulative: 3116 bytes)\n  Stack trace" in Path(f"{stem}{LR}").read_text()  # the printed peak
    code, lines, err = run(capsys, "memory", str(tmp_path), "--top", "1")
    assert (code, err) == (0, "")
    assert lines[2] == "  peak: 3,116 bytes (3.0KiB) live at schedule step 30 (tuple.28), 12 buffers"
    assert lines[4:] == [
        "    ... and 11 smaller buffer(s)",
        "  at the peak: parameters 1,036 bytes (1.0KiB), outputs 1,032 bytes (1.0KiB), temporaries 1,048 bytes "
        "(1.0KiB)",
        "  most live: 4,148 bytes (4.1KiB) at schedule step 37 (cond.9.clone); XLA's peak step counts a value "
        "until the step after its last use",
        "  allocation 22 (preallocated-temp): 1,560 bytes, at most 1,048 in use at once (step 25): 512 bytes "
        "(32.8%) fragmentation",
        ""]


def test_memory_of_an_old_dump_that_counts_tuples_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy_module(COMBINED_CONTROL_FLOW, tmp_path)
    code, lines, _ = run(capsys, "memory", str(tmp_path), "--top", "0")
    assert lines[2] == "  peak: 2,076 bytes (2.0KiB) live at schedule step 21 (dot.30), 8 buffers"
    assert "  by the values' own sizes: 3,092 bytes (3.0KiB); this XLA counts a live tuple element with its whole " \
           "tuple's size" in lines


def test_memory_writes_the_timeline_picture(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "memory", str(split.parent), "--svg", "timeline.svg")
    assert (code, err) == (0, "")
    assert lines[-2:] == ["  timeline: timeline.svg", ""]
    svg = Path("timeline.svg").read_text()
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="1000"')
    assert ">peak 476.0KiB at t=9 (ynn_fusion.1)</text>" in svg


def test_memory_pictures_of_several_modules_get_their_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for stem in (SPLIT_MLP, SPLIT_CONTROL_FLOW):
        copy_module(stem, tmp_path)
    (tmp_path / TPU_SEED.name).write_text(TPU_SEED.read_text())
    code, lines, err = run(capsys, "memory", ".", "--svg", "out/m.svg")
    assert (code, err) == (0, "")
    written = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert written == [f"m.{SPLIT_CONTROL_FLOW.name}.svg", f"m.{SPLIT_MLP.name}.svg", "m.tpu-allreduce-mlp.svg"]
    assert f"  timeline: out/m.{SPLIT_MLP.name}.svg" in lines


def test_memory_picture_that_cannot_be_written(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("taken").write_text("a file, not a folder")
    code, lines, err = run(capsys, "memory", str(split.parent), "--svg", "taken/t.svg")
    assert code == 1
    assert err.startswith("hlo-lsp: cannot write taken/t.svg: ")
    assert lines[2].startswith("  peak: 487,464 bytes") and not any("timeline:" in line for line in lines)


def test_memory_as_json(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "memory", str(split.parent), "--format", "json", "--svg", "t.svg")
    assert (code, err) == (0, "")
    [answer] = json.loads("\n".join(lines))
    assert (answer["module"], answer["svgPath"], answer["maxTime"]) == (NAME, "t.svg", 15)
    assert {key: answer["peak"][key] for key in ("time", "instruction", "bytes", "byKind")} == {
        "time": 9, "instruction": "ynn_fusion.1", "bytes": 487_464,
        "byKind": {"parameter": 421_928, "temporary": 65_536}}
    printed = [line.split(":")[0].strip() for line in Path(f"{split}{LR}").read_text().split("\n")
               if "(cumulative:" in line]
    assert [buffer["label"] for buffer in answer["buffers"]] == printed
    ynn = next(buffer for buffer in answer["buffers"] if buffer["name"] == "ynn_fusion.1")
    hlo = Path(f"{split}.txt")
    assert ynn["uri"] == hlo.resolve().as_uri()
    line = hlo.read_text().split("\n")[ynn["range"]["start"]["line"]]
    start, end = ynn["range"]["start"]["character"], ynn["range"]["end"]["character"]
    assert line[start:end] == "ynn_fusion.1" and line.startswith("  %ynn_fusion.1 = ")
    assert "svg" not in answer and Path("t.svg").is_file()


def test_memory_as_json_without_live_ranges(split: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path(f"{split}{LR}").unlink()
    code, lines, err = run(capsys, "memory", str(split.parent), "--format", "json", "--svg", "t.svg")
    assert code == 0
    assert json.loads("\n".join(lines)) == [
        {"module": NAME, "peak": None, "allocated": {"bytes": 488_768, "allocations": 15}}]
    assert err == f"{NAME}: no timeline (no live-range section, or shapes missing)\n"
    assert not Path("t.svg").exists()


def test_memory_of_a_bundled_dump_as_a_command() -> None:
    folder = DATA / "jax-0.10.2" / "mlp3"
    result = subprocess.run([sys.executable, "-m", "hlo_lsp", "memory", str(folder), "--top", "2"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2] == (
        "  peak: 487,464 bytes (476.0KiB) live at schedule step 9 (ynn_fusion.1), 9 buffers")


def test_check_as_a_command(split: Path) -> None:
    overlap(split)
    result = subprocess.run([sys.executable, "-m", "hlo_lsp", "check", "."], capture_output=True, text=True,
                            cwd=split.parent, timeout=120, check=False)
    assert result.returncode == 1
    assert [line.split(": ")[1] for line in result.stdout.splitlines()] == ["error", "note", "note"] * 2
    assert result.stdout.splitlines()[0].startswith(f"{NAME}{BA}:36:9: error: add_reduce_fusion overlaps")
    assert result.stderr == "checked 5 file(s) in 1 module(s): 2 error(s), 0 warning(s), 0 note(s)\n"


def test_version_as_a_command() -> None:
    """`hlo-lsp --version` (the installed script) and `python -m hlo_lsp --version` print pyproject.toml's version."""
    script = shutil.which("hlo-lsp", path=str(Path(sys.executable).parent))
    assert script, f"no hlo-lsp script beside {sys.executable}: install the project (scripts/setup)"
    for command in ([script], [sys.executable, "-m", "hlo_lsp"]):
        result = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60, check=False)
        assert (result.returncode, result.stdout, result.stderr) == (0, f"hlo-lsp {pyproject_version()}\n", "")


# ---- other producers: TPU, TensorFlow, PyTorch/XLA, flax ------------------------------------------


def test_every_bundled_producer_checks_clean_with_a_module_per_compilation(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "check", str(PRODUCERS))
    files = [path for path in PRODUCERS.rglob("*.txt") if path.name != "MANIFEST.txt"]
    side_files = [path for path in files if dump_name(path.name).is_side_file]
    compilations = {(path.parent, path.name.split(".")[0]) for path in files}
    assert len(side_files) == 18 and len(compilations) == 8
    assert (code, lines) == (0, [])
    assert err == (f"checked {len(files) - len(side_files)} file(s) in {len(compilations)} module(s): "
                   "0 error(s), 0 warning(s), 0 note(s)\n")


def test_a_side_file_named_on_its_own_gets_one_note(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(TPU_MATMUL.parent)
    side_file = TPU_MATMUL.name.replace("after_optimizations", "tpu_comp_env") + ".txt"
    code, lines, err = run(capsys, "check", side_file)
    assert code == 0
    assert lines == [f"{side_file}:1:1: note: written by XLA beside the dump, but not a dump (flags or protobuf "
                     "text): nothing to check [side-file]"]
    assert err == "checked 0 file(s) in 0 module(s): 0 error(s), 0 warning(s), 1 note(s)\n"


def test_the_demo_script_runs_through_on_a_tpu_dump_folder() -> None:
    result = subprocess.run([sys.executable, "-m", "hlo_lsp", "memory", str(TPU_MATMUL.parent)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stdout.splitlines() if not line.startswith(" ")] == [
        "module_0000.jit_mm.cl_933746096.after_optimizations", "",
        "module_0005.jit_step.cl_933746096.after_optimizations", ""]


def test_memory_json_of_a_tpu_module_names_every_space_with_the_reports_totals(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "memory", f"{TPU_MATMUL}.txt", "--format", "json")
    (answer,) = json.loads("\n".join(lines))
    report = Path(f"{TPU_MATMUL}-memory-usage-report.txt").read_text()
    printed = [(name, int(color), int(total)) for name, color, total in
               re.findall(r"^Memory Space: (\S+) \(color=(\d+)\)\nTotal bytes: (\d+) ", report, re.MULTILINE)]
    assert code == 0 and printed == [("default", 0, 919_552), ("vmem", 1, 786_432), ("smem", 2, 4)]
    assert [(space["name"], space["color"], space["allocated"]["bytes"]) for space in answer["spaces"]] == printed
    assert [space["reportedBytes"] for space in answer["spaces"]] == [total for _, _, total in printed]
    assert [(space["peak"]["time"], space["peak"]["bytes"]) for space in answer["spaces"]] == [
        (5, 917_504), (4, 786_432), (1, 4)]
    assert answer["space"] == {"name": "default", "color": 0} and answer["peak"]["bytes"] == 917_504
    breakdown = Path(f"{TPU_MATMUL}-live-range.txt").read_text()
    assert "Stack trace breakdown for peak usage: 1 179 648 bytes" in breakdown
    assert (answer["combinedPeak"]["time"], answer["combinedPeak"]["bytes"]) == (5, 1_179_648)


def test_memory_of_another_space(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "memory", f"{TPU_MATMUL}.txt", "--space", "vmem", "--top", "2")
    assert code == 0
    assert "  peak (memory space vmem): 786,432 bytes (768.0KiB) live at schedule step 4 (fusion), 2 buffers" in lines
    code, lines, err = run(capsys, "memory", f"{TPU_MATMUL}.txt", "--space", "hbm")
    assert code == 1 and lines == []
    assert err == f"{TPU_MATMUL.name}: no memory space 'hbm' (it has default, vmem, smem)\n"


def test_two_dumps_modules_of_one_name_are_told_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs of a program name their modules alike: each block is headed, and each picture named, with the
    folder that tells them apart."""
    code, lines, _ = run(capsys, "memory", str(PAIR_NARROW), str(PAIR_WIDE), "--top", "1",
                         "--svg", str(tmp_path / "t.svg"))
    name = "module_0000.jit__lambda.cpu_after_optimizations"
    assert code == 0 and [line for line in lines if line and not line.startswith(" ")] == [
        f"pair_mlp_narrow/{name}", f"pair_mlp_wide/{name}"]
    assert sorted(path.name for path in tmp_path.glob("*.svg")) == [
        f"t.pair_mlp_narrow.{name}.svg", f"t.pair_mlp_wide.{name}.svg"]
    code, lines, _ = run(capsys, "memory", str(PAIR_NARROW), str(PAIR_WIDE), "--format", "json")
    assert [answer["module"] for answer in json.loads("\n".join(lines))] == [
        f"pair_mlp_narrow/{name}", f"pair_mlp_wide/{name}"]
