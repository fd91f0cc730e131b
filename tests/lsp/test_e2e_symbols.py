"""The outline (documentSymbol, hierarchical and flat), workspace/symbol and folding ranges over stdio,
on real dumps, as VS Code and as Neovim. Expected names and lines are read from the files themselves."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from helpers import COMBINED_HLO, COMBINED_MLP, DATA, SPLIT_HLO, SPLIT_MLP, copy_module
from helpers.lsp import CLIENTS, SERVER, close_file, column_of, negotiated_encoding, open_file, start_session
from hlo_lsp.features.folding import folding_ranges
from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import FileKind

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT = SPLIT_MLP
SPLIT_BA = Path(f"{SPLIT}-buffer-assignment.txt")
COMBINED_BA = Path(f"{COMBINED_MLP}-buffer-assignment.txt")
TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
# Every kind of file the server outlines and folds: both dump formats, control flow, the seeds.
OUTLINED = sorted([*(DATA / "jax-0.10.2" / "mlp3").glob("*.txt"), *(DATA / "jax-0.4.38" / "mlp3").glob("*.txt"),
                   *(DATA / "jax-0.10.2" / "control_flow").glob("*.txt"), *(DATA / "seeds").glob("*.txt")])


# ---- the structure of an HLO module file, read here line by line -----------------------------


@dataclass
class Block:
    """A computation or a stack-frame table: its header line, its last line, its items."""

    name: str
    line: int
    end: int = -1
    is_entry: bool = False
    items: list[tuple[str, int]] = field(default_factory=list)  # (name, line)


def hlo_blocks(path: Path) -> tuple[list[Block], list[Block]]:
    """The (computations, tables) of an HLO module file, in file order."""
    computations: list[Block] = []
    tables: list[Block] = []
    open_block: Block | None = None
    for number, text in enumerate(path.read_text().split("\n")):
        header = re.match(r"(ENTRY )?%?([\w.\-]+) \(.*\{$", text)
        if header:
            open_block = Block(header.group(2), number, is_entry=bool(header.group(1)))
            computations.append(open_block)
        elif text == "}" and open_block is not None:
            open_block.end, open_block = number, None
        elif open_block is not None:
            instruction = re.match(r"  (?:ROOT )?%?([\w.\-]+) = ", text)
            assert instruction, text
            open_block.items.append((instruction.group(1), number))
        elif text in TABLES:
            tables.append(Block(text, number))
        elif tables and tables[-1].end < 0 and re.match(r"\d+ ", text):
            tables[-1].items.append((text.split(" ")[0], number))
        elif tables and tables[-1].end < 0:
            tables[-1].end = tables[-1].items[-1][1]
    return computations, tables


def name_range(line: int, text: str, name: str, after: str = "") -> types.Range:
    start = text.index(after + name) + len(after)
    return types.Range(types.Position(line, start), types.Position(line, start + len(name)))


def line_range(line: int, text: str, end_line: int | None = None, end_text: str | None = None) -> types.Range:
    """From the first non-blank character of a line to the end of (another) line."""
    end_line, end_text = (line, text) if end_line is None else (end_line, end_text or "")
    return types.Range(types.Position(line, len(text) - len(text.lstrip())),
                       types.Position(end_line, len(end_text.rstrip())))


async def outline(client: LanguageClient, path: Path) -> list:  # type: ignore[type-arg]
    uri = open_file(client, path)
    found = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri)))
    assert found is not None
    return list(found)


def declares_hierarchical(client: LanguageClient) -> bool:
    text_document = client.capabilities.text_document if client.capabilities else None
    symbols = text_document.document_symbol if text_document else None
    return bool(symbols and symbols.hierarchical_document_symbol_support)


def contains(outer: types.Range, inner: types.Range) -> bool:
    return (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character) and \
        (inner.end.line, inner.end.character) <= (outer.end.line, outer.end.character)


# ---- documentSymbol --------------------------------------------------------------------------------


async def test_outline_of_an_hlo_module(client: LanguageClient) -> None:
    assert declares_hierarchical(client)  # both profiles do: the server answers with DocumentSymbols
    symbols = await outline(client, SPLIT_HLO)
    lines = SPLIT_HLO.read_text().split("\n")
    computations, tables = hlo_blocks(SPLIT_HLO)
    last = max(block.end for block in computations)

    assert len(symbols) == 1 and isinstance(symbols[0], types.DocumentSymbol)
    module = symbols[0]
    assert (module.name, module.kind, module.detail) == ("jit_mlp", types.SymbolKind.Module,
                                                        f"{len(computations)} computations")
    assert module.selection_range == name_range(0, lines[0], "jit_mlp", "HloModule ")
    assert module.range == line_range(0, lines[0], last, lines[last])

    entry = [block for block in computations if block.is_entry]
    expected_order = entry + tables + [block for block in computations if not block.is_entry]
    assert [child.name for child in module.children or []] == [block.name for block in expected_order]
    for child, block in zip(module.children or [], expected_order):
        header = lines[block.line]
        assert child.selection_range == name_range(block.line, header, block.name), block.name
        assert child.range == line_range(block.line, header, block.end, lines[block.end]), block.name
        assert [(item.name, item.selection_range.start.line) for item in child.children or []] == block.items
        if block in tables:
            assert child.kind == types.SymbolKind.Namespace
            assert {item.kind for item in child.children or []} == {types.SymbolKind.Field}
        else:
            count = f"{len(block.items)} instructions"
            assert child.kind == types.SymbolKind.Function
            assert child.detail == (f"ENTRY, {count}" if block.is_entry else count)

    main = (module.children or [])[0]
    ynn = next(item for item in main.children or [] if item.name == "ynn_fusion.1")
    line = next(number for name, number in entry[0].items if name == "ynn_fusion.1")
    assert (ynn.kind, ynn.detail) == (types.SymbolKind.Variable, "fusion f32[32,256]{1,0}")
    assert ynn.selection_range == name_range(line, lines[line], "ynn_fusion.1", "%")
    assert ynn.range == line_range(line, lines[line])
    root = (main.children or [])[-1]
    assert (root.name, root.detail) == ("broadcast_subtract_fusion", "ROOT fusion f32[32,10]{1,0}")


async def test_outline_of_a_buffer_assignment(client: LanguageClient) -> None:
    symbols = await outline(client, SPLIT_BA)
    lines = SPLIT_BA.read_text().rstrip("\n").split("\n")
    headers = [(number, re.match(r"allocation (\d+): size (\d+)", text)) for number, text in enumerate(lines)]
    allocations = [(number, match) for number, match in headers if match]

    assert [(s.name, s.kind, s.detail) for s in symbols] == [
        ("BufferAssignment", types.SymbolKind.Namespace, f"{len(allocations)} allocations")]
    assert symbols[0].range == line_range(0, lines[0], len(lines) - 1, lines[-1])
    children = symbols[0].children or []
    assert [(child.name, child.kind, child.range.start.line) for child in children] == [
        (f"allocation {match.group(1)}", types.SymbolKind.Struct, number) for number, match in allocations]

    fourteen = children[-1]
    assert fourteen.name == "allocation 14" and fourteen.detail == "preallocated-temp, 65536 bytes (64.0KiB)"
    values = [(number, re.match(r" value: <\d+ (\S+) @\d+> \(size=(\d+),offset=(\d+)\)", lines[number]))
              for number in range(allocations[-1][0] + 1, len(lines))]
    assert [(v.name, v.kind, v.detail, v.selection_range) for v in fourteen.children or []] == [
        (m.group(1), types.SymbolKind.Field, f"{m.group(2)} @ {m.group(3)}", name_range(n, lines[n], m.group(1), " "))
        for n, m in values if m]
    assert fourteen.range == line_range(allocations[-1][0], lines[allocations[-1][0]], len(lines) - 1, lines[-1])


async def test_outline_of_a_combined_buffer_assignment(client: LanguageClient) -> None:
    symbols = await outline(client, COMBINED_BA)
    lines = COMBINED_BA.read_text().split("\n")
    sections = {"BufferAssignment": "BufferAssignment:", "Total bytes used": "Total bytes used: ",
                "Used values": "Used values:", "HloLiveRange": "HloLiveRange (max "}
    assert [(s.name, s.selection_range.start.line) for s in symbols] == [
        (name, next(n for n, text in enumerate(lines) if text.startswith(start))) for name, start in sections.items()]
    used = symbols[2]
    blocks = [re.match(r"<\d+ (\S+) @\d+>$", text) for text in lines]
    assert [child.name for child in used.children or []] == [match.group(1) for match in blocks if match]
    assert used.detail == f"{sum(1 for match in blocks if match)} values"
    live = symbols[3]
    assert [child.name for child in live.children or []] == [
        "InstructionSequence", "BufferLiveRange", "Live ranges at 4 (peak)"]


@pytest.mark.parametrize("path", OUTLINED, ids=[f"{p.parent.name}/{p.name}" for p in OUTLINED])
async def test_every_outline_is_well_formed(client: LanguageClient, path: Path) -> None:
    """What editors require of DocumentSymbols: each name's selection lies inside its range, each
    child inside its parent, and every range inside the file."""
    symbols = await outline(client, path)
    assert symbols, path.name
    lines = path.read_text().split("\n")
    encoding = negotiated_encoding(client.capabilities)
    pending: list[tuple[types.DocumentSymbol, types.DocumentSymbol | None]] = [(s, None) for s in symbols]
    while pending:
        symbol, parent = pending.pop()
        assert symbol.name.strip(), path.name
        assert contains(symbol.range, symbol.selection_range), (symbol.name, symbol.range, symbol.selection_range)
        assert parent is None or contains(parent.range, symbol.range), (parent.name, symbol.name)
        end = symbol.range.end
        assert end.line < len(lines) and end.character <= column_of(lines[end.line], len(lines[end.line]), encoding)
        pending.extend((child, symbol) for child in symbol.children or [])


# ---- a client without hierarchical document symbols gets SymbolInformation -----------------------


def flat_capabilities() -> types.ClientCapabilities:
    """VS Code's capabilities without hierarchicalDocumentSymbolSupport (as older clients declare)."""
    capabilities = copy.deepcopy(client_capabilities("visual-studio-code"))
    assert capabilities.text_document is not None and capabilities.text_document.document_symbol is not None
    capabilities.text_document.document_symbol.hierarchical_document_symbol_support = False
    return capabilities


