"""A session's documents: open editor buffers, companion files read from disk, their modules.

An open buffer always wins over the file on disk. Companion files are read when
a module needs them and read again when their modification time or size changes
(or the client reports a change). Documents are immutable, so a request can keep
reading the module it got while an edit builds the next one. Modules are built in
worker threads (seconds for a 40 MB module): two threads asking for the same module
at once build it once. What a close lets go of (a gigabyte of objects for a 40 MB module) is freed in
a thread of its own, a piece at a time, so that the thread that closed it goes on at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import sys
import threading
from dataclasses import dataclass

from hlo_lsp import memos
from hlo_lsp.features.hover import prepare_hovers
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.model.glance import ModuleGlance
from hlo_lsp.model.pairing import paired_module
from hlo_lsp.model.priority import holding
from hlo_lsp.parsing.file_kinds import FileKind, detect_kind
from hlo_lsp.text import Range
from hlo_lsp.workspace.loader import module_files, read_document

log = logging.getLogger(__name__)


@dataclass
class OpenDocument:
    version: int | None
    document: Document


@dataclass
class _DiskDocument:
    stamp: tuple[float, int]
    document: Document


class DocumentStore:
    def __init__(self) -> None:
        self._open: dict[str, OpenDocument] = {}  # by source
        self._disk: dict[str, _DiskDocument] = {}  # by path
        # by stem: the documents' identities, the whole module, and its HLO and buffer-assignment sides
        self._modules: dict[str, tuple[tuple[int, ...], ModuleDump, tuple[ModuleDump, ModuleDump]]] = {}
        self._building: dict[str, threading.Lock] = {}  # by stem
        self._unsided: dict[str, tuple[tuple[int, ...], ModuleDump]] = {}  # by stem: `whole_module`'s, until built
        self._glances: dict[str, tuple[Document, ModuleGlance | None]] = {}  # by stem, until its module is built
        self._reading = threading.Lock()  # a file on disk is read once, whichever thread asks first
        self._releases = _Releases()

    # ---- open buffers -----------------------------------------------------------------

    def open(self, source: str, text: str, version: int | None) -> Document:
        document = Document(text, detect_kind(os.path.basename(source), text), source)
        self._open[source] = OpenDocument(version, document)
        return document

    def change(self, source: str, version: int | None, edit: Range | None, text: str,
               carry_glance: bool = True) -> Document | None:
        """Applies one content change (edit None: the whole text); `carry_glance`: the glance at its module is
        carried past it (else made again when next asked)."""
        opened = self._open.get(source)
        if opened is None:
            log.info("change for a document that is not open: %s", source)
            return None
        if edit is None:
            document = Document(text, opened.document.kind, opened.document.source)
        else:
            document = opened.document.apply_edit(edit, text)
        previous = opened.document
        opened.document, opened.version = document, version
        if edit is not None and carry_glance:
            self._carry_glance(previous, document, edit)
        elif self._glances.get(module_stem(source), (None,))[0] is previous:
            self._releases.hand_over([self._glances.pop(module_stem(source))], None)
        return document

    def _carry_glance(self, previous: Document, document: Document, edit: Range) -> None:
        """Keeps the glance at the module of `previous` for `document`, its edited version not scanned either:
        the next hovers read the indexes the last ones built, not the whole text again."""
        stem = module_stem(document.source)
        known = self._glances.get(stem)
        if known is None or known[0] is not previous or known[1] is None or document.unscanned_text() is None:
            return
        carried = known[1].after_edit(previous, document, edit)
        if carried is not None and self._worth_keeping({document.kind: document}):
            self._glances[stem] = (document, carried)

    def close(self, source: str) -> None:
        """Lets go of the open buffer of `source`, and of its module when no file of it is open any more;
        returns before they are freed (`wait_released`)."""
        dropped: list[object] = [self._open.pop(source, None)]
        stem, freed = module_stem(source), None
        if not self.open_sources_of(stem):
            dropped += self._forget(stem)
            freed = f"{os.path.basename(stem)} closed: its memory is given back"
        self._releases.hand_over(dropped, freed, idle=not self._open)

    def wait_released(self, timeout: float | None = None) -> bool:
        """Waits until what was let go of so far is freed; whether it is (False: `timeout` seconds passed)."""
        return self._releases.wait(timeout)

    def open_sources_of(self, stem: str) -> list[str]:
        """The open files of the module `stem`."""
        return [source for source in self._open if module_stem(source) == stem]

    def _forget(self, stem: str) -> list[object]:
        """No file of the module is open any more: its documents and models are let go (a 40 MB
        module holds a gigabyte), and returned to be freed; opening it again reads it again. Files
        another open module reads (the companions an `after_codegen` module borrows) are kept."""
        dropped: list[object] = [self._modules.pop(stem, None), self._glances.pop(stem, None),
                                 self._unsided.pop(stem, None)]
        still_read = {document.source for _, module, _ in self._modules.values() for document in module.all_documents()}
        for path in [path for path in self._disk
                     if path not in still_read and not self.open_sources_of(module_stem(path))]:
            dropped.append(self._disk.pop(path, None))
        return dropped

    def opened(self, source: str) -> OpenDocument | None:
        return self._open.get(source)

    def open_documents(self) -> list[OpenDocument]:
        return list(self._open.values())

    def version_of(self, source: str) -> int | None:
        opened = self._open.get(source)
        return opened.version if opened is not None else None

    def is_open(self, source: str) -> bool:
        return source in self._open

    # ---- documents and modules ------------------------------------------------------

    def document(self, source: str) -> Document | None:
        opened = self._open.get(source)
        if opened is not None:
            return opened.document
        return self._from_disk(source, None)

    def forget_disk(self, path: str) -> None:
        """The file changed on disk: read it again when next needed (a glance read its old text too,
        and so may the glance of another stage of its compilation)."""
        dropped: list[object] = [self._disk.pop(path, None), list(self._glances.values())]
        self._glances.clear()
        self._releases.hand_over(dropped, None)

    def module_of(self, source: str) -> ModuleDump | None:
        """The module of `source`, with its companions (open buffers first, then disk)."""
        document = self.document(source)
        return self.module_with(document) if document is not None else None

    def module_with(self, document: Document) -> ModuleDump:
        """The module of `document` (the version a request was made against), with its companions."""
        return self._built(document)[0 if document.kind is FileKind.HLO_MODULE else 1]

    def has_module(self, stem: str) -> bool:
        """Whether the module `stem` is built and kept (a question needed it whole, or a check here made it)."""
        return stem in self._modules

    def checked_modules(self, source: str) -> tuple[ModuleDump, ...]:
        """What a check of the module of `source` covers: the module, or, when its HLO file and its
        buffer assignment come from two compilations, each side on its own (each file's problems
        are published whatever the pairing decides)."""
        document = self.document(source)
        if document is None:
            return ()
        hlo_side, buffers_side = self._built(document)
        return (hlo_side,) if hlo_side is buffers_side else (hlo_side, buffers_side)

    def whole_module(self, source: str) -> ModuleDump | None:
        """The module of `source` with every file of it, before it is read: whether its HLO file and its buffer
        assignment are one compilation's is not decided yet (`checked_modules` decides it, from this module:
        what was read of it is kept)."""
        document = self.document(source)
        if document is None:
            return None
        stem = module_stem(document.source)
        with holding(self._building.setdefault(stem, threading.Lock())):
            documents = self._companions(document)
            key, cached = _key(documents), self._modules.get(stem)
            if cached is not None and cached[0] == key:
                return cached[1]
            module = self._unread(stem, documents, key, cached)
            if self._worth_keeping(documents):
                self._unsided[stem] = (key, module)
            return module

    def _built(self, document: Document) -> tuple[ModuleDump, ModuleDump]:
        """The module of `document` as seen from its HLO file and from its buffer-assignment files."""
        stem = module_stem(document.source)
        with holding(self._building.setdefault(stem, threading.Lock())):
            return self._module(stem, self._companions(document))

    def glance(self, document: Document) -> ModuleGlance | None:
        """A glance at the module of `document` while the module is not built yet (None once it is,
        or when the text of one of its files is already scanned)."""
        if document.kind not in ModuleGlance.CURSOR_KINDS:
            return None
        stem = module_stem(document.source)
        built = self._modules.get(stem)
        if built is not None and built[1].documents.get(document.kind) is document:
            return None
        known = self._glances.get(stem)
        if known is not None and known[0] is document:
            return known[1]
        glance = ModuleGlance.of(stem, self._companions(document, ModuleGlance.KINDS | {document.kind}))
        if self._worth_keeping({document.kind: document}):
            self._glances[stem] = (document, glance)
        return glance

    def _companions(self, document: Document, kinds: frozenset[FileKind] | None = None) -> dict[FileKind, Document]:
        """The module's files (of `kinds`, default all): open buffers first, then disk."""
        documents = {document.kind: document}
        if os.path.isabs(document.source):
            for kind, path in module_files(document.source).items():
                if kind not in documents and (kinds is None or kind in kinds):
                    companion = self.document(path) if path in self._open else self._from_disk(path, kind)
                    if companion is not None and companion.kind is kind:
                        documents[kind] = companion
        return documents

    def _module(self, stem: str, documents: dict[FileKind, Document]) -> tuple[ModuleDump, ModuleDump]:
        key = _key(documents)
        cached = self._modules.get(stem)
        if cached is None or cached[0] != key:
            module = self._unread(stem, documents, key, cached)
            try:
                built = (key, module, _sides(module))
                keep = self._worth_keeping(documents)
                if keep:
                    prepare_hovers(module)
            except BaseException:  # a check stopped while it read the module (an edit, say): the next starts from it
                if self._any_open(documents):
                    self._unsided.setdefault(stem, (key, module))
                raise
            if keep:
                self._modules[stem] = built
                self._glances.pop(stem, None)
            cached = built
        return cached[2]

    def _unread(self, stem: str, documents: dict[FileKind, Document], key: tuple[int, ...],
                cached: tuple[tuple[int, ...], ModuleDump, tuple[ModuleDump, ModuleDump]] | None) -> ModuleDump:
        """The module of `documents`, sides not decided: the one `whole_module` made of them, or a new one that
        keeps what was read of the files it shares with the last one made (`whole_module`'s, which a check stopped
        before it was built may have read much of, or the module built last)."""
        unsided = self._unsided.pop(stem, None)
        if unsided is not None and unsided[0] == key:
            return unsided[1]
        borrowed = frozenset(kind for kind, document in documents.items()
                             if kind is not FileKind.HLO_MODULE and module_stem(document.source) != stem)
        last = unsided[1] if unsided is not None else cached[1] if cached is not None else None
        return ModuleDump(stem, dict(documents), borrowed) if last is None else last.updated(dict(documents), borrowed)

    def _worth_keeping(self, documents: dict[FileKind, Document]) -> bool:
        """Whether a module just built is kept for the next request: not when it was asked for an
        older version of an open file, nor when none of its files is open (closed while it was read)."""
        opened = self._open
        current = all(document.source not in opened or opened[document.source].document is document
                      for document in documents.values())
        return current and self._any_open(documents)

    def _any_open(self, documents: dict[FileKind, Document]) -> bool:
        return any(document.source in self._open for document in documents.values())

    def open_modules(self) -> list[ModuleDump]:
        modules: dict[int, ModuleDump] = {}
        for source in list(self._open):
            module = self.module_of(source)
            if module is not None:
                modules.setdefault(id(module), module)
        return list(modules.values())

    def _from_disk(self, path: str, kind: FileKind | None) -> Document | None:
        try:
            status = os.stat(path)
        except OSError:
            self._disk.pop(path, None)
            return None
        stamp = (status.st_mtime, status.st_size)
        read = self._already_read(path, stamp)  # (a glance's hover does not wait while another file is read)
        if read is not None:
            return read
        with self._reading:  # (another thread may have read it meanwhile)
            return self._already_read(path, stamp) or self._read_from_disk(path, kind, stamp)

    def _already_read(self, path: str, stamp: tuple[float, int]) -> Document | None:
        """The document read from `path` when the file has not changed since (None: to be read)."""
        cached = self._disk.get(path)
        return cached.document if cached is not None and cached.stamp == stamp else None

    def _read_from_disk(self, path: str, kind: FileKind | None, stamp: tuple[float, int]) -> Document | None:
        document, problems = read_document(path, kind)
        for problem in problems:
            log.info("%s: %s", path, problem.message)
        if document is None:
            return None
        self._disk[path] = _DiskDocument(stamp, document)
        return document


