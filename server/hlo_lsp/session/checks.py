"""Where a module is checked: in the session's own process, or in the check process when it is large; whether a
check is still current."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hlo_lsp.analysis import run
from hlo_lsp.model.document import Document
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.model.priority import let_questions_first, stepping
from hlo_lsp.problems import Problem
from hlo_lsp.session.check_process import CheckProcess, CheckProcessUnavailable, Found
from hlo_lsp.session.compare import dump_bytes
from hlo_lsp.session.cursor import Cursor
from hlo_lsp.session.store import DocumentStore
from hlo_lsp.text import Range
from hlo_lsp.workspace.hlo_files import hlo_files
from hlo_lsp.workspace.loader import module_files

log = logging.getLogger(__name__)
FOLDER_ENTRIES_LOOKED_AT = 20_000  # for a module large enough to start the check process ahead (`start_ahead`)


@dataclass(frozen=True)
class Checked:
    """A check of the module of a file: its problems, the files they belong to, what was checked."""

    stem: str
    sources: frozenset[str]
    problems: list[Problem]
    modules: tuple[ModuleDump, ...]  # () when the check process made it
    basis: tuple[object, ...] = ()  # what it was made from then: the open files' versions, the disk's changes


class ModuleChecks:
    """The checks of a session's modules, and the check process they run in when large: the session changes its
    open files under `lock`, and tells this (`changed`, `closed`, `disk_changed`)."""

    def __init__(self, store: DocumentStore, process_from: int | None, beside: run.Beside | None = None) -> None:
        self._store = store
        self.beside = beside
        self._process_from = process_from
        self._process = CheckProcess(self._open_text)
        self.lock = self._process.lock
        self._disk_changes = 0

    @property
    def process_from(self) -> int | None:
        """A module's bytes from which it is checked in the check process (None: never, and none is kept started)."""
        return self._process_from

    @process_from.setter
    def process_from(self, size: int | None) -> None:
        self._process_from = size
        if size is None:
            with self.lock:
                self._process.stop_ahead()

    def start_ahead(self, folders: Sequence[str]) -> None:
        """Starts the check process before a check needs it when one of `folders` holds a module it would check."""
        threshold = self.process_from
        if threshold is None:
            return
        if any(file.size >= threshold for file in hlo_files(list(folders), FOLDER_ENTRIES_LOOKED_AT).files):
            with self.lock:
                if self.process_from is not None:
                    self._process.start_ahead()

    def _open_text(self, source: str) -> tuple[str, int | None] | None:
        opened = self._store.opened(source)
        return None if opened is None else (opened.document.text, opened.version)

    def changed(self, source: str, version: int | None, edit: Range | None, text: str) -> None:
        self._process.changed(source, version, edit, text)

    def closed(self, source: str) -> None:
        self._process.closed(source)

    def disk_changed(self, path: str) -> None:
        self._disk_changes += 1
        self._process.disk_changed(path)

    def check(self, source: str, report: Callable[[float], None],
              first: Callable[[Checked], None] | None = None) -> Checked | None:
        """The problems of the module of `source`, or of its two sides when its HLO file and its buffer assignment
        come from two compilations. `report` gets the share done and may raise `CheckCancelled`. `first` gets the
        HLO file's problems as soon as they are known (a Checked of that file alone), before the rest is read."""
        if self._in_check_process(source):
            try:
                return self._checked_by_process(source, report, first)
            except CheckProcessUnavailable as error:  # (checked here from now on)
                log.warning("no check process (%s): modules are checked in the server's process", error)
                self.process_from = None
        report = _rising(report)
        with stepping(lambda: report(0.0)):  # (the share told last, again: whether the check is still wanted)
            return self._checked_here(source, report, first)

    def _checked_here(self, source: str, report: Callable[[float], None],
                      first: Callable[[Checked], None] | None) -> Checked | None:
        hlo_file = self._hlo_file_first(source, report, first) if first is not None else None
        modules = self._store.checked_modules(source)
        if not modules:
            return None
        problems: list[Problem] = []
        for number, module in enumerate(modules):
            def part(done: float, number: int = number) -> None:
                let_questions_first()
                report((number + done) / len(modules))

            problems.extend(run.check_module(module.checked_part(), part, hlo_file, self.beside))
        sources = frozenset(document.source for module in modules for document in module.own_documents())
        return Checked(modules[0].stem, sources, problems, modules)

    def _hlo_file_first(self, source: str, report: Callable[[float], None],
                        first: Callable[[Checked], None]) -> tuple[Document, list[Problem]] | None:
        """The problems of the HLO file of the module of `source`, found before the module's buffer assignment is
        read (which says whether the two are one compilation's), and told to `first` while that file is still the
        one this session holds."""
        whole = self._store.whole_module(source)
        hlo = whole.hlo_document if whole is not None else None
        if whole is None or hlo is None:
            return None

        def part(done: float) -> None:
            let_questions_first()
            report(done)

        problems = run.hlo_file_problems(whole, part, self.beside)
        if self._store.document(hlo.source) is hlo:
            first(Checked(whole.stem, frozenset((hlo.source,)), problems, (whole,)))
        return hlo, problems

    def is_current(self, checked: Checked, source: str) -> bool:
        """Whether `checked` is still the check of the module of `source` (no edit made it stale)."""
        if not checked.modules:
            with self.lock:
                return self._basis(module_stem(source)) == checked.basis
        return self._store.checked_modules(source) == checked.modules

    def answered(self, question: str, document: Document, cursor: Cursor) -> tuple[bool, Any]:
        """`question` ("hover", "definition") at `cursor` in `document`, answered by the check process from the module
        it built: (whether it answered, the value of its answer or None). It answers about the open file as it is
        now, so `document` must be that; a module built here too (for a question the process is not asked) answers
        here, sooner."""
        source, stem = document.source, module_stem(document.source)
        with self.lock:
            opened = self._store.opened(source)
            if opened is None or opened.document is not document or not self._process.holds(source) \
                    or not self._process.answers(stem) or self._store.has_module(stem):
                return False, None
            asked = self._process.ask(question, source, cursor.position(document))
        return self._process.answer(asked) if asked is not None else (False, None)

    def answers(self, source: str) -> bool:
        """Whether the check process answers the questions about the module of `source`."""
        return self._process.answers(module_stem(source))

    def _in_check_process(self, source: str) -> bool:
        """Whether the module of `source` is checked in the check process: a large module that process holds, or
        that this one has not built (one built here is checked here, where an edit's check starts from the last)."""
        if self.process_from is None:
            return False
        stem = module_stem(source)
        opened = self._store.open_sources_of(stem)
        if any(self._process.holds(held) for held in opened):
            return True
        if not opened or self._store.has_module(stem):
            return False
        files = list(module_files(source).values()) if os.path.isabs(source) else []
        return dump_bytes(list({*files, *opened})) >= self.process_from

    def _checked_by_process(self, source: str, report: Callable[[float], None],
                            first: Callable[[Checked], None] | None) -> Checked | None:
        """The check of the module of `source` made by the check process, given the module's open files first."""
        stem = module_stem(source)
        with self.lock:
            for held in self._store.open_sources_of(stem):
                if not self._process.holds(held) and (opened := self._open_text(held)) is not None:
                    self._process.give(held, *opened)
            basis = self._basis(stem)

        def hlo_file_found(found: Found) -> None:
            if first is None:
                return
            with self.lock:
                current = self._basis(stem) == basis
            if current:
                first(Checked(found[0], found[1], found[2], (), basis))

        found = self._process.check(source, report, hlo_file_found)
        return None if found is None else Checked(found[0], found[1], found[2], (), basis)

    def _basis(self, stem: str) -> tuple[object, ...]:
        """What a check of the module `stem` starts from: its open files' versions, how many files changed on disk."""
        opened = [(held, self._store.opened(held)) for held in sorted(self._store.open_sources_of(stem))]
        return (self._disk_changes, *((held, found.document) for held, found in opened if found is not None))


def _rising(report: Callable[[float], None]) -> Callable[[float], None]:
    """`report`, told no share below one it was told before (the HLO file's part of a check, then each of the
    module's sides, each from its start)."""
    told = [0.0]

    def rising(done: float) -> None:
        told[0] = max(told[0], done)
        report(told[0])

    return rising
