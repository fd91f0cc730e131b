"""The memory timeline as an SVG picture, written as text (no drawing library).

Top: bytes live over program order (the schedule steps), stacked by what holds them
(parameters, constants, outputs, temporaries), with XLA's peak marked. Below: the largest
buffers as bars, one lane each, from the start to the end of their live range and as thick as
they are large (like the allocation timeline of XProf's memory viewer). Every bar has a
hover title: name, size, live range, allocation, op_name and source. The output is
deterministic: the same dump gives the same bytes.
"""

from __future__ import annotations

import html

from hlo_lsp.analysis.memory import CONSTANT, OUTPUT, PARAMETER, TEMPORARY, UNALLOCATED
from hlo_lsp.analysis.timeline import TimelineBuffer
from hlo_lsp.features.memory_timeline import PLURALS, MemoryReport
from hlo_lsp.model.sizes import human_bytes

WIDTH = 1000
LEFT, RIGHT = 220, 24  # the lanes' names and sizes stand left of the plot
NAME_CHARACTERS = 25
PLOT_WIDTH = WIDTH - LEFT - RIGHT
USAGE_TOP, USAGE_HEIGHT = 82, 230
LANES_TOP = USAGE_TOP + USAGE_HEIGHT + 56
LANE = 18
PEAK_COLOUR, HIGHEST_COLOUR, INK, GRID = "#d62728", "#555555", "#222222", "#e3e3e3"
COLOURS = {PARAMETER: "#4e79a7", CONSTANT: "#b07aa1", OUTPUT: "#59a14f", TEMPORARY: "#f28e2b",
           UNALLOCATED: "#9d9d9d"}
STEP_TITLES_UP_TO = 1000  # steps: beyond this many, the usage area has no title per step


def escape(text: str) -> str:
    """Text as an SVG element holds it: `&`, `<` and `>` escaped (html's escape, as xml.sax's would, which
    imports urllib, http and ssl on the way)."""
    return html.escape(text, quote=False)


def timeline_svg(report: MemoryReport) -> str:
    chart = Chart(report)
    height = LANES_TOP + LANE * len(report.drawn) + 44
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">',
        f"<title>{escape(f'memory over program order: {report.name}')}</title>",
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        *chart.heading(),
        *chart.usage_panel(),
        *chart.lanes_panel(),
        *chart.peak_marker(height - 44),
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def px(value: float) -> str:
    """A coordinate: one decimal, no trailing zero."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def svg_text(x: float, y: float, content: str, anchor: str = "start", **attributes: str) -> str:
    extra = "".join(f' {name.replace("_", "-")}="{html.escape(value)}"' for name, value in attributes.items())
    return f'<text x="{px(x)}" y="{px(y)}" text-anchor="{anchor}"{extra}>{escape(content)}</text>'


def _shortened(label: str) -> str:
    return label if len(label) <= NAME_CHARACTERS else label[: NAME_CHARACTERS - 1] + "…"


def tick_bytes(count: int) -> str:
    """Axis labels: 0, 512B, 100KiB, 1.5MiB."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
    if count.bit_length() > 120:  # a garbled size beyond any real buffer, and beyond a float's range
        return ">1EiB"
    unit = 0
    while unit < len(units) - 1 and count >= 1024 ** (unit + 1):
        unit += 1
    value = f"{count / 1024 ** unit:.2f}".rstrip("0").rstrip(".")
    return "0" if count == 0 else value + units[unit]


def byte_step(most: int, ticks: int = 5) -> int:
    """The smallest power of two giving at most `ticks` steps: ticks read 0, 512KiB, 1MiB, 1.5MiB."""
    step = 1
    while step * ticks < most:
        step *= 2
    return step


def time_step(last: int, ticks: int = 10) -> int:
    wanted, scale = max(last / ticks, 1), 1
    while True:
        for multiple in (1, 2, 5):
            if multiple * scale >= wanted:
                return multiple * scale
        scale *= 10


