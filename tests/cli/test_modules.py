"""`hlo-lsp modules DIR` as a user runs it on a whole --xla_dump_to folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import FOLDER_SMALL_EAGER, HANDWRITTEN
from hlo_lsp.cli import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["modules", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_the_table_puts_the_largest_peak_first(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FOLDER_SMALL_EAGER)
    code, lines, err = _run(capsys, ".", "--top", "2")
    assert (code, err) == (0, "")
    assert lines == [
        "14 module(s), the largest peak first:",
        f"{'peak (bytes)':>23}  {'allocated':>10}  {'HLO':>10}  {'instr.':>7}  module",
        f"{'524,368  512.1KiB':>23}  {'512.8KiB':>10}  {'43.8KiB':>10}  {'296':>7}  jit__normal  "
        "module_0016.jit__normal.cpu_after_optimizations.txt",
        f"{'245,896  240.1KiB':>23}  {'256.3KiB':>10}  {'8.5KiB':>10}  {'57':>7}  jit_step  "
        "module_0020.jit_step.cpu_after_optimizations.txt",
        "... and 12 more module(s)",
    ]


def test_the_json_lists_every_module_with_its_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys, str(FOLDER_SMALL_EAGER), "--format", "json", "--sort", "name")
    modules = json.loads("\n".join(lines))["modules"]
    assert code == 0 and len(modules) == 14
    assert [module["name"] for module in modules] == sorted(module["name"] for module in modules)
    step = next(module for module in modules if module["name"] == "jit_step")
    assert (step["peak"], step["peaks"], step["allocated"], step["instructions"]) == (
        245_896, [{"space": "default", "bytes": 245_896}], 262_460, 57)
    assert len(step["files"]) == 6 and step["path"] == str(FOLDER_SMALL_EAGER / step["files"][-1])


def test_a_folder_without_modules_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines, err = _run(capsys, str(tmp_path))
    assert code == 1 and "no dump module under" in err
    code, lines, err = _run(capsys, str(HANDWRITTEN.parent))
    assert code == 0 and lines[0].endswith("module(s), the largest peak first:")  # hand-written: no peak
    code, _, err = _run(capsys, str(tmp_path / "missing"))
    assert code == 1 and "missing: no such file or folder" in err
