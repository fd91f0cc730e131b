"""The pygls server class: the session, the client's URIs and settings, worker threads, position conversion."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from hlo_lsp import __version__
from hlo_lsp.lsp import convert
from hlo_lsp.lsp.diagnostics import DiagnosticsPublisher
from hlo_lsp.lsp.folder_changes import FolderChanges
from hlo_lsp.lsp.protocol import HloProtocol
from hlo_lsp.lsp.settings import Settings
from hlo_lsp.lsp.uris import Uris
from hlo_lsp.session import Answer, Cursor, Document, Session, Span

log = logging.getLogger("hlo_lsp")
T = TypeVar("T")
# Opening a file, an editor asks half a dozen questions at once; while a large module is read they
# all wait for it, each in a thread: enough threads that a question about another file still gets one.
WORKER_THREADS = 32


class HloLanguageServer(LanguageServer):
    protocol: HloProtocol  # made by protocol_cls=HloProtocol below (pygls declares its base class)

    def __init__(self) -> None:
        super().__init__("hlo-lsp", __version__, protocol_cls=HloProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings()
        self.session = Session(self.settings.check_process_from)
        self.uris = Uris()
        self.diagnostics = DiagnosticsPublisher(self)
        self.folder_changes = FolderChanges(self)
        self.cuts_told: set[tuple[str, str, int]] = set()  # (answer, uri, bound) said to be cut
        self.background: set[asyncio.Task[None]] = set()  # tasks no request waits for
        self._workers = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="hlo-lsp")

    async def in_worker(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` in one of the server's worker threads, off the event loop: the loop keeps serving
        (edits, other files, `$/cancelRequest`, answered at once) while a module is read."""
        return await asyncio.get_running_loop().run_in_executor(self._workers, functools.partial(work, *args))

    async def ask(self, question: Callable[..., Any], uri: str, *args: Any, then: Callable[[Any], T]) -> T | None:
        """`then(question(source, document, *args))`: a question of the session about the document of `uri` as
        it is now (None when it is not open: read from disk), its answer converted by `then`."""
        source = self.uris.source_of(uri)
        return await self.answered(then, question, source, self.session.snapshot(source), *args)

    async def answered(self, then: Callable[[Any], T], question: Callable[..., Any], *args: Any) -> T | None:
        """`then(question(*args))` in a worker thread, None where the question finds nothing: an answer is
        converted there too (14,000 references, a file's tokens), never on the loop."""
        def work() -> T | None:
            found = question(*args)
            return None if found is None else then(found)

        return await self.in_worker(work)

    def in_background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    def workspace_roots(self) -> tuple[str, ...]:
        """The folders of the workspace (and its root) as paths: where the modules listed and searched are, and
        the Python files a dump names are looked for."""
        uris = [folder.uri for folder in self.workspace.folders.values()] + (
            [self.workspace.root_uri] if self.workspace.root_uri else [])
        return tuple(dict.fromkeys(path for uri in uris if uri.startswith("file:") and (path := to_fs_path(uri))))

    @property
    def positions(self) -> convert.Positions:
        return convert.Positions(self.workspace.position_encoding, self.workspace.position_codec)

    def cursor(self, position: types.Position) -> Cursor:
        return Cursor(position.line, functools.partial(self.positions.from_client, position))

    def span(self, client_range: types.Range) -> Span:
        return Span(client_range.start.line, client_range.end.line,
                    functools.partial(self.positions.range_from_client, client_range))

    def resolve(self, source: str) -> tuple[str, Document | None]:
        return self.uris.uri_of(source), self.session.document(source)

    def resolver(self, answer: Answer[Any]) -> convert.Resolver:
        """Where the places of `answer` are: their URIs, and the documents their columns refer to."""
        def resolve(source: str) -> tuple[str, Document | None]:
            document = answer.documents.get(source) or (
                answer.document if source == answer.document.source else self.session.document(source))
            return self.uris.uri_of(source), document

        return resolve

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("internal error: %r", error, exc_info=error)
