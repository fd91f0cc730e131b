"""The engine's facade: a Session holds the documents a client has open (or a script reads), builds their
modules, checks them, and answers every question an editor asks, in the engine's own records; it reads dump
folders from disk for a script or the CLI, and answers what they ask of each module.

Protocol-free: the language server converts requests in and answers out (`hlo_lsp.lsp`). Calls block (the
server makes them in worker threads). A question is asked of the document as it was when the question came
(`snapshot`); a file not open is read from disk. Until a module is built, hover and definition are answered
from a glance at the module's text (`glance_answers`), while indexing steps aside.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from hlo_lsp.analysis import run
from hlo_lsp.features.call_hierarchy import Call, CallItem, incoming_calls, outgoing_calls, prepare_call_hierarchy
from hlo_lsp.features.code_lens import Lens, code_lenses
from hlo_lsp.features.compare_svg import compare_svg
from hlo_lsp.features.definition import definition
from hlo_lsp.features.folding import bounded_folds
from hlo_lsp.features.hover import hover
from hlo_lsp.features.inlay_hints import InlayHint, inlay_hints
from hlo_lsp.features.links import Link, document_links
from hlo_lsp.features.memory_compare import Comparison, ModuleChange
from hlo_lsp.features.memory_svg import timeline_svg
from hlo_lsp.features.memory_timeline import MemoryReport
from hlo_lsp.features.module_list import ModuleList
from hlo_lsp.features.references import highlights, references
from hlo_lsp.features.semantic_tokens import Token, semantic_tokens
from hlo_lsp.features.symbols import bounded_outline
from hlo_lsp.features.targets import target_at
from hlo_lsp.features.types import Fold, Highlight, HoverInfo, Location, Symbol, Target, WorkspaceSymbol
from hlo_lsp.features.workspace_symbols import LIMIT, workspace_symbols
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump
from hlo_lsp.model.glance import ModuleGlance
from hlo_lsp.model.priority import answering
from hlo_lsp.parsing.hlo_syntax import prepare_parser
from hlo_lsp.problems import Problem
from hlo_lsp.session.checks import Checked, ModuleChecks
from hlo_lsp.session.compare import compare_dumps
from hlo_lsp.session.cursor import Cursor, Span
from hlo_lsp.session.folder_symbols import FolderSymbols
from hlo_lsp.session.glance_answers import NOTHING, Answer, glance_definition, glance_hover
from hlo_lsp.session.memory import Memory, MemoryTimeline, module_memory, module_timeline
from hlo_lsp.session.module_listing import ListedModules
from hlo_lsp.session.store import DocumentStore
from hlo_lsp.text import Range
from hlo_lsp.workspace.loader import LoadedDump, load
from hlo_lsp.workspace.sources import SourceFinder

log = logging.getLogger("hlo_lsp")
T = TypeVar("T")
FULL_TOKENS_LINES = 150_000  # a longer file gets tokens by range only (the lines on screen)
# A screen up to this line gets its tokens from the lines above it while the whole file is scanned
# (tens of milliseconds instead of seconds at 40 MB).
EARLY_TOKENS_LINES = 20_000


class Session:
    def __init__(self, check_process_from: int | None = None, beside: run.Beside | None = None) -> None:
        """`beside`: where part of a large HLO file's check runs meanwhile (`ForkedPart`, in the CLI)."""
        self.store = DocumentStore()
        self._checks = ModuleChecks(self.store, check_process_from, beside)
        self._finder = SourceFinder(())
        self.folder_symbols = FolderSymbols()  # the workspace folders' modules, indexed for workspace symbols
        self._listed = ListedModules()  # dump folders' rows, kept while their files' sizes and mtimes stay

    @property
    def check_process_from(self) -> int | None:
        """The bytes of a module's files from which it is checked in a process of its own (None: never)."""
        return self._checks.process_from

    @check_process_from.setter
    def check_process_from(self, size: int | None) -> None:
        self._checks.process_from = size

    def prepare(self, folders: Sequence[str]) -> None:
        """In threads: makes the grammar's parser (the first hover needs it), and starts the check process when one
        of `folders` holds a module it would check (`ModuleChecks.start_ahead`, which lists their files)."""
        threading.Thread(target=prepare_parser, name="prepare-parser", daemon=True).start()
        threading.Thread(target=self._checks.start_ahead, args=(folders,), name="checks-ahead", daemon=True).start()

    # ---- documents ----------------------------------------------------------------------

    def open(self, source: str, text: str, version: int | None) -> None:
        with self._checks.lock:
            self.store.open(_source(source), text, version)

    def change(self, source: str, version: int | None, edit: Range | None, text: str) -> None:
        """One content change of an open file (edit None: the whole text)."""
        source = _source(source)
        with self._checks.lock:  # (a module the check process answers for needs no glance, and no text spliced now)
            self.store.change(source, version, edit, text, carry_glance=not self._checks.answers(source))
            self._checks.changed(source, version, edit, text)

    def close(self, source: str) -> None:
        with self._checks.lock:
            self.store.close(_source(source))
            self._checks.closed(_source(source))

    def file_changed(self, path: str) -> None:
        """A file changed on disk: read again when next needed (indexed again for workspace symbols)."""
        with self._checks.lock:
            self.store.forget_disk(_source(path))
            self._checks.disk_changed(_source(path))
        self.folder_symbols.file_changed(_source(path))

    def snapshot(self, source: str) -> Document | None:
        """The open document of `source` as it is now (None: not open)."""
        opened = self.store.opened(_source(source))
        return opened.document if opened is not None else None

    def document(self, source: str) -> Document | None:
        """The open document, else the file read from disk."""
        return self.store.document(_source(source))

    def is_open(self, source: str) -> bool:
        return self.store.is_open(source)

    def version_of(self, source: str) -> int | None:
        return self.store.version_of(source)

    def open_sources(self) -> list[str]:
        return [opened.document.source for opened in self.store.open_documents()]

    def open_sources_of(self, stem: str) -> list[str]:
        """The open files of the module `stem`."""
        return self.store.open_sources_of(stem)

    # ---- checks -------------------------------------------------------------------------

    def check(self, source: str, report: Callable[[float], None] = lambda done: None,
              first: Callable[[Checked], None] | None = None) -> Checked | None:
        """The problems of the module of `source` (or of its two sides: see ModuleChecks.check), a large one's made in
        the check process (`check_process_from`). `report` gets the share done and may raise `CheckCancelled`; `first`
        gets the HLO file's problems (a Checked of that file alone) once they are known, before the rest."""
        return self._checks.check(_source(source), report, first)

    def is_current(self, checked: Checked, source: str) -> bool:
        """Whether `checked` is still the check of the module of `source` (no edit made it stale)."""
        return self._checks.is_current(checked, _source(source))

    # ---- dumps read from disk -----------------------------------------------------------

    @staticmethod
    def read(paths: Sequence[str]) -> LoadedDump:
        """Every dump file under `paths` (files or folders: an `--xla_dump_to` folder) grouped by module, with
        the problems of the files that cannot be read; a file named alone brings its module's other files.
        Read now and not kept: the session's own documents are the open files."""
        return load(list(paths))

    def check_module(self, module: ModuleDump) -> list[Problem]:
        """Every problem of a module `read` found (a check that fails becomes a warning: this never raises)."""
        return run.check_module(module, beside=self._checks.beside)

    @staticmethod
    def memory(module: ModuleDump, space: object = None) -> Memory | None:
        """The memory of a module `read` found, in the space `space` (a name as the memory-usage report gives
        it, or a color; None: the default space); None without a buffer assignment or such a space."""
        return module_memory(module, space)

    @staticmethod
    def compare(a: Sequence[str], b: Sequence[str]) -> Comparison:
        """What grew from dump `a` to dump `b` (each: folders, or any file of a module), read from disk: their
        modules with memory paired by name, each pair's peaks and the buffers live at them matched."""
        return compare_dumps(a, b)

    def list_modules(self, paths: Sequence[str], sort: str = "peak",
                     report: Callable[[float], None] = lambda done: None) -> ModuleList:
        """One row per compilation under `paths` (dump folders), read from disk: its files, HLO size, peak in
        each memory space, allocated bytes and instructions; sorted by `sort` (peak, name or size). A compilation
        whose files kept their sizes and mtimes since this session last listed it is not read again; `report` is
        told the share of compilations done."""
        return self._listed.rows(list(paths), sort, report)

    @staticmethod
    def compare_svg(change: ModuleChange) -> str:
        """A pair compared as an SVG picture: both timelines on one scale, and the buffers that changed most."""
        return compare_svg(change)

    @staticmethod
    def memory_svg(report: MemoryReport) -> str:
        """The memory timeline of `report` as an SVG picture."""
        return timeline_svg(report)

    # ---- questions about a place --------------------------------------------------------

    def hover(self, source: str, snapshot: Document | None, cursor: Cursor) -> Answer[HoverInfo] | None:
        document = self._asked("hover", source, snapshot)
        if document is None:
            return None
        answered, info = self._checks.answered("hover", document, cursor)  # (a module checked there is built there)
        if answered:
            return Answer(info, document) if info is not None else None
        early = self._at_a_glance("hover", document, cursor, glance_hover)
        if early is not None:
            return None if early is NOTHING else early
        module, target = self._module_and_target(document, cursor)
        with answering():
            info = hover(module, target) if target is not None else None
        return Answer(info, document) if info is not None else None

    def definition(self, source: str, snapshot: Document | None, cursor: Cursor,
                   at_a_glance: bool = True) -> Answer[list[Location]] | None:
        document = self._asked("definition", source, snapshot)
        if document is None:
            return None
        answered, places = self._checks.answered("definition", document, cursor)
        if answered:
            return Answer(places, document) if places is not None else None
        if at_a_glance:
            early = self._at_a_glance("definition", document, cursor, glance_definition)
            if early is not None:
                return None if early is NOTHING else early
        return self._places(document, cursor, definition)

    def references(self, source: str, snapshot: Document | None, cursor: Cursor,
                   include_declaration: bool) -> Answer[list[Location]] | None:
        document = self._asked("references", source, snapshot)
        if document is None:
            return None
        return self._places(document, cursor, lambda module, target: references(module, target, include_declaration))

    def highlights(self, source: str, snapshot: Document | None, cursor: Cursor) -> Answer[list[Highlight]] | None:
        document = self._asked("highlight", source, snapshot)
        return self._places(document, cursor, highlights) if document is not None else None

    def call_items(self, source: str, snapshot: Document | None, cursor: Cursor) -> Answer[list[CallItem]] | None:
        document = self._asked("call hierarchy", source, snapshot)
        return self._places(document, cursor, prepare_call_hierarchy) if document is not None else None

    def _places(self, document: Document, cursor: Cursor, find: Callable[[ModuleDump, Target], list[T]]
                ) -> Answer[list[T]] | None:
        module, target = self._module_and_target(document, cursor)
        if target is None:
            return None
        with answering():
            return Answer(find(module, target), document)

    def _module_and_target(self, document: Document, cursor: Cursor) -> tuple[ModuleDump, Target | None]:
        """The module of `document`, built first if it must be (while the checks run on: a question that
        waits for a module must not make the thread building it wait), and what the cursor is on."""
        module = self.store.module_with(document)
        target = target_at(document, cursor.position(document))
        if target is None:
            log.info("nothing to resolve at %s:%d", document.source, cursor.line + 1)
        return module, target

    # ---- questions about a module -------------------------------------------------------

    def calls(self, source: str, name: str, incoming: bool) -> Answer[list[Call]] | None:
        """The calls of the computation `name` (in the module of `source`): its callers, or its callees."""
        document = self._asked("calls", source, None)
        if document is None:
            return None
        module = self.store.module_with(document)
        return Answer((incoming_calls if incoming else outgoing_calls)(module, name), document)

    def inlay_hints(self, source: str, snapshot: Document | None, visible: Span) -> Answer[list[InlayHint]] | None:
        document = self._asked("inlay hints", source, snapshot)
        if document is None:
            return None
        module = self.store.module_with(document)
        with answering():
            return Answer(inlay_hints(module, document, visible.range_in(document)), document)

    def code_lenses(self, source: str, snapshot: Document | None, with_places: bool) -> Answer[list[Lens]] | None:
        document = self._asked("code lens", source, snapshot)
        if document is None:
            return None
        module = self.store.module_with(document)
        with answering():
            return Answer(code_lenses(module, document, with_places=with_places), document)

    def lens(self, source: str, title: str, where: Span) -> Answer[Lens] | None:
        """The lens titled `title` at `where` with its places, from the lenses of the file as it is now."""
        found = self.code_lenses(source, self.snapshot(source), with_places=True)
        if found is None:
            return None
        place = where.range_in(found.document)
        lens = next((lens for lens in found.value if lens.title == title and lens.range == place), None)
        return Answer(lens, found.document) if lens is not None else None

    def links(self, source: str, snapshot: Document | None, roots: tuple[str, ...]) -> Answer[list[Link]] | None:
        """The source links of a file; Python files are looked for under `roots` (the workspace folders)."""
        document = self._asked("document links", source, snapshot)
        if document is None:
            return None
        candidate = SourceFinder(roots)
        if candidate.roots != self._finder.roots:  # one finder, and what it found, per set of folders
            self._finder = candidate
        return Answer(document_links(self.store.module_with(document), document, self._finder.find), document)

    def memory_timeline(self, source: str, space: object = None) -> MemoryTimeline | None:
        """The memory timeline of the module of `source` (`space`: a memory space by name or color, default the
        default space) and its picture; None without live ranges or such a space."""
        document = self._asked("memory timeline", source, self.snapshot(source))
        if document is None:
            return None
        timeline = module_timeline(self.store.module_with(document), space)
        if timeline is None:
            log.info("memory timeline: no live ranges (or an unknown shape) or no memory space %r in the module "
                     "of %s", space, source)
        return timeline

    def workspace_symbols(self, query: str, roots: Sequence[str] = ()) -> list[WorkspaceSymbol]:
        """The computations and instructions (and the allocations of open modules) whose name holds `query`, of
        every open module and of the HLO module files under `roots` (the workspace folders) that are not open:
        those indexed so far (`folder_symbols`: in the background, from the first question on)."""
        modules = self.store.open_modules()
        opened = {module.hlo_document.source for module in modules if module.hlo_document is not None}
        indexes = self.folder_symbols.indexes([_source(root) for root in roots], leave_out=opened)
        with answering():
            on_disk = [index.search(query, LIMIT, len(modules) + number) for number, index in enumerate(indexes)]
            return workspace_symbols(modules, query, LIMIT, on_disk)

    # ---- questions about a file's text alone ----------------------------------------------

    def outline(self, source: str, snapshot: Document | None, limit: int) -> Answer[tuple[list[Symbol], int]] | None:
        """At most `limit` symbols of the file (the ENTRY computation's first) and how many it has."""
        document = self._asked("symbols", source, snapshot)
        return Answer(bounded_outline(document, limit), document) if document is not None else None

    def folds(self, source: str, snapshot: Document | None, limit: int | None) -> Answer[tuple[list[Fold], int]] | None:
        """At most `limit` folding ranges (the outermost first) and how many the file has."""
        document = self._asked("folding", source, snapshot)
        return Answer(bounded_folds(document, limit), document) if document is not None else None

    def tokens(self, source: str, snapshot: Document | None,
               lines: Span | None = None) -> Answer[Iterable[Token]] | None:
        """The semantic tokens of the file (read as they are taken: a whole file's are not held at once), or of
        the lines `lines` gives (a screen near the top: from the lines above it while the file is scanned).
        None for a whole file too long to send."""
        document = self._asked("semantic tokens", source, snapshot)
        if document is None:
            return None
        if lines is None:
            if document.line_count > FULL_TOKENS_LINES:
                log.info("semantic tokens: %s has %d lines, answering range requests only",
                         document.source, document.line_count)
                return None
            return Answer(semantic_tokens(document), document)

        def screen(document: Document) -> Answer[Iterable[Token]]:
            wanted = lines.range_in(document)
            return Answer(list(semantic_tokens(document, wanted.start.line, wanted.end.line)), document)

        def early() -> Answer[Iterable[Token]] | None:
            top = document.first_lines(lines.end + 1) if lines.end < EARLY_TOKENS_LINES else None
            return screen(top) if top is not None else None

        return self._sooner("semantic tokens", document, early) or screen(document)

    # ---- how a question is asked --------------------------------------------------------

    def _asked(self, name: str, source: str, snapshot: Document | None) -> Document | None:
        """The document a question is about: the open one as it was asked, or the file read from disk;
        None (logged) when there is neither."""
        document = snapshot or self.store.document(_source(source))
        if document is None:
            log.info("%s: unknown document %s", name, source)
        return document

    def _at_a_glance(self, name: str, document: Document, cursor: Cursor,
                     answer: Callable[[ModuleGlance, Document, Cursor], T]) -> T | None:
        """`answer` from a glance at the module of `document` while it is not built (None: no glance, or the
        glance cannot tell), while indexing steps aside."""
        def from_glance() -> T | None:
            glance = self.store.glance(document)
            return answer(glance, document, cursor) if glance is not None else None

        return self._sooner(name, document, from_glance)

    @staticmethod
    def _sooner(name: str, document: Document, attempt: Callable[[], T]) -> T | None:
        """`attempt()` while indexing steps aside; None when it cannot answer or fails (the scanned
        document or the built module still answers: this only answers sooner)."""
        try:
            with answering():
                return attempt()
        except Exception:
            log.exception("%s: answering early at %s failed", name, document.source)
            return None


def _source(source: str) -> str:
    """The engine's name for a file: its absolute path (a script may name it relative to where it runs; a
    module's companions are found beside an absolute path). A URI other than a file's stays as it is."""
    if os.path.isabs(source) or _URI.match(source):
        return source
    return os.path.abspath(source)


_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]+:")  # (a scheme of two letters or more: not a drive letter)
