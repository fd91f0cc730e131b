"""Code lenses: the peak on the ENTRY computation, `peak here` on the instruction at the peak, and what
each allocation holds at the peak, on real dumps; the figures are read from XLA's printed peak."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from helpers import COMBINED_MLP, GPU_SEED, SPLIT_CONTROL_FLOW, SPLIT_HLO, SPLIT_MLP, line_with, lines_of, module_of
from hlo_lsp.features.code_lens import Lens, code_lenses
from hlo_lsp.features.memory_index import size_text
from hlo_lsp.model.dump_module import ModuleDump

SPLIT_ALLOCATIONS = Path(f"{SPLIT_MLP}-buffer-assignment.txt")
SPLIT_LIVE_RANGE = Path(f"{SPLIT_MLP}-live-range.txt")


def lenses_of(path: Path, module: ModuleDump | None = None) -> list[Lens]:
    module = module or module_of(path)
    document = next(d for d in module.all_documents() if Path(d.source).name == path.name)
    return code_lenses(module, document)


class PrintedPeak:
    """`Live ranges at T (peak):`, its list, and the instruction scheduled at T, as XLA printed them."""

    def __init__(self, path: Path) -> None:
        text = path.read_text()
        self.time = int(re.search(r"Live ranges at (\d+) \(peak\):", text).group(1))  # type: ignore[union-attr]
        self.entries = re.findall(r"^    ([\w.\-]+)(\{[\d,]*\})?: (\d+) bytes", text, re.MULTILINE)
        self.total = sum(int(size) for _, _, size in self.entries)
        self.instruction = re.search(rf"^    {self.time}:([\w.\-]+)$", text, re.MULTILINE).group(1)  # type: ignore[union-attr]
        self.names = [name for name, _, _ in self.entries]


def titles(lenses: list[Lens], line: int) -> list[str]:
    return [lens.title for lens in lenses if lens.range.start.line == line]


def test_the_entry_computation_shows_the_peak_and_the_buffers_live_at_it() -> None:
    peak = PrintedPeak(SPLIT_LIVE_RANGE)
    lenses = lenses_of(SPLIT_HLO)
    entry = line_with(SPLIT_HLO, "ENTRY %main.5 ")
    assert titles(lenses, entry) == [f"peak {size_text(peak.total)} at time {peak.time} ({peak.instruction})",
                                     f"{len(peak.entries)} buffers live at peak"]
    assert titles(lenses, entry) == ["peak 476.0 KiB at time 9 (ynn_fusion.1)", "9 buffers live at peak"]
    listing = next(lens for lens in lenses if lens.title == "9 buffers live at peak")
    hlo_lines = lines_of(SPLIT_HLO)
    listed = [hlo_lines[found.range.start.line][found.range.start.character:found.range.end.character]
              for found in listing.locations]
    assert sorted(listed) == sorted(peak.names)
    assert all(found.source == str(SPLIT_HLO) for found in listing.locations)
    assert next(lens for lens in lenses if lens.title.startswith("peak 476")).locations == ()


def test_the_instruction_at_the_peak_says_peak_here() -> None:
    lenses = lenses_of(SPLIT_HLO)
    line = line_with(SPLIT_HLO, "  %ynn_fusion.1 = ")
    assert titles(lenses, line) == ["peak here: 476.0 KiB, 9 buffers live"]
    assert len(lenses) == 3
    here = next(lens for lens in lenses if lens.range.start.line == line)
    assert here.range.start.character == 2  # the line without its indentation


def test_each_allocation_header_shows_what_it_holds_at_the_peak() -> None:
    lenses = lenses_of(SPLIT_ALLOCATIONS)
    temp = line_with(SPLIT_ALLOCATIONS, "allocation 14: ")
    # At time 9 allocation 14 holds broadcast_maximum_fusion (8-9) and ynn_fusion.1 (9-10), 32 KiB each.
    assert titles(lenses, temp) == ["64.0 KiB at peak (time 9)", "2 buffers live at peak"]
    listing = next(lens for lens in lenses if lens.range.start.line == temp and lens.locations)
    value_lines = [lines_of(SPLIT_ALLOCATIONS)[found.range.start.line] for found in listing.locations]
    assert [re.search(r"<\d+ ([\w.]+) @0>", text).group(1) for text in value_lines] == [  # type: ignore[union-attr]
        "broadcast_maximum_fusion", "ynn_fusion.1"]
    output = line_with(SPLIT_ALLOCATIONS, "allocation 4: ")
    assert titles(lenses, output) == ["no buffer live at peak (time 9)"]
    parameter = line_with(SPLIT_ALLOCATIONS, "allocation 0: ")
    assert titles(lenses, parameter) == ["256.0 KiB at peak (time 9)", "1 buffer live at peak"]
    thread_local = line_with(SPLIT_ALLOCATIONS, "allocation 8: ")
    assert titles(lenses, thread_local) == []


def test_the_allocations_at_the_peak_add_up_to_the_peak() -> None:
    peak = PrintedPeak(SPLIT_LIVE_RANGE)
    lenses = lenses_of(SPLIT_ALLOCATIONS)
    counts = [int(lens.title.split()[0]) for lens in lenses if lens.title.endswith("live at peak")]
    assert sum(counts) == len(peak.entries)


def test_the_live_range_file_marks_the_peak_in_the_schedule() -> None:
    lenses = lenses_of(SPLIT_LIVE_RANGE)
    assert [(lens.range.start.line, lens.title) for lens in lenses] == [
        (line_with(SPLIT_LIVE_RANGE, "    9:ynn_fusion.1"), "peak here: 476.0 KiB, 9 buffers live")]
    assert len(lenses[0].locations) == 9
    assert all(lines_of(SPLIT_LIVE_RANGE)[found.range.start.line].strip().split("{")[0] in PrintedPeak(
        SPLIT_LIVE_RANGE).names for found in lenses[0].locations)


def test_older_xla_combined_file_and_hlo_without_sigils() -> None:
    combined = Path(f"{COMBINED_MLP}-buffer-assignment.txt")
    peak = PrintedPeak(combined)
    hlo = Path(f"{COMBINED_MLP}.txt")
    lenses = lenses_of(hlo)
    assert titles(lenses, line_with(hlo, "ENTRY main.68 {")) == [
        f"peak {size_text(peak.total)} at time {peak.time} ({peak.instruction})",
        f"{len(peak.entries)} buffers live at peak"]
    assert titles(lenses, line_with(hlo, f"  {peak.instruction} = ")) == [
        f"peak here: {size_text(peak.total)}, {len(peak.entries)} buffers live"]


def test_the_old_peak_format_of_a_gpu_seed() -> None:
    """`name: N bytes` lines, one per live value; the seed has no HLO module of its own."""
    peak = PrintedPeak(GPU_SEED)
    lenses = lenses_of(GPU_SEED)
    counts = [int(lens.title.split()[0]) for lens in lenses if lens.title.endswith("live at peak")]
    assert sum(counts) == len(peak.entries)
    assert sum(len(lens.locations) for lens in lenses) == len(peak.entries) + len(peak.entries)  # + peak here
    assert any(lens.title == f"peak here: {size_text(peak.total)}, {len(peak.entries)} buffers live"
               for lens in lenses)


def test_control_flow_peak_inside_a_branch() -> None:
    hlo = Path(f"{SPLIT_CONTROL_FLOW}.txt")
    peak = PrintedPeak(Path(f"{SPLIT_CONTROL_FLOW}-live-range.txt"))
    lenses = lenses_of(hlo)
    here = [lens for lens in lenses if lens.title.startswith("peak here")]
    assert len(here) == 1
    assert f"%{peak.instruction} = " in lines_of(hlo)[here[0].range.start.line]


def test_without_places_the_lenses_only_say_that_they_list_some() -> None:
    for path in (SPLIT_HLO, SPLIT_ALLOCATIONS, SPLIT_LIVE_RANGE):
        module = module_of(path)
        (document,) = [d for d in module.all_documents() if d.source == str(path)]
        whole = code_lenses(module, document)
        assert any(lens.locations for lens in whole), path.name
        assert all(lens.lists_places == bool(lens.locations) for lens in whole), path.name
        bare = code_lenses(module, document, with_places=False)
        assert bare == [replace(lens, locations=()) for lens in whole], path.name
