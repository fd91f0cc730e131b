"""Go to definition and find references over stdio, on real dumps, as VS Code and as Neovim."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import COMBINED_HLO, COMBINED_MLP, DATA, SPLIT_HLO, SPLIT_MLP
from helpers.lsp import line_number, open_file, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT = SPLIT_MLP
SPLIT_BA = Path(f"{SPLIT}-buffer-assignment.txt")
SPLIT_VALUES = Path(f"{SPLIT}-buffer-assignment-values.txt")
SPLIT_LIVE = Path(f"{SPLIT}-live-range.txt")
COMBINED_BA = Path(f"{COMBINED_MLP}-buffer-assignment.txt")
GPU_SEED = DATA / "seeds" / "torchxla-gpu-decode.buffer-assignment.txt"

YNN_DEFINITION = "%ynn_fusion.1 = f32[32,256]{1,0} fusion("


async def definition(client: LanguageClient, path: Path, position: types.Position) -> list[types.Location]:
    uri = open_file(client, path)
    found = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), position))
    assert isinstance(found, list)
    return found


def expect(found: list[types.Location], path: Path, line_containing: str, name: str) -> None:
    """Exactly one location: the name on the line of `path` containing `line_containing`."""
    start = position_of(path, line_containing, name)
    assert [(item.uri, item.range.start, item.range.end.character) for item in found] == [
        (path.as_uri(), start, start.character + len(name))]


async def test_definition_from_an_operand(client: LanguageClient) -> None:
    position = position_of(SPLIT_HLO, "%add_maximum_fusion = ", "ynn_fusion.1")
    expect(await definition(client, SPLIT_HLO, position), SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")


async def test_definition_from_a_buffer_assignment_value(client: LanguageClient) -> None:
    position = position_of(SPLIT_BA, "<62 ynn_fusion.1 @0>", "ynn_fusion.1")
    expect(await definition(client, SPLIT_BA, position), SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")


async def test_definition_from_a_live_range_line(client: LanguageClient) -> None:
    position = position_of(SPLIT_LIVE, "ynn_fusion.1{}:9-10", "ynn_fusion.1")
    expect(await definition(client, SPLIT_LIVE, position), SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")


async def test_definition_from_the_peak_list(client: LanguageClient) -> None:
    position = position_of(SPLIT_LIVE, "ynn_fusion.1{}: 32768 bytes", "ynn_fusion.1")
    expect(await definition(client, SPLIT_LIVE, position), SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")


async def test_definition_from_the_schedule_and_a_use_in_used_values(client: LanguageClient) -> None:
    position = position_of(SPLIT_LIVE, ":ynn_fusion.1", "ynn_fusion.1")
    expect(await definition(client, SPLIT_LIVE, position), SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")
    position = position_of(SPLIT_VALUES, "  ynn_fusion.1, operand 0", "ynn_fusion.1")
    expect(await definition(client, SPLIT_VALUES, position), SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")


async def test_definition_from_the_combined_buffer_assignment(client: LanguageClient) -> None:
    expected = ("  dot.8 = f32[32,256]{1,0} dot(", "dot.8")
    for line, name in (("<55 dot.8 @0> (size=32768", "dot.8"), ("    dot.8{}:", "dot.8"),
                       ("%broadcast_maximum_fusion = f32[32,256]{1,0} fusion(f32[32,256]{1,0} %dot.8", "%dot.8")):
        position = position_of(COMBINED_BA, line, name)
        shift = 1 if name.startswith("%") else 0
        position = types.Position(position.line, position.character + shift)
        expect(await definition(client, COMBINED_BA, position), COMBINED_HLO, *expected)


async def test_definition_of_a_called_computation(client: LanguageClient) -> None:
    position = position_of(SPLIT_HLO, YNN_DEFINITION, "fused_computation.1")
    expect(await definition(client, SPLIT_HLO, position), SPLIT_HLO, "%fused_computation.1 (", "fused_computation.1")


async def test_definition_of_a_stack_frame_id(client: LanguageClient) -> None:
    line = next(text for text in SPLIT_HLO.read_text().split("\n") if YNN_DEFINITION in text)
    frame = line.split("stack_frame_id=")[1].split("}")[0]
    position = position_of(SPLIT_HLO, YNN_DEFINITION, f"stack_frame_id={frame}")
    position = types.Position(position.line, position.character + len("stack_frame_id="))
    found = await definition(client, SPLIT_HLO, position)
    row = line_number(SPLIT_HLO, f"{frame} {{file_location_id={frame} ")
    assert [(item.uri, item.range.start) for item in found] == [(SPLIT_HLO.as_uri(), types.Position(row, 0))]


async def test_definition_without_a_module_file_goes_to_from_instruction(client: LanguageClient) -> None:
    position = position_of(GPU_SEED, "value: <203 p5.18.0 @0>", "p5.18.0")
    expect(await definition(client, GPU_SEED, position), GPU_SEED, "from instruction: %p5.18.0 = ", "p5.18.0")


async def test_references_count_equals_the_uses_in_the_file(client: LanguageClient) -> None:
    uri = open_file(client, SPLIT_HLO)
    position = position_of(SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")
    found = await client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=False), text_document=types.TextDocumentIdentifier(uri),
        position=position))
    assert found is not None
    in_module = [item for item in found if item.uri == uri]
    uses = SPLIT_HLO.read_text().count("%ynn_fusion.1,") + SPLIT_HLO.read_text().count("%ynn_fusion.1)")
    assert len(in_module) == uses
    companions = {Path(item.uri[len("file://"):]).name for item in found if item.uri != uri}
    assert companions == {SPLIT_BA.name, SPLIT_VALUES.name, SPLIT_LIVE.name}
    with_declaration = await client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=True), text_document=types.TextDocumentIdentifier(uri),
        position=position))
    assert with_declaration is not None and len(with_declaration) == len(found) + 1


async def test_highlights_mark_the_definition_and_the_uses(client: LanguageClient) -> None:
    uri = open_file(client, SPLIT_HLO)
    position = position_of(SPLIT_HLO, YNN_DEFINITION, "ynn_fusion.1")
    found = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(types.TextDocumentIdentifier(uri), position))
    assert found is not None
    kinds = sorted(item.kind for item in found)
    assert kinds[0] == types.DocumentHighlightKind.Read and kinds[-1] == types.DocumentHighlightKind.Write
    assert sum(1 for item in found if item.kind == types.DocumentHighlightKind.Write) == 1
