"""The protocol around the features, over stdio as VS Code and as Neovim: unknown documents and
positions, incremental edits on lines with non-ASCII text, diagnostics that follow edits, open buffers
and files changed on disk, closing, and the server's other ways to start (TCP, the `hlo-lsp` script).

Every test that edits works on a copy of a real dump in tmp_path; tests/data is never written.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from helpers import SPLIT_HLO, SPLIT_MLP, copy_module
from helpers.lsp import (
    CLIENTS,
    all_diagnostics,
    close_file,
    column_of,
    forget_diagnostics,
    log_message_containing,
    module_paths,
    negotiated_encoding,
    open_file,
    position_of,
    write_large_module,
)
from helpers.raw import RawSession, raw_session

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT = SPLIT_MLP
ADD_MAXIMUM = "  %add_maximum_fusion = f32[32,256]{1,0} fusion(%ynn_fusion.1, %bs_1_.1)"
NON_ASCII = "é😀"  # 1 + 2 UTF-16 code units, 2 + 4 UTF-8 bytes, 2 code points


@pytest.fixture(scope="module")
def large_dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HLO file of an 8 MB module written by benchmarks/make_large_dump.py, with its companions."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import make_large_dump

    if not all(Path(f"{stem}.txt").exists() for stem in make_large_dump.SOURCES.values()):
        pytest.skip("needs the large_fwd_unrolled dumps of ../shared/corpus")
    return make_large_dump.make_large_dump(8.0, "0.10.2", tmp_path_factory.mktemp("large"))["hlo"]  # type: ignore[no-any-return]


def identifier(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


async def hover(client: LanguageClient, uri: str, position: types.Position) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(identifier(uri), position))


async def definition(client: LanguageClient, uri: str, position: types.Position) -> list[types.Location] | None:
    found = await client.text_document_definition_async(types.DefinitionParams(identifier(uri), position))
    assert found is None or isinstance(found, list)
    return found


def change(client: LanguageClient, uri: str, version: int, *edits: tuple[types.Range, str]) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=edit, text=text) for edit, text in edits]))


def on_line(line: int, start: int, end: int | None = None) -> types.Range:
    return types.Range(types.Position(line, start), types.Position(line, start if end is None else end))


def shown(diagnostics: dict[str, list[types.Diagnostic]]) -> set[tuple[str, int, types.DiagnosticSeverity, str]]:
    """Each diagnostic as (file name, line, severity, code): what the problems list shows."""
    return {(Path(uri).name, d.range.start.line, d.severity, str(d.code))  # type: ignore[arg-type]
            for uri, found in diagnostics.items() for d in found}


async def open_module_copy(client: LanguageClient, tmp_path: Path) -> tuple[Path, list[str]]:
    """Copies the split mlp3 module into tmp_path, opens its HLO file, waits for its (empty) diagnostics;
    returns the stem and the URIs of all its files."""
    stem = copy_module(SPLIT, tmp_path)
    uris = [path.as_uri() for path in module_paths(stem)]
    forget_diagnostics(client, uris)
    open_file(client, Path(f"{stem}.txt"))
    assert shown(await all_diagnostics(client, uris)) == set()
    return stem, uris


# ---- unknown documents and positions ----------------------------------------------------------------


async def test_requests_on_a_document_never_opened_answer_null_and_are_logged(
        client: LanguageClient, tmp_path: Path) -> None:
    position = types.Position(0, 0)
    never_opened = tmp_path / "never-opened.txt"
    for uri, named in ((never_opened.as_uri(), str(never_opened)), ("untitled:Untitled-1", "untitled:Untitled-1")):
        since = len(client.log_messages)
        assert await hover(client, uri, position) is None
        message = await log_message_containing(client, f"hover: unknown document {named}", since)
        assert message.type == types.MessageType.Info
        assert await definition(client, uri, position) is None
        assert await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier(uri))) is None
        assert await client.text_document_folding_range_async(types.FoldingRangeParams(identifier(uri))) is None
    # ... and the server is still up and answering.
    uri = open_file(client, SPLIT_HLO)
    assert await hover(client, uri, position_of(SPLIT_HLO, ADD_MAXIMUM, "ynn_fusion.1")) is not None


async def test_a_large_module_being_read_does_not_hold_up_requests_about_other_files(
        client: LanguageClient, tmp_path: Path) -> None:
    """Reading a 15 MB module takes about a second, in a worker thread: a hover on another file, asked
    after the large file was opened and asked for its folds (which wait for its scan), is answered first."""
    small = open_file(client, SPLIT_HLO)
    at_small = position_of(SPLIT_HLO, ADD_MAXIMUM, "ynn_fusion.1")
    assert await hover(client, small, at_small) is not None  # that module is read already
    large = identifier(open_file(client, write_large_module(tmp_path, SPLIT_HLO, copies=2280)))
    folds = asyncio.ensure_future(client.text_document_folding_range_async(types.FoldingRangeParams(large)))
    await asyncio.sleep(0.05)  # the large file's request is on its way first
    small_hover = await hover(client, small, at_small)
    assert small_hover is not None and not folds.done()
    assert await asyncio.wait_for(folds, 120)


async def test_requests_waiting_for_a_large_module_do_not_hold_up_other_files(
        client: LanguageClient, tmp_path: Path) -> None:
    """An editor opening a file asks half a dozen questions at once (folds, tokens, lenses, hints,
    highlights): while they all wait for the 15 MB module to be read (or for the file to be scanned),
    a hover on another file is still answered. (The tokens asked are those of the last screen: the
    first screen's come before the scan.)"""
    small = open_file(client, SPLIT_HLO)
    at_small = position_of(SPLIT_HLO, ADD_MAXIMUM, "ynn_fusion.1")
    assert await hover(client, small, at_small) is not None
    path = write_large_module(tmp_path, SPLIT_HLO, copies=2280)
    large, last = identifier(open_file(client, path)), path.read_text().count("\n")
    top, name = types.Range(types.Position(0, 0), types.Position(100, 0)), types.Position(40, 4)
    bottom = types.Range(types.Position(last - 100, 0), types.Position(last, 0))
    waiting = [asyncio.ensure_future(request) for request in (
        client.text_document_folding_range_async(types.FoldingRangeParams(large)),
        client.text_document_semantic_tokens_range_async(types.SemanticTokensRangeParams(large, bottom)),
        client.text_document_code_lens_async(types.CodeLensParams(large)),
        client.text_document_inlay_hint_async(types.InlayHintParams(large, top)),
        client.text_document_document_highlight_async(types.DocumentHighlightParams(large, name)),
        client.text_document_prepare_call_hierarchy_async(types.CallHierarchyPrepareParams(large, name)),
        client.text_document_document_symbol_async(types.DocumentSymbolParams(large)),
        client.text_document_references_async(types.ReferenceParams(
            text_document=large, position=name, context=types.ReferenceContext(include_declaration=True))))]
    await asyncio.sleep(0.05)
    assert await asyncio.wait_for(hover(client, small, at_small), 10) is not None
    assert not any(request.done() for request in waiting)  # all of them still wait for the file
    await asyncio.wait_for(asyncio.gather(*waiting), 120)


async def test_the_first_hover_and_jump_of_a_large_module_come_before_the_module_is_read(
        client: LanguageClient, large_dump: Path) -> None:
    """An 8 MB module with its buffer-assignment files: the editor asks for lenses (which need the whole
    module), then hovers an instruction, jumps from its operand, and hovers and jumps from the
    computation it calls. All are answered from the files' text while the lenses still wait, and say
    what the whole module says once it is read."""
    uri = open_file(client, large_dump)
    lines = large_dump.read_text().split("\n")
    line = next(number for number in range(len(lines) // 2, len(lines)) if " fusion(%" in lines[number])
    name_at = types.Position(line, lines[line].index("%") + 1)
    operand_at = types.Position(line, lines[line].index("fusion(%") + len("fusion(%"))
    called_at = types.Position(line, lines[line].index("calls=%") + len("calls=%") + 1)
    lenses = asyncio.ensure_future(client.text_document_code_lens_async(types.CodeLensParams(identifier(uri))))
    await asyncio.sleep(0.05)  # the lenses are asked first: reading the module has begun
    early_hover, early_jump = await hover(client, uri, name_at), await definition(client, uri, operand_at)
    early_called, early_callee = await hover(client, uri, called_at), await definition(client, uri, called_at)
    assert not lenses.done()
    assert early_hover is not None and "bytes" in early_hover.contents.value  # type: ignore[union-attr]
    assert early_jump and early_jump[0].uri == uri and early_jump[0].range.start.line < line
    assert early_called is not None and "called by:" in early_called.contents.value  # type: ignore[union-attr]
    assert early_callee and early_callee[0].uri == uri and lines[early_callee[0].range.start.line].endswith("{")
    assert await asyncio.wait_for(lenses, 120)
    assert await hover(client, uri, name_at) == early_hover
    assert await definition(client, uri, operand_at) == early_jump
    assert await hover(client, uri, called_at) == early_called
    assert await definition(client, uri, called_at) == early_callee


async def test_the_outline_folds_and_tokens_of_a_large_module_come_before_its_companions_are_read(
        client: LanguageClient, large_dump: Path) -> None:
    """They read the file alone: asked together with the lenses (which need the buffer assignment and
    the live ranges too), each is answered before them. (Closed first: an earlier test read the module.)"""
    close_file(client, large_dump)
    uri = identifier(open_file(client, large_dump))
    top = types.Range(types.Position(0, 0), types.Position(60, 0))
    lenses = asyncio.ensure_future(client.text_document_code_lens_async(types.CodeLensParams(uri)))
    await asyncio.sleep(0.05)
    alone = [asyncio.ensure_future(request) for request in (
        client.text_document_document_symbol_async(types.DocumentSymbolParams(uri)),
        client.text_document_folding_range_async(types.FoldingRangeParams(uri)),
        client.text_document_semantic_tokens_range_async(types.SemanticTokensRangeParams(uri, top)))]
    outline, folds, tokens = await asyncio.wait_for(asyncio.gather(*alone), 120)
    assert not lenses.done()
    assert outline and folds and tokens is not None and tokens.data
    assert await asyncio.wait_for(lenses, 120)


async def test_the_tokens_of_the_first_screen_come_before_the_file_is_scanned(
        client: LanguageClient, large_dump: Path) -> None:
    """The tokens of the last screen of the 8 MB module need every line above it scanned; those of
    the first screen need only the lines above its end. Asked after the last screen's, they come
    first, and they are the tokens the scanned file gives. (Closed first: an earlier test read the
    module.)"""
    close_file(client, large_dump)
    uri = identifier(open_file(client, large_dump))
    last = large_dump.read_text().count("\n")

    def screen(first: int) -> types.SemanticTokensRangeParams:
        lines = types.Range(types.Position(first, 0), types.Position(first + 60, 0))
        return types.SemanticTokensRangeParams(uri, lines)

    bottom = asyncio.ensure_future(client.text_document_semantic_tokens_range_async(screen(last - 60)))
    await asyncio.sleep(0.05)  # the last screen is asked first: the scan has begun
    early = await asyncio.wait_for(client.text_document_semantic_tokens_range_async(screen(0)), 120)
    assert not bottom.done()
    assert early is not None and len(early.data) > 5 * 60
    assert await asyncio.wait_for(bottom, 120)
    assert await client.text_document_semantic_tokens_range_async(screen(0)) == early


def mid_file_name(lines: list[str], looks_like: str) -> tuple[types.Position, types.Position]:
    """On the first line after the middle of a buffer-assignment file that holds `looks_like`: an
    instruction's name (after a value's `<id `, or a live range's first word), and the value's id (or
    the live range's times)."""
    line = next(number for number in range(len(lines) // 2, len(lines)) if looks_like in lines[number])
    text = lines[line]
    if "<" in text:
        value = text.index("<") + 1
        return types.Position(line, text.index(" ", value) + 2), types.Position(line, value)
    return types.Position(line, len(text) - len(text.lstrip()) + 1), types.Position(line, len(text) - 1)


def allocation_above(lines: list[str], line: int) -> types.Position:
    """On the header of the allocation a value's line belongs to."""
    header = next(number for number in range(line, -1, -1) if lines[number].startswith("allocation "))
    return types.Position(header, 1)


async def test_the_first_hover_and_jump_in_a_large_modules_buffer_assignment_come_before_the_module_is_read(
        client: LanguageClient, large_dump: Path) -> None:
    """Opened alone, each companion of the 8 MB module (its allocations, its values, its live ranges):
    a hover below the file's last line waits for the whole module (a glance leaves it to the module);
    a hover and a jump on an instruction's name, and a hover on the value's id (or the times) and on
    its allocation, asked after it, are answered from the files' text before it, and say what the
    whole module says. (Closed first: an earlier test read the module.)"""
    close_file(client, large_dump)
    stem = str(large_dump)[: -len(".txt")]
    for suffix, looks_like in (("-buffer-assignment.txt", " value: <"), ("-buffer-assignment-values.txt", " @0>"),
                               ("-live-range.txt", "}:")):
        path = Path(stem + suffix)
        lines = path.read_text().split("\n")
        name_at, id_at = mid_file_name(lines, looks_like)
        uri = open_file(client, path)
        waiting = asyncio.ensure_future(hover(client, uri, types.Position(len(lines) + 2, 0)))
        await asyncio.sleep(0.05)  # asked first: reading the module has begun
        allocation_at = allocation_above(lines, name_at.line) if suffix == "-buffer-assignment.txt" else None
        early_allocation = await hover(client, uri, allocation_at) if allocation_at else None
        early_hover, early_jump = await hover(client, uri, name_at), await definition(client, uri, name_at)
        early_there = await hover(client, uri, id_at)  # a value, or a live range's times: nothing
        assert not waiting.done(), suffix
        assert early_hover is not None and "bytes" in early_hover.contents.value, suffix  # type: ignore[union-attr]
        assert early_jump and early_jump[0].uri == large_dump.as_uri(), suffix
        assert (early_there is not None and early_there.contents.value.startswith("**value ")  # type: ignore[union-attr]
                if "live-range" not in suffix else early_there is None), suffix
        assert allocation_at is None or early_allocation.contents.value.startswith("**allocation ")  # type: ignore[union-attr]
        assert await asyncio.wait_for(waiting, 120) is None
        assert await hover(client, uri, name_at) == early_hover, suffix
        assert await definition(client, uri, name_at) == early_jump, suffix
        assert await hover(client, uri, id_at) == early_there, suffix
        assert allocation_at is None or await hover(client, uri, allocation_at) == early_allocation
        close_file(client, path)


async def test_hovers_and_jumps_on_a_shape_a_frame_or_nothing_in_a_large_module_come_before_the_module_is_read(
        client: LanguageClient, large_dump: Path) -> None:
    """A hover below the last line of the 8 MB module waits for the whole module; asked after it, hovers
    and jumps on an instruction's shape, on its indent, on a stack frame's id and on a frame's file
    location are answered at once (a shape says all about itself and has no definition, nothing is
    nothing, the tables are at the top), as the whole module answers them. (Opened afresh: the module
    is not read.)"""
    lines = large_dump.read_text().split("\n")
    line = next(number for number in range(len(lines) // 2, len(lines)) if "stack_frame_id=" in lines[number])
    text = lines[line]
    frame_at = types.Position(line, text.index("stack_frame_id=") + len("stack_frame_id="))
    shape_at = types.Position(line, text.index(" = ") + len(" = ") + 1)
    indent_at = types.Position(line, 0)
    row = lines.index("StackFrames") + 1
    location_at = types.Position(row, lines[row].index("file_location_id=") + len("file_location_id="))
    places = (frame_at, shape_at, indent_at, location_at)
    uri = open_file(client, large_dump)
    waiting = asyncio.ensure_future(hover(client, uri, types.Position(len(lines) + 2, 0)))
    await asyncio.sleep(0.05)  # asked first: reading the module has begun
    frame, shape, indent, location = [await hover(client, uri, at) for at in places]
    jumps = [await definition(client, uri, at) for at in places]
    assert not waiting.done()
    assert shape is not None and "- dense: " in shape.contents.value  # type: ignore[union-attr]
    assert indent is None and location is None  # a file location has no hover of its own
    assert frame is not None and frame.contents.value.startswith("**stack frame ")  # type: ignore[union-attr]
    frame_id = text[frame_at.character:].split("}")[0].split()[0]
    assert jumps[0] and lines[jumps[0][0].range.start.line].startswith(f"{frame_id} {{")
    assert jumps[1:3] == [[], None]  # a shape has no definition; the indent is nothing
    location_id = lines[row][location_at.character:].split()[0]
    assert jumps[3] and lines.index("FileLocations") < jumps[3][0].range.start.line < lines.index("StackFrames")
    assert lines[jumps[3][0].range.start.line].startswith(f"{location_id} {{")
    assert await asyncio.wait_for(waiting, 120) is None
    assert [await hover(client, uri, at) for at in places] == [frame, shape, None, None]
    assert [await definition(client, uri, at) for at in places] == jumps
    close_file(client, large_dump)


async def test_a_hover_and_a_jump_on_a_shape_in_a_large_modules_memory_report_come_before_the_module_is_read(
        client: LanguageClient, large_dump: Path) -> None:
    """The memory report opened alone: references, asked first, wait for the whole module; a hover and
    a jump on a shape in it, asked after, are answered at once (a shape has no definition)."""
    report = Path(str(large_dump)[: -len(".txt")] + "-memory-usage-report.txt")
    lines = report.read_text().split("\n")
    line = next(number for number in range(len(lines) // 2, len(lines)) if "%); " in lines[number])
    shape_at = types.Position(line, lines[line].rindex("f32[") + 1)
    uri = open_file(client, report)
    waiting = asyncio.ensure_future(client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=True), text_document=identifier(uri), position=shape_at)))
    await asyncio.sleep(0.05)  # asked first: reading the module has begun
    shape, jump = await hover(client, uri, shape_at), await definition(client, uri, shape_at)
    assert not waiting.done()
    assert shape is not None and "- dense: " in shape.contents.value  # type: ignore[union-attr]
    assert jump == []
    await asyncio.wait_for(waiting, 120)
    assert await hover(client, uri, shape_at) == shape
    assert await definition(client, uri, shape_at) == []
    close_file(client, report)


async def answers_at(client: LanguageClient, uri: str, position: types.Position) -> list[Any]:
    """Hover, definition and references at `position`."""
    return [await hover(client, uri, position), await definition(client, uri, position),
            await client.text_document_references_async(types.ReferenceParams(
                context=types.ReferenceContext(include_declaration=True), text_document=identifier(uri),
                position=position))]


async def test_lines_past_the_end_answer_null(client: LanguageClient) -> None:
    uri = open_file(client, SPLIT_HLO)
    lines = SPLIT_HLO.read_text().split("\n")
    for position in (types.Position(len(lines) + 10, 0), types.Position(len(lines), 0)):
        assert await answers_at(client, uri, position) == [None, None, None], position
    assert await hover(client, uri, position_of(SPLIT_HLO, ADD_MAXIMUM, "ynn_fusion.1")) is not None


async def test_columns_past_the_end_of_a_line_answer_null(client: LanguageClient) -> None:
    """The line ends with `stack_frame_id=5}`: past its end there is nothing to name (LSP: a character
    beyond the line's length counts as the line's length, which is after the `}`)."""
    uri = open_file(client, SPLIT_HLO)
    line = position_of(SPLIT_HLO, ADD_MAXIMUM, ADD_MAXIMUM).line
    text = SPLIT_HLO.read_text().split("\n")[line]
    assert text.endswith("stack_frame_id=5}")
    assert await answers_at(client, uri, types.Position(line, len(text))) == [None, None, None]
    assert await answers_at(client, uri, types.Position(line, len(text) + 50)) == [None, None, None]


# ---- incremental changes -------------------------------------------------------------------------------


async def test_incremental_changes_on_a_line_with_non_ascii_text(client: LanguageClient, tmp_path: Path) -> None:
    """Put "é😀" into an op_name, then point the stack frame after it elsewhere and rename an operand
    on the same line; positions are in the encoding the client negotiated (UTF-16 for VS Code, UTF-8 for
    Neovim, which lists utf-8 first)."""
    stem, uris = await open_module_copy(client, tmp_path)
    hlo = Path(f"{stem}.txt")
    uri = hlo.as_uri()
    encoding = negotiated_encoding(client.capabilities)
    line = position_of(hlo, ADD_MAXIMUM, ADD_MAXIMUM).line
    original = hlo.read_text().split("\n")[line]
    assert original.endswith('metadata={op_name="jit(mlp)/jit(relu)/max" stack_frame_id=5}')

    inserted_at = original.index('/max"') + 1
    with_text = original[:inserted_at] + NON_ASCII + original[inserted_at:]
    frame_at = with_text.index("stack_frame_id=5") + len("stack_frame_id=")
    with_frame = with_text[:frame_at] + "6" + with_text[frame_at + 1:]
    operand_at = with_frame.index("%ynn_fusion.1") + 1
    final = with_frame[:operand_at] + "ynn_fusion.2" + with_frame[operand_at + len("ynn_fusion.1"):]

    forget_diagnostics(client, uris)
    change(client, uri, 2,
           (on_line(line, column_of(original, inserted_at, encoding)), NON_ASCII),
           (on_line(line, column_of(with_text, frame_at, encoding), column_of(with_text, frame_at + 1, encoding)), "6"))
    change(client, uri, 3, (on_line(line, column_of(with_frame, operand_at, encoding),
                                    column_of(with_frame, operand_at + len("ynn_fusion.1"), encoding)), "ynn_fusion.2"))
    # The edited module is still a valid one: a misplaced edit would break the line.
    assert shown(await all_diagnostics(client, uris)) == set()

    # The frame id after the non-ASCII text now names frame 6: its definition and its hover.
    lines = hlo.read_text().split("\n")
    frame_row = lines.index("StackFrames") + 6
    assert lines[frame_row].startswith("6 {file_location_id=6 ")
    location_row = lines[lines.index("FileLocations") + 6]
    source_line = location_row.split(" line=")[1].split(" ")[0]
    digit = on_line(line, column_of(final, frame_at, encoding), column_of(final, frame_at + 1, encoding))
    found = await definition(client, uri, digit.start)
    assert [(item.uri, item.range) for item in found or []] == [(uri, on_line(frame_row, 0, 1))]
    answer = await hover(client, uri, digit.start)
    assert answer is not None and answer.range == digit
    assert isinstance(answer.contents, types.MarkupContent)
    assert answer.contents.value.split("\n")[0] == (
        f"**stack frame 6**: `/home/dev/xla-examples/gen_dumps.py:{source_line}` in `_mlp3.<locals>.mlp`")

    # The renamed operand goes to ynn_fusion.2.
    operand = types.Position(line, column_of(final, operand_at + 1, encoding))
    target = position_of(hlo, "  %ynn_fusion.2 = ", "ynn_fusion.2")
    found = await definition(client, uri, operand)
    assert [(item.uri, item.range) for item in found or []] == [
        (uri, on_line(target.line, target.character, target.character + len("ynn_fusion.2")))]

    # The instruction's hover shows the edited op_name and the new frame's source line.
    answer = await hover(client, uri, types.Position(line, original.index("add_maximum_fusion")))
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    assert f"- op_name `jit(mlp)/jit(relu)/{NON_ASCII}max`" in answer.contents.value.split("\n")
    assert f"- source `/home/dev/xla-examples/gen_dumps.py:{source_line}` in `_mlp3.<locals>.mlp`" in \
        answer.contents.value.split("\n")


async def test_definition_from_a_name_after_non_ascii_text_of_a_real_dump(client: LanguageClient) -> None:
    """The live-range file draws the peak's stack-trace tree with "├──": the label `x` after it goes to
    the parameter with op_name "x", at the column the client's encoding counts."""
    live = Path(f"{SPLIT}-live-range.txt")
    lines = live.read_text().split("\n")
    row = next(number for number, text in enumerate(lines) if "── x (" in text)
    assert not lines[row].isascii()
    column = column_of(lines[row], lines[row].index("x ("), negotiated_encoding(client.capabilities))
    found = await definition(client, open_file(client, live), types.Position(row, column))
    target = position_of(SPLIT_HLO, 'parameter(6), metadata={op_name="x"}', "x.1")
    assert [(item.uri, item.range) for item in found or []] == [
        (SPLIT_HLO.as_uri(), on_line(target.line, target.character, target.character + len("x.1")))]


async def test_edits_that_introduce_and_fix_a_problem_update_the_diagnostics(
        client: LanguageClient, tmp_path: Path) -> None:
    stem, uris = await open_module_copy(client, tmp_path)
    hlo = Path(f"{stem}.txt")
    operand = position_of(hlo, ADD_MAXIMUM, "ynn_fusion.1")
    name = on_line(operand.line, operand.character, operand.character + len("ynn_fusion.1"))

    forget_diagnostics(client, uris)
    change(client, hlo.as_uri(), 2, (name, "ynn_fusion.9"))
    diagnostics = await all_diagnostics(client, uris)
    assert shown(diagnostics) == {(hlo.name, operand.line, types.DiagnosticSeverity.Error, "undefined-instruction")}
    [problem] = diagnostics[hlo.as_uri()]
    assert problem.message == "instruction ynn_fusion.9 is not defined in this module"
    assert problem.range == name and problem.source == "hlo-lsp"

    forget_diagnostics(client, uris)
    change(client, hlo.as_uri(), 3, (name, "ynn_fusion.1"))
    assert shown(await all_diagnostics(client, uris)) == set()

    # The same through whole-document changes (what a client sends when it does not diff).
    for version, text, expected in (
            (4, hlo.read_text().replace("fusion(%ynn_fusion.1, %bs_1_.1)", "fusion(%ynn_fusion.9, %bs_1_.1)"),
             {(hlo.name, operand.line, types.DiagnosticSeverity.Error, "undefined-instruction")}),
            (5, hlo.read_text(), set())):
        forget_diagnostics(client, uris)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=hlo.as_uri(), version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)]))
        assert shown(await all_diagnostics(client, uris)) == expected


# ---- open buffers, files on disk, closing ---------------------------------------------------------------


async def test_an_open_buffer_wins_over_the_file_on_disk(client: LanguageClient, tmp_path: Path) -> None:
    stem, uris = await open_module_copy(client, tmp_path)
    hlo, ba = Path(f"{stem}.txt"), Path(f"{stem}-buffer-assignment.txt")
    forget_diagnostics(client, uris)
    open_file(client, ba)
    assert shown(await all_diagnostics(client, uris)) == set()

    moved = position_of(ba, "<69 reduce_log_fusion @0> (size=128,offset=128)", "offset=128")
    digits = on_line(moved.line, moved.character + len("offset="), moved.character + len("offset=128"))
    forget_diagnostics(client, uris)
    change(client, ba.as_uri(), 2, (digits, "0"))  # in the buffer only: the file keeps offset=128
    diagnostics = await all_diagnostics(client, uris)
    other = position_of(ba, "<68 add_reduce_fusion @0> (size=128,offset=0)", "<").line
    assert shown(diagnostics) == {(ba.name, line, types.DiagnosticSeverity.Error, "overlapping-values")
                                  for line in (other, moved.line)}
    assert "offset=128" in ba.read_text()

    # The HLO module's hover reads the buffer too.
    definition_line = position_of(hlo, "  %reduce_log_fusion = ", "reduce_log_fusion")
    answer = await hover(client, hlo.as_uri(), definition_line)
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    assert "- 128 bytes in allocation 14 (preallocated-temp), offset 0" in answer.contents.value.split("\n")

    # Closed without saving: the file on disk counts again.
    forget_diagnostics(client, uris)
    close_file(client, ba)
    assert shown(await all_diagnostics(client, uris)) == set()
    answer = await hover(client, hlo.as_uri(), definition_line)
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    assert "- 128 bytes in allocation 14 (preallocated-temp), offset 128" in answer.contents.value.split("\n")


async def test_a_companion_changed_on_disk_is_read_again(client: LanguageClient, tmp_path: Path) -> None:
    stem, uris = await open_module_copy(client, tmp_path)
    live, ba = Path(f"{stem}-live-range.txt"), Path(f"{stem}-buffer-assignment.txt")
    original = live.read_text()

    live.write_text(original.replace("    ynn_fusion.1{}:9-10", "    ynn_fusion.77{}:9-10"))
    forget_diagnostics(client, uris)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=live.as_uri(), type=types.FileChangeType.Changed)]))
    diagnostics = await all_diagnostics(client, uris)
    renamed = position_of(live, "    ynn_fusion.77{}:9-10", "ynn_fusion.77").line
    value = position_of(ba, "<62 ynn_fusion.1 @0>", "<").line
    assert shown(diagnostics) == {
        (live.name, renamed, types.DiagnosticSeverity.Error, "unknown-live-range-name"),
        (live.name, renamed, types.DiagnosticSeverity.Error, "unknown-instruction"),
        (live.name, renamed, types.DiagnosticSeverity.Warning, "unallocated-live-range"),
        (ba.name, value, types.DiagnosticSeverity.Warning, "value-without-live-range"),
    }

    live.write_text(original)
    forget_diagnostics(client, uris)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=live.as_uri(), type=types.FileChangeType.Changed)]))
    assert shown(await all_diagnostics(client, uris)) == set()


