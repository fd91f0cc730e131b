"""Where the items of a line start when one line holds several, as XLA's parser reads its tokens."""

from __future__ import annotations

import pytest

from hlo_lsp.parsing.hlo_items import item_starts
from hlo_lsp.parsing.hlo_scanner import COMP, scan_hlo_line

CASES = [
    # (line, inside a computation, the items it holds)
    ("ENTRY e { p = f32[] parameter(0) ROOT a = f32[] abs(p) }", False,
     ["ENTRY e { ", "p = f32[] parameter(0) ", "ROOT a = f32[] abs(p) ", "}"]),
    ("  p = f32[] parameter(0) r = f32[] abs(p)", True, ["  p = f32[] parameter(0) ", "r = f32[] abs(p)"]),
    ("  p = f32[] parameter(0) }", True, ["  p = f32[] parameter(0) ", "}"]),
    ("} ENTRY e {", True, ["} ", "ENTRY e {"]),
    ("}, execution_thread=\"x\" c {", True, ["}, execution_thread=\"x\" ", "c {"]),
    ('  a = s32[] parameter(0), metadata={op_name="a"} ROOT %b = s32[] copy(a)', True,
     ['  a = s32[] parameter(0), metadata={op_name="a"} ', "ROOT %b = s32[] copy(a)"]),
    ("  r = f32[] reduce(p, z), dimensions={0}, to_apply=add ROOT q = f32[] abs(r)", True,
     ["  r = f32[] reduce(p, z), dimensions={0}, to_apply=add ", "ROOT q = f32[] abs(r)"]),
]
ONE_ITEM = [
    ("ENTRY e (p: f32[4]{0}) -> f32[4]{0} {", False),  # a layout's `{` opens no body
    ("e, frontend_attributes={a=\"b\"} {", False),  # nor a value's
    ('  p = f32[4] parameter(0), metadata={op_name="a = b"}', True),  # ` = ` inside a string
    ("  v = f32[4] add(p, q), sharding={replicated}", True),
    ("  v = f32[4] custom-call(p), custom_call_target=\"f\", api_version=API_VERSION_TYPED_FFI", True),
    ("  b = s64[64,10]{1,0} broadcast(r), di}ensions={1}", True),  # fuzzer mutant #235458: a garbled key
    ('  a = s32[] parameter(2), metadata=?op_name="idx"}', True),  # fuzzer mutant #261500: a `{` garbled
]


@pytest.mark.parametrize(("text", "in_computation", "items"), CASES)
def test_the_items_of_a_line(text: str, in_computation: bool, items: list[str]) -> None:
    starts = [0, *item_starts(text, in_computation)]
    assert [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)], strict=True)] == items


@pytest.mark.parametrize(("text", "in_computation"), ONE_ITEM)
def test_a_line_of_one_item(text: str, in_computation: bool) -> None:
    assert item_starts(text, in_computation) == []


def test_a_line_of_very_many_items_is_read_as_one() -> None:
    """Fuzzer mutant #228643 (a 200 KB line of pasted instructions): each item is scanned in a copy of the
    line, so a garbled line of thousands took seconds; past 64 items a line is one item (the grammar's)."""
    line = " ".join(f"a{number} = f32[] parameter({number})" for number in range(100))
    assert scan_hlo_line(COMP, "  " + line).kind == "instruction"
    assert scan_hlo_line(COMP, "  " + " ".join(line.split(" ")[:20])).kind == "items"
