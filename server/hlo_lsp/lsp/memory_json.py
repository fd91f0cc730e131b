"""The JSON of the memory timeline: the `hlo.memoryTimeline` command's answer, which `hlo-lsp memory --format
json` prints too (no protocol types: the CLI imports it without the server's libraries)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hlo_lsp.session import (
    AllocationUse,
    Location,
    MemoryReport,
    MemorySpace,
    MemorySummary,
    MemoryTimeline,
    Origin,
    PeakBuffer,
    SpaceMemory,
    TimelineBuffer,
    human_bytes,
)

# How a caller spells a location in the JSON (e.g. {"uri": ..., "range": ...}); None leaves it out.
Locate = Callable[[Location], dict[str, object] | None]


def timeline_json(timeline: MemoryTimeline, locate: Locate) -> dict[str, object]:
    """The answer of `hlo.memoryTimeline`: the report with its picture."""
    return report_json(timeline.report, locate, timeline.svg)


def report_json(report: MemoryReport, locate: Locate, svg: str | None = None) -> dict[str, object]:
    timeline, summary = report.timeline, report.summary
    highest_time, highest_bytes = timeline.highest
    answer: dict[str, object] = {
        "module": report.name,
        "maxTime": timeline.max_time,
        "allocated": {"bytes": summary.total_bytes, "allocations": summary.allocation_count},
        "space": _space_json(report.space),
        "spaces": [_space_memory_json(memory) for memory in report.spaces],
        "peak": _peak_json(report, locate),
        "highest": {"time": highest_time, "instruction": timeline.instruction_at(highest_time),
                    "bytes": highest_bytes},
        "usage": list(timeline.usage),
        "usageByKind": {kind: list(steps) for kind, steps in timeline.usage_by_kind.items()},
        "buffers": [_peak_buffer_json(report, buffer, locate) for buffer in report.peak_buffers],
        "largest": [_timeline_buffer_json(report, buffer, locate) for buffer in report.drawn],
        "allocations": [_allocation_json(use) for use in timeline.allocations],
    }
    if report.combined is not None:
        answer["combinedPeak"] = {**_summary_peak_json(report.combined),
                                  "note": "every memory space counted, as XLA prints its peak"}
    if svg is not None:
        answer["svg"] = svg
    return answer


def _space_json(space: MemorySpace) -> dict[str, object]:
    return {"name": space.name, "color": space.color}


def _space_memory_json(memory: SpaceMemory) -> dict[str, object]:
    summary = memory.summary
    return {**_space_json(memory.space),
            "allocated": {"bytes": summary.total_bytes, "allocations": summary.allocation_count},
            "reportedBytes": memory.space.reported_total,
            "peak": _summary_peak_json(summary) if summary.peak_time is not None else None}


def _summary_peak_json(summary: MemorySummary) -> dict[str, object]:
    peak_bytes = summary.peak_bytes or 0
    return {"time": summary.peak_time, "instruction": summary.peak_instruction, "bytes": peak_bytes,
            "human": human_bytes(peak_bytes), "buffers": len(summary.buffers_at_peak), "padding": summary.padding}


def _peak_json(report: MemoryReport, locate: Locate) -> dict[str, object]:
    summary = report.summary
    peak_bytes = summary.peak_bytes or 0
    origin = report.origin(summary.peak_instruction)
    return {
        "time": summary.peak_time,
        "instruction": summary.peak_instruction,
        "bytes": peak_bytes,
        "human": human_bytes(peak_bytes),
        "countedAs": "instruction" if summary.whole_instruction_sizes else "value",
        "valueBytes": summary.value_bytes,
        "byKind": summary.bytes_by_kind(),
        "buffers": len(summary.buffers_at_peak),
        "padding": summary.padding,
        **_located(origin, locate),
    }


def _peak_buffer_json(report: MemoryReport, buffer: PeakBuffer, locate: Locate) -> dict[str, object]:
    live = buffer.live_range
    return {
        "label": buffer.label, "name": live.name, "index": list(live.index),
        "bytes": buffer.counted, "valueBytes": buffer.size, "allocatedBytes": buffer.allocated_size,
        "kind": buffer.kind, "start": live.start, "end": live.end,
        "allocation": buffer.allocation, "offset": buffer.offset,
        **_origin_json(report.origin(live.name), locate),
    }


def _timeline_buffer_json(report: MemoryReport, buffer: TimelineBuffer, locate: Locate) -> dict[str, object]:
    live = buffer.live_range
    peak_time = report.summary.peak_time
    return {
        "label": buffer.label, "name": live.name, "index": list(live.index),
        "bytes": buffer.size, "valueBytes": buffer.value_size, "kind": buffer.kind,
        "start": live.start, "end": live.end, "allocation": buffer.allocation, "offset": buffer.offset,
        "liveAtPeak": peak_time is not None and live.start <= peak_time <= live.end,
        **_origin_json(report.origin(live.name), locate),
    }


def _origin_json(origin: Origin, locate: Locate) -> dict[str, object]:
    return {"frameworkOp": origin.framework_op, "opType": origin.op_type, "opName": origin.op_name,
            "source": origin.source, "function": origin.function, **_located(origin, locate)}


def _located(origin: Origin, locate: Locate) -> dict[str, object]:
    if origin.place is None:
        return {}
    return locate(Location(origin.place.source, origin.place.range)) or {}


def _allocation_json(use: AllocationUse) -> dict[str, object]:
    return {
        "index": use.allocation.index, "size": use.allocation.size, "kind": use.kind,
        "flags": use.allocation.kinds(), "liveValues": use.live_values,
        "peakLiveBytes": use.peak_live_bytes, "peakLiveTime": use.peak_live_time, "usedExtent": use.used_extent,
        "fragmentation": use.fragmentation, "fragmentationPercent": round(use.fragmentation_percent, 2),
    }


def file_location(found: Location) -> dict[str, object]:
    """A location as the JSON of `hlo-lsp memory` spells it: a file URI and an LSP range (UTF-16)."""
    uri = found.source if "://" in found.source else Path(found.source).absolute().as_uri()
    start, end = found.range.start, found.range.end
    return {"uri": uri, "range": {"start": {"line": start.line, "character": start.character},
                                  "end": {"line": end.line, "character": end.character}}}
