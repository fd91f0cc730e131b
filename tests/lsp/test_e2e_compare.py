"""The `hlo.compare` command over stdio, as VS Code and as Neovim ask it: the same JSON `hlo-lsp diff --format
json` prints, with each pair's picture."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ElementTree
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import PAIR_NARROW, PAIR_WIDE
from helpers.lsp import CLIENTS, SERVER, execute, start_as
from hlo_lsp.cli import main
from hlo_lsp.session.compare import WORKER_FROM_BYTES

pytestmark = pytest.mark.asyncio(loop_scope="module")

COMMAND = "hlo.compare"
SVG = "{http://www.w3.org/2000/svg}"
WIDE_HLO = PAIR_WIDE / "module_0000.jit__lambda.cpu_after_optimizations.txt"

INITIALIZED: dict[str, types.InitializeResult] = {}


async def compare(client: LanguageClient, *arguments: Any) -> Any:
    return await execute(client, COMMAND, *arguments)


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    INITIALIZED[request.param] = await start_as(lsp_client, request.param, PAIR_NARROW.parent)
    yield
    await lsp_client.shutdown_session()


async def test_the_server_offers_the_command(client: LanguageClient) -> None:
    provider = INITIALIZED[client.profile].capabilities.execute_command_provider  # type: ignore[attr-defined]
    assert provider is not None and COMMAND in provider.commands


async def test_the_answer_is_what_the_cli_prints_with_a_picture(client: LanguageClient,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    answer = await compare(client, PAIR_NARROW.as_uri(), WIDE_HLO.as_uri())  # a folder, and a file of a module
    assert main(["diff", str(PAIR_NARROW), str(WIDE_HLO), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    (pair,) = answer["pairs"]
    picture = pair.pop("svg")
    assert answer == printed
    assert (pair["a"]["peak"], pair["b"]["peak"], pair["delta"]) == (1_341_744, 17_899_824, 16_558_080)
    root = ElementTree.fromstring(picture)
    groups = {group.get("id") for group in root.iter(f"{SVG}g")}
    assert {"side-a", "side-b", "changes"} <= groups
    texts = ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]
    assert "peak 1.28MiB → 17.07MiB (+15.79MiB, +1234.1%); both on one byte scale" in texts


async def test_wrong_arguments_are_an_error(client: LanguageClient) -> None:
    with pytest.raises(Exception, match="two URIs"):
        await compare(client, PAIR_NARROW.as_uri())


async def test_nothing_to_compare_answers_no_pair(client: LanguageClient) -> None:
    answer = await compare(client, (PAIR_NARROW / "missing.txt").as_uri(), WIDE_HLO.as_uri())
    assert answer["pairs"] == [] and [entry["side"] for entry in answer["unpaired"]] == ["b"]


async def test_a_large_b_is_read_in_a_worker_process_of_the_server(client: LanguageClient,
                                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    """B of more than WORKER_FROM_BYTES is read in a process the server spawns (its threads rule out a fork):
    the answer is the one B read in the server gives."""
    folder = tmp_path_factory.mktemp("large-b")
    for path in PAIR_WIDE.iterdir():
        shutil.copyfile(path, folder / path.name)
    hlo = folder / WIDE_HLO.name
    with hlo.open("a") as padded:  # comment lines: the module reads the same, its file is large
        padded.write(("// " + "x" * 77 + "\n") * (WORKER_FROM_BYTES // 80 + 1))
    small = await compare(client, PAIR_NARROW.as_uri(), PAIR_WIDE.as_uri())
    large = await compare(client, PAIR_NARROW.as_uri(), folder.as_uri())
    assert len(large["pairs"]) == 1 and large["pairs"][0]["b"]["path"] == str(hlo)
    for answer in (small, large):
        for pair in answer["pairs"]:
            pair.pop("svg")
            pair["b"].pop("path")
            for row in pair["buffers"]:
                if row["b"] is not None:
                    row["b"].pop("uri")
    assert large == small
