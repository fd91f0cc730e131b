"""Robustness over stdio, as VS Code and as Neovim: requests before any didOpen, absurd positions,
malformed and overlapping edits, a close or a cancel while a slow request runs, shutdown and exit,
URIs that are not files, and dump files that vanish or change under the server.

Every case ends with `still_serving`: the process is alive and hovers a real instruction with the size
XLA printed. Files that change are copies in tmp_path; tests/data is never written.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from helpers import DATA, SPLIT_HLO, SPLIT_MLP, copy_module
from helpers.lsp import (
    CLIENTS,
    all_diagnostics,
    close_file,
    forget_diagnostics,
    module_paths,
    next_diagnostics,
    open_file,
    position_of,
    still_serving,
    write_large_module,
)
from helpers.raw import RawSession, raw_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT = SPLIT_MLP
OTHER = DATA / "jax-0.10.2" / "control_flow" / "module_0000.jit_f.cpu_after_optimizations"
ADD_MAXIMUM = "  %add_maximum_fusion = f32[32,256]{1,0} fusion(%ynn_fusion.1, %bs_1_.1)"
ALLOCATION_LINE = "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0"
TITLE = "**add_maximum_fusion** = `f32[32,256]{1,0}` fusion"


def send_now(client: LanguageClient, method: str, params: object, msg_id: str | None = None) -> asyncio.Future:  # type: ignore[type-arg]
    """Sends a request at once (the client's *_async methods only send when awaited)."""
    return asyncio.wrap_future(client.protocol.send_request(method, params, msg_id=msg_id))


def identifier(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


def span(line: int, start: int, end: int) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, end))


async def hover_text(client: LanguageClient, uri: str, position: types.Position) -> str | None:
    answer = await client.text_document_hover_async(types.HoverParams(identifier(uri), position))
    if answer is None:
        return None
    assert isinstance(answer.contents, types.MarkupContent)
    return answer.contents.value


async def definitions(client: LanguageClient, uri: str, position: types.Position) -> list[tuple[str, types.Range]]:
    found = await client.text_document_definition_async(types.DefinitionParams(identifier(uri), position))
    assert found is None or isinstance(found, list)
    return [(item.uri, item.range) for item in found or []]


async def references(client: LanguageClient, uri: str, position: types.Position) -> list[types.Location] | None:
    return await client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=True), text_document=identifier(uri), position=position))


def name_range(path: Path, line_containing: str, name: str, occurrence: int = 0) -> types.Range:
    start = position_of(path, line_containing, name, occurrence)
    return span(start.line, start.character, start.character + len(name))


def change(client: LanguageClient, uri: str, version: int,
           *changes: tuple[types.Range, str] | str) -> None:
    """One didChange with these content changes in order: (range, text) pairs or whole texts."""
    content = [types.TextDocumentContentChangeWholeDocument(text=item) if isinstance(item, str)
               else types.TextDocumentContentChangePartial(range=item[0], text=item[1]) for item in changes]
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version), content))


# ---- requests before any didOpen (must stay the first test: the session has opened nothing yet) ---------


