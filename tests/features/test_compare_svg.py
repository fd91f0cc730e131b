"""The picture of a comparison as a user reads it: both timelines on one byte scale, each peak marked, and the
largest changes as bars, growth to the right of the middle line and shrinking to the left."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

from helpers import PAIR_NARROW, PAIR_WIDE
from hlo_lsp.features.compare_svg import ROWS_DRAWN, compare_svg
from hlo_lsp.features.memory_compare import ModuleChange, compare_sides, dump_sides
from hlo_lsp.workspace.loader import load

SVG = "{http://www.w3.org/2000/svg}"


def _change(a: Path, b: Path) -> ModuleChange:
    (change,) = compare_sides(dump_sides(load([str(a)]).modules), dump_sides(load([str(b)]).modules)).changes
    return change


def _texts(group: ElementTree.Element) -> list[str]:
    return ["".join(element.itertext()) for element in group.iter(f"{SVG}text")]


def _group(root: ElementTree.Element, name: str) -> ElementTree.Element:
    found = next((group for group in root.iter(f"{SVG}g") if group.get("id") == name), None)
    assert found is not None, name
    return found


def test_both_sides_share_one_byte_scale_and_mark_their_peaks() -> None:
    root = ElementTree.fromstring(compare_svg(_change(PAIR_NARROW, PAIR_WIDE)))
    side_a, side_b = _group(root, "side-a"), _group(root, "side-b")
    ticks_a = [text for text in _texts(_group(side_a, "usage")) if text.endswith("MiB")]
    assert ticks_a and ticks_a == [text for text in _texts(_group(side_b, "usage")) if text.endswith("MiB")]
    assert "peak 1.28MiB at t=47 (multiply_subtract_fusion.3)" in _texts(side_a)
    assert "peak 17.07MiB at t=47 (multiply_subtract_fusion.3)" in _texts(side_b)
    assert _texts(_group(root, "legend"))[1:3] == ["parameters", "861.3KiB → 12.32MiB"]


def test_the_largest_changes_grow_right_of_the_middle_and_shrink_left() -> None:
    for a, b, grew in ((PAIR_NARROW, PAIR_WIDE, True), (PAIR_WIDE, PAIR_NARROW, False)):
        root = ElementTree.fromstring(compare_svg(_change(a, b)))
        changes = _group(root, "changes")
        middle = float(changes.find(f"{SVG}line").get("x1"))  # type: ignore[union-attr, arg-type]
        rows = [group for group in changes.iter(f"{SVG}g") if group.get("class") == "change"]
        assert len(rows) == ROWS_DRAWN
        for row in rows:
            bar = row.find(f"{SVG}rect")
            assert bar is not None
            x, width = float(bar.get("x", "")), float(bar.get("width", ""))
            assert abs((x if grew else x + width) - middle) < 0.15  # (coordinates are rounded to 0.1)
        first = rows[0].find(f"{SVG}title")
        before = "262,144" if grew else "4,194,304"
        assert first is not None and (first.text or "").startswith(f"A: copy.3{{}} {before} bytes")


def test_the_same_comparison_draws_the_same_bytes() -> None:
    assert compare_svg(_change(PAIR_NARROW, PAIR_WIDE)) == compare_svg(_change(PAIR_NARROW, PAIR_WIDE))
