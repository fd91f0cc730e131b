"""Draws icon.png, the extension's 128x128 icon: "HLO" over a memory timeline's bars, the peak in red.

    .venv/bin/python editors/vscode/images/make_icon.py      # needs Pillow (pip install pillow)

Drawn at 4x and scaled down, so edges are smooth; the colours are the memory timeline's
(server/hlo_lsp/features/memory_svg.py: parameters blue, temporaries orange, the peak red).
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

SIZE, SCALE = 128, 4
BACKGROUND, INK = "#1f2937", "#f5f5f5"
PARAMETER, TEMPORARY, PEAK = "#4e79a7", "#f28e2b", "#d62728"
STROKE = 9  # the letters' stroke width
HEIGHTS = (14, 22, 30, 44, 36, 26, 32, 18)  # the bars, left to right; the highest is the peak
BASE, PARAMETERS = 112, 9  # the bars' baseline, and the parameters' part of each bar


def draw() -> Image.Image:
    image = Image.new("RGBA", (SIZE * SCALE, SIZE * SCALE), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)

    def box(x0: float, y0: float, x1: float, y1: float, fill: str) -> None:
        pen.rectangle([x0 * SCALE, y0 * SCALE, x1 * SCALE - 1, y1 * SCALE - 1], fill=fill)

    pen.rounded_rectangle([0, 0, SIZE * SCALE - 1, SIZE * SCALE - 1], radius=22 * SCALE, fill=BACKGROUND)
    top, bottom = 14, 60
    # H
    box(16, top, 16 + STROKE, bottom, INK)
    box(44 - STROKE, top, 44, bottom, INK)
    box(16, (top + bottom - STROKE) / 2, 44, (top + bottom + STROKE) / 2, INK)
    # L
    box(52, top, 52 + STROKE, bottom, INK)
    box(52, bottom - STROKE, 75, bottom, INK)
    # O
    pen.rounded_rectangle([82 * SCALE, top * SCALE, 112 * SCALE - 1, bottom * SCALE - 1], radius=13 * SCALE,
                          outline=INK, width=STROKE * SCALE)
    # The timeline: a bar per step, parameters at the bottom, temporaries above, the peak's in red.
    peak = max(HEIGHTS)
    width, gap = 10, 2
    left = (SIZE - (len(HEIGHTS) * (width + gap) - gap)) / 2
    for i, height in enumerate(HEIGHTS):
        x = left + i * (width + gap)
        box(x, BASE - PARAMETERS, x + width, BASE, PARAMETER)
        box(x, BASE - height, x + width, BASE - PARAMETERS, PEAK if height == peak else TEMPORARY)
    return image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)


if __name__ == "__main__":
    out = Path(__file__).with_name("icon.png")
    draw().save(out, optimize=True)
    print(f"wrote {out}")
