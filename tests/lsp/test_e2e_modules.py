"""The `hlo.listModules` command over stdio, as VS Code and as Neovim ask it: a dump folder's modules, the largest
peak first, the same JSON `hlo-lsp modules --format json` prints; a progress bar while a large folder is listed;
`hlo/modulesChanged` once dump files change on disk."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import FOLDER_SMALL_EAGER
from helpers.lsp import CLIENTS, SERVER, execute, start_as
from hlo_lsp.cli import main

pytestmark = pytest.mark.asyncio(loop_scope="module")

COMMAND = "hlo.listModules"
CHANGED = "hlo/modulesChanged"
INITIALIZED: dict[str, types.InitializeResult] = {}
NOTICES: dict[str, list[object]] = {}  # by client profile: the `hlo/modulesChanged` notifications heard


async def list_modules(client: LanguageClient, *arguments: Any) -> Any:
    return await execute(client, COMMAND, *arguments)


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    notices = NOTICES.setdefault(request.param, [])

    @lsp_client.feature(CHANGED)
    def modules_changed(client: LanguageClient, params: object) -> None:
        notices.append(params)

    INITIALIZED[request.param] = await start_as(lsp_client, request.param, FOLDER_SMALL_EAGER, (FOLDER_SMALL_EAGER,))
    yield
    await lsp_client.shutdown_session()


async def test_the_server_offers_the_command(client: LanguageClient) -> None:
    provider = INITIALIZED[client.profile].capabilities.execute_command_provider  # type: ignore[attr-defined]
    assert provider is not None and COMMAND in provider.commands


async def test_a_folder_lists_what_the_cli_prints(client: LanguageClient, capsys: pytest.CaptureFixture[str]) -> None:
    answer = await list_modules(client, FOLDER_SMALL_EAGER.as_uri())
    assert main(["modules", str(FOLDER_SMALL_EAGER), "--format", "json"]) == 0
    assert answer == json.loads(capsys.readouterr().out)
    assert [(module["name"], module["peak"]) for module in answer["modules"][:2]] == [
        ("jit__normal", 524_368), ("jit_step", 245_896)]


async def test_no_argument_lists_every_workspace_folder(client: LanguageClient) -> None:
    answer = await list_modules(client)
    assert len(answer["modules"]) == 14


async def test_a_wrong_argument_is_an_error(client: LanguageClient) -> None:
    with pytest.raises(Exception, match="folder's URI"):
        await list_modules(client, 42)


def many_modules(folder: Path, copies: int) -> Path:
    """`copies` times the bundled folder's modules under new numbers (hard links): a folder listed in seconds."""
    folder.mkdir()
    for copy in range(copies):
        for path in FOLDER_SMALL_EAGER.glob("module_*"):
            number, rest = path.name.split(".", 1)
            os.link(path, folder / f"module_{copy:03d}{number[-4:]}.{rest}")
    return folder


async def test_listing_a_large_folder_shows_a_progress_bar_that_ends_with_the_count(client: LanguageClient,
                                                                                    tmp_path: Path) -> None:
    folder = many_modules(tmp_path / "many", 40)
    answer = await list_modules(client, folder.as_uri())
    assert len(answer["modules"]) == 560
    bars = [reports for reports in client.progress_reports.values()
            if isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].title == "Listing modules"]
    assert bars, "no progress bar"
    end = bars[-1][-1]
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "560 module(s)"


async def test_files_changed_on_disk_tell_the_client_once_its_list_is_stale(client: LanguageClient) -> None:
    heard = NOTICES[client.profile]
    heard.clear()
    changes = [types.FileEvent(uri=(FOLDER_SMALL_EAGER / name).as_uri(), type=types.FileChangeType.Changed)
               for name in ("module_0020.jit_step.cpu_after_optimizations.txt", "MANIFEST.txt")]
    for change in changes:  # a burst: one notice
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))
    for _ in range(100):
        if heard:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.8)
    assert len(heard) == 1