@pytest_lsp.fixture(config=SERVER, scope="module")
async def flat_client(lsp_client: LanguageClient):  # noqa: ANN201
    await start_session(lsp_client, flat_capabilities())
    yield
    await lsp_client.shutdown_session()


async def test_flat_symbols_for_a_client_without_hierarchy(flat_client: LanguageClient) -> None:
    assert not declares_hierarchical(flat_client)
    symbols = await outline(flat_client, SPLIT_HLO)
    assert all(isinstance(symbol, types.SymbolInformation) for symbol in symbols)
    assert {symbol.location.uri for symbol in symbols} == {SPLIT_HLO.as_uri()}
    lines = SPLIT_HLO.read_text().split("\n")
    computations, tables = hlo_blocks(SPLIT_HLO)
    blocks = computations + tables
    rows = sum(len(block.items) for block in blocks)
    assert len(symbols) == 1 + len(blocks) + rows  # the module, its blocks, their instructions and rows

    by_name = {(symbol.name, symbol.container_name): symbol for symbol in symbols}
    module = by_name[("jit_mlp", None)]
    assert module.kind == types.SymbolKind.Module and module.location.range.start == types.Position(0, 0)
    for block in blocks:
        symbol = by_name[(block.name, "jit_mlp")]
        assert symbol.location.range == line_range(block.line, lines[block.line], block.end, lines[block.end])
    entry = next(block for block in computations if block.is_entry)
    for name, line in entry.items:
        symbol = by_name[(name, entry.name)]
        assert (symbol.kind, symbol.location.range) == (types.SymbolKind.Variable, line_range(line, lines[line]))


