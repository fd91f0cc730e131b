"""Inlay hints over stdio, as VS Code and as Neovim: buffer sizes and live ranges after the shapes of
the HLO module and at the end of value lines, for the requested range only, in the client's position
encoding; turned off by initializationOptions or by workspace/didChangeConfiguration."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from helpers import DATA, SPLIT_HLO, SPLIT_MLP
from helpers.lsp import CLIENTS, SERVER, column_of, negotiated_encoding, open_file, position_of, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT_ALLOCATIONS = Path(f"{SPLIT_MLP}-buffer-assignment.txt")
SPLIT_LIVE_RANGE = Path(f"{SPLIT_MLP}-live-range.txt")


def whole(path: Path) -> types.Range:
    return types.Range(types.Position(0, 0), types.Position(len(path.read_text().split("\n")), 0))


async def hints(client: LanguageClient, path: Path, visible: types.Range | None = None) -> list[types.InlayHint]:
    uri = open_file(client, path)
    answer = await client.text_document_inlay_hint_async(
        types.InlayHintParams(types.TextDocumentIdentifier(uri), visible or whole(path)))
    return list(answer or [])


def printed_live_range(label: str) -> str:
    match = re.search(rf"^    {re.escape(label)}:(\d+)-(\d+)$", SPLIT_LIVE_RANGE.read_text(), re.MULTILINE)
    assert match is not None
    return f"{match.group(1)}→{match.group(2)}"


def printed_size(name: str) -> int:
    match = re.search(rf" value: <\d+ {re.escape(name)} @0> \(size=(\d+),", SPLIT_ALLOCATIONS.read_text())
    assert match is not None
    return int(match.group(1))


async def test_an_instruction_shows_its_size_and_live_range_after_its_shape(client: LanguageClient) -> None:
    found = await hints(client, SPLIT_HLO)
    position = position_of(SPLIT_HLO, "  %ynn_fusion.1 = ", "f32[32,256]{1,0}")
    text = SPLIT_HLO.read_text().split("\n")[position.line]
    encoding = negotiated_encoding(client.capabilities)
    after_shape = column_of(text, position.character + len("f32[32,256]{1,0}"), encoding)
    (hint,) = [hint for hint in found if hint.position.line == position.line]
    assert printed_size("ynn_fusion.1") == 32768
    assert hint.label == f"32.0 KiB · {printed_live_range('ynn_fusion.1{}')}" == "32.0 KiB · 9→10"
    assert hint.position == types.Position(position.line, after_shape)
    assert hint.kind == types.InlayHintKind.Type
    assert hint.padding_left is True
    assert isinstance(hint.tooltip, str) and hint.tooltip.startswith("<62 ynn_fusion.1 @0>: 32,768 bytes (32.0KiB)")
    labels = {SPLIT_HLO.read_text().split("\n")[h.position.line].split(" = ")[0].strip(): h.label for h in found}
    assert labels["%ws_1_.1"] == "256.0 KiB · 0→15"
    assert labels["ROOT %reduce_sum.5"] == "4 B · thread-local"
    assert len(found) == 21


async def test_only_the_requested_lines(client: LanguageClient) -> None:
    first = position_of(SPLIT_HLO, "  %ynn_fusion.2 = ", "%").line
    last = position_of(SPLIT_HLO, "  %add_maximum_fusion = ", "%").line
    found = await hints(client, SPLIT_HLO, types.Range(types.Position(first, 0), types.Position(last, 0)))
    assert [(hint.position.line, hint.label) for hint in found] == [
        (first, "32.0 KiB · 7→8"), (first + 1, "32.0 KiB · 8→9"), (first + 2, "32.0 KiB · 9→10"),
        (last, "32.0 KiB · 10→11")]


async def test_value_lines_show_their_live_range_at_the_end(client: LanguageClient) -> None:
    found = await hints(client, SPLIT_ALLOCATIONS)
    position = position_of(SPLIT_ALLOCATIONS, " value: <64 add_maximum_fusion @0>", " value")
    text = SPLIT_ALLOCATIONS.read_text().split("\n")[position.line]
    (hint,) = [hint for hint in found if hint.position.line == position.line]
    assert hint.label == printed_live_range("add_maximum_fusion{}") == "10→11"
    assert hint.position.character == column_of(text, len(text), negotiated_encoding(client.capabilities))


def count_refreshes(client: LanguageClient) -> list[None]:
    """Answers workspace/inlayHint/refresh (which clients that can refresh receive) and counts them."""
    refreshed: list[None] = []

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def refresh(params: None) -> None:
        refreshed.append(None)

    return refreshed


def can_refresh(client: LanguageClient) -> bool:
    workspace = client.capabilities.workspace if client.capabilities else None
    return bool(workspace and workspace.inlay_hint and workspace.inlay_hint.refresh_support)


async def test_the_setting_turns_them_off_and_on(client: LanguageClient) -> None:
    refreshed = count_refreshes(client)
    assert await hints(client, SPLIT_HLO)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"hlo": {"inlayHints": {"enabled": False}}}))
    assert await hints(client, SPLIT_HLO) == []
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"hlo": {"inlayHints": {"enabled": True}}}))
    assert len(await hints(client, SPLIT_HLO)) == 21
    if can_refresh(client):
        await asyncio.wait_for(refreshed_twice(refreshed), 10)
    else:
        assert refreshed == []


async def refreshed_twice(refreshed: list[None]) -> None:
    while len(refreshed) < 2:
        await asyncio.sleep(0.05)


async def test_unknown_documents_and_files_without_memory(client: LanguageClient) -> None:
    missing = types.TextDocumentIdentifier((DATA / "nowhere.txt").as_uri())
    everything = types.Range(types.Position(0, 0), types.Position(10, 0))
    assert await client.text_document_inlay_hint_async(types.InlayHintParams(missing, everything)) is None
    assert await hints(client, DATA / "seeds" / "torchxla-gpu-decode-batch32.after_optimizations.txt") == []


# ---- a session started with the hints turned off ---------------------------------------------


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def hints_off(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    await start_session(lsp_client, client_capabilities(request.param), {"inlayHints": False})
    yield
    await lsp_client.shutdown_session()


async def test_initialization_options_turn_them_off(hints_off: LanguageClient) -> None:
    count_refreshes(hints_off)
    assert await hints(hints_off, SPLIT_HLO) == []
    hints_off.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"hlo": {"inlayHints": {"enabled": True}}}))
    assert len(await hints(hints_off, SPLIT_HLO)) == 21
