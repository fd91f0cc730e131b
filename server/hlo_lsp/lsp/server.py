"""The language server: LSP requests in, calls of the IDE layer (hlo_lsp.features), answers out.

Each handler converts the request, asks one function of `features`, and converts
the answer; none holds logic of its own. Until a module is built, hover and
definition ask the same functions on a glance at the module's text first
(`model.glance`). Diagnostics are computed off the event loop, debounced while the
user types.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from hlo_lsp import __version__
from hlo_lsp.features.call_hierarchy import incoming_calls, outgoing_calls, prepare_call_hierarchy
from hlo_lsp.features.code_lens import code_lenses
from hlo_lsp.features.definition import DEFINED_KINDS, definition
from hlo_lsp.features.folding import bounded_folds
from hlo_lsp.features.hover import HOVERED_KINDS, hover, module_free_hover
from hlo_lsp.features.inlay_hints import inlay_hints
from hlo_lsp.features.links import document_links
from hlo_lsp.features.memory_svg import timeline_svg
from hlo_lsp.features.memory_timeline import memory_report, report_json
from hlo_lsp.features.references import highlights, references
from hlo_lsp.features.semantic_tokens import TOKEN_MODIFIERS, TOKEN_TYPES, semantic_tokens
from hlo_lsp.features.symbols import bounded_outline
from hlo_lsp.features.targets import target_at
from hlo_lsp.features.types import Location, Target
from hlo_lsp.features.workspace_symbols import workspace_symbols
from hlo_lsp.lsp import convert
from hlo_lsp.lsp.diagnostics import DiagnosticsPublisher
from hlo_lsp.lsp.documents import DocumentStore
from hlo_lsp.lsp.logs import forward_logs_to_client
from hlo_lsp.lsp.protocol import HloProtocol
from hlo_lsp.lsp.settings import Settings
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.glance import ModuleGlance
from hlo_lsp.model.priority import answering
from hlo_lsp.parsing.hlo_syntax import prepare_parser
from hlo_lsp.workspace.sources import SourceFinder

log = logging.getLogger("hlo_lsp")
T = TypeVar("T")
WATCHED = ("**/*.txt", "**/*.hlo")
# The editor asks its first questions (hover, outline, tokens) right after it opens a file: they are
# answered before the check of a large module starts competing with them for the interpreter.
CHECK_AFTER_OPEN_SECONDS = 0.05
# Opening a file, an editor asks half a dozen questions at once; while a large module is read they
# all wait for it, each in a thread: enough threads that a question about another file still gets one.
WORKER_THREADS = 32


class HloLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("hlo-lsp", __version__, protocol_cls=HloProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.store = DocumentStore()
        self.diagnostics = DiagnosticsPublisher(self)
        self.settings = Settings()
        self.cuts_told: set[tuple[str, str, int]] = set()  # (answer, uri, bound) said to be cut
        self._workers = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="hlo-lsp")

    async def in_worker(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` in one of the server's worker threads, off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._workers, functools.partial(work, *args))

    @property
    def positions(self) -> convert.Positions:
        return convert.Positions(self.workspace.position_encoding, self.workspace.position_codec)

    def resolve(self, source: str) -> tuple[str, Document | None]:
        return self.store.uri_of(source), self.store.document(source)

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("internal error: %r", error, exc_info=error)

    async def request(self, name: str, uri: str, answer: Callable[[ModuleDump, Document], T],
                      early: Callable[[ModuleGlance, Document], T | None] | None = None) -> T | None:
        """Runs `answer` in a worker thread on the module of the document as it is now. Building a
        module takes seconds at 40 MB: meanwhile the loop keeps serving (edits, other files, and
        `$/cancelRequest`, answered at once), and `early` may answer from a glance at the module's
        text (None: it cannot, the module is waited for). Unknown documents give None, logged."""
        opened = self.store.opened(uri)
        return await self.in_worker(self._answer, name, uri, opened.document if opened else None, answer, early)

    async def request_on_document(self, name: str, uri: str, answer: Callable[[Document], T],
                                  early: Callable[[Document], T | None] | None = None) -> T | None:
        """Like `request`, for answers that read the document alone (the outline, folds, semantic
        tokens): they come once the file is scanned, not after its companions and models too (at
        40 MB, two seconds sooner), or before that from `early` (None: it cannot)."""
        opened = self.store.opened(uri)
        return await self.in_worker(self._answer_document, name, uri, opened.document if opened else None, answer,
                                    early)

    def _answer_document(self, name: str, uri: str, document: Document | None, answer: Callable[[Document], T],
                         early: Callable[[Document], T | None] | None) -> T | None:
        document = self._document(name, uri, document)
        if document is None:
            return None
        found = self._sooner(name, document, functools.partial(early, document)) if early is not None else None
        return found if found is not None else answer(document)

    def _document(self, name: str, uri: str, opened: Document | None) -> Document | None:
        """The open document, or the file read from disk; None (logged) when there is neither."""
        document = opened or self.store.document(self.store.source_of(uri))
        if document is None:
            log.info("%s: unknown document %s", name, uri)
        return document

    def _answer(self, name: str, uri: str, document: Document | None, answer: Callable[[ModuleDump, Document], T],
                early: Callable[[ModuleGlance, Document], T | None] | None) -> T | None:
        document = self._document(name, uri, document)
        if document is None:
            return None
        found = self._early(name, document, early) if early is not None else None
        return found if found is not None else answer(self.store.module_with(document), document)

    def _early(self, name: str, document: Document, early: Callable[[ModuleGlance, Document], T | None]) -> T | None:
        def from_glance() -> T | None:
            glance = self.store.glance(document)
            return early(glance, document) if glance is not None else None

        return self._sooner(name, document, from_glance)

    @staticmethod
    def _sooner(name: str, document: Document, attempt: Callable[[], T | None]) -> T | None:
        """`attempt()` while indexing steps aside; None when it cannot answer or fails (the scanned
        document or the built module still answers: this only answers sooner)."""
        try:
            with answering():
                return attempt()
        except Exception:
            log.exception("%s: answering early at %s failed", name, document.source)
            return None

    def glanced_line(self, glance: ModuleGlance, document: Document,
                     position: types.Position) -> tuple[Document, Target | None] | None:
        """The cursor's line alone, as a document, and what the cursor is on (None: nothing)."""
        line = glance.line_document(position.line, document.source)
        return (line, target_at(line, self.positions.from_client(position, line))) if line is not None else None

    def target(self, module: ModuleDump, document: Document, position: types.Position) -> Target | None:
        target = target_at(document, self.positions.from_client(position, document))
        if target is None:
            log.info("nothing to resolve at %s:%d:%d", document.source, position.line + 1, position.character + 1)
        return target


