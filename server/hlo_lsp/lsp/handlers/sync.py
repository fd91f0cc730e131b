"""The session's lifecycle and the documents' text: initialize, open, change, close, files changed on disk."""

from __future__ import annotations

import logging

from lsprotocol import types

from hlo_lsp.lsp.handlers.configuration import pull_settings
from hlo_lsp.lsp.language_server import HloLanguageServer
from hlo_lsp.lsp.logs import forward_logs_to_client

log = logging.getLogger("hlo_lsp")
WATCHED = ("**/*.txt", "**/*.hlo")
# The editor asks its first questions (hover, outline, tokens) right after it opens a file: they are
# answered before the check of a large module starts competing with them for the interpreter.
CHECK_AFTER_OPEN_SECONDS = 0.05


def initialize(ls: HloLanguageServer, params: types.InitializeParams) -> None:
    ls.settings.apply_initialization_options(params.initialization_options)
    ls.session.check_process_from = ls.settings.check_process_from


async def initialized(ls: HloLanguageServer, params: types.InitializedParams) -> None:
    forward_logs_to_client(ls)
    ls.session.prepare(ls.workspace_roots())  # (its log lines reach the client from here on)
    await _watch_files(ls)
    await pull_settings(ls)


async def _watch_files(ls: HloLanguageServer) -> None:
    capabilities = ls.client_capabilities.workspace
    watching = capabilities and capabilities.did_change_watched_files
    if not (watching and watching.dynamic_registration):
        return
    watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
    registration = types.Registration(
        id="hlo-lsp-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))
    try:
        await ls.client_register_capability_async(types.RegistrationParams([registration]))
        log.info("watching %s", ", ".join(WATCHED))
    except Exception as error:  # the client refused: companions are still re-read by mtime
        log.info("file watchers not registered: %s", error)


def did_open(ls: HloLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    source = ls.uris.source_of(item.uri)
    ls.session.open(source, item.text, item.version)
    ls.diagnostics.schedule(source, delay=CHECK_AFTER_OPEN_SECONDS)


def did_change(ls: HloLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    source, version = ls.uris.source_of(params.text_document.uri), params.text_document.version
    for change in params.content_changes:
        opened = ls.session.snapshot(source)
        if opened is None:
            break
        partial = isinstance(change, types.TextDocumentContentChangePartial)
        edit = ls.positions.range_from_client(change.range, opened) if partial else None  # type: ignore[union-attr]
        ls.session.change(source, version, edit, change.text)
    ls.diagnostics.schedule(source)


def did_close(ls: HloLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    source = ls.uris.source_of(params.text_document.uri)
    ls.session.close(source)
    ls.diagnostics.closed(source)


def did_change_watched_files(ls: HloLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    log.info("%d file(s) changed on disk", len(params.changes))
    for change in params.changes:
        ls.session.file_changed(ls.uris.source_of(change.uri))
    for source in ls.session.open_sources():
        ls.diagnostics.schedule(source)
    if params.changes:
        ls.folder_changes.files_changed()


HANDLERS = {
    types.INITIALIZE: initialize,
    types.INITIALIZED: initialized,
    types.TEXT_DOCUMENT_DID_OPEN: did_open,
    types.TEXT_DOCUMENT_DID_CHANGE: did_change,
    types.TEXT_DOCUMENT_DID_CLOSE: did_close,
    types.WORKSPACE_DID_CHANGE_WATCHED_FILES: did_change_watched_files,
}
