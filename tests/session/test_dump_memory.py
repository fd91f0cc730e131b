"""Dumps read from disk through the Session, as a script or the CLI reads them: the modules of a folder and
what could not be read, their problems, and each memory space's peak against the figures XLA printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import SPLIT_MLP, TPU_MATMUL, copy_module, plant
from hlo_lsp.session import Session

LR = "-live-range.txt"


def reported_totals(stem: Path) -> dict[str, int]:
    """Each memory space's `Total bytes` as the memory-usage report prints them."""
    report = Path(f"{stem}-memory-usage-report.txt").read_text()
    return {name: int(total) for name, total in
            re.findall(r"^Memory Space: (\S+) \(color=\d+\)\nTotal bytes: (\d+) ", report, re.MULTILINE)}


def test_a_folder_reads_as_its_modules_and_a_missing_path_as_a_problem(tmp_path: Path) -> None:
    read = Session().read([str(SPLIT_MLP.parent), str(tmp_path / "gone")])
    assert sorted(Path(module.stem).name for module in read.modules) == [
        "module_0000.jit_mlp.before_optimizations", SPLIT_MLP.name]
    assert [(problem.source, problem.code) for problem in read.problems] == [(str(tmp_path / "gone"), "missing")]


def test_a_planted_fault_is_a_problem_of_the_module_read(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    plant(Path(f"{stem}{LR}"), "  Live ranges at 9 (peak):", "  Live ranges at 10 (peak):")
    session = Session()
    [module] = session.read([f"{stem}.txt"]).modules
    assert [(Path(p.source).name, p.code) for p in session.check_module(module)] == [(f"{stem.name}{LR}", "peak-time")]


def test_every_space_has_the_total_xla_reports_and_its_own_peak() -> None:
    session = Session()
    [module] = session.read([f"{TPU_MATMUL}.txt"]).modules
    memory = session.memory(module)
    assert memory is not None and memory.report is not None
    assert {space.space.name: space.summary.total_bytes for space in memory.report.spaces} == reported_totals(
        TPU_MATMUL)
    assert (memory.summary.peak_time, memory.summary.peak_bytes) == (5, 917_504)
    assert memory.report.combined is not None and memory.report.combined.peak_bytes == 1_179_648  # XLA's printed peak
    for space in ("vmem", 1, "1"):  # by name, by color, by the color's digits (as typed on a command line)
        vmem = session.memory(module, space)
        assert vmem is not None and (vmem.summary.peak_time, vmem.summary.peak_bytes) == (4, 786_432), space
        assert [buffer.kind for buffer in vmem.summary.buffers_at_peak] == ["temporary", "temporary"]
    assert session.memory(module, "hbm") is None


def test_without_live_ranges_the_memory_is_what_is_allocated(tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    Path(f"{stem}{LR}").unlink()
    session = Session()
    [module] = session.read([f"{stem}.txt"]).modules
    memory = session.memory(module)
    assert memory is not None and memory.report is None
    assert (memory.summary.total_bytes, memory.summary.allocation_count) == (reported_totals(stem)["default"], 15)
    assert memory.summary.peak_bytes is None and memory.summary.buffers_at_peak == ()


def test_a_module_without_buffer_assignment_has_no_memory(tmp_path: Path) -> None:
    session = Session()
    [module] = session.read([str(SPLIT_MLP.parent / "module_0000.jit_mlp.before_optimizations.txt")]).modules
    assert session.memory(module) is None


@pytest.mark.parametrize("space", [None, "vmem"])
def test_the_picture_of_a_space_marks_its_peak(space: str | None) -> None:
    session = Session()
    timeline = session.memory_timeline(f"{TPU_MATMUL}.txt", space)
    assert timeline is not None
    summary = timeline.report.summary
    assert f"at t={summary.peak_time} ({summary.peak_instruction})" in timeline.svg
    assert timeline.svg == session.memory_svg(timeline.report)