class _Nothing:
    """An early answer that there is nothing to say (None from `early` says it cannot tell)."""


NOTHING = _Nothing()
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
    await _pull_settings(ls)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HloLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    item = params.text_document
    ls.store.open(item.uri, item.text, item.version)
    ls.diagnostics.schedule(ls.store.source_of(item.uri), delay=CHECK_AFTER_OPEN_SECONDS)


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
    ls.store.close(params.text_document.uri)
    ls.diagnostics.closed(source)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: HloLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        ls.store.forget_disk(ls.store.source_of(change.uri))
    for opened in ls.store.open_documents():
        ls.diagnostics.schedule(opened.document.source)


# ---- navigation ---------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def goto_definition(ls: HloLanguageServer, params: types.DefinitionParams) -> list[types.Location] | None:
    def early(glance: ModuleGlance, document: Document) -> list[types.Location] | _Nothing | None:
        found = ls.glanced_line(glance, document, params.position)
        if found is None:
            return None
        line, target = found
        if target is None or target.kind not in DEFINED_KINDS:  # blank space, punctuation, a shape
            if not glance.reads_as_whole(line, params.position.line):
                return None
            return NOTHING if target is None else []
        module = glance.module_about(target.kind, target.name, whole=False)
        if module is None:
            return None
        glanced = {document.source: document for document in module.all_documents()}

        def resolve(source: str) -> tuple[str, Document | None]:  # positions convert on the glanced lines
            return ls.store.uri_of(source), glanced.get(source)

        return convert.locations(definition(module, target), resolve, ls.positions) or None

    answer = _locations_answer(ls, params.position, definition)
    answered = await ls.request("definition", params.text_document.uri, answer, early)
    return None if answered is NOTHING else answered  # type: ignore[return-value]


