"""A dump folder's modules listed as a user reads the list: one row per compilation, the largest peak first, each
peak the one `hlo-lsp memory` gives that module."""

from __future__ import annotations

import pytest

from helpers import CORPUS, DATA, FOLDER_SMALL_EAGER, TPU_MATMUL
from hlo_lsp.features.memory_timeline import memory_report
from hlo_lsp.features.module_list import module_rows
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.session import Session
from hlo_lsp.workspace.loader import load

# Every bundled dump, and the shared corpus and producers' when they are beside the project.
EVERY_DUMP = [DATA] + [folder for folder in (CORPUS, CORPUS.parent / "producers") if folder.is_dir()]


def test_a_small_programs_folder_lists_the_eager_draw_of_its_input_first() -> None:
    rows = module_rows(load([str(FOLDER_SMALL_EAGER)]).modules)
    assert len(rows) == 14
    assert [(row.name, row.peak) for row in rows[:2]] == [("jit__normal", 524_368), ("jit_step", 245_896)]
    peaks = [row.peak or 0 for row in rows]
    assert peaks == sorted(peaks, reverse=True)
    first = rows[0]
    assert first.files == tuple(sorted(path.name for path in FOLDER_SMALL_EAGER.glob("module_0016.*")))
    hlo = FOLDER_SMALL_EAGER / "module_0016.jit__normal.cpu_after_optimizations.txt"
    assert first.path == str(hlo) and first.hlo_bytes == hlo.stat().st_size
    assert (first.instructions, first.allocated) == (296, 525_112)


def test_every_peak_is_the_one_the_memory_command_gives() -> None:
    modules = load([str(FOLDER_SMALL_EAGER), str(TPU_MATMUL.parent)]).modules
    for row in module_rows(modules):
        module = next(module for module in modules if module.hlo_document and module.hlo_document.source == row.path)
        memory = Session.memory(module)
        assert memory is not None and memory.report is not None
        assert row.peak == memory.summary.peak_bytes, row.path
        assert [(peak.space, peak.bytes) for peak in row.peaks] == [
            (space.space.name, space.summary.peak_bytes) for space in memory.report.spaces], row.path


def test_a_tpu_compilation_is_one_row_with_every_stage_file_and_each_spaces_peak() -> None:
    rows = module_rows(load([str(TPU_MATMUL.parent)]).modules, sort="name")
    assert [row.name for row in rows] == ["jit_mm", "jit_step"]
    jit_mm = rows[0]
    assert jit_mm.path.endswith("module_0000.jit_mm.cl_933746096.after_optimizations.txt")
    assert "module_0000.jit_mm.cl_933746096.after_codegen.txt" in jit_mm.files
    assert [(peak.space, peak.bytes) for peak in jit_mm.peaks][:2] == [("default", 917_504), ("vmem", 786_432)]


def test_sorted_by_name_or_by_the_size_of_the_hlo_file() -> None:
    modules = load([str(FOLDER_SMALL_EAGER)]).modules
    names = [row.name for row in module_rows(modules, sort="name")]
    assert names == sorted(names)
    sizes = [row.hlo_bytes for row in module_rows(modules, sort="size")]
    assert sizes == sorted(sizes, reverse=True)


@pytest.fixture(scope="module")
def every_module() -> list[ModuleDump]:
    return load([str(folder) for folder in EVERY_DUMP]).modules


def test_every_modules_peaks_are_those_of_its_memory_timeline_read_with_its_hlo_module(
        every_module: list[ModuleDump]) -> None:
    """The list takes the shapes of the values file's lines, the timeline those of the HLO module: the same peaks,
    in every space, for every module of every producer."""
    compared = 0
    for module in every_module:
        report = memory_report(module, drawn=0)
        if report is None or module.borrowed:
            continue
        row = module_rows([module])[0]
        assert [(peak.space, peak.bytes) for peak in row.peaks] == [
            (space.space.name, space.summary.peak_bytes) for space in report.spaces], module.stem
        compared += 1
    assert compared >= (90 if CORPUS.is_dir() else 35)


def test_every_modules_instruction_count_is_the_scanners(every_module: list[ModuleDump]) -> None:
    for module in every_module:
        if module.hlo is not None:
            row = module_rows([module])[0]
            assert row.instructions == sum(1 for _ in module.hlo.instruction_scans()), module.stem


def test_the_peak_of_a_module_whose_values_file_names_no_shape_comes_from_its_hlo_module(tmp_path) -> None:
    for path in (FOLDER_SMALL_EAGER).glob("module_0020.*"):
        text = path.read_text()
        if path.name.endswith("-values.txt"):
            text = text.replace("from instruction:", "from somewhere:")
        (tmp_path / path.name).write_text(text)
    assert [(row.name, row.peak) for row in module_rows(load([str(tmp_path)]).modules)] == [("jit_step", 245_896)]