# ---- an outline cut to a number of symbols ---------------------------------------------------------


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def bounded_client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN201
    await start_session(lsp_client, client_capabilities(request.param), {"hlo": {"outline": {"maxSymbols": 12}}})
    yield
    await lsp_client.shutdown_session()


def walk(symbols: list[types.DocumentSymbol]):  # type: ignore[no-untyped-def]
    for symbol in symbols:
        yield symbol
        yield from walk(symbol.children or [])


async def test_a_large_outline_is_cut_to_the_setting_and_the_user_is_told_once(bounded_client: LanguageClient
                                                                                ) -> None:
    computations, tables = hlo_blocks(SPLIT_HLO)
    total = 1 + len(computations) + len(tables) + sum(len(block.items) for block in computations + tables)
    entry = next(block for block in computations if block.is_entry)
    for _ in range(2):
        (module,) = await outline(bounded_client, SPLIT_HLO)
        assert len(list(walk([module]))) == 12
        first = module.children[0]  # the ENTRY computation and its first ten instructions
        assert first.name == entry.name and first.detail == f"ENTRY, {len(entry.items)} instructions"
        assert [child.name for child in first.children or []] == [name for name, _ in entry.items[:10]]
    told = [message for message in bounded_client.messages if "outline" in message.message]
    assert [(message.type, message.message) for message in told] == [(types.MessageType.Info, (
        f"The outline of {SPLIT_HLO.name} lists 12 of its {total:,} symbols (an HLO module's ENTRY computation "
        "first). The setting hlo.outline.maxSymbols sets how many."))]

    bounded_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"hlo": {"outline": {"maxSymbols": 100_000}}}))
    (module,) = await outline(bounded_client, SPLIT_HLO)
    assert len(list(walk([module]))) == total
    assert len([message for message in bounded_client.messages if "outline" in message.message]) == 1


