"""The `hlo.memoryTimeline` command over stdio, as VS Code and as Neovim: the peak XLA printed, the
buffers live at it with the place of their instruction (so a click can jump there), and the SVG
picture. Expected figures are read from the dump's own files."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import SPLIT_HLO, SPLIT_MLP, TPU_MATMUL, TPU_SEED, copy_module
from helpers.lsp import CLIENTS, SERVER, column_of, execute, negotiated_encoding, open_file, start_as

pytestmark = pytest.mark.asyncio(loop_scope="module")

COMMAND = "hlo.memoryTimeline"
SPLIT_LIVE = Path(f"{SPLIT_MLP}-live-range.txt")
SVG = "{http://www.w3.org/2000/svg}"


def printed_peak(path: Path) -> tuple[int, list[tuple[str, int]]]:
    """(time, [(label, bytes)]) of the `Live ranges at T (peak):` list XLA printed."""
    text = path.read_text()
    time = int(re.search(r"Live ranges at (\d+) \(peak\):", text).group(1))  # type: ignore[union-attr]
    entries = re.findall(r"^    (\S+): (\d+) bytes \(cumulative", text, re.MULTILINE)
    return time, [(label, int(size)) for label, size in entries]


async def memory_timeline(client: LanguageClient, *arguments: Any) -> Any:
    return await execute(client, COMMAND, *arguments)


# The session keeps what the server answered to `initialize`, for its capabilities.
INITIALIZED: dict[str, types.InitializeResult] = {}


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    INITIALIZED[request.param] = await start_as(lsp_client, request.param, SPLIT_MLP.parent)
    yield
    await lsp_client.shutdown_session()


async def test_the_server_offers_the_command(client: LanguageClient) -> None:
    provider = INITIALIZED[client.profile].capabilities.execute_command_provider  # type: ignore[attr-defined]
    assert provider is not None and COMMAND in provider.commands


async def test_the_peak_and_its_buffers_are_the_ones_xla_printed(client: LanguageClient) -> None:
    answer = await memory_timeline(client, open_file(client, SPLIT_HLO))
    time, printed = printed_peak(SPLIT_LIVE)
    peak = answer["peak"]
    assert (peak["time"], peak["instruction"], peak["bytes"], peak["human"]) == (
        time, "ynn_fusion.1", sum(size for _, size in printed), "476.0KiB")
    assert peak["byKind"] == {"parameter": 421_928, "temporary": 65_536}
    assert [(buffer["label"], buffer["bytes"]) for buffer in answer["buffers"]] == printed
    assert answer["usage"][time] == peak["bytes"]


async def test_each_buffer_points_at_its_instruction(client: LanguageClient) -> None:
    answer = await memory_timeline(client, open_file(client, SPLIT_HLO))
    encoding = negotiated_encoding(client.capabilities)
    lines = SPLIT_HLO.read_text().split("\n")
    for buffer in [*answer["buffers"], answer["peak"]]:
        name = buffer.get("name", answer["peak"]["instruction"])
        assert buffer["uri"] == SPLIT_HLO.as_uri()
        start, end = buffer["range"]["start"], buffer["range"]["end"]
        text = lines[start["line"]]
        index = text.index(f"%{name} = ") + 1
        assert (start["character"], end["character"], end["line"]) == (
            column_of(text, index, encoding), column_of(text, index + len(name), encoding), start["line"])
    ynn = next(buffer for buffer in answer["buffers"] if buffer["name"] == "ynn_fusion.1")
    assert (ynn["opName"], ynn["source"], ynn["function"], ynn["kind"], ynn["start"], ynn["end"]) == (
        "jit(mlp)/dot_general", "/home/dev/xla-examples/gen_dumps.py:169", "_mlp3.<locals>.mlp", "temporary", 9, 10)


async def test_the_svg_shows_the_peak_and_a_title_per_buffer(client: LanguageClient) -> None:
    answer = await memory_timeline(client, open_file(client, SPLIT_LIVE))  # any file of the module will do
    root = ElementTree.fromstring(answer["svg"])
    texts = ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]
    assert "peak 476.0KiB at t=9 (ynn_fusion.1)" in texts
    bars = [group for group in root.iter(f"{SVG}g") if (group.get("class") or "").startswith("buffer ")]
    titles = [group.find(f"{SVG}title").text.split("\n")[0] for group in bars]  # type: ignore[union-attr]
    assert titles == [f"{buffer['label']}: {buffer['bytes']:,} bytes ({human})" + f", {buffer['kind']}"
                      for buffer, human in zip(answer["largest"], (
                          "256.0KiB", "128.0KiB", "32.0KiB", "32.0KiB", "32.0KiB", "32.0KiB", "16.0KiB", "10.0KiB",
                          "1.2KiB", "1.2KiB", "1.0KiB", "1.0KiB", "128B", "128B", "40B"))]


async def test_a_dump_without_a_module_file_points_at_from_instruction_lines(client: LanguageClient,
                                                                           tmp_path_factory: pytest.TempPathFactory
                                                                           ) -> None:
    folder = tmp_path_factory.mktemp("seed")
    seed = folder / TPU_SEED.name
    shutil.copyfile(TPU_SEED, seed)
    answer = await memory_timeline(client, {"uri": open_file(client, seed)})
    lines = seed.read_text().split("\n")
    # The old peak format counts a live tuple element with its whole tuple's size, and so does the answer.
    # The peak XLA printed counts the three memory spaces; the answer's peak is the default space's.
    assert answer["peak"]["countedAs"] == "instruction"
    assert answer["combinedPeak"]["bytes"] == sum(int(size) for size in re.findall(r"^    \S+: (\d+) bytes$",
                                                                                     seed.read_text(), re.MULTILINE))
    assert answer["space"] == {"name": "default", "color": 0}
    assert [space["name"] for space in answer["spaces"]] == ["default", "color 1", "color 2"]
    assert answer["spaces"][0]["peak"]["bytes"] == answer["peak"]["bytes"] < answer["combinedPeak"]["bytes"]
    for buffer in answer["buffers"]:
        assert buffer["uri"] == seed.as_uri()
        assert lines[buffer["range"]["start"]["line"]].lstrip().startswith(f"from instruction: %{buffer['name']} = ")


async def test_no_live_ranges_no_timeline(client: LanguageClient, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("no-live-ranges")
    stem = copy_module(SPLIT_MLP, folder)
    Path(f"{stem}-live-range.txt").unlink()
    assert await memory_timeline(client, open_file(client, Path(f"{stem}.txt"))) is None
    assert await memory_timeline(client, (folder / "unknown.txt").as_uri()) is None


async def test_a_call_without_a_uri_is_an_error(client: LanguageClient) -> None:
    with pytest.raises(Exception, match="URI"):
        await memory_timeline(client, 42)


async def test_the_timeline_of_another_memory_space(client: LanguageClient) -> None:
    uri = open_file(client, Path(f"{TPU_MATMUL}.txt"))
    answer = await memory_timeline(client, {"uri": uri, "space": "vmem"})
    assert answer["space"] == {"name": "vmem", "color": 1}
    assert (answer["peak"]["time"], answer["peak"]["bytes"]) == (4, 786_432)
    assert [buffer["label"] for buffer in answer["buffers"]] == ["copy-start{0}", "fusion{}"]
    assert "memory space vmem" in answer["svg"]
    assert await memory_timeline(client, {"uri": uri, "space": "hbm"}) is None


async def test_a_module_never_opened_answers_from_disk_as_when_open(client: LanguageClient, tmp_path: Path) -> None:
    """VS Code never hands a file over 50 MB to an extension: the timeline of such a module is asked by its URI
    alone, and the server reads its files from disk; the answer is the one an open module gets."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    uri = Path(f"{stem}.txt").as_uri()
    from_disk = await memory_timeline(client, uri)
    assert from_disk is not None and from_disk["peak"]["bytes"] == 487_464
    open_file(client, Path(f"{stem}.txt"))
    assert await memory_timeline(client, uri) == from_disk
