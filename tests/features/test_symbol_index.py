"""The compact symbol index of an HLO module file answers workspace/symbol exactly as the module opened does:
on every bundled module file, for queries of every kind, at every limit; read without scanning each line where
the file is as XLA prints it, scanned where it is not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import DUMP_FILES, FOLDER_SMALL_EAGER, HANDWRITTEN, SPLIT_HLO
from helpers.lsp import write_large_module
from hlo_lsp.features.symbol_index import SymbolIndex
from hlo_lsp.features.types import WorkspaceSymbol
from hlo_lsp.features.workspace_symbols import LIMIT, symbol_of, workspace_symbols
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind

HLO_FILES = [path for path in DUMP_FILES if detect_kind(path.name, path.read_text(errors="replace"))
             is FileKind.HLO_MODULE]
# Written by XLA (JAX 0.10.2 and 0.4.38): read without scanning each line.
AS_PRINTED = [path for path in HLO_FILES if path.parent in (FOLDER_SMALL_EAGER, SPLIT_HLO.parent)
              or "jax-0.4.38" in path.parts]


def opened(path: Path, text: str | None = None) -> ModuleDump:
    """The module of the HLO file `path` (its text `text`) opened alone."""
    text = path.read_text() if text is None else text
    return ModuleDump(module_stem(str(path)), {FileKind.HLO_MODULE: Document(text, FileKind.HLO_MODULE, str(path))})


def found(index: SymbolIndex, query: str, limit: int = LIMIT) -> list[WorkspaceSymbol]:
    return [symbol_of(candidate) for _, candidate in index.search(query, limit)]


def queries(module: ModuleDump) -> list[str]:
    """Queries of every kind: none, common words in any case, the first computation's and the last instruction's
    names, and pieces of names that are no name's start."""
    everything = workspace_symbols([module], "", limit=10**6)
    computations = [symbol.name for symbol in everything if symbol.kind == "function"]
    instructions = [symbol.name for symbol in everything if symbol.kind == "variable"]
    return ["", "fusion", "PARAM", "Arg_", "ENTRY", "ROOT", "main", ".1", "_", "%", "no-such-name",
            *computations[:1], *instructions[-1:], *(name[1:4] for name in instructions[-1:])]


@pytest.mark.parametrize("path", HLO_FILES, ids=[str(path.relative_to(path.parents[2])) for path in HLO_FILES])
def test_the_index_finds_what_the_module_opened_finds(path: Path) -> None:
    module = opened(path)
    index = SymbolIndex.of(str(path), path.read_text())
    assert len(index) == len(workspace_symbols([module], "", limit=10**6))
    for query in queries(module):
        for limit in (1, 7, LIMIT):
            assert found(index, query, limit) == workspace_symbols([module], query, limit), (query, limit)


@pytest.mark.parametrize("path", AS_PRINTED, ids=[path.name for path in AS_PRINTED])
def test_a_module_as_xla_prints_it_is_read_without_a_scan(path: Path) -> None:
    index = SymbolIndex.of(str(path), path.read_text())
    assert not index.from_scan
    assert found(index, "") == found(SymbolIndex.scanned(str(path), path.read_text()), "")


def test_a_string_going_on_over_lines_is_scanned_as_an_open_file_is() -> None:
    text = SPLIT_HLO.read_text().replace('op_name="jit(mlp)/jit(relu)/max"',
                                         'op_name="jit(mlp)\n  %fake = f32[] abs(x)"', 1)
    assert SymbolIndex.as_printed(str(SPLIT_HLO), text) is None
    index = SymbolIndex.of(str(SPLIT_HLO), text)
    assert index.from_scan
    # the line in the string is no instruction: the scanner reads it as the string's, and so does the index
    assert found(index, "fake") == workspace_symbols([opened(SPLIT_HLO, text)], "fake") == []
    assert found(index, "fusion") == workspace_symbols([opened(SPLIT_HLO, text)], "fusion")


def test_hand_written_text_is_scanned() -> None:
    assert SymbolIndex.of(str(HANDWRITTEN), HANDWRITTEN.read_text()).from_scan


@pytest.mark.parametrize("text", [
    "", "\n\n", "\x00\x01garbage\xff", "HloModule m\n\nENTRY e {\n  p = f32[] parameter(0",
    "}\n}\n  x = f32[] abs(y)\n",
    "HloModule m\r\n\r\nENTRY %e () -> f32[] {\r\n  ROOT %c = f32[] constant(1)\r\n}\r\n"])
def test_any_text_gives_what_the_module_opened_gives(text: str) -> None:
    path = Path("/dumps/module_0000.x.cpu_after_optimizations.txt")
    index = SymbolIndex.of(str(path), text)
    module = opened(path, text)
    for query in ("", "c", "p", "x"):
        assert found(index, query) == workspace_symbols([module], query)


def test_crlf_line_ends_are_read_without_a_scan() -> None:
    text = SPLIT_HLO.read_text().replace("\n", "\r\n")
    index = SymbolIndex.of(str(SPLIT_HLO), text)
    assert not index.from_scan
    assert found(index, "fusion") == workspace_symbols([opened(SPLIT_HLO, text)], "fusion")


def test_an_index_holds_a_few_dozen_bytes_a_symbol(tmp_path: Path) -> None:
    large = write_large_module(tmp_path, SPLIT_HLO)  # about 5 MB
    text = large.read_text()
    index = SymbolIndex.of(str(large), text)
    assert not index.from_scan
    instructions = len(re.findall(r"\n  (?:ROOT )?%[\w.\-]+ = ", text))
    assert len(index) > instructions > 40_000
    assert index.nbytes / len(index) < 48
    assert index.nbytes < len(text) / 2
