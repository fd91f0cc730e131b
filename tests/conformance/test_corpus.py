"""The whole shared corpus of real XLA dumps, and the dumps of the other producers (TPU, TensorFlow,
PyTorch/XLA, flax): read without a single problem, names resolved, sizes and peaks recomputed
exactly as XLA printed them."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from helpers import CORPUS
from hlo_lsp.analysis.context import CheckContext
from hlo_lsp.analysis.memory import live_at, memory_by_space, new_format_peak, peak_moment
from hlo_lsp.analysis.run import check_module
from hlo_lsp.analysis.timeline import memory_timeline
from hlo_lsp.features.memory_svg import timeline_svg
from hlo_lsp.features.memory_timeline import memory_report
from hlo_lsp.model.buffer_assignment import Allocation
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.sizes import dense_size, human_bytes, tiled_size
from hlo_lsp.parsing.ba_syntax import buffer_assignment_error, memory_report_error
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.parsing.hlo_syntax import parse_module
from hlo_lsp.parsing.line_scan import Role
from hlo_lsp.parsing.syntax import ParseError, TupleShape
from hlo_lsp.workspace.loader import load

PRODUCERS = CORPUS.parent / "producers"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CORPUS.is_dir() or not PRODUCERS.is_dir(),
                       reason=f"the shared corpus and producers are not beside the project ({CORPUS.parent})"),
]
ROOTS = (CORPUS, PRODUCERS)


def _modules() -> list[ModuleDump]:
    return load([str(root) for root in ROOTS]).modules if CORPUS.is_dir() and PRODUCERS.is_dir() else []


MODULES = _modules()
IDS = [str(Path(m.stem).relative_to(CORPUS.parent)) for m in MODULES]


def test_corpus_is_all_found() -> None:
    loaded = load([str(root) for root in ROOTS])
    assert loaded.problems == []
    files = sum(len(module.documents) for module in loaded.modules)
    listed = [p for root in ROOTS for p in root.rglob("*.txt")
              if p.name not in ("MANIFEST.txt", "README.md") and detect_kind(p.name, p.read_text()).is_dump]
    assert files == len(listed)


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_module_has_no_problems(module: ModuleDump) -> None:
    assert [f"{p.source}:{p.range}: {p.message} [{p.code}]" for p in check_module(module)] == []


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_every_file_follows_its_grammar(module: ModuleDump) -> None:
    for kind, document in module.documents.items():
        text = document.text
        if kind is FileKind.HLO_MODULE:
            error = parse_module(text)
            assert not isinstance(error, ParseError), (document.source, error)
        elif kind is FileKind.MEMORY_USAGE_REPORT:
            assert memory_report_error(text) is None, document.source
        else:
            assert buffer_assignment_error(text) is None, document.source


@pytest.mark.parametrize("module", [m for m in MODULES if m.hlo is not None],
                         ids=[i for m, i in zip(MODULES, IDS) if m.hlo is not None])
def test_every_name_resolves(module: ModuleDump) -> None:
    hlo = module.hlo
    assert hlo is not None
    defined = {ref.name for _, scan in hlo.document.scans() for ref in scan.refs if ref.role is Role.INSTRUCTION_DEF}
    used = {ref.name for _, ref in hlo.document.all_uses() if ref.role is Role.INSTRUCTION_USE}
    assert used <= defined
    for document in module.buffer_assignment_documents:
        mentioned = {ref.name for _, ref in document.all_uses() if ref.role is Role.INSTRUCTION_MENTION}
        assert mentioned, document.source
        assert mentioned <= defined, (document.source, sorted(mentioned - defined)[:5])


WITH_BUFFERS = [m for m in MODULES if m.buffer_assignment is not None]
BUFFER_IDS = [i for m, i in zip(MODULES, IDS) if m.buffer_assignment is not None]


@pytest.mark.parametrize("module", WITH_BUFFERS, ids=BUFFER_IDS)
def test_recomputed_sizes_equal_printed_sizes(module: ModuleDump) -> None:
    context = CheckContext(module)
    buffers = module.buffer_assignment
    assert buffers is not None
    checked = 0
    for value in buffers.values():
        shape = context.shape(value.shape_text)
        assert shape is not None, value.shape_text
        if isinstance(shape, TupleShape):
            if context.tiled:
                continue  # TPU tuple tables are backend-sized (32 bytes in the seeds, 512 with libtpu 0.0.42)
            expected = dense_size(shape)
        elif context.tiled and shape.layout is None:  # padded as the backend sees fit: at least dense
            assert value.size >= dense_size(shape), (value.label, value.shape_text)
            continue
        else:
            expected = tiled_size(shape) if context.tiled else dense_size(shape)
        assert expected == value.size, (value.label, value.shape_text)
        checked += 1
    assert checked or not buffers.allocations


WITH_PEAK = [m for m in WITH_BUFFERS if m.buffer_assignment.live_range and m.buffer_assignment.live_range.peak]
PEAK_IDS = [i for m, i in zip(WITH_BUFFERS, BUFFER_IDS) if m in WITH_PEAK]


@pytest.mark.parametrize("module", WITH_PEAK, ids=PEAK_IDS)
def test_peak_time_and_list_equal_xla(module: ModuleDump) -> None:
    section = module.buffer_assignment.live_range
    sized = CheckContext(module).sized_live_ranges
    assert sized is not None
    time = peak_moment((s.live_range.start, s.live_range.end, s.instruction_bytes) for s in sized)
    assert time == section.peak_time
    if section.peak_format == "new":
        assert new_format_peak(sized, time) == [(entry.label, entry.size) for entry in section.peak]
    else:
        live = live_at(sized, time)
        assert Counter(s.live_range.name for s in live) == Counter(entry.name for entry in section.peak)
        sizes = {s.live_range.name: s.instruction_bytes for s in live}
        assert all(sizes[entry.name] == entry.size for entry in section.peak)


def xla_kind(allocation: Allocation) -> str:
    """What holds a value, as XProf's memory viewer splits it: the allocation's kind."""
    if allocation.is_parameter:
        return "parameter"
    if allocation.maybe_live_out:
        return "output"
    return "constant" if allocation.is_constant else "temporary"


@pytest.mark.parametrize("module", WITH_PEAK, ids=PEAK_IDS)
def test_memory_model_has_xlas_peak_time_bytes_and_list(module: ModuleDump) -> None:
    buffers = module.buffer_assignment
    section = buffers.live_range
    timeline = memory_timeline(module.hlo, buffers)
    assert timeline is not None
    summary = timeline.summary
    printed = sum(entry.size for entry in section.peak)
    if section.peak_format == "new":
        assert printed == section.peak[-1].cumulative
    if section.breakdown_total is not None:
        assert printed == section.breakdown_total
    assert (summary.peak_time, summary.peak_bytes) == (section.peak_time, printed)
    assert timeline.usage[section.peak_time] == printed  # the usage curve passes through XLA's peak
    if section.peak_format == "new":
        assert [(b.label, b.counted) for b in summary.buffers_at_peak] == [(e.label, e.size) for e in section.peak]
    else:  # name only, each live value with its whole instruction's size, in value-ID order
        assert Counter((b.live_range.name, b.counted) for b in summary.buffers_at_peak) == Counter(
            (e.name, e.size) for e in section.peak)


@pytest.mark.parametrize("module", [m for m in WITH_PEAK if m.buffer_assignment.live_range.peak_format == "new"],
                         ids=[i for m, i in zip(WITH_PEAK, PEAK_IDS)
                              if m.buffer_assignment.live_range.peak_format == "new"])
def test_peak_split_into_parameters_outputs_and_temporaries(module: ModuleDump) -> None:
    buffers = module.buffer_assignment
    allocations = {allocation.index: allocation for allocation in buffers.allocations}
    values = {(value.name, value.index or ()): value for value in buffers.values()}
    expected: Counter[str] = Counter()
    for entry in buffers.live_range.peak:
        expected[xla_kind(allocations[values[(entry.name, entry.index)].allocation])] += entry.size
    summary = memory_timeline(module.hlo, buffers).summary
    assert summary.bytes_by_kind() == dict(expected)


@pytest.mark.parametrize("module", WITH_PEAK, ids=PEAK_IDS)
def test_every_timeline_draws_with_the_peak_marked(module: ModuleDump) -> None:
    report = memory_report(module)
    assert report is not None
    svg = timeline_svg(report)
    summary = report.timeline.summary
    assert f">peak {human_bytes(summary.peak_bytes)} at t={summary.peak_time}" in svg
    assert svg.count('<g class="buffer ') == min(20, len(report.timeline.buffers))


def test_corpus_has_both_peak_formats_and_all_generations() -> None:
    formats = {m.buffer_assignment.live_range.peak_format for m in WITH_PEAK}
    assert formats == {"old", "new"}
    assert {Path(m.stem).relative_to(CORPUS.parent).parts[:2] for m in MODULES} >= {
        ("corpus", "seeds"), ("corpus", "jax-0.10.2"), ("corpus", "jax-0.4.38"), ("producers", "jax-0.10.2-tpu"),
        ("producers", "tf-2.21.0"), ("producers", "torch-xla-2.9.0"), ("producers", "jax-0.10.2-flax")}


WITH_REPORT = [m for m in MODULES if Path(f"{m.stem}-memory-usage-report.txt").is_file() and m.buffer_assignment]
REPORT_IDS = [i for m, i in zip(MODULES, IDS) if m in WITH_REPORT]


@pytest.mark.parametrize("module", WITH_REPORT, ids=REPORT_IDS)
def test_every_memory_space_is_named_and_totalled_as_the_report_prints_it(module: ModuleDump) -> None:
    text = Path(f"{module.stem}-memory-usage-report.txt").read_text()
    printed = [(name, int(color), int(total)) for name, color, total in
               re.findall(r"^Memory Space: (\S+) \(color=(\d+)\)\nTotal bytes: (\d+) ", text, re.MULTILINE)]
    spaces = module.memory_spaces
    if printed:
        assert [(space.name, space.color, space.reported_total) for space in spaces] == printed
    totals = [m.summary.total_bytes for m in memory_by_space(module.hlo, module.buffer_assignment, spaces)]
    assert totals == ([total for _, _, total in printed] or [module.buffer_assignment.totals.size])


@pytest.mark.parametrize("module", [m for m in WITH_PEAK if m.buffer_assignment.live_range.peak_format == "new"],
                         ids=[i for m, i in zip(WITH_PEAK, PEAK_IDS)
                              if m.buffer_assignment.live_range.peak_format == "new"])
def test_the_memory_spaces_add_up_to_the_peak_xla_prints(module: ModuleDump) -> None:
    buffers = module.buffer_assignment
    section = buffers.live_range
    at_peak = [memory_timeline(module.hlo, buffers, space.color).usage[section.peak_time]
               for space in module.memory_spaces]
    assert sum(at_peak) == sum(entry.size for entry in section.peak)