# ---- workspace/symbol ------------------------------------------------------------------------------


async def workspace_symbols(client: LanguageClient, query: str) -> list[types.SymbolInformation]:
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    assert found is not None
    return [symbol for symbol in found if isinstance(symbol, types.SymbolInformation)]


def where(symbol: types.SymbolInformation) -> tuple[str, types.SymbolKind, str, types.Range, str | None]:
    return symbol.name, symbol.kind, symbol.location.uri, symbol.location.range, symbol.container_name


async def test_workspace_symbol_finds_an_instruction_of_an_open_module(client: LanguageClient) -> None:
    open_file(client, SPLIT_HLO)
    lines = SPLIT_HLO.read_text().split("\n")
    line = next(n for n, text in enumerate(lines) if text.startswith("  %ynn_fusion.1 = "))
    found = await workspace_symbols(client, "ynn_fusion.1")
    assert where(found[0]) == ("ynn_fusion.1", types.SymbolKind.Variable, SPLIT_HLO.as_uri(),
                               name_range(line, lines[line], "ynn_fusion.1", "%"), "main.5")
    # Case does not matter; names that contain the query follow the exact match.
    upper = await workspace_symbols(client, "YNN_FUSION")
    assert [symbol.name for symbol in upper][:1] == ["ynn_fusion"]
    assert {"ynn_fusion.1", "ynn_fusion.2"} <= {symbol.name for symbol in upper}


async def test_workspace_symbol_finds_a_computation_in_every_open_module(client: LanguageClient) -> None:
    open_file(client, SPLIT_HLO)
    open_file(client, COMBINED_HLO)
    found = await workspace_symbols(client, "fused_computation.1")
    # Other tests of this module may have opened more modules: look at the two opened here.
    uris = {SPLIT_HLO.as_uri(), COMBINED_HLO.as_uri()}
    exact = [where(symbol) for symbol in found if symbol.name == "fused_computation.1"]
    expected = []
    for path in (SPLIT_HLO, COMBINED_HLO):
        lines = path.read_text().split("\n")
        line = next(n for n, text in enumerate(lines) if re.match(r"%?fused_computation\.1 [({]", text))
        expected.append(("fused_computation.1", types.SymbolKind.Function, path.as_uri(),
                         name_range(line, lines[line], "fused_computation.1"), path.name))
    assert sorted((item for item in exact if item[2] in uris), key=lambda item: item[2]) == expected
    assert [symbol.name for symbol in found[: len(exact)]] == ["fused_computation.1"] * len(exact)


async def test_workspace_symbol_finds_an_allocation(client: LanguageClient) -> None:
    open_file(client, SPLIT_HLO)
    lines = SPLIT_BA.read_text().split("\n")
    line = next(n for n, text in enumerate(lines) if text.startswith("allocation 14:"))
    found = await workspace_symbols(client, "allocation 14")
    expected = ("allocation 14", types.SymbolKind.Struct, SPLIT_BA.as_uri(),
                name_range(line, lines[line], "allocation 14"), SPLIT_BA.name)
    assert expected in [where(symbol) for symbol in found]


async def test_workspace_symbol_forgets_a_closed_module(client: LanguageClient, tmp_path: Path) -> None:
    hlo = Path(f"{copy_module(COMBINED_MLP, tmp_path)}.txt")
    open_file(client, hlo)
    found = await workspace_symbols(client, "dot.8")
    assert hlo.as_uri() in {symbol.location.uri for symbol in found if symbol.name == "dot.8"}
    close_file(client, hlo)
    found = await workspace_symbols(client, "dot.8")
    assert hlo.as_uri() not in {symbol.location.uri for symbol in found}