async def test_requests_before_any_did_open(client: LanguageClient, tmp_path: Path) -> None:
    """Nothing opened: a file that exists is answered from disk exactly as after opening it; a path that
    does not exist answers null everywhere; workspace symbols come from the module files of the workspace
    folder (tests/data) read from disk, not opened: no allocation (those of open modules only)."""
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="fusion"))
    assert found is not None
    assert all("fusion" in symbol.name.lower() and symbol.location.uri.startswith(DATA.as_uri() + "/")
               and symbol.kind != types.SymbolKind.Struct for symbol in found)
    missing = (tmp_path / "module_0000.jit_mlp.cpu_after_optimizations.txt").as_uri()
    position = position_of(SPLIT_HLO, ADD_MAXIMUM, "ynn_fusion.1")
    assert await hover_text(client, missing, position) is None
    assert await definitions(client, missing, position) == []
    assert await references(client, missing, position) is None
    assert await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier(missing))) is None
    assert await client.text_document_folding_range_async(types.FoldingRangeParams(identifier(missing))) is None

    uri = SPLIT_HLO.as_uri()
    name = position_of(SPLIT_HLO, ADD_MAXIMUM, "add_maximum_fusion")
    unopened = [await hover_text(client, uri, name), await definitions(client, uri, position),
                await references(client, uri, position),
                await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier(uri))),
                await client.text_document_folding_range_async(types.FoldingRangeParams(identifier(uri)))]
    assert unopened[0] is not None and ALLOCATION_LINE in unopened[0].split("\n")
    assert unopened[1] == [(uri, name_range(SPLIT_HLO, "  %ynn_fusion.1 = ", "ynn_fusion.1"))]
    open_file(client, SPLIT_HLO)
    opened = [await hover_text(client, uri, name), await definitions(client, uri, position),
              await references(client, uri, position),
              await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier(uri))),
              await client.text_document_folding_range_async(types.FoldingRangeParams(identifier(uri)))]
    assert unopened == opened
    await still_serving(client)


# ---- positions -----------------------------------------------------------------------------------------


async def test_positions_past_the_end_of_lines_and_of_the_file(client: LanguageClient) -> None:
    uri = open_file(client, SPLIT_HLO)
    lines = SPLIT_HLO.read_text().split("\n")
    line = position_of(SPLIT_HLO, ADD_MAXIMUM, ADD_MAXIMUM).line
    huge = 2**31 - 1  # the largest LSP uinteger
    for position in (types.Position(line, len(lines[line]) + 1), types.Position(line, huge),
                     types.Position(len(lines), 0), types.Position(len(lines) + 1000, 5),
                     types.Position(huge, 0), types.Position(huge, huge)):
        assert await hover_text(client, uri, position) is None, position
        assert await definitions(client, uri, position) == [], position
        assert await references(client, uri, position) is None, position
        assert await client.text_document_document_highlight_async(
            types.DocumentHighlightParams(identifier(uri), position)) is None, position
    await still_serving(client)


INVALID_POSITIONS = [{"line": -1, "character": -1}, {"line": 125, "character": -1}, {"line": 2**32 - 1, "character": 0},
                     {"line": 125, "character": 2**32 - 1}, {"line": 2**53, "character": 2**53}]


async def with_split_hlo_open(server: RawSession) -> None:
    """Initializes the raw session as VS Code and opens the split mlp3 module's HLO file."""
    await server.initialize()
    await server.notify("initialized", {})
    await server.did_open(SPLIT_HLO)


async def request_at(server: RawSession, request_id: int, method: str, position: dict) -> None:  # type: ignore[type-arg]
    await server.request(request_id, method, {"textDocument": {"uri": SPLIT_HLO.as_uri()}, "position": position,
                                              "context": {"includeDeclaration": True}})


async def test_positions_beyond_uinteger_and_negative_leave_the_server_serving() -> None:
    """-1 and 2**32-1 (what a client with an int32 bug sends) are not LSP positions: after a burst of
    them the same process still hovers the instruction, and shutdown and exit end it with code 0."""
    async with raw_session() as server:
        await with_split_hlo_open(server)
        assert ADD_MAXIMUM in SPLIT_HLO.read_text().split("\n")[125]
        request_id = 10
        for position in INVALID_POSITIONS:
            for method in ("textDocument/hover", "textDocument/definition", "textDocument/references"):
                await request_at(server, request_id, method, position)
                request_id += 1
        name = position_of(SPLIT_HLO, ADD_MAXIMUM, "add_maximum_fusion")
        await request_at(server, 99, "textDocument/hover", {"line": name.line, "character": name.character})
        answer = await server.answer(99)
        assert ALLOCATION_LINE in answer["result"]["contents"]["value"].split("\n")
        assert server.process.returncode is None
        await server.shut_down(100)
    assert server.returncode == 0


