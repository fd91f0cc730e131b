"""Call hierarchy over stdio, as VS Code and as Neovim, on the control-flow dump of JAX 0.10.2: prepared on
`body=%…`, callers and callees through calls=, to_apply=, condition=, body= and branch_computations=."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import SPLIT_CONTROL_FLOW
from helpers.lsp import column_of, negotiated_encoding, open_file, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

HLO = Path(f"{SPLIT_CONTROL_FLOW}.txt")
LINES = HLO.read_text().split("\n")
BODY = "region_6.8.clone.clone.clone"


def name_range(client: LanguageClient, line: int, name: str, occurrence: int = 0) -> types.Range:
    """The range of `name` on `line`, in the client's position encoding."""
    text = LINES[line]
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(name, start + 1)
    encoding = negotiated_encoding(client.capabilities)
    return types.Range(types.Position(line, column_of(text, start, encoding)),
                       types.Position(line, column_of(text, start + len(name), encoding)))


def header_line(name: str) -> int:
    return next(number for number, text in enumerate(LINES) if text.lstrip("ENTRY ").startswith(f"%{name} ("))


async def prepare(client: LanguageClient, line_containing: str, name: str) -> list[types.CallHierarchyItem]:
    uri = open_file(client, HLO)
    answer = await client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(
        types.TextDocumentIdentifier(uri), position_of(HLO, line_containing, name)))
    return list(answer or [])


async def test_prepare_on_a_while_body(client: LanguageClient) -> None:
    (item,) = await prepare(client, "  %while.1 = ", BODY)
    line = header_line(BODY)
    assert item.name == BODY
    assert item.kind == types.SymbolKind.Function
    assert item.uri == HLO.as_uri()
    assert item.range == types.Range(types.Position(line, 0), name_range(client, line, "{").end)
    assert item.selection_range == name_range(client, line, BODY)
    assert item.detail == "8 instructions"


async def test_incoming_calls_of_a_while_body(client: LanguageClient) -> None:
    (item,) = await prepare(client, "  %while.1 = ", BODY)
    answer = await client.call_hierarchy_incoming_calls_async(types.CallHierarchyIncomingCallsParams(item))
    assert answer is not None
    (call,) = answer
    assert call.from_.name == "main.15"
    assert call.from_.selection_range == name_range(client, header_line("main.15"), "main.15")
    while_line = position_of(HLO, "  %while.1 = ", "%").line
    assert list(call.from_ranges) == [name_range(client, while_line, BODY)]


async def test_outgoing_calls_of_the_entry_computation(client: LanguageClient) -> None:
    (item,) = await prepare(client, "ENTRY %main.15 (", "main.15")
    assert item.detail is not None and item.detail.startswith("ENTRY, ")
    answer = await client.call_hierarchy_outgoing_calls_async(types.CallHierarchyOutgoingCallsParams(item))
    assert answer is not None
    callees = {call.to.name: list(call.from_ranges) for call in answer}
    cond = position_of(HLO, "  %cond.9.clone = ", "%").line
    assert callees["region_3.4"] == [name_range(client, cond, "region_3.4")]
    loop = position_of(HLO, "  %while.19 = ", "%").line
    assert callees["region_9.11"] == [name_range(client, loop, "region_9.11")]
    assert callees["region_8.10"] == [name_range(client, loop, "region_8.10")]
    clamp = position_of(HLO, "  %wrapped_clamp = ", "%").line
    assert callees["wrapped_clamp_computation"] == [name_range(client, clamp, "wrapped_clamp_computation")]
    assert {"region_0.1", "region_1.2", "region_2.3", "region_4.6", BODY, "region_7.9.clone.clone",
            "fused_computation.8", "fused_computation.9", "while.23_computation"} <= set(callees)


async def test_from_a_reducer_up_to_its_callers(client: LanguageClient) -> None:
    (item,) = await prepare(client, "ROOT %reduce_sum.1 = ", "region_5.5")
    answer = await client.call_hierarchy_incoming_calls_async(types.CallHierarchyIncomingCallsParams(item))
    assert answer is not None
    assert [(call.from_.name, [r.start.line for r in call.from_ranges]) for call in answer] == [
        ("wrapped_reduce_computation", [position_of(HLO, "ROOT %reduce_sum.1 = ", "%").line])]
    outgoing = await client.call_hierarchy_outgoing_calls_async(types.CallHierarchyOutgoingCallsParams(item))
    assert list(outgoing or []) == []


async def test_nothing_to_prepare_on_an_operand(client: LanguageClient) -> None:
    assert await prepare(client, "  %while.1 = ", "tuple.30") == []