@server.feature(types.TEXT_DOCUMENT_DECLARATION)
async def goto_declaration(ls: HloLanguageServer, params: types.DeclarationParams) -> list[types.Location] | None:
    return await _locations(ls, "declaration", params.text_document.uri, params.position, definition)


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
async def find_references(ls: HloLanguageServer, params: types.ReferenceParams) -> list[types.Location] | None:
    include = params.context.include_declaration
    answer = _locations_answer(ls, params.position, lambda module, target: references(module, target, include))
    return await ls.request("references", params.text_document.uri, answer)


async def _locations(ls: HloLanguageServer, name: str, uri: str, position: types.Position,
                     find: Callable[[ModuleDump, Target], list]) -> list[types.Location] | None:  # type: ignore[type-arg]
    return await ls.request(name, uri, _locations_answer(ls, position, find))


def _locations_answer(ls: HloLanguageServer, position: types.Position, find: Callable[[ModuleDump, Target], list]
                      ) -> Callable[[ModuleDump, Document], list[types.Location] | None]:  # type: ignore[type-arg]
    def answer(module: ModuleDump, document: Document) -> list[types.Location] | None:
        target = ls.target(module, document, position)
        if target is None:
            return None
        return convert.locations(find(module, target), ls.resolve, ls.positions)

    return answer


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
async def document_highlight(ls: HloLanguageServer,
                             params: types.DocumentHighlightParams) -> list[types.DocumentHighlight] | None:
    def answer(module: ModuleDump, document: Document) -> list[types.DocumentHighlight] | None:
        target = ls.target(module, document, params.position)
        if target is None:
            return None
        return [convert.highlight(found, ls.positions, document) for found in highlights(module, target)]

    return await ls.request("highlight", params.text_document.uri, answer)


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: HloLanguageServer, params: types.HoverParams) -> types.Hover | None:
    def answer(module: ModuleDump, document: Document) -> types.Hover | None:
        target = ls.target(module, document, params.position)
        info = hover(module, target) if target is not None else None
        return convert.hover(info, ls.positions, document, _markdown(ls)) if info is not None else None

    def early(glance: ModuleGlance, document: Document) -> types.Hover | _Nothing | None:
        found = ls.glanced_line(glance, document, params.position)
        if found is None:
            return None
        line, target = found
        surely = glance.reads_as_whole(line, params.position.line)
        if target is None or target.kind not in HOVERED_KINDS:  # blank space, punctuation, a table's name
            return NOTHING if surely else None
        if target.kind in glance.HOVER_KINDS:
            module = glance.module_at(line, params.position.line, target.kind, target.name)
            info = hover(module, target) if module is not None else None
        else:  # a shape says all about itself; a label of the peak's breakdown waits for the module
            info = module_free_hover(target) if surely else None
        return convert.hover(info, ls.positions, line, _markdown(ls)) if info is not None else None

    answered = await ls.request("hover", params.text_document.uri, answer, early)
    return None if answered is NOTHING else answered  # type: ignore[return-value]


def _markdown(ls: HloLanguageServer) -> bool:
    text_document = ls.client_capabilities.text_document
    formats = text_document.hover.content_format if text_document and text_document.hover else None
    return formats is None or types.MarkupKind.Markdown in formats


# ---- outline ------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: HloLanguageServer, params: types.DocumentSymbolParams
                    ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
    limit = ls.settings.outline_max_symbols
    totals: list[int] = []

    def answer(document: Document) -> Any:
        symbols, total = bounded_outline(document, limit)
        totals.append(total)
        if _hierarchical(ls):
            return [convert.document_symbol(symbol, ls.positions, document) for symbol in symbols]
        return convert.flat_symbols(symbols, params.text_document.uri, ls.positions, document)

    found = await ls.request_on_document("symbols", params.text_document.uri, answer)
    if totals and totals[0] > limit:
        _tell_once(ls, "outline", params.text_document.uri, limit, (
            f"The outline of {_file_name(params.text_document.uri)} lists {limit:,} of its {totals[0]:,} symbols "
            "(an HLO module's ENTRY computation first). The setting hlo.outline.maxSymbols sets how many."))
    return found