async def test_an_invalid_position_gets_an_invalid_params_error() -> None:
    async with raw_session() as server:
        await with_split_hlo_open(server)
        await request_at(server, 7, "textDocument/hover", INVALID_POSITIONS[0])
        answer = await server.answer_if_any(7)
        assert answer.get("error", {}).get("code") == -32602, answer


# ---- didChange ---------------------------------------------------------------------------------------


async def test_overlapping_edits_in_one_notification_apply_in_order(client: LanguageClient, tmp_path: Path) -> None:
    """LSP applies the changes of one notification one after the other, each on the text the previous
    one left: three edits over the same columns turn the operand `ynn_fusion.1` into `ynn_fusion.2`."""
    hlo = Path(f"{copy_module(SPLIT, tmp_path)}.txt")
    uris = [path.as_uri() for path in module_paths(Path(str(hlo)[:-4]))]
    forget_diagnostics(client, uris)
    uri = open_file(client, hlo)
    assert await next_diagnostics(client, uri) == []
    operand = name_range(hlo, ADD_MAXIMUM, "ynn_fusion.1")
    line, start = operand.start.line, operand.start.character
    forget_diagnostics(client, uris)
    change(client, uri, 2,
           (operand, "zzz"),                                   # %zzz, %bs_1_.1
           (span(line, start + 1, start + 3), "ynn_fusion.2"),  # %zynn_fusion.2, ...: overlaps the first edit
           (span(line, start, start + 1), ""))                 # %ynn_fusion.2, ...
    assert await next_diagnostics(client, uri) == []  # a misapplied edit would leave an undefined operand
    assert await definitions(client, uri, operand.start) == [
        (uri, name_range(hlo, "  %ynn_fusion.2 = ", "ynn_fusion.2"))]
    text = await hover_text(client, uri, position_of(hlo, ADD_MAXIMUM, "add_maximum_fusion"))
    assert text is not None and text.split("\n")[0] == TITLE
    await still_serving(client)


async def test_out_of_range_edits_are_clamped_like_editors_do(client: LanguageClient, tmp_path: Path) -> None:
    """A range whose end is past its line ends at the line's end; one whose start comes after its end is
    the same range reversed; lines past the end mean the end of the text. A full-text change after
    them, in the same notification, replaces everything the incremental ones did."""
    hlo = Path(f"{copy_module(SPLIT, tmp_path)}.txt")
    original = hlo.read_text()
    lines = original.split("\n")
    uri = open_file(client, hlo)
    assert await next_diagnostics(client, uri) == []
    operand = name_range(hlo, ADD_MAXIMUM, "ynn_fusion.1")
    line, start = operand.start.line, operand.start.character
    tail = lines[line][start:].replace("ynn_fusion.1", "ynn_fusion.2", 1)
    ynn_2 = (uri, name_range(hlo, "  %ynn_fusion.2 = ", "ynn_fusion.2"))
    ynn_1 = (uri, name_range(hlo, "  %ynn_fusion.1 = ", "ynn_fusion.1"))

    # Characters past the end of the line: the edit ends at the line's end.
    client.diagnostics.pop(uri, None)
    change(client, uri, 2, (span(line, start, len(lines[line]) + 1000), tail))
    assert await next_diagnostics(client, uri) == []
    assert await definitions(client, uri, operand.start) == [ynn_2]

    # Start after end: the same range.
    client.diagnostics.pop(uri, None)
    change(client, uri, 3, (span(line, operand.end.character, start), "ynn_fusion.1"))
    assert await next_diagnostics(client, uri) == []
    assert await definitions(client, uri, operand.start) == [ynn_1]

    # Lines past the end: an insertion at the end of the text, which then ends with a line that is not HLO.
    assert lines[-1] == ""
    client.diagnostics.pop(uri, None)
    change(client, uri, 4, (types.Range(types.Position(len(lines) + 5, 0), types.Position(len(lines) + 9, 3)),
                            "%garbage"))
    problems = await next_diagnostics(client, uri)
    assert problems and {d.range.start.line for d in problems} == {len(lines) - 1}
    assert await definitions(client, uri, operand.start) == [ynn_1]

    # Incremental edits, then the whole text, then one more incremental edit on that text.
    client.diagnostics.pop(uri, None)
    change(client, uri, 5, (operand, "ynn_fusion.9"), (span(0, 0, 10**6), "garbage"), original,
           (operand, "ynn_fusion.2"))
    assert await next_diagnostics(client, uri) == []
    assert await definitions(client, uri, operand.start) == [ynn_2]
    text = await hover_text(client, uri, position_of(hlo, ADD_MAXIMUM, "add_maximum_fusion"))
    assert text is not None and ALLOCATION_LINE in text.split("\n")
    await still_serving(client)


