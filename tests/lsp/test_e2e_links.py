"""Document links over stdio, as VS Code and as Neovim: `stack_frame_id=N` and the stack-frame tables of a
JAX 0.10.2 dump link to the Python file that made it (`file:///…/gen_dumps.py#L169`), found by name in the
workspace folders or above the dump when it is not at the printed path; nothing found, no link. The hover
of an instruction shows the whole Python stack."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import CORPUS, SPLIT_MLP, copy_module
from helpers.lsp import close_file, column_of, negotiated_encoding, open_file, position_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

PRINTED = "/home/dev/xla-examples/gen_dumps.py"


async def links(client: LanguageClient, path: Path) -> list[types.DocumentLink]:
    uri = open_file(client, path)
    answer = await client.text_document_document_link_async(
        types.DocumentLinkParams(types.TextDocumentIdentifier(uri)))
    close_file(client, path)
    return list(answer or [])


def change_folders(client: LanguageClient, added: list[Path] = (), removed: list[Path] = ()) -> None:  # type: ignore[assignment]
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(folder.as_uri(), folder.name) for folder in added],
            removed=[types.WorkspaceFolder(folder.as_uri(), folder.name) for folder in removed])))


def text_of(path: Path, where: types.Range, client: LanguageClient) -> str:
    """The text a range covers, its columns counted in the client's encoding."""
    line = path.read_text().split("\n")[where.start.line]
    encoding = negotiated_encoding(client.capabilities)
    columns = [column_of(line, index, encoding) for index in range(len(line) + 1)]
    return line[columns.index(where.start.character):columns.index(where.end.character)]


def expected_frame_lines(hlo: Path) -> dict[int, int]:
    """Line of each instruction with stack_frame_id=N -> the source line its frame names (through the tables)."""
    text = hlo.read_text()
    frames = dict(re.findall(r"^(\d+) \{file_location_id=(\d+) ", text, re.MULTILINE))
    locations = dict(re.findall(r"^(\d+) \{file_name_id=\d+ function_name_id=\d+ line=(\d+) ", text, re.MULTILINE))
    found = {}
    for number, line in enumerate(text.split("\n")):
        frame = re.search(r"stack_frame_id=(\d+)", line)
        if frame:
            found[number] = int(locations[frames[frame.group(1)]])
    return found


@pytest.fixture
def dump_workspace(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace folder with a copy of the JAX 0.10.2 mlp dump in dumps/mlp3 and the program that made
    it in tools/ (not beside the dump nor above it: found by the walk of the workspace folder)."""
    root = tmp_path / "project"
    (root / "dumps" / "mlp3").mkdir(parents=True)
    stem = copy_module(SPLIT_MLP, root / "dumps" / "mlp3")
    (root / "tools").mkdir()
    (root / "tools" / "gen_dumps.py").write_text("# made the dumps\n")
    return root, Path(f"{stem}.txt")


async def test_stack_frames_link_to_the_program_found_in_the_workspace(client: LanguageClient,
                                                                       dump_workspace: tuple[Path, Path]) -> None:
    root, hlo = dump_workspace
    change_folders(client, added=[root])
    try:
        found = await links(client, hlo)
    finally:
        change_folders(client, removed=[root])
    program = (root / "tools" / "gen_dumps.py").as_uri()
    frame_links = [link for link in found if text_of(hlo, link.range, client) == "stack_frame_id"]
    expected = expected_frame_lines(hlo)
    assert {link.range.start.line: link.target for link in frame_links} == {
        line: f"{program}#L{source_line}" for line, source_line in expected.items()}
    dot = position_of(hlo, "  %ynn_fusion.2 = ", "stack_frame_id")
    (link,) = [link for link in frame_links if link.range.start.line == dot.line]
    assert link.target == f"{program}#L169"
    capabilities = client.capabilities.text_document if client.capabilities else None
    if capabilities and capabilities.document_link and capabilities.document_link.tooltip_support:
        assert link.tooltip == (f"{PRINTED}:169 in _mlp3.<locals>.mlp (found at {root / 'tools' / 'gen_dumps.py'})"
                                " (and 3 callers)")
    else:
        assert link.tooltip is None
    tables = [(text_of(hlo, link.range, client), link.target) for link in found if link not in frame_links]
    assert tables[0] == (PRINTED, program)
    assert (("line=169", f"{program}#L169") in tables) and (("file_location_id", f"{program}#L172") in tables)
    assert len(tables) == 13


async def test_no_link_when_the_program_is_nowhere(client: LanguageClient, tmp_path: Path) -> None:
    stem = copy_module(SPLIT_MLP, tmp_path)
    assert await links(client, Path(f"{stem}.txt")) == []


async def test_the_real_corpus_links_to_its_gen_dumps(client: LanguageClient) -> None:
    program = CORPUS / "gen_dumps.py"
    hlo = CORPUS / "jax-0.10.2" / "mlp3" / "module_0000.jit_mlp.cpu_after_optimizations.txt"
    if not program.is_file() or not hlo.is_file():
        pytest.skip(f"the shared corpus with gen_dumps.py is not beside the project ({CORPUS})")
    found = await links(client, hlo)
    assert found
    assert {link.target.split("#")[0] for link in found if link.target} == {program.as_uri()}
    targets = {link.range.start.line: link.target for link in found
               if text_of(hlo, link.range, client) == "stack_frame_id"}
    assert targets == {line: f"{program.as_uri()}#L{source}" for line, source in expected_frame_lines(hlo).items()}


async def test_the_hover_shows_the_whole_python_stack(client: LanguageClient) -> None:
    hlo = Path(f"{SPLIT_MLP}.txt")
    uri = open_file(client, hlo)
    position = position_of(hlo, "  %ynn_fusion.2 = ", "ynn_fusion.2")
    answer = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position))
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    text = answer.contents.value.replace("`", "")  # the same lines in Markdown and in plain text
    assert text.split("- Python stack, innermost first:\n")[1].split("\n") == [
        f"  1. {PRINTED}:169 in _mlp3.<locals>.mlp", f"  2. {PRINTED}:174 in _mlp3",
        f"  3. {PRINTED}:646 in main", f"  4. {PRINTED}:669 in <module>"]