async def test_a_companion_deleted_on_disk_loses_its_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    stem, uris = await open_module_copy(client, tmp_path)
    live = Path(f"{stem}-live-range.txt")
    live.write_text(live.read_text().replace("    ynn_fusion.1{}:9-10", "    ynn_fusion.77{}:9-10"))
    forget_diagnostics(client, uris)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=live.as_uri(), type=types.FileChangeType.Changed)]))
    assert (live.name, types.DiagnosticSeverity.Error, "unknown-live-range-name") in {
        (name, severity, code) for name, _, severity, code in shown(await all_diagnostics(client, uris))}

    live.unlink()
    forget_diagnostics(client, uris)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=live.as_uri(), type=types.FileChangeType.Deleted)]))
    assert await all_diagnostics(client, uris) == {uri: [] for uri in uris}  # the deleted file's are cleared too


async def test_closing_the_last_open_file_of_a_module_clears_its_diagnostics(
        client: LanguageClient, tmp_path: Path) -> None:
    stem, uris = await open_module_copy(client, tmp_path)
    hlo, ba = Path(f"{stem}.txt"), Path(f"{stem}-buffer-assignment.txt")
    ba.write_text(ba.read_text().replace("<69 reduce_log_fusion @0> (size=128,offset=128)",
                                         "<69 reduce_log_fusion @0> (size=128,offset=0)"))
    forget_diagnostics(client, uris)
    open_file(client, ba)
    planted = {(ba.name, position_of(ba, text, "<").line, types.DiagnosticSeverity.Error, "overlapping-values")
               for text in ("<68 add_reduce_fusion @0>", "<69 reduce_log_fusion @0>")}
    assert shown(await all_diagnostics(client, uris)) == planted

    forget_diagnostics(client, uris)
    close_file(client, ba)  # the HLO file is still open: the problems stay
    assert shown(await all_diagnostics(client, uris)) == planted

    forget_diagnostics(client, uris)
    close_file(client, hlo)  # the last one: every file of the module is cleared
    assert await all_diagnostics(client, uris) == {uri: [] for uri in uris}