# ---- slow requests: closed or cancelled while they run ---------------------------------------------------


@pytest.fixture(scope="module")
def large_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_large_module(tmp_path_factory.mktemp("large"), SPLIT_HLO)


async def test_cancelled_requests(client: LanguageClient, large_dump: Path) -> None:
    """$/cancelRequest for a slow request while it runs (the whole outline of 5 MB, the bound raised, is
    worked out off the event loop) answers RequestCancelled; a hover sent after it is either answered or
    cancelled. (Cancelling only the client's future is not tried: pygls' client then fails on the late
    answer, InvalidStateError in _handle_response, and pytest-lsp ends the server.)"""
    uri = open_file(client, large_dump)
    assert await next_diagnostics(client, uri, timeout=60) == []  # the renamed copies form a valid module
    outline_bound(client, 10_000_000)
    slow = send_now(client, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.DocumentSymbolParams(identifier(uri)),
                    "slow-symbols")
    name = position_of(large_dump, ADD_MAXIMUM, "add_maximum_fusion")
    queued = send_now(client, types.TEXT_DOCUMENT_HOVER, types.HoverParams(identifier(uri), name), "queued-hover")
    for request_id in ("queued-hover", "slow-symbols", "never-sent"):
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=request_id))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(slow, 60)
    for future in (queued,):
        try:
            answer = await asyncio.wait_for(future, 60)
        except JsonRpcRequestCancelled:
            continue
        assert answer, future  # the outline, or the hover of the instruction
        if future is queued:
            assert isinstance(answer.contents, types.MarkupContent)
            assert answer.contents.value.split("\n")[0] == TITLE
    outline_bound(client, 5000)

    await still_serving(client)


def outline_bound(client: LanguageClient, symbols: int) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"hlo": {"outline": {"maxSymbols": symbols}}}))


async def test_a_document_closed_while_a_request_runs(client: LanguageClient, large_dump: Path) -> None:
    """Runs after the cancellation test, which left the large dump open."""
    uri = large_dump.as_uri()
    pending = send_now(client, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.DocumentSymbolParams(identifier(uri)))
    client.diagnostics.pop(uri, None)
    close_file(client, large_dump)
    try:
        symbols = await asyncio.wait_for(pending, 60)
    except JsonRpcRequestCancelled:
        symbols = None
    if symbols is not None:  # answered before the close was read: the whole outline
        assert len(symbols) >= 1
    assert await next_diagnostics(client, uri) == []  # closing cleared its diagnostics
    await still_serving(client)


# ---- shutdown and exit -----------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [(), ("--stdio",), ("serve", "--stdio")])
async def test_the_stdio_flag_clients_add_is_accepted(args: tuple[str, ...]) -> None:
    """vscode-languageclient and others start a stdio server with `--stdio`; it is the default."""
    async with raw_session(*args) as server:
        answer = await server.initialize()
        assert answer["result"]["serverInfo"]["name"] == "hlo-lsp"
        await server.shut_down(2)
    assert server.returncode == 0


@pytest.mark.parametrize("profile", CLIENTS)
async def test_shutdown_then_exit_ends_with_code_0(profile: str) -> None:
    async with raw_session() as server:
        assert "capabilities" in (await server.initialize(profile))["result"]
        await server.notify("initialized", {})
        await server.request(2, "shutdown")
        answer = await server.answer(2)
        assert "result" in answer and answer["result"] is None and "error" not in answer
        assert server.process.returncode is None  # shutdown alone does not end the process
        await server.notify("exit")
    assert server.returncode == 0


