"""Closing a large module the server built, over stdio as VS Code and as Neovim: the server answers the next request
at once, before the module's gigabyte of objects is freed (in a thread of its own), and says when it is. The server
checks it itself here (`checkProcess` off), so that it builds the module; in the check process a module's objects go
with the process (tests/lsp/test_e2e_check_process.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from helpers import SPLIT_HLO
from helpers.lsp import (
    client_with,
    close_file,
    log_message_containing,
    next_diagnostics,
    open_file,
    position_of,
    write_large_module,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

ADD_MAXIMUM = "  %add_maximum_fusion = f32[32,256]{1,0} fusion(%ynn_fusion.1, %bs_1_.1)"
GIVEN_BACK = "closed: its memory is given back"

client = client_with({"hlo": {"checkProcess": {"enabled": False}}})


async def hover(client: LanguageClient, uri: str, position: types.Position) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position))


async def test_a_request_after_closing_a_large_module_is_answered_before_the_module_is_freed(
        client: LanguageClient, tmp_path: Path) -> None:
    """A 15 MB module holds about 400 MB of objects: freeing them takes a good part of a second, in a
    thread of its own, while the loop goes on answering; the server logs when they are freed."""
    small, at_small = open_file(client, SPLIT_HLO), position_of(SPLIT_HLO, ADD_MAXIMUM, "ynn_fusion.1")
    large = write_large_module(tmp_path, SPLIT_HLO, copies=2280)
    client.diagnostics.pop(large.as_uri(), None)
    open_file(client, large)
    assert await next_diagnostics(client, large.as_uri(), timeout=120) == []  # the module is read and checked
    assert await hover(client, small, at_small) is not None
    since = len(client.log_messages)
    close_file(client, large)
    assert await hover(client, small, at_small) is not None
    freed = f"{large.stem} {GIVEN_BACK}"
    assert not [message for message in client.log_messages[since:] if freed in message.message]
    assert (await log_message_containing(client, freed, since, timeout=60)).type == types.MessageType.Info