# ---- foldingRange --------------------------------------------------------------------------------


async def folds(client: LanguageClient, path: Path) -> list[types.FoldingRange]:
    uri = open_file(client, path)
    found = await client.text_document_folding_range_async(types.FoldingRangeParams(types.TextDocumentIdentifier(uri)))
    assert found is not None
    # Both profiles fold whole lines only (lineFoldingOnly): no columns may be sent.
    assert all(fold.start_character is None and fold.end_character is None for fold in found)
    return list(found)


async def test_folding_an_hlo_module(client: LanguageClient) -> None:
    found = await folds(client, SPLIT_HLO)
    computations, tables = hlo_blocks(SPLIT_HLO)
    header = next(block for block in computations if block.name == "fused_computation.1")
    assert SPLIT_HLO.read_text().split("\n")[header.end] == "}"
    assert types.FoldingRange(header.line, header.end, kind=types.FoldingRangeKind.Region) in found
    # Every computation folds from its header to its `}`, every stack-frame table over its rows, nothing else.
    expected = sorted((block.line, block.end) for block in computations + tables)
    assert sorted((fold.start_line, fold.end_line) for fold in found) == expected
    assert {fold.kind for fold in found} == {types.FoldingRangeKind.Region}


async def test_folding_a_buffer_assignment(client: LanguageClient) -> None:
    found = await folds(client, SPLIT_BA)
    lines = SPLIT_BA.read_text().rstrip("\n").split("\n")
    headers = [n for n, text in enumerate(lines) if text.startswith("allocation ")]
    ends = [following - 1 for following in headers[1:]] + [len(lines) - 1]
    fourteen = next(n for n in headers if lines[n].startswith("allocation 14:"))
    assert types.FoldingRange(fourteen, len(lines) - 1, kind=types.FoldingRangeKind.Region) in found
    # The section from `BufferAssignment:` to its last value, and each allocation over its values.
    assert sorted((fold.start_line, fold.end_line) for fold in found) == sorted(
        [(0, len(lines) - 1), *zip(headers, ends)])


async def test_folding_the_used_values_of_a_combined_dump(client: LanguageClient) -> None:
    found = {(fold.start_line, fold.end_line) for fold in await folds(client, COMBINED_BA)}
    lines = COMBINED_BA.read_text().split("\n")
    used = lines.index("Used values:")
    blocks = [n for n, text in enumerate(lines) if re.match(r"<\d+ \S+ @\d+>$", text)]
    last = blocks[-1] + next(i for i, text in enumerate(lines[blocks[-1]:]) if not text.strip()) - 1
    assert (used, last) in found
    for start, following in zip(blocks, blocks[1:]):
        assert (start, following - 1) in found, lines[start]


@pytest_lsp.fixture(config=SERVER, scope="module")
async def few_folds_client(lsp_client: LanguageClient):  # noqa: ANN201
    """VS Code, with its folding rangeLimit (5,000: editor.foldingMaximumRegions) set to 2."""
    capabilities = copy.deepcopy(client_capabilities("visual-studio-code"))
    assert capabilities.text_document is not None and capabilities.text_document.folding_range is not None
    capabilities.text_document.folding_range.range_limit = 2
    await start_session(lsp_client, capabilities)
    yield
    await lsp_client.shutdown_session()


async def test_folding_honours_the_clients_range_limit_and_the_user_is_told_once(
        few_folds_client: LanguageClient) -> None:
    computations, tables = hlo_blocks(SPLIT_HLO)
    every = sorted((block.line, block.end) for block in computations + tables)
    for _ in range(2):
        found = await folds(few_folds_client, SPLIT_HLO)
        assert [(fold.start_line, fold.end_line) for fold in found] == every[:2]
    total = len(folding_ranges(Document(SPLIT_HLO.read_text(), FileKind.HLO_MODULE)))
    told = [message for message in few_folds_client.messages if "folding" in message.message]
    assert [(message.type, message.message) for message in told] == [(types.MessageType.Info, (
        f"{SPLIT_HLO.name} has {total:,} folding regions; the editor takes 2, the outermost are given "
        "(in VS Code: the setting editor.foldingMaximumRegions)."))]
