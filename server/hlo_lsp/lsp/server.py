"""The language server: LSP requests in, calls of the IDE layer (hlo_lsp.features), answers out.

Each handler converts the request, asks one function of `features`, and converts
the answer; none holds logic of its own. Diagnostics are computed off the event
loop, debounced while the user types.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from hlo_lsp import __version__
from hlo_lsp.features.definition import definition
from hlo_lsp.features.folding import folding_ranges
from hlo_lsp.features.hover import hover
from hlo_lsp.features.references import highlights, references
from hlo_lsp.features.symbols import document_symbols
from hlo_lsp.features.targets import target_at
from hlo_lsp.features.types import Target
from hlo_lsp.features.workspace_symbols import workspace_symbols
from hlo_lsp.lsp import convert
from hlo_lsp.lsp.diagnostics import DiagnosticsPublisher
from hlo_lsp.lsp.documents import DocumentStore
from hlo_lsp.lsp.logs import forward_logs_to_client
from hlo_lsp.lsp.protocol import HloProtocol
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump

log = logging.getLogger("hlo_lsp")
T = TypeVar("T")
WATCHED = ("**/*.txt", "**/*.hlo")


class HloLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("hlo-lsp", __version__, protocol_cls=HloProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.store = DocumentStore()
        self.diagnostics = DiagnosticsPublisher(self)

    @property
    def positions(self) -> convert.Positions:
        return convert.Positions(self.workspace.position_encoding, self.workspace.position_codec)

    def resolve(self, source: str) -> tuple[str, Document | None]:
        return self.store.uri_of(source), self.store.document(source)

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("internal error: %r", error, exc_info=error)

    def request(self, name: str, uri: str, answer: Callable[[ModuleDump, Document], T]) -> T | None:
        """Runs `answer` on the document's module; unknown documents give None, logged."""
        found = self._module_and_document(name, uri)
        return answer(*found) if found is not None else None

    async def request_in_thread(self, name: str, uri: str, answer: Callable[[ModuleDump, Document], T]) -> T | None:
        """`request` for work that can take seconds on a large module (the first references read
        every line): the loop keeps serving meanwhile, and `$/cancelRequest` is answered at once."""
        found = self._module_and_document(name, uri)
        return await asyncio.to_thread(answer, *found) if found is not None else None

    def _module_and_document(self, name: str, uri: str) -> tuple[ModuleDump, Document] | None:
        source = self.store.source_of(uri)
        document = self.store.document(source)
        module = self.store.module_of(source) if document is not None else None
        if document is None or module is None:
            log.info("%s: unknown document %s", name, uri)
            return None
        return module, document

    def target(self, module: ModuleDump, document: Document, position: types.Position) -> Target | None:
        target = target_at(document, self.positions.from_client(position, document))
        if target is None:
            log.info("nothing to resolve at %s:%d:%d", document.source, position.line + 1, position.character + 1)
        return target


server = HloLanguageServer()


# ---- lifecycle and text synchronisation -------------------------------------------------


