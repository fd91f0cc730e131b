"""`hlo-lsp diff A B`: what grew between two dumps of one program, as a table, as JSON, or as a CI gate
(`--fail-over`: exit 1 when a peak grew by more than a threshold, naming the buffers that grew most)."""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass

from hlo_lsp.cli.paths import shown
from hlo_lsp.lsp.compare_json import comparison_json
from hlo_lsp.lsp.memory_json import file_location
from hlo_lsp.problems import Severity
from hlo_lsp.session import (
    PLURALS,
    BufferChange,
    Comparison,
    ModuleChange,
    PeakSide,
    Session,
    human_bytes,
    module_stem,
    percent,
)

_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "kb": 10**3, "mb": 10**6, "gb": 10**9}
_THRESHOLD = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*(%|[a-zA-Z]*)\s*")
GREW_MOST = 5  # the buffers a failed gate names


@dataclass(frozen=True, slots=True)
class Threshold:
    """How much a peak may grow: a percentage of A's peak, or bytes."""

    value: float
    is_percent: bool

    def exceeded_by(self, before: int, after: int) -> bool:
        limit = before * self.value / 100 if self.is_percent else self.value
        return after - before > limit

    def __str__(self) -> str:
        return f"{self.value:g}%" if self.is_percent else f"{int(self.value):,} bytes"


def threshold(text: str) -> Threshold:
    """`10%`, `1048576`, `512MiB` or `1.5GB` read as a Threshold (argparse's type: ValueError on anything else)."""
    match = _THRESHOLD.fullmatch(text)
    if match is None or (match[2] != "%" and match[2].lower() not in _UNITS):
        raise ValueError(text)
    if match[2] == "%":
        return Threshold(float(match[1]), True)
    return Threshold(float(match[1]) * _UNITS[match[2].lower()], False)


def diff(a: str, b: str, top: int, output: str, fail_over: Threshold | None, svg: str | None = None) -> int:
    comparison = Session.compare([a], [b])
    for problem in comparison.problems:
        if problem.severity is not Severity.INFO:
            print(f"{problem.source}: {problem.message}", file=sys.stderr)
    if not comparison.changes:
        print(f"hlo-lsp: no module with a memory peak on both sides ({a} and {b}): "
              "each side needs a module with its buffer assignment and live ranges", file=sys.stderr)
        _print_unpaired(comparison, sys.stderr)
        return 2
    pictures = _write_pictures(comparison, svg) if svg else {}
    if output == "json":
        answer = comparison_json(comparison, file_location)
        for pair, change in zip(answer["pairs"], comparison.changes):  # type: ignore[call-overload]
            if id(change) in pictures:
                pair["svgPath"] = pictures[id(change)]
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for change in comparison.changes:
            _print_change(change, top, pictures.get(id(change)))
        _print_unpaired(comparison, sys.stdout)
    failed = svg is not None and len(pictures) < len(comparison.changes)
    return max(_gate(comparison, fail_over) if fail_over is not None else 0, int(failed))


def _write_pictures(comparison: Comparison, svg: str) -> dict[int, str]:
    """Each pair's picture written to `svg` (several pairs: `OUT.<name>.svg`, or `OUT.<A's file name>.svg` for
    pairs of one name), by pair; a message for each that cannot be written."""
    root, extension = os.path.splitext(svg)
    written = {}
    names = [change.name for change in comparison.changes]
    for change in comparison.changes:
        # a name two pairs share (two compilations of one function): A's file name tells them apart
        name = change.name if names.count(change.name) == 1 else os.path.basename(module_stem(change.a.path))
        path = svg if len(comparison.changes) == 1 else f"{root}.{name}{extension or '.svg'}"
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write(Session.compare_svg(change))
        except OSError as error:
            print(f"hlo-lsp: cannot write {path}: {error.strerror or error}", file=sys.stderr)
            continue
        written[id(change)] = path
    return written