@pytest.mark.parametrize("profile", CLIENTS)
async def test_exit_without_shutdown_ends_with_code_1(profile: str) -> None:
    async with raw_session() as server:
        await server.initialize(profile)
        await server.notify("initialized", {})
        await server.notify("exit")
    assert server.returncode == 1


async def test_a_request_after_shutdown_is_an_invalid_request_error() -> None:
    async with raw_session() as server:
        await server.initialize()
        await server.request(2, "shutdown")
        await server.answer(2)
        await server.request(3, "textDocument/hover", {
            "textDocument": {"uri": SPLIT_HLO.as_uri()}, "position": {"line": 0, "character": 0}})
        answer = await server.answer_if_any(3)
        assert answer.get("error", {}).get("code") == -32600, answer


# ---- URIs that are not files ------------------------------------------------------------------------------


UNSAVED = "untitled:Untitled-1"
NOTEBOOK_CELL = "vscode-notebook-cell:/home/dev/notebook.ipynb#W0sZmlsZQ%3D%3D"
WEB = "https://example.com/dumps/module_0000.jit_mlp.cpu_after_optimizations.txt"


@pytest.mark.parametrize("uri", [UNSAVED, NOTEBOOK_CELL, WEB])
async def test_a_buffer_that_is_not_a_file_answers_from_its_own_text(client: LanguageClient, uri: str) -> None:
    """Navigation works inside the buffer; with no companions on disk the hover has no buffer figures;
    the same URI scheme for a document never opened answers null."""
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="hlo", version=1, text=SPLIT_HLO.read_text())))
    assert await next_diagnostics(client, uri) == []
    operand = position_of(SPLIT_HLO, ADD_MAXIMUM, "ynn_fusion.1")
    assert await definitions(client, uri, operand) == [
        (uri, name_range(SPLIT_HLO, "  %ynn_fusion.1 = ", "ynn_fusion.1"))]
    found = await references(client, uri, operand)
    assert found and {item.uri for item in found} == {uri}
    text = await hover_text(client, uri, position_of(SPLIT_HLO, ADD_MAXIMUM, "add_maximum_fusion"))
    assert text is not None and text.split("\n")[0] == TITLE and "allocation" not in text
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier(uri)))
    assert symbols

    other = uri.replace("Untitled-1", "Untitled-2").replace("W0sZmlsZQ", "W1sZmlsZQ").replace(".txt", "-2.txt")
    assert await hover_text(client, other, operand) is None
    assert await definitions(client, other, operand) == []
    client.text_document_did_close(types.DidCloseTextDocumentParams(identifier(uri)))
    await still_serving(client)


async def test_closing_a_notebook_cell_clears_its_own_diagnostics(client: LanguageClient) -> None:
    broken = SPLIT_HLO.read_text().replace("fusion(%ynn_fusion.1, %bs_1_.1)", "fusion(%ynn_fusion.9, %bs_1_.1)")
    client.diagnostics.pop(NOTEBOOK_CELL, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=NOTEBOOK_CELL, language_id="hlo", version=1, text=broken)))
    assert [d.code for d in await next_diagnostics(client, NOTEBOOK_CELL)] == ["undefined-instruction"]
    client.diagnostics.pop(NOTEBOOK_CELL, None)
    client.text_document_did_close(types.DidCloseTextDocumentParams(identifier(NOTEBOOK_CELL)))
    await still_serving(client)  # a round trip: the close's notifications come before its answer
    assert NOTEBOOK_CELL in client.diagnostics and list(client.diagnostics[NOTEBOOK_CELL]) == []


# ---- files that vanish or change on disk ----------------------------------------------------------------