class Chart:
    def __init__(self, report: MemoryReport, usage_top: int = USAGE_TOP, usage_height: int = USAGE_HEIGHT,
                 most: int | None = None) -> None:
        """`most`: the bytes the usage axis must reach (another chart's drawn on the same scale), else this one's."""
        self.report = report
        self.timeline = report.timeline
        self.usage_top, self.usage_height = usage_top, usage_height
        self.steps = self.timeline.max_time + 1  # the step after the last instruction holds what lives out
        headroom = (most if most is not None else max(self.timeline.usage, default=0)) * 115 // 100  # (labels)
        self.byte_step = byte_step(headroom)
        self.top = max(-(-headroom // self.byte_step) * self.byte_step, self.byte_step)

    def x(self, time: float) -> float:
        return LEFT + PLOT_WIDTH * time / self.steps

    def y(self, count: int) -> float:
        return self.usage_top + self.usage_height - self.usage_height * count / self.top

    # ---- heading -------------------------------------------------------------------------------

    def heading(self) -> list[str]:
        summary = self.timeline.summary
        peak = summary.peak_bytes or 0
        space = f", memory space {self.report.space.name}" if self.report.several_spaces else ""
        lines = [svg_text(8, 22, f"Memory over program order: {self.report.name}{space}", font_size="15",
                       font_weight="bold", fill=INK),
                 svg_text(8, 40, f"peak {human_bytes(peak)} ({peak:,} bytes) at t={summary.peak_time}"
                       + (f" ({summary.peak_instruction})" if summary.peak_instruction else "")
                       + f" in {len(summary.buffers_at_peak)} buffers" + self._allocated_text(), fill=INK)]
        notes = self._other_spaces()
        if summary.whole_instruction_sizes:
            notes.append("sizes as this XLA's peak list counts them: a live tuple element counts as its whole "
                         "tuple instruction")
        lines += [svg_text(8, 56 + 14 * number, note, fill=HIGHEST_COLOUR) for number, note in enumerate(notes[:2])]
        return lines + self._peak_split()

    def _other_spaces(self) -> list[str]:
        """The peaks of the module's other memory spaces, and the one XLA prints of them all."""
        report = self.report
        if report.combined is None:
            return []
        others = [f"{memory.space.name} {human_bytes(memory.summary.peak_bytes or 0)} at t={memory.summary.peak_time}"
                  for memory in report.spaces if memory.space != report.space and memory.summary.peak_time is not None]
        combined = report.combined
        return [f"peaks of the other spaces: {', '.join(others) or 'none'}; every space counted, as XLA prints its "
                f"peak: {human_bytes(combined.peak_bytes or 0)} at t={combined.peak_time}"]

    def _allocated_text(self) -> str:
        summary = self.timeline.summary
        if summary.total_bytes is None:
            return ""
        return f"; {human_bytes(summary.total_bytes)} allocated in {summary.allocation_count} allocations"

    def _peak_split(self) -> list[str]:
        """The legend: each kind's colour, with its bytes at the peak."""
        at_peak = self.timeline.summary.bytes_by_kind()
        y = self.usage_top + 10
        parts = ['<g id="legend">', svg_text(8, y, "at the peak", font_weight="bold", fill=INK)]
        for kind in self.timeline.usage_by_kind:
            y += 17
            parts.append(f'<rect x="8" y="{px(y - 9)}" width="10" height="10" fill="{COLOURS[kind]}"/>')
            parts.append(svg_text(23, y, PLURALS[kind], fill=INK))
            parts.append(svg_text(LEFT - 62, y, human_bytes(at_peak.get(kind, 0)), "end", fill=INK))
        y += 17
        parts.append(svg_text(23, y, "total", font_weight="bold", fill=INK))
        parts.append(svg_text(LEFT - 62, y, human_bytes(self.timeline.summary.peak_bytes or 0), "end",
                           font_weight="bold", fill=INK))
        return [*parts, "</g>"]

    # ---- usage over time -------------------------------------------------------------------------

    def usage_panel(self) -> list[str]:
        return ['<g id="usage">', *self._byte_axis(), *self._layers(), self._outline(),
                *self._time_axis(self.usage_top + self.usage_height), *self._step_titles(), *self._highest_marker(),
                "</g>"]

    def _byte_axis(self) -> list[str]:
        parts = []
        for count in range(0, self.top + 1, self.byte_step):
            y = self.y(count)
            parts.append(f'<line x1="{LEFT}" y1="{px(y)}" x2="{LEFT + PLOT_WIDTH}" y2="{px(y)}" stroke="{GRID}"/>')
            parts.append(svg_text(LEFT - 6, y + 4, tick_bytes(count), "end", fill=INK))
        return parts

    def _step_line(self, values: list[int]) -> list[tuple[float, float]]:
        """The corners of a step line through values[t] over [t, t+1), left to right."""
        points: list[tuple[float, float]] = []
        for time, value in enumerate(values):
            if time == 0 or value != values[time - 1]:
                if time:
                    points.append((self.x(time), self.y(values[time - 1])))
                points.append((self.x(time), self.y(value)))
        points.append((self.x(len(values)), self.y(values[-1])))
        return points

    def _layers(self) -> list[str]:
        parts, below = [], [0] * self.steps
        for kind, steps in self.timeline.usage_by_kind.items():
            above = [low + count for low, count in zip(below, steps)]
            outline = self._step_line(above) + list(reversed(self._step_line(below)))
            path = "M" + " L".join(f"{px(x)} {px(y)}" for x, y in outline) + " Z"
            parts.append(f'<path d="{path}" fill="{COLOURS[kind]}" fill-opacity="0.45" stroke="none">'
                         f"<title>{escape(PLURALS[kind])}</title></path>")
            below = above
        return parts

    def _outline(self) -> str:
        points = self._step_line(list(self.timeline.usage))
        path = "M" + " L".join(f"{px(x)} {px(y)}" for x, y in points)
        return f'<path d="{path}" fill="none" stroke="{INK}" stroke-width="1.2"/>'

    def _time_axis(self, y: float) -> list[str]:
        step = time_step(self.timeline.max_time)
        parts = [f'<line x1="{LEFT}" y1="{px(y)}" x2="{LEFT + PLOT_WIDTH}" y2="{px(y)}" stroke="{INK}"/>']
        for time in range(0, self.steps, step):
            x = self.x(time + 0.5)
            parts.append(f'<line x1="{px(x)}" y1="{px(y)}" x2="{px(x)}" y2="{px(y + 4)}" stroke="{INK}"/>')
            parts.append(svg_text(x, y + 15, str(time), "middle", fill=INK))
        return parts

    def _step_titles(self) -> list[str]:
        if self.steps > STEP_TITLES_UP_TO:
            return []
        parts = []
        width = px(PLOT_WIDTH / self.steps)
        for time, count in enumerate(self.timeline.usage):
            name = self.timeline.instruction_at(time) or "after the last instruction"
            title = f"t={time} {name}: {count:,} bytes ({human_bytes(count)}) live"
            parts.append(f'<rect x="{px(self.x(time))}" y="{self.usage_top}" width="{width}" '
                         f'height="{self.usage_height}" fill="#000000" fill-opacity="0"><title>{escape(title)}</title>'
                         "</rect>")
        return parts

    def _highest_marker(self) -> list[str]:
        time, count = self.timeline.highest
        if count <= (self.timeline.summary.peak_bytes or 0):
            return []
        x = self.x(time + 0.5)
        label = f"most live: {human_bytes(count)} at t={time}"
        title = (f"{label} ({self.timeline.instruction_at(time) or 'after the last instruction'}): {count:,} bytes. "
                 "XLA's peak step is where its running sum, which keeps a value until the step after its last "
                 "use, is largest; the bytes live at that step can be fewer.")
        return [f'<g id="highest"><title>{escape(title)}</title>',
                f'<line x1="{px(x)}" y1="{self.usage_top}" x2="{px(x)}" y2="{self.usage_top + self.usage_height}" '
                f'stroke="{HIGHEST_COLOUR}" stroke-dasharray="2 3"/>',
                self._marker_label(x, self.usage_top + 28, label, HIGHEST_COLOUR), "</g>"]

    @staticmethod
    def _marker_label(x: float, y: float, label: str, colour: str) -> str:
        """Right of the marker when it fits (about 6.2 pixels a character), else left of it; on a white
        halo (the same text stroked wide underneath) so that lines behind it do not cross it."""
        at, anchor = (x + 5, "start") if x + 5 + 6.2 * len(label) <= WIDTH - 4 else (x - 5, "end")
        halo = svg_text(at, y, label, anchor, fill="#ffffff", stroke="#ffffff", stroke_width="4",
                     stroke_linejoin="round", aria_hidden="true")
        return halo + svg_text(at, y, label, anchor, fill=colour)

    # ---- the largest buffers -------------------------------------------------------------------

    def lanes_panel(self) -> list[str]:
        drawn = self.report.drawn
        if not drawn:
            return []
        count = len(self.timeline.buffers)
        which = f"all {count} buffers" if len(drawn) == count else f"the {len(drawn)} largest of {count} buffers"
        heading = f"{which}: live range × size (hover a bar for details)"
        parts = ['<g id="buffers">', svg_text(8, LANES_TOP - 8, heading, fill=INK)]
        largest = max(buffer.size for buffer in drawn) or 1
        for lane, buffer in enumerate(drawn):
            parts.extend(self._bar(lane, buffer, largest))
        parts.extend(self._time_axis(LANES_TOP + LANE * len(drawn)))
        parts.append(svg_text(LEFT + PLOT_WIDTH / 2, LANES_TOP + LANE * len(drawn) + 32,
                           "program order (schedule step)", "middle", fill=INK))
        parts.append("</g>")
        return parts

    def _bar(self, lane: int, buffer: TimelineBuffer, largest: int) -> list[str]:
        top = LANES_TOP + LANE * lane
        live = buffer.live_range
        x0, x1 = self.x(live.start), self.x(live.end + 1)
        height = max((LANE - 4) * buffer.size / largest, 2.0)
        colour = COLOURS[buffer.kind]
        background = "#f4f4f4" if lane % 2 == 0 else "#ffffff"
        baseline = top + LANE / 2 + 4
        return [
            f'<g class="buffer {buffer.kind}"><title>{escape(self._bar_title(buffer))}</title>',
            f'<rect x="0" y="{top}" width="{WIDTH}" height="{LANE}" fill="{background}"/>',
            svg_text(8, baseline, _shortened(buffer.label), fill=INK, font_size="10"),
            svg_text(LEFT - 8, baseline, human_bytes(buffer.size), "end", fill=INK, font_size="10"),
            f'<rect x="{px(x0)}" y="{px(top + (LANE - height) / 2)}" width="{px(x1 - x0)}" height="{px(height)}" '
            f'fill="{colour}" fill-opacity="0.8" stroke="{colour}"/>',
            "</g>",
        ]

    def _bar_title(self, buffer: TimelineBuffer) -> str:
        live = buffer.live_range
        timeline = self.timeline
        first = timeline.instruction_at(live.start) or "?"
        last = timeline.instruction_at(live.end) or "the end of the program"
        lines = [f"{buffer.label}: {buffer.size:,} bytes ({human_bytes(buffer.size)}), {buffer.kind}",
                 f"live {live.start}-{live.end} (steps {first} to {last})"]
        if buffer.allocation is not None:
            lines.append(f"allocation {buffer.allocation} @ {buffer.offset}")
        origin = self.report.origin(live.name)
        if origin.op_name:
            lines.append(f"op_name {origin.op_name}")
        if origin.source:
            lines.append(f"source {origin.source}" + (f" in {origin.function}" if origin.function else ""))
        peak = timeline.summary.peak_time
        if peak is not None and live.start <= peak <= live.end:
            lines.append("live at the peak")
        return "\n".join(lines)

    # ---- the peak --------------------------------------------------------------------------------

    def peak_marker(self, bottom: float) -> list[str]:
        summary = self.timeline.summary
        if summary.peak_time is None:
            return []
        x = self.x(summary.peak_time + 0.5)
        count = summary.peak_bytes or 0
        label = f"peak {human_bytes(count)} at t={summary.peak_time}" + (
            f" ({summary.peak_instruction})" if summary.peak_instruction else "")
        title = f"{label}: {count:,} bytes in {len(summary.buffers_at_peak)} buffers, by XLA's accounting"
        return [f'<g id="peak"><title>{escape(title)}</title>',
                f'<line x1="{px(x)}" y1="{self.usage_top}" x2="{px(x)}" y2="{px(bottom)}" stroke="{PEAK_COLOUR}" '
                f'stroke-width="1.5" stroke-dasharray="5 3"/>',
                f'<circle cx="{px(x)}" cy="{px(self.y(count))}" r="4" fill="{PEAK_COLOUR}"/>',
                self._marker_label(x, self.usage_top + 12, label, PEAK_COLOUR),
                "</g>"]
