"""The memory timeline (features/memory_timeline.py, features/memory_svg.py) on real dumps: the report's
records (their JSON: tests/lsp/test_memory_json.py), and the SVG picture, checked as text, as XML, against a
golden file, and as pixels rendered by a real SVG renderer (cairosvg)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from helpers import COMBINED_CONTROL_FLOW, SPLIT_CONTROL_FLOW, SPLIT_MLP, module_of
from helpers.golden import assert_golden
from hlo_lsp.features.memory_svg import byte_step, tick_bytes, time_step, timeline_svg
from hlo_lsp.features.memory_timeline import MemoryReport, memory_report
from hlo_lsp.model.buffer_assignment import BufferAssignment

GOLDEN = "memory/mlp3-memory-timeline.svg"
SVG = "{http://www.w3.org/2000/svg}"
PEAK_RED = (214, 39, 40)
PARAMETER_BLUE = (78, 121, 167)
TEMPORARY_ORANGE = (242, 142, 43)


def report_of(stem: Path, drawn: int = 20) -> MemoryReport:
    report = memory_report(module_of(Path(f"{stem}.txt")), drawn)
    assert report is not None
    return report


def texts(svg: str) -> list[str]:
    return ["".join(element.itertext()) for element in ElementTree.fromstring(svg).iter(f"{SVG}text")]


def bar_titles(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    groups = [group for group in root.iter(f"{SVG}g") if (group.get("class") or "").startswith("buffer ")]
    return [group.find(f"{SVG}title").text or "" for group in groups]  # type: ignore[union-attr]


# ---- the data --------------------------------------------------------------------------------------


def test_the_report_holds_the_peak_its_buffers_and_where_they_come_from() -> None:
    report = report_of(SPLIT_MLP)
    hlo = Path(f"{SPLIT_MLP}.txt")
    ynn_line = next(number for number, text in enumerate(hlo.read_text().split("\n"))
                    if text.startswith("  %ynn_fusion.1 = "))
    summary = report.summary
    assert (report.name, summary.peak_time, summary.peak_instruction, summary.peak_bytes) == (
        SPLIT_MLP.name, 9, "ynn_fusion.1", 487_464)
    assert summary.bytes_by_kind() == {"parameter": 421_928, "temporary": 65_536}
    assert report.peak_buffers == summary.buffers_at_peak and len(summary.buffers_at_peak) == 9
    origin = report.origin("ynn_fusion.1")
    assert (origin.op_name, origin.source, origin.function) == (
        "jit(mlp)/dot_general", "/home/dev/xla-examples/gen_dumps.py:169", "_mlp3.<locals>.mlp")
    assert origin.place is not None and (origin.place.source, origin.place.range.start.line) == (str(hlo), ynn_line)
    assert [(space.space.name, space.summary.total_bytes) for space in report.spaces] == [("default", 488_768)]
    assert report.combined is None and not report.several_spaces


# ---- the picture -----------------------------------------------------------------------------------


def test_the_picture_is_the_golden_one() -> None:
    """Deterministic output (tests/golden/memory/; HLO_LSP_UPDATE_GOLDEN=1 accepts a deliberate change)."""
    svg = timeline_svg(report_of(SPLIT_MLP))
    assert_golden(GOLDEN, svg)
    assert svg == timeline_svg(report_of(SPLIT_MLP))


def test_the_picture_labels_the_peak_the_split_and_the_axes() -> None:
    shown = texts(timeline_svg(report_of(SPLIT_MLP)))
    assert "peak 476.0KiB at t=9 (ynn_fusion.1)" in shown
    assert "peak 476.0KiB (487,464 bytes) at t=9 (ynn_fusion.1) in 9 buffers; 477.3KiB allocated in 15 allocations" \
        in shown
    legend = shown[shown.index("at the peak"):][:9]
    assert legend == ["at the peak", "parameters", "412.0KiB", "outputs", "0B", "temporaries", "64.0KiB", "total",
                      "476.0KiB"]
    assert [t for t in shown if t in (
        "0", "128KiB", "256KiB", "384KiB", "512KiB")][:5] == ["0", "128KiB", "256KiB", "384KiB", "512KiB"]
    assert "program order (schedule step)" in shown and "all 15 buffers: live range × size (hover a bar for details)" \
        in shown


def test_each_bar_has_a_hover_title_with_size_range_allocation_and_origin() -> None:
    titles = bar_titles(timeline_svg(report_of(SPLIT_MLP)))
    assert len(titles) == 15
    assert titles[4] == "\n".join([  # `<locals>` comes back unescaped from the XML
        "ynn_fusion.1{}: 32,768 bytes (32.0KiB), temporary",
        "live 9-10 (steps ynn_fusion.1 to add_maximum_fusion)",
        "allocation 14 @ 0",
        "op_name jit(mlp)/dot_general",
        "source /home/dev/xla-examples/gen_dumps.py:169 in _mlp3.<locals>.mlp",
        "live at the peak"])
    assert titles[0].split("\n")[:2] == ["ws_1_.1{}: 262,144 bytes (256.0KiB), parameter",
                                         "live 0-15 (steps ws_0_.1 to the end of the program)"]


def test_only_the_largest_buffers_are_drawn() -> None:
    svg = timeline_svg(report_of(SPLIT_MLP, drawn=4))
    assert [title.split(":")[0] for title in bar_titles(svg)] == [
        "ws_1_.1{}", "ws_0_.1{}", "ynn_fusion.2{}", "broadcast_maximum_fusion{}"]
    assert "the 4 largest of 15 buffers: live range × size (hover a bar for details)" in texts(svg)


def test_a_step_with_more_live_bytes_than_xlas_peak_is_marked_too() -> None:
    shown = texts(timeline_svg(report_of(SPLIT_CONTROL_FLOW)))
    assert "peak 3.0KiB at t=30 (tuple.28)" in shown
    assert "most live: 4.1KiB at t=37" in shown


def test_the_old_format_says_how_it_counts() -> None:
    shown = texts(timeline_svg(report_of(COMBINED_CONTROL_FLOW)))
    assert "sizes as this XLA's peak list counts them: a live tuple element counts as its whole tuple instruction" \
        in shown


def test_the_picture_renders_with_the_peak_marker_and_the_kind_colours(tmp_path: Path) -> None:
    cairosvg = pytest.importorskip("cairosvg")
    image_module = pytest.importorskip("PIL.Image")
    svg = timeline_svg(report_of(SPLIT_MLP))
    png = cairosvg.svg2png(bytestring=svg.encode())
    (tmp_path / "timeline.png").write_bytes(png)
    image = image_module.open(io.BytesIO(png)).convert("RGB")
    height = int(ElementTree.fromstring(svg).get("height"))  # type: ignore[arg-type]
    assert image.size == (1000, height) and len(png) > 20_000
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # anti-aliased text, areas, bars: not a blank page
    peak = next(g for g in ElementTree.fromstring(svg).iter(f"{SVG}g") if g.get("id") == "peak")
    x = int(float(peak.find(f"{SVG}line").get("x1")))  # type: ignore[union-attr, arg-type]
    red = [y for y in range(height) if any(near(image.getpixel((column, y)), PEAK_RED) for column in (x - 1, x, x + 1))]
    assert len(red) > 200  # the dashed marker runs down both panels
    everywhere = {colour for _, colour in colours}
    assert any(near(colour, PARAMETER_BLUE) for colour in everywhere)
    assert any(near(colour, TEMPORARY_ORANGE, 40) for colour in everywhere)


def near(colour: tuple[int, ...], target: tuple[int, int, int], tolerance: int = 30) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour[:3], target))


# ---- axes ----------------------------------------------------------------------------------------------


def test_axis_steps_are_round() -> None:
    assert [tick_bytes(n) for n in (0, 512, 1024, 131_072, 1_572_864, 3 * 1024**3)] == [
        "0", "512B", "1KiB", "128KiB", "1.5MiB", "3GiB"]
    assert tick_bytes(10**400) == ">1EiB"  # a garbled size beyond a float
    assert byte_step(560_583) == 131_072 and byte_step(0) == 1
    assert [time_step(n) for n in (3, 15, 88, 3759)] == [1, 2, 10, 500]


def test_the_readme_shows_a_rendered_timeline() -> None:
    image_module = pytest.importorskip("PIL.Image")
    root = Path(__file__).resolve().parents[2]
    assert "](docs/images/memory-timeline.png)" in (root / "README.md").read_text()
    image = image_module.open(root / "docs" / "images" / "memory-timeline.png").convert("RGB")
    assert image.size[0] == 1000 and image.size[1] > 500
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50
    assert any(near(colour, PEAK_RED) for _, colour in colours)


def test_the_timeline_never_reads_the_values_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The peak, the buffers at it and the allocated total need nothing of `-buffer-assignment-values.txt` (the
    largest file of a module: 23 MB beside a 40 MB module): its `Total bytes used:` is the allocations' sum."""
    def refuse(self: BufferAssignment) -> None:
        if self._unread_values_documents:
            raise AssertionError("the values file was read")

    monkeypatch.setattr(BufferAssignment, "_read_values_documents", refuse)
    report = report_of(SPLIT_MLP)
    assert report.summary.total_bytes == 488_768 and report.summary.peak_bytes == 487_464
