"""Code lenses over stdio, as VS Code and as Neovim: the peak on the ENTRY computation, `peak here` on the
instruction at the peak, what each allocation holds at the peak; the lenses that list buffers carry the
`hlo.showPeakBuffers` command with VS Code's showReferences arguments (uri, position, locations), given
when the editor resolves them (codeLens/resolve), as both editors do for the lenses they show."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import GPU_HLO_SEED, SPLIT_HLO, SPLIT_MLP
from helpers.lsp import column_of, negotiated_encoding, open_file, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT_ALLOCATIONS = Path(f"{SPLIT_MLP}-buffer-assignment.txt")
SPLIT_LIVE_RANGE = Path(f"{SPLIT_MLP}-live-range.txt")


async def unresolved(client: LanguageClient, path: Path) -> list[types.CodeLens]:
    uri = open_file(client, path)
    answer = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert answer is not None
    return list(answer)


async def lenses(client: LanguageClient, path: Path) -> list[types.CodeLens]:
    """The lenses as an editor shows them: those sent without a command, resolved."""
    return [lens if lens.command else await client.code_lens_resolve_async(lens)
            for lens in await unresolved(client, path)]


def on_line(found: list[types.CodeLens], line: int) -> list[types.CodeLens]:
    return [lens for lens in found if lens.range.start.line == line]


def printed_peak() -> tuple[int, list[str], int, str]:
    """(time, names, bytes, instruction at that time) of `Live ranges at T (peak):` in the live-range file."""
    text = SPLIT_LIVE_RANGE.read_text()
    time = int(re.search(r"Live ranges at (\d+) \(peak\):", text).group(1))  # type: ignore[union-attr]
    entries = re.findall(r"^    ([\w.\-]+)\{[\d,]*\}: (\d+) bytes", text, re.MULTILINE)
    instruction = re.search(rf"^    {time}:([\w.\-]+)$", text, re.MULTILINE).group(1)  # type: ignore[union-attr]
    return time, [name for name, _ in entries], sum(int(size) for _, size in entries), instruction


async def test_the_entry_computation_and_the_instruction_at_the_peak(client: LanguageClient) -> None:
    time, names, total, instruction = printed_peak()
    assert (time, total, instruction) == (9, 487464, "ynn_fusion.1")  # 476.0 KiB
    found = await lenses(client, SPLIT_HLO)
    entry = position_of(SPLIT_HLO, "ENTRY %main.5 ", "ENTRY")
    titles = [lens.command.title for lens in on_line(found, entry.line) if lens.command]
    assert titles == [f"peak 476.0 KiB at time {time} ({instruction})", f"{len(names)} buffers live at peak"]
    peak_line = position_of(SPLIT_HLO, f"  %{instruction} = ", "%").line
    (here,) = on_line(found, peak_line)
    assert here.command is not None and here.command.title == "peak here: 476.0 KiB, 9 buffers live"
    assert len(found) == 3


async def test_the_buffers_lens_runs_show_peak_buffers_with_their_locations(client: LanguageClient) -> None:
    _, names, _, _ = printed_peak()
    found = await lenses(client, SPLIT_HLO)
    (listing,) = [lens for lens in found if lens.command and lens.command.title == "9 buffers live at peak"]
    command = listing.command
    assert command is not None and command.command == "hlo.showPeakBuffers"
    assert command.arguments is not None
    uri, position, locations = command.arguments
    assert uri == SPLIT_HLO.as_uri()
    assert position == {"line": listing.range.start.line, "character": listing.range.start.character}
    lines = SPLIT_HLO.read_text().split("\n")
    encoding = negotiated_encoding(client.capabilities)
    listed = []
    for location in locations:
        assert location["uri"] == SPLIT_HLO.as_uri()
        start = location["range"]["start"]
        text = lines[start["line"]]
        name = re.match(r"\s*(?:ROOT )?%([\w.\-]+) =", text).group(1)  # type: ignore[union-attr]
        assert start["character"] == column_of(text, text.index("%" + name) + 1, encoding)
        listed.append(name)
    assert sorted(listed) == sorted(names)
    # Run as a command (a client that has no mapping of its own): the server answers the locations.
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="hlo.showPeakBuffers", arguments=command.arguments))
    assert answer == locations


async def test_the_lenses_that_list_buffers_come_without_their_places_until_resolved(client: LanguageClient
                                                                                     ) -> None:
    found = await unresolved(client, SPLIT_HLO)
    titled = [lens.command.title for lens in found if lens.command]
    assert titled == ["peak 476.0 KiB at time 9 (ynn_fusion.1)"]
    listing = [lens for lens in found if lens.command is None]
    uri = SPLIT_HLO.as_uri()
    assert [lens.data for lens in listing] == [{"uri": uri, "title": "9 buffers live at peak"},
                                               {"uri": uri, "title": "peak here: 476.0 KiB, 9 buffers live"}]
    resolved = [await client.code_lens_resolve_async(lens) for lens in listing]
    assert [(lens.range, lens.command.title, len(lens.command.arguments[2])) for lens in resolved] == [
        (lens.range, lens.data["title"], 9) for lens in listing]
    # A lens the document no longer has (an edit moved it) keeps its title and runs nothing.
    moved = types.CodeLens(range=types.Range(types.Position(0, 0), types.Position(0, 1)), data=listing[0].data)
    assert (await client.code_lens_resolve_async(moved)).command == types.Command("9 buffers live at peak", "")


async def test_allocation_headers_show_what_they_hold_at_the_peak(client: LanguageClient) -> None:
    found = await lenses(client, SPLIT_ALLOCATIONS)

    def titles(header: str) -> list[str]:
        line = position_of(SPLIT_ALLOCATIONS, header, "allocation").line
        return [lens.command.title for lens in on_line(found, line) if lens.command]

    assert titles("allocation 14: size 65536, preallocated-temp:") == ["64.0 KiB at peak (time 9)",
                                                                       "2 buffers live at peak"]
    assert titles("allocation 0: size 262144, parameter 1") == ["256.0 KiB at peak (time 9)", "1 buffer live at peak"]
    assert titles("allocation 4: size 1280, output shape is") == ["no buffer live at peak (time 9)"]
    assert titles("allocation 8: size 4, thread-local:") == []
    informative = [lens for lens in found if lens.command and not lens.command.title.endswith("live at peak")]
    assert all(lens.command.command == "" for lens in informative if lens.command)


async def test_the_schedule_entry_at_the_peak(client: LanguageClient) -> None:
    found = await lenses(client, SPLIT_LIVE_RANGE)
    line = position_of(SPLIT_LIVE_RANGE, "    9:ynn_fusion.1", "9").line
    assert [(lens.range.start.line, lens.command.title) for lens in found if lens.command] == [
        (line, "peak here: 476.0 KiB, 9 buffers live")]


async def test_no_lenses_without_a_buffer_assignment(client: LanguageClient) -> None:
    assert await lenses(client, GPU_HLO_SEED) == []