def _key(documents: dict[FileKind, Document]) -> tuple[int, ...]:
    """The identities of a module's documents, in the order of their kinds."""
    return tuple(id(documents[kind]) for kind in sorted(documents, key=lambda k: k.value))


def _sides(module: ModuleDump) -> tuple[ModuleDump, ModuleDump]:
    """The module as seen from its HLO file and from its buffer-assignment files: the same
    module, unless the two come from different compilations; then each side leaves the
    other out."""
    hlo, buffers = module.hlo, module.buffer_assignment
    if hlo is None or buffers is None or paired_module(hlo, buffers) is not None:
        return module, module
    log.info("%s does not match its buffer assignment: not paired", hlo.document.source)
    documents = module.documents
    hlo_side = {kind: doc for kind, doc in documents.items() if not kind.is_buffer_assignment_family}
    buffers_side: dict[FileKind, Document] = {kind: doc for kind, doc in documents.items()
                                              if kind is not FileKind.HLO_MODULE}
    return (ModuleDump(module.stem, hlo_side, module.borrowed & frozenset(hlo_side)),
            ModuleDump(module.stem, buffers_side, module.borrowed & frozenset(buffers_side)))


class _Releases:
    """What the store let go of, each lot freed in a thread of its own (`_free`); the threads still freeing."""

    def __init__(self) -> None:
        self._running: list[threading.Thread] = []
        self._lock = threading.Lock()

    def hand_over(self, objects: list[object], freed: str | None, idle: bool = False) -> None:
        """Frees `objects` (the caller keeps no reference to them) in a new thread, then logs `freed`; `idle`:
        nothing is open any more, the memos are forgotten too."""
        thread = threading.Thread(target=_free, args=(objects, freed, idle), name="hlo-lsp-release", daemon=True)
        with self._lock:
            self._running = [running for running in self._running if running.is_alive()] + [thread]
        thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        with self._lock:
            running = list(self._running)
        for thread in running:
            thread.join(timeout)
        return not any(thread.is_alive() for thread in running)