# ---- other ways to start the server ----------------------------------------------------------------------


async def session(server: RawSession, profile: str) -> dict[str, Any]:
    """initialize, shutdown, exit; returns the initialize result."""
    result = (await server.initialize(profile))["result"]
    assert (await server.shut_down(2)).get("result", "missing") is None
    return result


def check_initialize_result(result: dict[str, Any], profile: str) -> None:
    assert result["serverInfo"]["name"] == "hlo-lsp"
    capabilities = result["capabilities"]
    assert capabilities["positionEncoding"] == negotiated_encoding(client_capabilities(profile))
    for provider in ("hoverProvider", "definitionProvider", "referencesProvider", "documentSymbolProvider",
                     "workspaceSymbolProvider", "foldingRangeProvider"):
        assert capabilities.get(provider), provider
    assert capabilities["textDocumentSync"]["change"] == types.TextDocumentSyncKind.Incremental.value


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("profile", CLIENTS)
async def test_the_server_answers_initialize_over_tcp(profile: str) -> None:
    port = free_port()
    async with raw_session("--tcp", f"127.0.0.1:{port}", port=port) as server:
        check_initialize_result(await session(server, profile), profile)
    assert server.returncode == 0  # exit after shutdown ends the TCP server too


@pytest.mark.parametrize("profile", CLIENTS)
async def test_the_hlo_lsp_script_without_arguments_serves_stdio(profile: str) -> None:
    script = Path(sys.executable).with_name("hlo-lsp")
    assert script.is_file(), script
    async with raw_session(command=[str(script)]) as server:
        check_initialize_result(await session(server, profile), profile)
    assert server.returncode == 0  # exit after shutdown