@server.feature(types.INITIALIZED)
async def initialized(ls: HloLanguageServer, params: types.InitializedParams) -> None:
    forward_logs_to_client(ls)
    capabilities = ls.client_capabilities.workspace
    watching = capabilities and capabilities.did_change_watched_files
    if watching and watching.dynamic_registration:
        watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
        registration = types.Registration(
            id="hlo-lsp-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))
        try:
            await ls.client_register_capability_async(types.RegistrationParams([registration]))
        except Exception as error:  # the client refused: companions are still re-read by mtime
            log.info("file watchers not registered: %s", error)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HloLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    ls.store.open(item.uri, item.text, item.version)
    ls.diagnostics.schedule(ls.store.source_of(item.uri), delay=0.0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HloLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    uri, version = params.text_document.uri, params.text_document.version
    for change in params.content_changes:
        opened = ls.store.opened(uri)
        if opened is None:
            break
        if isinstance(change, types.TextDocumentContentChangePartial):
            edit = ls.positions.range_from_client(change.range, opened.document)
            ls.store.change(uri, version, edit, change.text)
        else:
            ls.store.change(uri, version, None, change.text)
    ls.diagnostics.schedule(ls.store.source_of(uri))


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: HloLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    source = ls.store.source_of(params.text_document.uri)
    module = ls.store.module_of(source)
    ls.store.close(params.text_document.uri)
    ls.diagnostics.closed(source, module)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: HloLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        ls.store.forget_disk(ls.store.source_of(change.uri))
    for opened in ls.store.open_documents():
        ls.diagnostics.schedule(opened.document.source)


# ---- navigation ---------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def goto_definition(ls: HloLanguageServer, params: types.DefinitionParams) -> list[types.Location] | None:
    return _locations(ls, "definition", params.text_document.uri, params.position, definition)


@server.feature(types.TEXT_DOCUMENT_DECLARATION)
def goto_declaration(ls: HloLanguageServer, params: types.DeclarationParams) -> list[types.Location] | None:
    return _locations(ls, "declaration", params.text_document.uri, params.position, definition)


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
async def find_references(ls: HloLanguageServer, params: types.ReferenceParams) -> list[types.Location] | None:
    include = params.context.include_declaration
    answer = _locations_answer(ls, params.position, lambda module, target: references(module, target, include))
    return await ls.request_in_thread("references", params.text_document.uri, answer)


def _locations(ls: HloLanguageServer, name: str, uri: str, position: types.Position,
               find: Callable[[ModuleDump, Target], list]) -> list[types.Location] | None:  # type: ignore[type-arg]
    return ls.request(name, uri, _locations_answer(ls, position, find))


def _locations_answer(ls: HloLanguageServer, position: types.Position, find: Callable[[ModuleDump, Target], list]
                      ) -> Callable[[ModuleDump, Document], list[types.Location] | None]:  # type: ignore[type-arg]
    def answer(module: ModuleDump, document: Document) -> list[types.Location] | None:
        target = ls.target(module, document, position)
        if target is None:
            return None
        return [convert.location(found, ls.resolve, ls.positions) for found in find(module, target)]

    return answer


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
def document_highlight(ls: HloLanguageServer,
                       params: types.DocumentHighlightParams) -> list[types.DocumentHighlight] | None:
    def answer(module: ModuleDump, document: Document) -> list[types.DocumentHighlight] | None:
        target = ls.target(module, document, params.position)
        if target is None:
            return None
        return [convert.highlight(found, ls.positions, document) for found in highlights(module, target)]

    return ls.request("highlight", params.text_document.uri, answer)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: HloLanguageServer, params: types.HoverParams) -> types.Hover | None:
    def answer(module: ModuleDump, document: Document) -> types.Hover | None:
        target = ls.target(module, document, params.position)
        info = hover(module, target) if target is not None else None
        return convert.hover(info, ls.positions, document, _markdown(ls)) if info is not None else None

    return ls.request("hover", params.text_document.uri, answer)


def _markdown(ls: HloLanguageServer) -> bool:
    text_document = ls.client_capabilities.text_document
    formats = text_document.hover.content_format if text_document and text_document.hover else None
    return formats is None or types.MarkupKind.Markdown in formats


# ---- outline ------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: HloLanguageServer, params: types.DocumentSymbolParams
                    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
    def answer(module: ModuleDump, document: Document) -> Any:
        symbols = document_symbols(module, document)
        if _hierarchical(ls):
            return [convert.document_symbol(symbol, ls.positions, document) for symbol in symbols]
        return convert.flat_symbols(symbols, params.text_document.uri, ls.positions, document)

    return await ls.request_in_thread("symbols", params.text_document.uri, answer)


def _hierarchical(ls: HloLanguageServer) -> bool:
    text_document = ls.client_capabilities.text_document
    symbols = text_document.document_symbol if text_document else None
    return bool(symbols and symbols.hierarchical_document_symbol_support)


@server.feature(types.WORKSPACE_SYMBOL)
async def workspace_symbol(ls: HloLanguageServer,
                           params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    def answer() -> list[types.SymbolInformation]:
        found = workspace_symbols(modules, params.query)
        return [convert.workspace_symbol(symbol, ls.resolve, ls.positions) for symbol in found]

    modules = ls.store.open_modules()
    return await asyncio.to_thread(answer)


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
def folding_range(ls: HloLanguageServer, params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
    return ls.request("folding", params.text_document.uri,
                      lambda module, document: [convert.folding_range(fold) for fold in folding_ranges(document)])


def run(tcp: tuple[str, int] | None = None) -> int:
    """Serves over stdio, or over TCP for debugging; returns the process status LSP asks for
    (1 when the client sent `exit` without `shutdown`)."""
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        server.start_io()
    return server.protocol.exit_status
