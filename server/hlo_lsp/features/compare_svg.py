"""Two memory timelines compared as one SVG picture: A's usage over its program order above B's, on one byte
scale, each with its peak marked, then the buffers whose bytes at the peak changed most, as bars growing right
(more in B) or left (less in B) from a middle line. Deterministic, like the timeline's picture."""

from __future__ import annotations

from hlo_lsp.features.memory_compare import BufferChange, ModuleChange
from hlo_lsp.features.memory_svg import (
    COLOURS,
    INK,
    LEFT,
    PLOT_WIDTH,
    WIDTH,
    Chart,
    escape,
    px,
    svg_text,
)
from hlo_lsp.features.memory_timeline import PLURALS, MemoryReport
from hlo_lsp.model.sizes import human_bytes

PANEL_TOP, PANEL_HEIGHT, PANEL_GAP = 84, 170, 64  # each side's usage (its time axis below it)
ROWS_DRAWN = 12
ROW = 18
GREW, SHRANK = "#d62728", "#2ca02c"


def compare_svg(change: ModuleChange) -> str:
    most = max(max(report.timeline.usage, default=0) for report in (change.a_report, change.b_report))
    charts = [Chart(report, PANEL_TOP + side * (PANEL_HEIGHT + PANEL_GAP), PANEL_HEIGHT, most)
              for side, report in enumerate((change.a_report, change.b_report))]
    rows_top = PANEL_TOP + 2 * (PANEL_HEIGHT + PANEL_GAP) + 10
    rows = [row for row in change.changes if row.delta][:ROWS_DRAWN]
    height = rows_top + ROW * len(rows) + 24
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">',
        f"<title>{escape(f'memory compared: {change.name}')}</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        *_heading(change),
    ]
    for label, chart in zip("AB", charts):
        parts += _panel(label, chart)
    parts += _legend(change)
    parts += _changed_rows(rows, rows_top, len(change.changes))
    return "\n".join([*parts, "</svg>"]) + "\n"


def _heading(change: ModuleChange) -> list[str]:
    delta = change.delta
    share = f", {change.delta_percent:+.1f}%" if change.delta_percent is not None else ""
    space = change.a_report.space.name
    return [svg_text(8, 22, f"Memory compared: {change.name} (memory space {space})", font_size="15",
                     font_weight="bold", fill=INK),
            svg_text(8, 40, f"peak {human_bytes(change.a_peak)} → {human_bytes(change.b_peak)} "
                     f"({'+' if delta > 0 else ''}{human_bytes(delta)}{share}); both on one byte scale", fill=INK)]


def _panel(label: str, chart: Chart) -> list[str]:
    report: MemoryReport = chart.report
    summary = report.summary
    title = (f"{label}: {report.name}: peak {human_bytes(summary.peak_bytes or 0)} at t={summary.peak_time}"
             + (f" ({summary.peak_instruction})" if summary.peak_instruction else ""))
    return [f'<g id="side-{label.lower()}">', svg_text(8, chart.usage_top - 8, title, font_weight="bold", fill=INK),
            *chart.usage_panel(), *chart.peak_marker(chart.usage_top + chart.usage_height), "</g>"]


def _legend(change: ModuleChange) -> list[str]:
    """Each kind's colour, with its bytes at A's peak and at B's."""
    y = PANEL_TOP + 10
    parts = ['<g id="legend">', svg_text(8, y, "at the peak, A → B", font_weight="bold", fill=INK)]
    for kind, (a, b) in change.kinds.items():
        y += 30
        parts.append(f'<rect x="8" y="{px(y - 9)}" width="10" height="10" fill="{COLOURS[kind]}"/>')
        parts.append(svg_text(23, y, PLURALS[kind], fill=INK))
        parts.append(svg_text(23, y + 13, f"{human_bytes(a)} → {human_bytes(b)}", fill=INK))
    return [*parts, "</g>"]


def _changed_rows(rows: list[BufferChange], top: int, total: int) -> list[str]:
    if not rows:
        return [svg_text(8, top + 12, "no buffer at the peaks changed its bytes", fill=INK)]
    heading = f"the {len(rows)} largest changes of {total} buffers at the peaks (B's bytes − A's)"
    parts = ['<g id="changes">', svg_text(8, top + 4, heading, fill=INK)]
    middle, largest = LEFT + PLOT_WIDTH / 2, max(abs(row.delta) for row in rows)
    for number, row in enumerate(rows):
        y = top + 10 + ROW * number
        width = max(PLOT_WIDTH / 2 * abs(row.delta) / largest, 1.0)
        x = middle if row.delta > 0 else middle - width
        colour = GREW if row.delta > 0 else SHRANK
        parts += [f'<g class="change"><title>{escape(_row_title(row))}</title>',
                  svg_text(8, y + ROW / 2 + 4, _row_label(row), fill=INK, font_size="10"),
                  f'<rect x="{px(x)}" y="{px(y + 3)}" width="{px(width)}" height="{ROW - 6}" fill="{colour}" '
                  'fill-opacity="0.8"/>',
                  svg_text(middle + (6 if row.delta < 0 else -6), y + ROW / 2 + 4,
                           ("+" if row.delta > 0 else "") + human_bytes(row.delta), "start" if row.delta < 0 else "end",
                           fill=INK, font_size="10"),
                  "</g>"]
    parts.append(f'<line x1="{px(middle)}" y1="{top + 8}" x2="{px(middle)}" y2="{top + 10 + ROW * len(rows)}" '
                 f'stroke="{INK}"/>')
    return [*parts, "</g>"]


def _row_label(row: BufferChange) -> str:
    names = [side.buffer.label for side in (row.a, row.b) if side is not None]
    label = " → ".join(dict.fromkeys(names))
    return label if len(label) <= 34 else label[:33] + "…"


def _row_title(row: BufferChange) -> str:
    lines = []
    for name, side in (("A", row.a), ("B", row.b)):
        lines.append(f"{name}: " + (f"{side.buffer.label} {side.bytes:,} bytes, {side.buffer.kind}"
                                    + (f", {side.shape}" if side.shape is not None else "") if side else "none"))
    side = row.either
    if side.origin.framework_op:
        lines.append(f"op {side.origin.framework_op}")
    if side.origin.source:
        lines.append(f"source {side.origin.source}")
    lines.append(f"matched by {row.matched_by}" if row.matched_by else "on one side only")
    return "\n".join(lines)
