"""`hlo-lsp check` and `hlo-lsp memory` as a user runs them, on copies of real dumps."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import COMBINED_MLP, HANDWRITTEN, SPLIT_MLP, copy_module, plant
from hlo_lsp.cli import main

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
    assert [line.split() for line in lines[3:6]] == [
        ["256.0KiB", "ws_1_.1{}", "live", "0-15", "allocation", "0", "@", "0"],
        ["128.0KiB", "ws_0_.1{}", "live", "0-15", "allocation", "1", "@", "0"],
        ["32.0KiB", "broadcast_maximum_fusion{}", "live", "8-9", "allocation", "14", "@", "32768"]]
    assert lines[6:] == ["    ... and 6 smaller buffer(s)", ""]


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
    assert lines[12:] == [""]


def test_memory_without_buffer_assignment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "memory", str(HANDWRITTEN))
    assert (code, lines) == (1, [])
    assert err == f"no buffer-assignment files found under {HANDWRITTEN}\n"


def test_check_as_a_command(split: Path) -> None:
    overlap(split)
    result = subprocess.run([sys.executable, "-m", "hlo_lsp", "check", "."], capture_output=True, text=True,
                            cwd=split.parent, timeout=120, check=False)
    assert result.returncode == 1
    assert [line.split(": ")[1] for line in result.stdout.splitlines()] == ["error", "note", "note"] * 2
    assert result.stdout.splitlines()[0].startswith(f"{NAME}{BA}:36:9: error: add_reduce_fusion overlaps")
    assert result.stderr == "checked 5 file(s) in 1 module(s): 2 error(s), 0 warning(s), 0 note(s)\n"
