"""The JSON of a comparison of two dumps: the `hlo.compare` command's answer, which `hlo-lsp diff --format json`
prints too (no protocol types: the CLI imports it without the server's libraries). docs/cli.md describes it."""

from __future__ import annotations

from collections.abc import Callable

from hlo_lsp.lsp.memory_json import Locate
from hlo_lsp.session import (
    BufferChange,
    Comparison,
    Location,
    MemoryReport,
    ModuleChange,
    PeakSide,
    Unpaired,
    human_bytes,
)


def comparison_json(comparison: Comparison, locate: Locate,
                    picture: Callable[[ModuleChange], str] | None = None) -> dict[str, object]:
    """The comparison; `picture`: each pair's SVG under "svg" (the `hlo.compare` command's answer has it)."""
    pairs = [_pair_json(change, locate) for change in comparison.changes]
    if picture is not None:
        for pair, change in zip(pairs, comparison.changes):
            pair["svg"] = picture(change)
    return {
        "pairs": pairs,
        "unpaired": [_unpaired_json(module) for module in comparison.unpaired],
        "withoutPeak": [_unpaired_json(module) for module in comparison.without_peak],
    }


def _pair_json(change: ModuleChange, locate: Locate) -> dict[str, object]:
    return {
        "name": change.name,
        "pairedBy": change.paired_by,
        "a": _module_json(change.a.path, change.a_report),
        "b": _module_json(change.b.path, change.b_report),
        "delta": change.delta,
        "deltaPercent": change.delta_percent,
        "spaces": [{"name": space.name, "color": space.color, "a": space.a, "b": space.b,
                    "delta": (space.b or 0) - (space.a or 0)} for space in change.spaces],
        "byKind": {kind: {"a": a, "b": b, "delta": b - a} for kind, (a, b) in change.kinds.items()},
        "matchedBytes": change.matched_bytes,
        "matchedShare": round(change.matched_share, 4) if change.matched_share is not None else None,
        "buffers": [_row_json(row, locate) for row in change.changes],
        "counts": {key: {"a": a, "b": b, "delta": b - a} for key, (a, b) in change.counts.items()},
    }


def _module_json(path: str, report: MemoryReport) -> dict[str, object]:
    summary = report.summary
    peak = summary.peak_bytes or 0
    return {"module": report.name, "path": path, "peak": peak, "human": human_bytes(peak),
            "time": summary.peak_time, "instruction": summary.peak_instruction,
            "buffers": len(summary.buffers_at_peak), "space": report.space.name}


def _row_json(row: BufferChange, locate: Locate) -> dict[str, object]:
    side = row.either
    return {
        "a": _side_json(row.a, locate) if row.a is not None else None,
        "b": _side_json(row.b, locate) if row.b is not None else None,
        "delta": row.delta,
        "matchedBy": row.matched_by,
        "opName": side.origin.framework_op,
        "source": side.origin.source,
        "shape": str(side.shape) if side.shape is not None else None,
        "kind": side.buffer.kind,
    }


def _side_json(side: PeakSide, locate: Locate) -> dict[str, object]:
    buffer, place = side.buffer, side.origin.place
    located = locate(Location(place.source, place.range)) if place is not None else None
    return {"instruction": buffer.live_range.name, "label": buffer.label, "bytes": buffer.counted,
            "opcode": side.opcode, "shape": str(side.shape) if side.shape is not None else None,
            "kind": buffer.kind, "start": buffer.live_range.start, "end": buffer.live_range.end,
            "allocation": buffer.allocation, **(located or {})}


def _unpaired_json(unpaired: Unpaired) -> dict[str, object]:
    return {"side": unpaired.side, "name": unpaired.name, "path": unpaired.path}
