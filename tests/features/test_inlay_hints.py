"""Inlay hints: each buffer's size and live range where its instruction is defined, and each value
line's live range, on real dumps; the expected figures are read from the dumps' own files."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

from helpers import COMBINED_MLP, GPU_HLO_SEED, SPLIT_CONTROL_FLOW, SPLIT_HLO, SPLIT_MLP, module_of
from hlo_lsp.features.inlay_hints import InlayHint, inlay_hints
from hlo_lsp.features.memory_index import size_text
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.sizes import human_bytes
from hlo_lsp.text import Position, Range

SPLIT_ALLOCATIONS = Path(f"{SPLIT_MLP}-buffer-assignment.txt")
SPLIT_LIVE_RANGE = Path(f"{SPLIT_MLP}-live-range.txt")
EVERYTHING = Range(Position(0, 0), Position(1 << 30, 0))


def document_of(module: ModuleDump, path: Path) -> Document:
    return next(d for d in module.all_documents() if Path(d.source).name == path.name)


def hints_of(path: Path, visible: Range = EVERYTHING, module: ModuleDump | None = None) -> list[InlayHint]:
    module = module or module_of(path)
    return inlay_hints(module, document_of(module, path), visible)


def line_with(path: Path, needle: str) -> tuple[int, str]:
    found = [(number, text) for number, text in enumerate(path.read_text().split("\n")) if needle in text]
    assert len(found) == 1, (needle, len(found))
    return found[0]


def printed_value(path: Path, name: str) -> int:
    """The size XLA printed for the value of `name` (`value: <id name @0> (size=N,offset=O)`)."""
    match = re.search(rf" value: <\d+ {re.escape(name)} @\d+> \(size=(\d+),", path.read_text())
    assert match is not None, name
    return int(match.group(1))


def printed_live_range(path: Path, label: str) -> tuple[int, int]:
    match = re.search(rf"^    {re.escape(label)}:(\d+)-(\d+)$", path.read_text(), re.MULTILINE)
    assert match is not None, label
    return int(match.group(1)), int(match.group(2))


def hint_on(hints: list[InlayHint], line: int) -> InlayHint:
    found = [hint for hint in hints if hint.position.line == line]
    assert len(found) == 1, (line, found)
    return found[0]


def test_size_text_is_xlas_human_bytes_with_a_space_before_the_unit() -> None:
    assert human_bytes(32768) == "32.0KiB"
    assert size_text(32768) == "32.0 KiB"
    assert size_text(40) == "40 B"
    assert size_text(300 * 1024 * 1024) == "300.00 MiB"


def test_an_instruction_shows_its_buffer_size_and_live_range_after_its_shape() -> None:
    hints = hints_of(SPLIT_HLO)
    line, text = line_with(SPLIT_HLO, "  %ynn_fusion.1 = ")
    size = printed_value(SPLIT_ALLOCATIONS, "ynn_fusion.1")
    start, end = printed_live_range(SPLIT_LIVE_RANGE, "ynn_fusion.1{}")
    hint = hint_on(hints, line)
    assert hint.label == f"{human_bytes(size)[:-3]} KiB · {start}→{end}" == "32.0 KiB · 9→10"
    assert hint.position == Position(line, text.index("f32[32,256]{1,0}") + len("f32[32,256]{1,0}"))
    assert hint.tooltip.split("\n") == [
        "<62 ynn_fusion.1 @0>: 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0",
        "  live [9, 10]: from ynn_fusion.1 to add_maximum_fusion"]


def test_every_instruction_with_a_buffer_gets_a_hint_and_no_other_does() -> None:
    hints = hints_of(SPLIT_HLO)
    allocated = set(re.findall(r" value: <\d+ ([\w.\-]+) @\d+>", SPLIT_ALLOCATIONS.read_text()))
    lines = SPLIT_HLO.read_text().split("\n")
    hinted = {re.match(r"\s*(?:ROOT )?%([\w.\-]+) =", lines[hint.position.line]).group(1) for hint in hints}
    assert hinted == allocated
    assert len(hints) == len(allocated) == 21


def test_a_parameter_live_to_the_end_and_a_thread_local_value() -> None:
    hints = hints_of(SPLIT_HLO)
    assert hint_on(hints, line_with(SPLIT_HLO, "  %ws_1_.1 = ")[0]).label == "256.0 KiB · 0→15"
    assert hint_on(hints, line_with(SPLIT_HLO, "  %bs_2_.1 = ")[0]).label == "40 B · 0→15"
    thread_local = hint_on(hints, line_with(SPLIT_HLO, "ROOT %reduce_sum.5 = ")[0])
    assert thread_local.label == "4 B · thread-local"
    assert "no live range: thread-local" in thread_local.tooltip


def test_only_the_lines_of_the_requested_range_get_hints() -> None:
    first, _ = line_with(SPLIT_HLO, "  %ynn_fusion.2 = ")
    last, _ = line_with(SPLIT_HLO, "  %add_maximum_fusion = ")
    hints = hints_of(SPLIT_HLO, Range(Position(first, 0), Position(last, 0)))
    assert [hint.label for hint in hints] == ["32.0 KiB · 7→8", "32.0 KiB · 8→9", "32.0 KiB · 9→10",
                                              "32.0 KiB · 10→11"]
    assert hints_of(SPLIT_HLO, Range(Position(0, 0), Position(20, 0))) == []  # the stack-frame tables


def test_a_tuple_instruction_lists_its_buffers_by_index() -> None:
    hlo = Path(f"{SPLIT_CONTROL_FLOW}.txt")
    live = Path(f"{SPLIT_CONTROL_FLOW}-live-range.txt")
    line, _ = line_with(hlo, "  %while.1 = ")
    ranges = [printed_live_range(live, f"while.1{index}") for index in ("{}", "{0}", "{1}")]
    label = hint_on(hints_of(hlo), line).label
    assert label == (f"{{}} 16 B · {ranges[0][0]}→{ranges[0][1]}, {{0}} 4 B · {ranges[1][0]}→{ranges[1][1]}, "
                     f"{{1}} 1.0 KiB · {ranges[2][0]}→{ranges[2][1]}")
    assert label == "{} 16 B · 52→53, {0} 4 B · 52→52, {1} 1.0 KiB · 52→55"


def test_a_value_line_of_the_buffer_assignment_shows_its_live_range_at_its_end() -> None:
    hints = hints_of(SPLIT_ALLOCATIONS)
    line, text = line_with(SPLIT_ALLOCATIONS, "<62 ynn_fusion.1 @0>")
    hint = hint_on(hints, line)
    assert hint.label == "9→10"
    assert hint.position == Position(line, len(text))
    assert hint.tooltip == "ynn_fusion.1 live [9, 10]: from ynn_fusion.1 to add_maximum_fusion"
    values = re.findall(r"^ value: <\d+ ([\w.\-]+) @0>", SPLIT_ALLOCATIONS.read_text(), re.MULTILINE)
    thread_local = {"reduce_sum.3", "reduce_sum.4", "reduce_sum.5", "reduce_max.3", "reduce_max.4", "reduce_max.5"}
    assert len(hints) == len(values) - len(thread_local) == 15


def test_the_combined_file_of_older_xla() -> None:
    hlo = Path(f"{COMBINED_MLP}.txt")
    combined = Path(f"{COMBINED_MLP}-buffer-assignment.txt")
    line, _ = line_with(hlo, "  broadcast_maximum_fusion = ")
    start, end = printed_live_range(combined, "broadcast_maximum_fusion{}")
    assert hint_on(hints_of(hlo), line).label == f"32.0 KiB · {start}→{end}"
    value_line, _ = line_with(combined, " value: <57 broadcast_maximum_fusion @0>")
    assert hint_on(hints_of(combined), value_line).label == f"{start}→{end}"


def test_without_a_live_range_file_the_size_alone(tmp_path: Path) -> None:
    for suffix in (".txt", "-buffer-assignment.txt"):
        shutil.copyfile(f"{SPLIT_MLP}{suffix}", tmp_path / f"{SPLIT_MLP.name}{suffix}")
    hlo = tmp_path / SPLIT_HLO.name
    line, _ = line_with(hlo, "  %ynn_fusion.1 = ")
    assert hint_on(hints_of(hlo), line).label == "32.0 KiB"
    assert hints_of(tmp_path / SPLIT_ALLOCATIONS.name) == []


def test_no_hints_without_a_buffer_assignment_or_for_another_compilation(tmp_path: Path) -> None:
    assert hints_of(GPU_HLO_SEED) == []
    # The files of another module under this module's name (XLA numbers modules per process).
    shutil.copyfile(f"{COMBINED_MLP}.txt", tmp_path / SPLIT_HLO.name)
    for suffix in ("-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt"):
        shutil.copyfile(f"{SPLIT_MLP}{suffix}", tmp_path / f"{SPLIT_MLP.name}{suffix}")
    assert hints_of(tmp_path / SPLIT_HLO.name) == []


def test_a_range_of_a_large_module_costs_its_lines_not_the_file(corpus: Path) -> None:
    stem = corpus / "jax-0.10.2" / "large_fwd_unrolled" / "module_0000.jit_fwd.cpu_after_optimizations"
    hlo = Path(f"{stem}.txt")
    module = module_of(hlo)
    document = document_of(module, hlo)
    middle = document.line_count // 2
    hints_of(hlo, Range(Position(middle, 0), Position(middle + 1, 0)), module)  # builds the model and index
    started = time.perf_counter()
    hints = hints_of(hlo, Range(Position(middle, 0), Position(middle + 80, 0)), module)
    elapsed = time.perf_counter() - started
    assert hints and all(middle <= hint.position.line <= middle + 80 for hint in hints)
    assert elapsed < 0.25, elapsed
