"""Helpers of the end-to-end tests: open a real dump in the server, find positions in it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient


def open_file(client: LanguageClient, path: Path, language: str = "hlo") -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=1, text=path.read_text())))
    return uri


async def next_diagnostics(client: LanguageClient, uri: str, timeout: float = 30) -> list[types.Diagnostic]:
    """Waits for the server to publish diagnostics for `uri` (clear client.diagnostics[uri] first)."""
    async def published() -> list[types.Diagnostic]:
        while uri not in client.diagnostics:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return list(client.diagnostics[uri])
    return await asyncio.wait_for(published(), timeout)


async def open_and_check(client: LanguageClient, path: Path, watch: Path | None = None) -> list[types.Diagnostic]:
    """Opens `path` and returns the diagnostics then published for `watch` (default: `path`)."""
    watched = (watch or path).as_uri()
    client.diagnostics.pop(watched, None)
    open_file(client, path)
    return await next_diagnostics(client, watched)


async def edit_and_check(client: LanguageClient, uri: str, version: int, edit: types.Range, text: str,
                         watch: str | None = None) -> list[types.Diagnostic]:
    """Sends one incremental change and returns the diagnostics then published for `watch` (default: `uri`)."""
    watched = watch or uri
    client.diagnostics.pop(watched, None)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=edit, text=text)]))
    return await next_diagnostics(client, watched)


def position_of(path: Path, line_containing: str, name: str, occurrence: int = 0) -> types.Position:
    """The position of `name` on the one line of `path` that contains `line_containing`."""
    lines = [(number, text) for number, text in enumerate(path.read_text().split("\n")) if line_containing in text]
    assert len(lines) == 1, (line_containing, len(lines))
    number, text = lines[0]
    column = -1
    for _ in range(occurrence + 1):
        column = text.index(name, column + 1)
    return types.Position(number, column)


def line_number(path: Path, line_containing: str) -> int:
    return position_of(path, line_containing, line_containing).line