def _print_change(change: ModuleChange, top: int, picture: str | None) -> None:
    print(f"{change.name}" + (f" (paired by {change.paired_by})" if change.paired_by != "name" else ""))
    print(f"  A: {shown(change.a.path)}")
    print(f"  B: {shown(change.b.path)}")
    in_space = f" (memory space {change.spaces[0].name})" if len(change.spaces) > 1 else ""
    print(f"  peak{in_space}: {change.a_peak:,} → {change.b_peak:,} bytes ({human_bytes(change.a_peak)} → "
          f"{human_bytes(change.b_peak)}): {_delta_text(change.delta, change.a_peak)}")
    if len(change.spaces) > 1:
        for space in change.spaces:
            before, after = space.a or 0, space.b or 0
            print(f"    {space.name} (color {space.color}): {human_bytes(before)} → {human_bytes(after)}, "
                  f"{_delta_text(after - before, before)}")
    kinds = ", ".join(f"{PLURALS[kind]} {human_bytes(a)} → {human_bytes(b)}" for kind, (a, b) in change.kinds.items())
    print(f"  at the peak: {kinds}")
    share = 100 * change.matched_share if change.matched_share is not None else 100.0
    print(f"  buffers live at the peaks, largest change first ({len(change.changes)} rows, "
          f"{share:.1f}% of B's peak matched to A's):")
    for row in change.changes[:top]:
        print("    " + _row_text(row))
    hidden = change.changes[top:]
    if hidden:
        print(f"    ... and {len(hidden)} more row(s), {_signed(sum(row.delta for row in hidden))} together")
    counts = ", ".join(f"{_COUNT_NAMES.get(key, key)} {a:,} → {b:,}" for key, (a, b) in change.counts.items())
    print(f"  counts: {counts}")
    if picture is not None:
        print(f"  picture: {picture}")
    print()


_COUNT_NAMES = {"scheduleLength": "schedule steps"}


def _row_text(row: BufferChange) -> str:
    side = row.either
    before = _side_text(row.a) if row.a is not None else "only in B"
    after = _side_text(row.b) if row.b is not None else "only in A"
    what = "  ".join(part for part in (side.buffer.kind, _shape_text(row), os.path.basename(side.origin.source or ""),
                                       side.origin.framework_op or "") if part)
    return f"{_signed(row.delta):>11}  {before:<34} → {after:<34}  {what}"


def _shape_text(row: BufferChange) -> str:
    """The value's shape, or its shape in A → in B when they differ."""
    shapes = [str(side.shape) for side in (row.a, row.b) if side is not None and side.shape is not None]
    return " → ".join(dict.fromkeys(shapes))


def _side_text(side: PeakSide) -> str:
    return f"{side.buffer.label} {human_bytes(side.bytes)}"


def _signed(count: int) -> str:
    return ("+" if count > 0 else "") + human_bytes(count) if count else "0"


def _delta_text(delta: int, before: int) -> str:
    share = percent(delta, before)
    return f"{'+' if delta > 0 else ''}{delta:,} bytes ({_signed(delta)}" + (
        f", {'+' if delta > 0 else ''}{share}%)" if share is not None else ")")


def _print_unpaired(comparison: Comparison, stream: object) -> None:
    for unpaired in comparison.unpaired:
        print(f"only in {unpaired.side.upper()}: {unpaired.name} ({shown(unpaired.path)})",
              file=stream)  # type: ignore[call-overload]
    for unpaired in comparison.without_peak:
        print(f"no peak in {unpaired.side.upper()}: {unpaired.name} ({shown(unpaired.path)}): no "
              "live ranges, or a shape unknown", file=stream)  # type: ignore[call-overload]


def _gate(comparison: Comparison, limit: Threshold) -> int:
    """1 (and why, on stderr) when a peak of any space of any pair grew by more than `limit`."""
    failed = False
    for change in comparison.changes:
        for space in change.spaces:
            before, after = space.a or 0, space.b or 0
            if not limit.exceeded_by(before, after):
                continue
            failed = True
            grown = sorted((row for row in change.changes if row.delta > 0), key=lambda row: -row.delta)
            named = ", ".join(f"{row.either.buffer.label} {_signed(row.delta)}" for row in grown[:GREW_MOST])
            print(f"hlo-lsp: {change.name}: the peak of memory space {space.name} grew by "
                  f"{_delta_text(after - before, before)}, over {limit}" + (f"; grew most: {named}" if named else ""),
                  file=sys.stderr)
    return 1 if failed else 0