async def test_companions_deleted_from_disk(client: LanguageClient, tmp_path: Path) -> None:
    """The HLO buffer stays open; its buffer assignment, values, live ranges and report are deleted: the
    hover loses the figures they gave, definition still works, their diagnostics are cleared."""
    stem = copy_module(SPLIT, tmp_path)
    hlo = Path(f"{stem}.txt")
    uris = [path.as_uri() for path in module_paths(stem)]
    forget_diagnostics(client, uris)
    uri = open_file(client, hlo)
    assert await all_diagnostics(client, uris) == {item: [] for item in uris}
    name = position_of(hlo, ADD_MAXIMUM, "add_maximum_fusion")
    before = await hover_text(client, uri, name)
    assert before is not None and ALLOCATION_LINE in before.split("\n")

    companions = [path for path in module_paths(stem) if path != hlo]
    for path in companions:
        path.unlink()
    # Not yet notified: the next request already finds them gone (by their modification stamps).
    after = await hover_text(client, uri, name)
    assert after is not None and after.split("\n")[0] == TITLE and "allocation" not in after
    forget_diagnostics(client, uris)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Deleted) for path in companions]))
    assert await all_diagnostics(client, [uri]) == {uri: []}
    assert await hover_text(client, uri, name) == after
    assert await definitions(client, uri, position_of(hlo, ADD_MAXIMUM, "ynn_fusion.1")) == [
        (uri, name_range(hlo, "  %ynn_fusion.1 = ", "ynn_fusion.1"))]
    close_file(client, hlo)
    await still_serving(client)


async def test_an_open_companion_whose_module_file_vanishes(client: LanguageClient, tmp_path: Path) -> None:
    """The live-range buffer is open and every other file of the module is deleted: a name in it has no
    definition any more, the buffer's own outline still answers."""
    stem = copy_module(SPLIT, tmp_path)
    live = Path(f"{stem}-live-range.txt")
    uri = open_file(client, live)
    label = position_of(live, "    ynn_fusion.1{}:9-10", "ynn_fusion.1")
    hlo = Path(f"{stem}.txt")
    assert await definitions(client, uri, label) == [
        (hlo.as_uri(), name_range(hlo, "  %ynn_fusion.1 = ", "ynn_fusion.1"))]
    deleted = [path for path in module_paths(stem) if path != live]
    for path in deleted:
        path.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Deleted) for path in deleted]))
    assert await definitions(client, uri, label) == []
    assert await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier(uri)))
    close_file(client, live)
    await still_serving(client)


@pytest.mark.parametrize("suffix", ["-live-range.txt", "-buffer-assignment.txt"])
async def test_a_companion_replaced_by_another_modules_file(
        client: LanguageClient, tmp_path: Path, suffix: str) -> None:
    """The mlp3 module's live ranges (or buffer assignment) replaced on disk by control_flow's: the
    diagnostics that follow are finite and land on the module's own files, and the HLO buffer still
    hovers and navigates."""
    stem = copy_module(SPLIT, tmp_path)
    hlo = Path(f"{stem}.txt")
    uris = [path.as_uri() for path in module_paths(stem)]
    forget_diagnostics(client, uris)
    uri = open_file(client, hlo)
    assert await all_diagnostics(client, uris) == {item: [] for item in uris}

    replaced = Path(f"{stem}{suffix}")
    shutil.copyfile(Path(f"{OTHER}{suffix}"), replaced)
    forget_diagnostics(client, uris)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=replaced.as_uri(), type=types.FileChangeType.Changed)]))
    await all_diagnostics(client, [uri])
    published = {item: list(found) for item, found in client.diagnostics.items() if item in uris}
    assert all(d.source == "hlo-lsp" for found in published.values() for d in found)
    lines = {item: len(Path(item.removeprefix("file://")).read_text().split("\n")) for item in published}
    assert all(d.range.start.line < lines[item] for item, found in published.items() for d in found)

    text = await hover_text(client, uri, position_of(hlo, ADD_MAXIMUM, "add_maximum_fusion"))
    assert text is not None and text.split("\n")[0] == TITLE
    assert await definitions(client, uri, position_of(hlo, ADD_MAXIMUM, "ynn_fusion.1")) == [
        (uri, name_range(hlo, "  %ynn_fusion.1 = ", "ynn_fusion.1"))]
    close_file(client, hlo)
    await still_serving(client)
