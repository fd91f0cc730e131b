"""The JSON of the memory timeline (lsp/memory_json.py) on real dumps: what the `hlo.memoryTimeline`
command answers and `hlo-lsp memory --format json` prints, field by field."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SPLIT_CONTROL_FLOW, SPLIT_MLP
from hlo_lsp.lsp.memory_json import file_location, report_json, timeline_json
from hlo_lsp.session import Location, MemoryReport, Session
from hlo_lsp.text import Range


def report_of(stem: Path) -> MemoryReport:
    timeline = Session().memory_timeline(f"{stem}.txt")
    assert timeline is not None
    return timeline.report


def test_json_has_the_peak_its_buffers_and_their_places() -> None:
    located: list[Location] = []

    def locate(found: Location) -> dict[str, object]:
        located.append(found)
        return {"at": f"{Path(found.source).name}:{found.range.start.line + 1}"}

    answer = report_json(report_of(SPLIT_MLP), locate)
    hlo_line = next(number for number, text in enumerate(Path(f"{SPLIT_MLP}.txt").read_text().split("\n"), 1)
                    if text.startswith("  %ynn_fusion.1 = "))
    assert answer["peak"] == {
        "time": 9, "instruction": "ynn_fusion.1", "bytes": 487_464, "human": "476.0KiB", "countedAs": "value",
        "valueBytes": 487_464, "byKind": {"parameter": 421_928, "temporary": 65_536}, "buffers": 9, "padding": 0,
        "at": f"{SPLIT_MLP.name}.txt:{hlo_line}"}
    ynn = next(buffer for buffer in answer["buffers"] if buffer["label"] == "ynn_fusion.1{}")  # type: ignore[union-attr]
    assert ynn == {"label": "ynn_fusion.1{}", "name": "ynn_fusion.1", "index": [], "bytes": 32_768,
                   "valueBytes": 32_768, "allocatedBytes": 32_768, "kind": "temporary", "start": 9, "end": 10,
                   "allocation": 14, "offset": 0, "frameworkOp": "jit(mlp)/dot_general", "opType": None,
                   "opName": "jit(mlp)/dot_general",
                   "source": "/home/dev/xla-examples/gen_dumps.py:169", "function": "_mlp3.<locals>.mlp",
                   "at": f"{SPLIT_MLP.name}.txt:{hlo_line}"}
    assert (answer["maxTime"], answer["allocated"], answer["highest"]) == (
        15, {"bytes": 488_768, "allocations": 15}, {"time": 8, "instruction": "broadcast_maximum_fusion",
                                                   "bytes": 487_464})
    assert answer["usage"][9] == 487_464 and len(answer["usage"]) == 16  # type: ignore[index, arg-type]
    assert [buffer["label"] for buffer in answer["largest"]][:3] == [  # type: ignore[union-attr, index]
        "ws_1_.1{}", "ws_0_.1{}", "ynn_fusion.2{}"]
    assert "svg" not in answer
    assert answer["space"] == {"name": "default", "color": 0} and "combinedPeak" not in answer
    assert answer["spaces"] == [{"name": "default", "color": 0, "allocated": {"bytes": 488_768, "allocations": 15},
                                 "reportedBytes": 488_768, "peak": {
                                     "time": 9, "instruction": "ynn_fusion.1", "bytes": 487_464, "human": "476.0KiB",
                                     "buffers": 9, "padding": 0}}]


def test_json_gives_each_allocation_its_fragmentation() -> None:
    answer = report_json(report_of(SPLIT_CONTROL_FLOW), lambda found: None)
    temp = next(use for use in answer["allocations"] if use["index"] == 22)  # type: ignore[union-attr]
    assert temp == {"index": 22, "size": 1560, "kind": "temporary", "flags": ["preallocated-temp"],
                    "liveValues": 37, "peakLiveBytes": 1048, "peakLiveTime": 25, "usedExtent": 1560,
                    "fragmentation": 512, "fragmentationPercent": 32.82}


def test_the_commands_answer_is_the_report_with_its_picture() -> None:
    timeline = Session().memory_timeline(f"{SPLIT_MLP}.txt")
    assert timeline is not None
    answer = timeline_json(timeline, lambda found: None)
    assert answer == {**report_json(timeline.report, lambda found: None), "svg": timeline.svg}
    assert str(answer["svg"]).startswith('<svg xmlns="http://www.w3.org/2000/svg"')


def test_file_locations_are_uris_with_lsp_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    found = file_location(Location("dump/x.txt", Range.on_line(4, 2, 7)))
    assert found == {"uri": (tmp_path / "dump" / "x.txt").as_uri(),
                     "range": {"start": {"line": 4, "character": 2}, "end": {"line": 4, "character": 7}}}
