"""The `hlo.listModules` command over stdio, as VS Code and as Neovim ask it: a dump folder's modules, the largest
peak first, the same JSON `hlo-lsp modules --format json` prints."""

from __future__ import annotations

import json
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
INITIALIZED: dict[str, types.InitializeResult] = {}


async def list_modules(client: LanguageClient, *arguments: Any) -> Any:
    return await execute(client, COMMAND, *arguments)


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
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
