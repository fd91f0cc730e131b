"""Checks in the check process, over stdio: with `checkProcess.fromMB` 0 every module is checked there; the editor
sees the same diagnostics, an edit's check comes from it too, hovers are answered meanwhile, and closing the module
ends the process."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import SPLIT_MLP, copy_module, plant
from helpers.lsp import (
    all_diagnostics,
    client_with,
    close_file,
    edit_and_check,
    forget_diagnostics,
    log_message_containing,
    open_and_check,
    open_file,
    position_of,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")
MOVED = "<69 reduce_log_fusion @0> (size=128,offset=0)"
ORIGINAL = "<69 reduce_log_fusion @0> (size=128,offset=128)"

client = client_with({"hlo": {"checkProcess": {"fromMB": 0}}})


def planted_copy(tmp_path: Path) -> Path:
    """The split mlp3 module copied, with reduce_log_fusion moved onto add_reduce_fusion."""
    ba = Path(f"{copy_module(SPLIT_MLP, tmp_path)}-buffer-assignment.txt")
    plant(ba, ORIGINAL, MOVED)
    return ba


async def test_the_process_reports_the_overlap_its_fix_clears_it_and_closing_ends_it(
        client: LanguageClient, tmp_path: Path) -> None:
    since = len(client.log_messages)
    ba = planted_copy(tmp_path)
    diagnostics = await open_and_check(client, ba)
    errors = sorted((d for d in diagnostics if d.code == "overlapping-values"), key=lambda d: d.range.start.line)
    add_line = position_of(ba, "<68 add_reduce_fusion @0>", "<").line
    log_line = position_of(ba, MOVED, "<").line
    assert [(d.range.start.line, d.severity) for d in errors] == [
        (add_line, types.DiagnosticSeverity.Error), (log_line, types.DiagnosticSeverity.Error)]
    assert errors[0].message.startswith("add_reduce_fusion overlaps reduce_log_fusion in allocation 14")
    # (the process that checked it: started ahead, as the client's folder holds modules to check there)
    started = [found.group(1) for item in client.log_messages
               if (found := re.search(r"check process (\d+) started", item.message))]
    assert started

    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(ba.as_uri()), position_of(ba, MOVED, "reduce_log_fusion")))
    assert hover is not None and "128" in str(hover.contents)

    offset = position_of(ba, MOVED, "offset=0")
    fix = types.Range(types.Position(offset.line, offset.character + len("offset=")),
                      types.Position(offset.line, offset.character + len("offset=0")))
    assert await edit_and_check(client, ba.as_uri(), 2, fix, "128") == []

    close_file(client, ba)
    await log_message_containing(client, f"check process {started[-1]} ended", since)


async def test_the_hlo_file_s_diagnostics_come_with_its_companions_the_same_from_the_process(
        client: LanguageClient, tmp_path: Path) -> None:
    """The HLO file's diagnostics, which the process sends before it reads the buffer assignment, and those of its
    companions, sent after: the editor shows each file's own."""
    ba = planted_copy(tmp_path)
    hlo = ba.with_name(ba.name.replace("-buffer-assignment", ""))
    frame_line = plant(hlo, 'add(%param_2.2, %add.1), metadata={op_name="jit(mlp)/add" stack_frame_id=4}',
                       'add(%param_2.2, %add.1), metadata={op_name="jit(mlp)/add" stack_frame_id=99}')
    forget_diagnostics(client, [hlo.as_uri(), ba.as_uri()])
    open_file(client, hlo)
    published = await all_diagnostics(client, [hlo.as_uri(), ba.as_uri()])
    assert [(d.code, d.range.start.line) for d in published[hlo.as_uri()]] == [("undefined-stack-frame", frame_line)]
    assert [d.code for d in published[ba.as_uri()]] == ["overlapping-values", "overlapping-values"]
    close_file(client, hlo)
