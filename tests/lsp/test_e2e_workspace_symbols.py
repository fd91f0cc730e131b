"""workspace/symbol over the modules of the workspace folder that were never opened, over stdio, as VS Code and
as Neovim: found with their file's URI and the name's range once the folder is indexed in the background, and
read again when the client says a file changed."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import FOLDER_SMALL_EAGER, SPLIT_MLP, copy_module
from helpers.lsp import CLIENTS, SERVER, open_file, start_as

pytestmark = pytest.mark.asyncio(loop_scope="module")

FOLDERS: dict[str, Path] = {}  # by client profile: its workspace folder, a copy of a dump folder
UNSTACK = "module_0006.jit_unstack.cpu_after_optimizations.txt"


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest,  # noqa: ANN201
                 tmp_path_factory: pytest.TempPathFactory):
    folder = FOLDERS[request.param] = tmp_path_factory.mktemp("workspace")
    shutil.copytree(FOLDER_SMALL_EAGER, folder, dirs_exist_ok=True)
    copy_module(SPLIT_MLP, folder)
    await start_as(lsp_client, request.param, folder, (folder,))
    yield
    await lsp_client.shutdown_session()


async def symbols_once_indexed(client: LanguageClient, query: str, uri: str,
                               timeout: float = 30) -> list[types.SymbolInformation]:
    """The answer to `query` once it holds a symbol of `uri` (the folder is indexed in the background)."""
    async def indexed() -> list[types.SymbolInformation]:
        while True:
            found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
            symbols = [symbol for symbol in found or [] if isinstance(symbol, types.SymbolInformation)]
            if any(symbol.location.uri == uri for symbol in symbols):
                return symbols
            await asyncio.sleep(0.1)
    return await asyncio.wait_for(indexed(), timeout)


def name_range(path: Path, line_start: str, name: str) -> types.Range:
    lines = path.read_text().split("\n")
    [line] = [number for number, text in enumerate(lines) if text.startswith(line_start)]
    start = lines[line].index(name)
    return types.Range(types.Position(line, start), types.Position(line, start + len(name)))


def where(symbol: types.SymbolInformation) -> tuple[str, types.SymbolKind, str, types.Range, str | None]:
    return symbol.name, symbol.kind, symbol.location.uri, symbol.location.range, symbol.container_name


async def test_an_instruction_of_a_module_never_opened_is_found(client: LanguageClient) -> None:
    hlo = FOLDERS[client.profile] / f"{SPLIT_MLP.name}.txt"  # type: ignore[attr-defined]
    found = await symbols_once_indexed(client, "ynn_fusion.1", hlo.as_uri())
    assert where(found[0]) == ("ynn_fusion.1", types.SymbolKind.Variable, hlo.as_uri(),
                               name_range(hlo, "  %ynn_fusion.1 = ", "ynn_fusion.1"), "main.5")
    assert all("ynn_fusion.1" in symbol.name and symbol.location.uri.startswith(hlo.parent.as_uri() + "/")
               for symbol in found)


async def test_a_computation_of_every_stage_of_a_compilation_is_found(client: LanguageClient) -> None:
    folder = FOLDERS[client.profile]  # type: ignore[attr-defined]
    stages = [folder / UNSTACK, folder / UNSTACK.replace("cpu_after_optimizations", "before_optimizations")]
    found = await symbols_once_indexed(client, "main", stages[0].as_uri())
    entries = [(symbol.location.uri, symbol.location.range, symbol.container_name) for symbol in found
               if symbol.kind == types.SymbolKind.Function and symbol.location.uri in {p.as_uri() for p in stages}]
    expected = []
    for path in stages:
        [name] = [text.split()[1].lstrip("%") for text in path.read_text().split("\n") if text.startswith("ENTRY ")]
        expected.append((path.as_uri(), name_range(path, "ENTRY ", name), path.name))
    assert sorted(entries) == sorted(expected)


async def test_an_open_file_is_searched_as_it_is_in_the_editor(client: LanguageClient) -> None:
    folder = FOLDERS[client.profile]  # type: ignore[attr-defined]
    hlo = folder / UNSTACK
    await symbols_once_indexed(client, "main", hlo.as_uri())
    edited = hlo.read_text().replace("ENTRY %main", "ENTRY %edited_main")
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=hlo.as_uri(), language_id="hlo", version=1, text=edited)))
    found = await symbols_once_indexed(client, "edited_main", hlo.as_uri())
    assert [symbol.name.startswith("edited_main") for symbol in found] == [True] * len(found)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(hlo.as_uri())))


async def test_a_file_changed_on_disk_is_read_again(client: LanguageClient) -> None:
    folder = FOLDERS[client.profile]  # type: ignore[attr-defined]
    hlo = folder / f"{SPLIT_MLP.name}.txt"
    await symbols_once_indexed(client, "ynn_fusion.1", hlo.as_uri())
    hlo.write_text(hlo.read_text().replace("%ynn_fusion.1 = ", "%renamed_fusion.1 = "))
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=hlo.as_uri(), type=types.FileChangeType.Changed)]))
    found = await symbols_once_indexed(client, "renamed_fusion.1", hlo.as_uri())
    assert where(found[0]) == ("renamed_fusion.1", types.SymbolKind.Variable, hlo.as_uri(),
                               name_range(hlo, "  %renamed_fusion.1 = ", "renamed_fusion.1"), "main.5")
    before = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="ynn_fusion.1"))
    assert hlo.as_uri() not in {symbol.location.uri for symbol in before or []}


async def test_a_module_opened_outside_the_folder_is_searched_too(client: LanguageClient, tmp_path: Path) -> None:
    hlo = Path(f"{copy_module(SPLIT_MLP, tmp_path)}.txt")
    open_file(client, hlo)
    found = await symbols_once_indexed(client, "ynn_fusion.1", hlo.as_uri())
    assert {symbol.location.uri for symbol in found if symbol.name == "ynn_fusion.1"} >= {hlo.as_uri()}
