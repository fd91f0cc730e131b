"""Publishes each module's problems to every file of the module, debounced, computed off the loop."""

from __future__ import annotations

import asyncio
import logging
import os
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

from hlo_lsp.analysis.run import CheckCancelled, check_module
from hlo_lsp.lsp import convert
from hlo_lsp.lsp.progress import ProgressBar
from hlo_lsp.model.dump_module import ModuleDump, module_stem
from hlo_lsp.problems import Problem

if TYPE_CHECKING:
    from hlo_lsp.lsp.server import HloLanguageServer

log = logging.getLogger(__name__)
DEBOUNCE_SECONDS = 0.3
PROGRESS_AFTER_SECONDS = 0.2


class DiagnosticsPublisher:
    def __init__(self, server: HloLanguageServer) -> None:
        self._server = server
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._published: dict[str, set[str]] = defaultdict(set)  # stem -> sources given diagnostics

    def schedule(self, source: str, delay: float = DEBOUNCE_SECONDS) -> None:
        """Checks the module of `source` after `delay` seconds without a newer request."""
        stem = module_stem(source)
        pending = self._pending.pop(stem, None)
        if pending is not None:
            pending.cancel()
        self._pending[stem] = asyncio.ensure_future(self._check_later(source, delay))

    def closed(self, source: str) -> None:
        """After a close: recheck the module if a file of it is still open, else clear its diagnostics."""
        stem = module_stem(source)
        still_open = self._server.store.open_sources_of(stem)
        if still_open:
            self.schedule(still_open[0])
            return
        pending = self._pending.pop(stem, None)
        if pending is not None:
            pending.cancel()
        for cleared in self._published.pop(stem, set()):
            self._send(cleared, [])

    async def _check_later(self, source: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        progress = ProgressBar(self._server, f"Checking {os.path.basename(module_stem(source))}")
        checking = asyncio.ensure_future(self._server.in_worker(self._check, source, progress.report))
        try:
            # A re-check after an edit takes milliseconds: a bar is shown only for work that lasts.
            done, _ = await asyncio.wait({checking}, timeout=PROGRESS_AFTER_SECONDS)
            if not done:
                await progress.begin()
            checked = await checking
        except asyncio.CancelledError:  # a newer edit: the thread stops at its next report
            progress.stop()
            checking.cancel()  # its result, or CheckCancelled, is no longer awaited
            progress.end("superseded by an edit")
            raise
        except CheckCancelled:
            progress.end("cancelled")
            return
        except Exception:
            log.exception("checking %s failed", source)
            progress.end("failed")
            return
        if checked is None:
            progress.end("closed")
            return
        modules, problems = checked
        progress.end(f"{len(problems)} problem(s)")
        if await self._server.in_worker(self._server.store.checked_modules, source) != modules:
            return  # an edit made this module stale; its own check is scheduled
        self._publish(modules, problems)

    def _check(self, source: str, report: Callable[[float], None]
               ) -> tuple[tuple[ModuleDump, ...], list[Problem]] | None:
        """In a worker thread: the module (built here when it is new: seconds at 40 MB), or its two sides
        when its files come from two compilations, and their problems."""
        modules = self._server.store.checked_modules(source)
        if not modules:
            return None
        problems: list[Problem] = []
        for number, module in enumerate(modules):
            def part(done: float, number: int = number) -> None:
                report((number + done) / len(modules))

            problems.extend(check_module(module.checked_part(), part))
        return modules, problems

    def _publish(self, modules: tuple[ModuleDump, ...], problems: list[Problem]) -> None:
        by_source: dict[str, list[Problem]] = defaultdict(list)
        sources = {document.source for module in modules for document in module.own_documents()}
        fallback = next((s for s in sources if self._server.store.is_open(s)), None)
        for problem in problems:
            by_source[problem.source if problem.source in sources else fallback or problem.source].append(problem)
        stem = modules[0].stem
        targets = sources | self._published[stem]
        self._published[stem] = sources
        for source in targets:
            self._send(source, by_source.get(source, []))
        log.info("%s: %d problem(s) in %d file(s)", stem, len(problems), len(sources))

    def _send(self, source: str, problems: list[Problem]) -> None:
        server = self._server
        if problems:
            uri, document = server.resolve(source)
        else:  # clearing: no positions to convert, and a closed module's files are not read again
            uri, document = server.store.uri_of(source), None
        diagnostics = [convert.diagnostic(problem, server.resolve, server.positions, document) for problem in problems]
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=server.store.version_of(source)))
