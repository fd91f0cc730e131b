"""Semantic tokens over stdio, as VS Code and as Neovim (which negotiates UTF-8 columns): the legend the
server announces, full and range requests, and the token type at known places of real dumps."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from helpers import DATA, SPLIT_HLO, SPLIT_MLP
from helpers.lsp import CLIENTS, SERVER, column_of, negotiated_encoding, open_file, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT_VALUES = Path(f"{SPLIT_MLP}-buffer-assignment-values.txt")
# The legend the server announces (checked against its InitializeResult below).
TYPES = ["namespace", "function", "parameter", "variable", "keyword", "method", "type", "property", "string",
         "number", "comment"]
MODIFIERS = ["declaration"]


def decode(data: list[int]) -> list[tuple[int, int, int, str, list[str]]]:
    """(line, start, length, type, modifiers) from LSP's relative encoding."""
    tokens = []
    line = start = 0
    for index in range(0, len(data), 5):
        delta_line, delta_start, length, token_type, modifiers = data[index:index + 5]
        line += delta_line
        start = start + delta_start if delta_line == 0 else delta_start
        tokens.append((line, start, length, TYPES[token_type],
                       [name for bit, name in enumerate(MODIFIERS) if modifiers & (1 << bit)]))
    return tokens


async def full(client: LanguageClient, path: Path) -> list[tuple[int, int, int, str, list[str]]]:
    uri = open_file(client, path)
    answer = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(types.TextDocumentIdentifier(uri)))
    assert answer is not None
    return decode(list(answer.data))


def token_at(client: LanguageClient, tokens: list[tuple[int, int, int, str, list[str]]], path: Path,
             line_containing: str, word: str, occurrence: int = 0) -> tuple[str, list[str]]:
    """The type and modifiers of the token that covers exactly `word` on that line."""
    position = position_of(path, line_containing, word, occurrence)
    text = path.read_text().split("\n")[position.line]
    encoding = negotiated_encoding(client.capabilities)
    index = position.character
    start, end = column_of(text, index, encoding), column_of(text, index + len(word), encoding)
    found = [(kind, modifiers) for line, column, length, kind, modifiers in tokens
             if line == position.line and column == start and column + length == end]
    assert len(found) == 1, (line_containing, word, [t for t in tokens if t[0] == position.line])
    return found[0]


async def test_names_opcodes_shapes_and_attributes_of_an_instruction(client: LanguageClient) -> None:
    tokens = await full(client, SPLIT_HLO)
    line = "  %ynn_fusion.2 = f32[32,256]{1,0} fusion(%x.1, %ws_0_.1)"
    assert token_at(client, tokens, SPLIT_HLO, line, "%ynn_fusion.2") == ("variable", ["declaration"])
    assert token_at(client, tokens, SPLIT_HLO, line, "f32[32,256]{1,0}") == ("type", [])
    assert token_at(client, tokens, SPLIT_HLO, line, "fusion", 1) == ("method", [])  # after `ynn_fusion`
    assert token_at(client, tokens, SPLIT_HLO, line, "%ws_0_.1") == ("variable", [])
    assert token_at(client, tokens, SPLIT_HLO, line, "calls") == ("property", [])
    assert token_at(client, tokens, SPLIT_HLO, line, "%fused_computation.2") == ("function", [])
    assert token_at(client, tokens, SPLIT_HLO, line, '"jit(mlp)/dot_general"') == ("string", [])
    assert token_at(client, tokens, SPLIT_HLO, line, "stack_frame_id") == ("property", [])
    entry = "ENTRY %main.5 ("
    assert token_at(client, tokens, SPLIT_HLO, entry, "ENTRY") == ("keyword", [])
    assert token_at(client, tokens, SPLIT_HLO, entry, "%main.5") == ("function", ["declaration"])
    assert token_at(client, tokens, SPLIT_HLO, entry, "x.1") == ("parameter", [])
    assert token_at(client, tokens, SPLIT_HLO, "ROOT %broadcast_subtract_fusion", "ROOT") == ("keyword", [])
    assert token_at(client, tokens, SPLIT_HLO, "HloModule jit_mlp", "HloModule") == ("keyword", [])
    assert token_at(client, tokens, SPLIT_HLO, "HloModule jit_mlp", "/*index=5*/") == ("comment", [])
    assert token_at(client, tokens, SPLIT_HLO, "4 {file_location_id=4 parent_frame_id=4}",
                    "parent_frame_id") == ("property", [])


async def test_a_range_request_answers_its_lines_only(client: LanguageClient) -> None:
    everything = await full(client, SPLIT_HLO)
    uri = SPLIT_HLO.as_uri()
    first = position_of(SPLIT_HLO, "  %ynn_fusion.2 = ", "%").line
    answer = await client.text_document_semantic_tokens_range_async(types.SemanticTokensRangeParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(first, 0), types.Position(first + 2, 0))))
    assert answer is not None
    assert decode(list(answer.data)) == [token for token in everything if first <= token[0] <= first + 2]


async def test_buffer_assignment_files_too(client: LanguageClient) -> None:
    tokens = await full(client, SPLIT_VALUES)
    line = " from instruction: %ynn_fusion.1 = "
    assert token_at(client, tokens, SPLIT_VALUES, line, "from instruction:") == ("keyword", [])
    assert token_at(client, tokens, SPLIT_VALUES, line, "%ynn_fusion.1") == ("variable", [])
    assert token_at(client, tokens, SPLIT_VALUES, line, "fusion", 1) == ("method", [])
    assert token_at(client, tokens, SPLIT_VALUES, line, "%fused_computation.1") == ("function", [])


async def test_columns_in_the_negotiated_encoding(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "module_0000.unicode.hlo"
    path.write_text('HloModule m\n\nENTRY %main {\n  ROOT %c = f32[] constant(1), metadata={op_name="𝛼 é" '
                    "source_line=3}\n}\n")
    tokens = await full(client, path)
    line = '  ROOT %c = f32[] constant(1), metadata={op_name="𝛼 é" source_line=3}'
    assert token_at(client, tokens, path, line, '"𝛼 é"') == ("string", [])
    assert token_at(client, tokens, path, line, "source_line") == ("property", [])
    assert token_at(client, tokens, path, line, "3", 1) == ("number", [])  # not the 3 of f32


# ---- what the server announces ----------------------------------------------------------------


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def announced(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    """A session that keeps the server's InitializeResult (on the client, as `initialize_result`)."""
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        """Accept the server's file watchers."""

    lsp_client.initialize_result = await lsp_client.initialize_session(  # type: ignore[attr-defined]
        types.InitializeParams(capabilities=client_capabilities(request.param), root_uri=DATA.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_the_server_announces_the_legend_and_the_new_providers(announced: LanguageClient) -> None:
    capabilities = announced.initialize_result.capabilities  # type: ignore[attr-defined]
    tokens = capabilities.semantic_tokens_provider
    assert isinstance(tokens, types.SemanticTokensOptions)
    assert list(tokens.legend.token_types) == TYPES and list(tokens.legend.token_modifiers) == MODIFIERS
    assert tokens.full is True and tokens.range is True
    assert capabilities.inlay_hint_provider is not None
    assert capabilities.code_lens_provider is not None and capabilities.document_link_provider is not None
    assert capabilities.code_lens_provider.resolve_provider is True  # lenses listing buffers are resolved
    assert capabilities.call_hierarchy_provider
    assert capabilities.execute_command_provider is not None
    assert "hlo.showPeakBuffers" in capabilities.execute_command_provider.commands