def _tell_once(ls: HloLanguageServer, answer: str, uri: str, bound: int, message: str) -> None:
    """Says once per answer, file and bound that the answer gives only part of what the file has."""
    if (answer, uri, bound) in ls.cuts_told:
        return
    ls.cuts_told.add((answer, uri, bound))
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Info, message))


def _file_name(uri: str) -> str:
    return uri.rsplit("/", 1)[-1]


def _hierarchical(ls: HloLanguageServer) -> bool:
    text_document = ls.client_capabilities.text_document
    symbols = text_document.document_symbol if text_document else None
    return bool(symbols and symbols.hierarchical_document_symbol_support)


@server.feature(types.WORKSPACE_SYMBOL)
async def workspace_symbol(ls: HloLanguageServer,
                           params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
    def answer() -> list[types.SymbolInformation]:
        found = workspace_symbols(ls.store.open_modules(), params.query)  # built off the loop
        return [convert.workspace_symbol(symbol, ls.resolve, ls.positions) for symbol in found]

    return await ls.in_worker(answer)


@server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
async def folding_range(ls: HloLanguageServer, params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
    text_document = ls.client_capabilities.text_document
    limit = text_document.folding_range.range_limit if text_document and text_document.folding_range else None
    totals: list[int] = []

    def answer(document: Document) -> list[types.FoldingRange]:
        folds, total = bounded_folds(document, limit)
        totals.append(total)
        return [convert.folding_range(fold) for fold in folds]

    found = await ls.request_on_document("folding", params.text_document.uri, answer)
    if limit is not None and totals and totals[0] > limit:
        _tell_once(ls, "folds", params.text_document.uri, limit, (
            f"{_file_name(params.text_document.uri)} has {totals[0]:,} folding regions; the editor takes "
            f"{limit:,}, the outermost are given (in VS Code: the setting editor.foldingMaximumRegions)."))
    return found


# ---- memory insight: inlay hints, code lenses, source links, call hierarchy, semantic tokens --------


@server.feature(types.INITIALIZE)
def initialize(ls: HloLanguageServer, params: types.InitializeParams) -> None:
    ls.settings.apply_initialization_options(params.initialization_options)
    threading.Thread(target=prepare_parser, name="prepare-parser", daemon=True).start()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: HloLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    """Applied before the next message is read (so the next request sees it); refreshing and pulling
    the section (VS Code's pull model sends no settings) wait for the client in the background."""
    if isinstance(params.settings, dict) and "hlo" in params.settings:
        if _changes_inlay_hints(ls, lambda: ls.settings.apply_settings(params.settings)):
            _in_background(_refresh_inlay_hints(ls))
    else:
        _in_background(_pull_settings(ls))


_background: set[asyncio.Task[None]] = set()


def _in_background(work: Any) -> None:
    task = asyncio.ensure_future(work)
    _background.add(task)
    task.add_done_callback(_background.discard)


async def _pull_settings(ls: HloLanguageServer) -> None:
    """Reads the client's `hlo` configuration section, if the client offers workspace/configuration."""
    workspace = ls.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    try:
        sections = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="hlo")]))
    except Exception as error:  # the client could not answer: keep the settings as they are
        log.info("workspace/configuration: %s", error)
        return
    if sections and _changes_inlay_hints(ls, lambda: ls.settings.apply_section(sections[0])):
        await _refresh_inlay_hints(ls)


def _changes_inlay_hints(ls: HloLanguageServer, apply: Callable[[], object]) -> bool:
    """Applies settings; whether the inlay hints' own setting changed (other settings need no refresh)."""
    hints = ls.settings.inlay_hints
    apply()
    return ls.settings.inlay_hints != hints


