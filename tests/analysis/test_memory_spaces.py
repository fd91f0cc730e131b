"""Memory spaces: named as the memory-usage report names them, with the report's totals, and a peak
for each by XLA's accounting, against what XLA and JAX printed about the same compilations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import DATA, SPLIT_MLP, TPU_MATMUL, TPU_PALLAS, TPU_SEED, TPU_STEP, module_of
from hlo_lsp.analysis.memory import memory_by_space, memory_summary
from hlo_lsp.analysis.timeline import memory_timeline
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.workspace.loader import load

MODULES = [module for module in load([str(DATA)]).modules if module.buffer_assignment is not None]
WITH_REPORT = [module for module in MODULES if Path(f"{module.stem}-memory-usage-report.txt").is_file()]
WITH_NEW_PEAK = [module for module in MODULES if module.buffer_assignment.live_range is not None
                 and module.buffer_assignment.live_range.peak_format == "new"]


def name_of(module: ModuleDump) -> str:
    return module.stem.split("/data/")[-1]


def reported_spaces(module: ModuleDump) -> list[tuple[str, int, int]]:
    """(name, color, total bytes) of each `Memory Space:` section of the module's report, as printed."""
    text = Path(f"{module.stem}-memory-usage-report.txt").read_text()
    return [(name, int(color), int(total)) for name, color, total in
            re.findall(r"^Memory Space: (\S+) \(color=(\d+)\)\nTotal bytes: (\d+) ", text, re.MULTILINE)]


@pytest.mark.parametrize("module", WITH_REPORT, ids=name_of)
def test_every_space_is_named_and_totalled_as_the_report_prints_it(module: ModuleDump) -> None:
    printed = reported_spaces(module)
    spaces = module.memory_spaces
    if not printed:  # the older report (JAX 0.4.38, TensorFlow, PyTorch/XLA) names no space
        assert [(space.name, space.color) for space in spaces] == [("default", 0)]
        return
    assert [(space.name, space.color, space.reported_total) for space in spaces] == printed
    allocated = [memory.summary.total_bytes for memory in memory_by_space(module.hlo, module.buffer_assignment,
                                                                           spaces)]
    assert allocated == [total for _, _, total in printed]


def test_a_tpu_module_has_the_default_space_vmem_and_smem() -> None:
    spaces = module_of(Path(f"{TPU_MATMUL}.txt")).memory_spaces
    assert [(space.color, space.name) for space in spaces] == [(0, "default"), (1, "vmem"), (2, "smem")]
    assert spaces.several
    pallas = module_of(Path(f"{TPU_PALLAS}.txt")).memory_spaces
    assert [(space.color, space.name) for space in pallas] == [(0, "default"), (1, "vmem"), (2, "smem"),
                                                               (6, "color_6")]


def test_without_a_report_a_space_is_known_by_its_color() -> None:
    spaces = module_of(TPU_SEED).memory_spaces
    assert [(space.color, space.name, space.reported_total) for space in spaces] == [
        (0, "default", None), (1, "color 1", None), (2, "color 2", None)]
    assert not module_of(Path(f"{SPLIT_MLP}.txt")).memory_spaces.several


@pytest.mark.parametrize("module", WITH_NEW_PEAK, ids=name_of)
def test_the_spaces_add_up_to_the_peak_xla_prints_at_its_time(module: ModuleDump) -> None:
    """XLA's printed peak counts every space: at its time, the spaces' timelines add up to it."""
    buffers = module.buffer_assignment
    section = buffers.live_range
    printed = sum(entry.size for entry in section.peak)
    at_peak = [memory_timeline(module.hlo, buffers, space.color).usage[section.peak_time]
               for space in module.memory_spaces]
    assert sum(at_peak) == printed


@pytest.mark.parametrize("module", WITH_NEW_PEAK, ids=name_of)
def test_the_peak_of_each_space_is_the_most_its_running_sum_holds(module: ModuleDump) -> None:
    buffers = module.buffer_assignment
    for memory in memory_by_space(module.hlo, buffers, module.memory_spaces):
        summary = memory.summary
        if summary.peak_time is None:
            continue
        usage = memory_timeline(module.hlo, buffers, memory.space.color).usage
        assert usage[summary.peak_time] == summary.peak_bytes
        assert summary.peak_bytes == sum(buffer.counted for buffer in summary.buffers_at_peak)


def test_a_module_of_one_space_has_the_peak_xla_prints() -> None:
    module = module_of(Path(f"{SPLIT_MLP}.txt"))
    (memory,) = memory_by_space(module.hlo, module.buffer_assignment, module.memory_spaces)
    assert memory.summary == memory_summary(module.hlo, module.buffer_assignment, color=0)
    assert memory.summary.peak_bytes == memory_summary(module.hlo, module.buffer_assignment).peak_bytes == 487_464


@pytest.mark.parametrize("stem", [TPU_MATMUL, TPU_STEP, TPU_PALLAS], ids=lambda stem: stem.name.split(".")[1])
def test_the_default_space_holds_the_arguments_and_outputs_jax_reports(stem: Path) -> None:
    """`jax.stages.Compiled.memory_analysis()` of the same compilation (in the case's MANIFEST.txt)."""
    manifest = (stem.parent / "MANIFEST.txt").read_text()
    module = module_of(Path(f"{stem}.txt"))
    default = [allocation for allocation in module.buffer_assignment.allocations if allocation.color == 0]
    figures = {
        "argument": sum(allocation.size for allocation in default if allocation.is_parameter),
        "output": sum(allocation.size for allocation in default if allocation.maybe_live_out),
        "alias": sum(allocation.size for allocation in default
                     if allocation.is_parameter and allocation.maybe_live_out),
    }
    printed = f"argument_size_in_bytes={figures['argument']}, output_size_in_bytes={figures['output']}, " \
              f"alias_size_in_bytes={figures['alias']}"
    assert printed in manifest


def test_the_peak_of_each_tpu_space() -> None:
    module = module_of(Path(f"{TPU_MATMUL}.txt"))
    peaks = [(memory.space.name, memory.summary.peak_time, memory.summary.peak_instruction, memory.summary.peak_bytes,
              [buffer.label for buffer in memory.summary.buffers_at_peak])
             for memory in memory_by_space(module.hlo, module.buffer_assignment, module.memory_spaces)]
    assert peaks == [
        ("default", 5, "all-reduce", 917_504, ["param.1{}", "all-reduce{}", "param{}"]),
        ("vmem", 4, "fusion", 786_432, ["copy-start{0}", "fusion{}"]),
        ("smem", 1, "copy-start", 4, ["copy-start{2}"]),
    ]
    assert memory_summary(module.hlo, module.buffer_assignment).peak_bytes == 1_179_648  # as XLA prints it
