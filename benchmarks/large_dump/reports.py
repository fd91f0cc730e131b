"""The peak by XLA's method, the peak list in the source's format, the stack-trace breakdown and the memory-usage
report."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from hlo_lsp.analysis.memory import peak_moment
from hlo_lsp.model.sizes import human_bytes
from large_dump.buffers import NewAlloc, NewValue
from large_dump.emit import Emitted
from large_dump.sources import BaSource, HloSource
from large_dump.text import dense_size, op_name_of, spaced, strip_layout

# --------------------------------------------------------------------------- peak and reports


@dataclass(eq=False)
class Peak:
    time: int
    live: list[NewValue]
    instruction_bytes: dict[int, int]
    value_bytes: dict[int, int]


def compute_peak(values: list[NewValue], emitted: Emitted) -> Peak:
    ranged = [v for v in values if v.start is not None]
    whole = {v.vid: dense_size(emitted.shape[v.positions[0][0]]) for v in ranged}
    own = {v.vid: dense_size(v.shape) for v in ranged}
    moment = peak_moment((v.start, v.end, whole[v.vid]) for v in ranged)
    live = [v for v in ranged if v.start <= moment <= v.end]
    return Peak(moment, live, whole, own)


def peak_lines(peak: Peak, new_format: bool) -> list[str]:
    if not new_format:
        return [f"    {v.name}: {peak.instruction_bytes[v.vid]} bytes" for v in peak.live]
    ordered = sorted(peak.live, key=lambda v: (-peak.value_bytes[v.vid], v.name, v.index or ""))
    lines, cumulative = [], 0
    for value in ordered:
        cumulative += peak.value_bytes[value.vid]
        lines.append(f"    {value.label}: {peak.value_bytes[value.vid]} bytes (cumulative: {cumulative} bytes)")
    return lines


def breakdown_path(name: str, index: str | None, line: str) -> list[str]:
    """The stack-trace tree's path of a value: its op_name (a jax key path `p['w1']` split), else its name."""
    op_name = op_name_of(line)
    if op_name is None:
        return [name + (index or "")]
    match = re.fullmatch(r"([A-Za-z_]\w*)((?:\['[^'\]]*'\])+)", op_name)
    if match is None:
        return [op_name]
    return [match.group(1), *re.findall(r"\['([^'\]]*)'\]", match.group(2))]


def breakdown_lines(root: str, items: list[tuple[list[str], int]]) -> list[str]:
    """`Stack trace breakdown for peak usage`: a tree of (path, bytes) with totals, largest first."""
    tree: dict = {"current": 0, "children": {}}
    for path, size in items:
        node = tree
        for label in path:
            node = node["children"].setdefault(label, {"current": 0, "children": {}})
        node["current"] += size

    def total(node: dict) -> int:
        node["total"] = node["current"] + sum(total(child) for child in node["children"].values())
        return node["total"]

    grand = total(tree)
    remaining = grand
    lines = [f"  Stack trace breakdown for peak usage: {spaced(grand)} bytes"]

    def text(label: str, node: dict) -> str:
        nonlocal remaining
        remaining -= node["current"]
        share = 100.0 * node["total"] / grand if grand else 0.0
        return (f"{label} ({share:.1f}%, total: {spaced(node['total'])} bytes, current: {spaced(node['current'])} "
                f"bytes, remaining: {spaced(remaining)} bytes)")

    def walk(node: dict, prefix: str) -> None:
        children = sorted(node["children"].items(), key=lambda item: (-item[1]["total"], item[0]))
        for k, (label, child) in enumerate(children):
            last = k == len(children) - 1
            lines.append(prefix + ("└── " if last else "├── ") + text(label, child))
            walk(child, prefix + ("    " if last else "│   "))

    lines.append("    " + text(root, tree))
    walk(tree, "      ")
    return lines


def source_breakdown_matches(hlo: HloSource, ba: BaSource) -> bool:
    """Whether breakdown_lines() rebuilds the source's own tree exactly (else the section is left out)."""
    if not ba.breakdown or ba.peak_time is None:
        return False
    items = []
    for value in ba.values.values():
        label = value.name + (value.index or "{}")
        span = ba.ranges.get(label)
        if span is None or not span[0] <= ba.peak_time <= span[1]:
            continue
        instr = hlo.instrs[value.name]
        if instr.comp != hlo.entry.name:
            return False
        items.append((breakdown_path(value.name, value.index, instr.line), dense_size(value.shape)))
    return breakdown_lines(hlo.entry.name, items) == ba.breakdown


def report_rows(alloc: NewAlloc, sort_shapes: bool) -> list[tuple[int, int, int, str]]:
    """(size, offset, values, shapes) per offset: the memory-usage report's table of an allocation."""
    groups: dict[int, list[NewValue]] = {}
    for value in alloc.values:
        groups.setdefault(value.offset, []).append(value)
    rows = []
    for offset, values in groups.items():
        counts = Counter(strip_layout(v.shape) for v in values)
        items = sorted(counts.items(), key=lambda item: (item[1], item[0])) if sort_shapes else list(counts.items())
        shapes = ", ".join(shape if n == 1 else f"{n}×{shape}" for shape, n in items)
        rows.append((max(v.size for v in values), offset, len(values), shapes))
    rows.sort(key=lambda row: (-row[0], row[1]))
    return rows


def table_lines(alloc: NewAlloc, indent: str, sort_shapes: bool) -> list[str]:
    rows = report_rows(alloc, sort_shapes)
    total = sum(row[0] for row in rows) or 1
    lines = [f"{indent}cumulative_size;       size;       offset; used_by_n_values; shapes_list", indent + "-" * 60]
    cumulative = 0
    for size, offset, count, shapes in rows:
        cumulative += size
        lines.append(f"{indent}{human_bytes(cumulative):>9}({100 * cumulative / total:3.0f}%); "
                     f"{human_bytes(size):>10}; {offset:>12}; {count:>16}; {shapes}")
    return lines


def memory_report(allocs: list[NewAlloc], total: int, new_format: bool) -> str:
    by_size = sorted(allocs, key=lambda a: -a.size)
    shown = 0
    cumulative = 0
    for alloc in by_size:
        shown += 1
        cumulative += alloc.size
        if cumulative >= 0.95 * total:
            break
    if new_format:
        lines = ["Memory Space: default (color=0)", f"Total bytes: {total} ({human_bytes(total)})"]
        for alloc in by_size[:shown]:
            lines += [*table_lines(alloc, "  ", True), ""]
        return "\n".join([*lines, ""]) + "\n"
    lines = [f"Total bytes used: {total} ({human_bytes(total)})", "", "Allocations sorted by size:", "",
             "cumulative_size; total_size - cumulative_size; allocation", "-" * 78]
    cumulative = 0
    for alloc in by_size[:shown]:
        cumulative += alloc.size
        lines.append(f"{human_bytes(cumulative):>10}({100 * cumulative / total:3.0f}%); "
                     f"{human_bytes(total - cumulative):>10}; allocation {alloc.index}: size "
                     f"{human_bytes(alloc.size)}{alloc.rest}:")
    if len(by_size) > shown:
        lines.append(f"The rest {len(by_size) - shown} allocations are less than 5% of the total size and not shown.")
    lines += ["", "", "Allocations sorted by size with their values:"]
    for alloc in by_size:
        lines.append(f"allocation {alloc.index}: size {human_bytes(alloc.size)}{alloc.rest}:")
        if len(alloc.values) > 1:
            lines += ["", *table_lines(alloc, "\t", False), ""]
    return "\n".join(lines) + "\n"