async def _refresh_inlay_hints(ls: HloLanguageServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace and workspace.inlay_hint and workspace.inlay_hint.refresh_support:
        try:
            await ls.workspace_inlay_hint_refresh_async(None)
        except Exception as error:
            log.info("workspace/inlayHint/refresh: %s", error)


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
async def inlay_hint(ls: HloLanguageServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
    if not ls.settings.inlay_hints:
        return []

    def answer(module: ModuleDump, document: Document) -> list[types.InlayHint]:
        visible = ls.positions.range_from_client(params.range, document)
        return [convert.inlay_hint(hint, ls.positions, document) for hint in inlay_hints(module, document, visible)]

    return await ls.request("inlay hints", params.text_document.uri, answer)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
async def code_lens(ls: HloLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    uri = params.text_document.uri
    return await ls.request("code lens", uri, lambda module, document: [
        convert.code_lens(lens, uri, ls.resolve, ls.positions, document)
        for lens in code_lenses(module, document, with_places=False)])


@server.feature(types.CODE_LENS_RESOLVE)
async def code_lens_resolve(ls: HloLanguageServer, params: types.CodeLens) -> types.CodeLens:
    """The command of a lens that lists places (its data: the document's URI and the lens' title),
    from the lenses of the document as it is now; a lens no longer there keeps its title alone."""
    data = params.data if isinstance(params.data, dict) else {}
    uri, title = data.get("uri"), data.get("title")
    if not isinstance(uri, str) or not isinstance(title, str):
        return params

    def answer(module: ModuleDump, document: Document) -> types.CodeLens | None:
        for lens in code_lenses(module, document):
            if lens.title == title and ls.positions.range_to_client(lens.range, document) == params.range:
                return convert.resolved_code_lens(lens, uri, ls.resolve, ls.positions, document)
        return None

    resolved = await ls.request("code lens", uri, answer)
    return resolved or types.CodeLens(range=params.range, command=types.Command(title=title, command=""))


@server.command(convert.SHOW_PEAK_BUFFERS)
def show_peak_buffers(ls: HloLanguageServer, *arguments: Any) -> Any:
    """The lens `N buffers live at peak` runs this with (uri, position, locations). Editors map it
    to their references list (VS Code: editor.action.showReferences); run here, it answers the
    locations it was given."""
    return arguments[2] if len(arguments) > 2 else []


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
async def document_link(ls: HloLanguageServer, params: types.DocumentLinkParams) -> list[types.DocumentLink] | None:
    finder = _source_finder(ls)
    text_document = ls.client_capabilities.text_document
    tooltips = bool(text_document and text_document.document_link and text_document.document_link.tooltip_support)

    def answer(module: ModuleDump, document: Document) -> list[types.DocumentLink]:
        links = document_links(module, document, finder.find)
        return [convert.document_link(link, ls.positions, document, tooltips) for link in links]

    return await ls.request("document links", params.text_document.uri, answer)


_finders: list[SourceFinder] = []


def _source_finder(ls: HloLanguageServer) -> SourceFinder:
    """One finder per set of workspace folders and root."""
    uris = [folder.uri for folder in ls.workspace.folders.values()] + (
        [ls.workspace.root_uri] if ls.workspace.root_uri else [])
    roots = tuple(dict.fromkeys(path for uri in uris if uri.startswith("file:") and (path := to_fs_path(uri))))
    candidate = SourceFinder(roots)
    if not _finders or _finders[0].roots != candidate.roots:
        _finders[:] = [candidate]
    return _finders[0]


@server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
async def prepare_call_hierarchy_items(ls: HloLanguageServer, params: types.CallHierarchyPrepareParams
                                       ) -> list[types.CallHierarchyItem] | None:
    def answer(module: ModuleDump, document: Document) -> list[types.CallHierarchyItem] | None:
        target = ls.target(module, document, params.position)
        items = prepare_call_hierarchy(module, target) if target is not None else []
        return [convert.call_hierarchy_item(item, ls.resolve, ls.positions) for item in items] or None

    return await ls.request("call hierarchy", params.text_document.uri, answer)


@server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)
async def call_hierarchy_incoming(ls: HloLanguageServer, params: types.CallHierarchyIncomingCallsParams
                                  ) -> list[types.CallHierarchyIncomingCall] | None:
    def answer(module: ModuleDump, document: Document) -> list[types.CallHierarchyIncomingCall]:
        return [convert.incoming_call(call, ls.resolve, ls.positions)
                for call in incoming_calls(module, params.item.name)]

    return await ls.request("incoming calls", params.item.uri, answer)


@server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)
async def call_hierarchy_outgoing(ls: HloLanguageServer, params: types.CallHierarchyOutgoingCallsParams
                                  ) -> list[types.CallHierarchyOutgoingCall] | None:
    def answer(module: ModuleDump, document: Document) -> list[types.CallHierarchyOutgoingCall]:
        return [convert.outgoing_call(call, document.source, ls.resolve, ls.positions)
                for call in outgoing_calls(module, params.item.name)]

    return await ls.request("outgoing calls", params.item.uri, answer)


SEMANTIC_TOKENS_LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES),
                                                    token_modifiers=list(TOKEN_MODIFIERS))