# Freeing a 40 MB module's ten million objects at once keeps the interpreter for half a second (over one
# with the system allocator), in one call nothing interrupts: they are freed a piece at a time instead, the
# interpreter passing to other threads between pieces. An object's share of the whole is split evenly
# among the objects it refers to, and a piece whose share is below _PIECE is freed at once (a chunk of
# a document's lines: a few ms), without the cost of taking every object apart in Python (5 s).
_WHOLE, _PIECE = float(1 << 24), 4096.0


def _free(objects: list[object], freed: str | None, idle: bool = False) -> None:
    """Frees `objects` a piece at a time: an object no one else refers to is taken apart, what it refers
    to kept here for a moment so that letting it go frees it alone. Nothing is changed: shared objects
    are only let go. `idle`: the memos are forgotten too (`hlo_lsp.memos`)."""
    pending = [(root, _WHOLE) for root in objects if root is not None]
    objects.clear()
    tracked = gc.is_tracked  # (what the collector does not track holds nothing that holds others)
    while pending:
        item, share = pending.pop()
        if share > _PIECE and sys.getrefcount(item) <= 2:  # held by `item` and the call alone
            parts = [part for part in gc.get_referents(item) if tracked(part)]
            pending += [(part, share / len(parts)) for part in parts]
            del parts
        del item
    if idle:
        memos.forget()
    if gc.isenabled():  # (measured: 20 MB less after a 40 MB module, in milliseconds; not while a module is
        gc.collect()    # built, its collector paused: the collection would walk all it has built so far)
    _give_memory_back()
    if freed is not None:
        log.info(freed)


def _give_memory_back() -> None:
    """What a closed module freed stays with the allocators; glibc hands its free pages back to the system
    when asked (all of them under PYTHONMALLOC=malloc: CPython's own allocator keeps each 1 MB arena in
    which any object still lives). Elsewhere there is nothing to ask."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)