FULL_TOKENS_LINES = 150_000  # a longer file gets tokens by range only (the lines on screen)
# A screen up to this line gets its tokens from the lines above it while the whole file is scanned
# (tens of milliseconds instead of seconds at 40 MB).
EARLY_TOKENS_LINES = 20_000


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, SEMANTIC_TOKENS_LEGEND)
async def semantic_tokens_full(ls: HloLanguageServer, params: types.SemanticTokensParams
                               ) -> types.SemanticTokens | None:
    def answer(document: Document) -> types.SemanticTokens | None:
        if document.line_count > FULL_TOKENS_LINES:
            log.info("semantic tokens: %s has %d lines, answering range requests only",
                     document.source, document.line_count)
            return None
        return types.SemanticTokens(data=convert.semantic_tokens(semantic_tokens(document), ls.positions, document))

    return await ls.request_on_document("semantic tokens", params.text_document.uri, answer)


@server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, SEMANTIC_TOKENS_LEGEND)
async def semantic_tokens_range(ls: HloLanguageServer, params: types.SemanticTokensRangeParams
                                ) -> types.SemanticTokens | None:
    def answer(document: Document) -> types.SemanticTokens:
        lines = ls.positions.range_from_client(params.range, document)
        tokens = semantic_tokens(document, lines.start.line, lines.end.line)
        return types.SemanticTokens(data=convert.semantic_tokens(tokens, ls.positions, document))

    def early(document: Document) -> types.SemanticTokens | None:
        last = params.range.end.line
        top = document.first_lines(last + 1) if last < EARLY_TOKENS_LINES else None
        return answer(top) if top is not None else None

    return await ls.request_on_document("semantic tokens", params.text_document.uri, answer, early)


# ---- the memory timeline -------------------------------------------------------------------------

MEMORY_TIMELINE = "hlo.memoryTimeline"


@server.command(MEMORY_TIMELINE)
async def memory_timeline(ls: HloLanguageServer, *arguments: Any) -> dict[str, object] | None:
    """Argument: the URI of any file of a module (or `{"uri": ..., "space": "vmem"}`: a memory space by
    name or color, default the default space). Answer: the peak, the buffers live at it with the URI and
    range of their instruction, usage over the schedule, fragmentation, every space's figures and the SVG
    picture (features/memory_timeline.py); null when the module has no live ranges or no such space."""
    first = arguments[0] if arguments else None
    uri = first.get("uri") if isinstance(first, dict) else first
    space = first.get("space") if isinstance(first, dict) else None
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(f"{MEMORY_TIMELINE} takes the URI of a dump file, not {first!r}")

    def answer(module: ModuleDump, document: Document) -> dict[str, object] | None:
        color = next((known.color for known in module.memory_spaces if space in (known.name, known.color)),
                     None) if space is not None else None
        if space is not None and color is None:
            log.info("%s: no memory space %r in the module of %s", MEMORY_TIMELINE, space, uri)
            return None
        report = memory_report(module, color=color)
        if report is None:
            log.info("%s: no live ranges (or an unknown shape) in the module of %s", MEMORY_TIMELINE, uri)
            return None
        return report_json(report, lambda found: _location_json(ls, found), timeline_svg(report))

    return await ls.request("memory timeline", uri, answer)


def _location_json(ls: HloLanguageServer, found: Location) -> dict[str, object]:
    return convert.location_json(found, ls.resolve, ls.positions)


# The event loop shares the interpreter with the threads that read a module (seconds at 40 MB).
# At CPython's default of 5 ms between switches, each message an editor sends on opening a file
# waited about 50 ms behind them before it was even dispatched.
SWITCH_INTERVAL_SECONDS = 0.001


def run(tcp: tuple[str, int] | None = None) -> int:
    """Serves over stdio, or over TCP for debugging; returns the process status LSP asks for
    (1 when the client sent `exit` without `shutdown`)."""
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        server.start_io()
    return server.protocol.exit_status
