"""Publishes each module's problems to every file of the module, debounced, computed off the loop."""

from __future__ import annotations

import asyncio
import logging
import os
from collections import defaultdict
from typing import TYPE_CHECKING

from lsprotocol import types

from hlo_lsp.lsp import convert
from hlo_lsp.lsp.progress import shown_while
from hlo_lsp.problems import Problem
from hlo_lsp.session import CheckCancelled, Checked, module_stem

if TYPE_CHECKING:
    from hlo_lsp.lsp.language_server import HloLanguageServer

log = logging.getLogger(__name__)
DEBOUNCE_SECONDS = 0.3


class DiagnosticsPublisher:
    def __init__(self, server: HloLanguageServer) -> None:
        self._server = server
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._published: dict[str, set[str]] = defaultdict(set)  # stem -> sources given diagnostics
        # source -> (version, problems) sent before its module's check ended (its HLO file's): not sent again
        self._sent_first: dict[str, tuple[int | None, list[Problem]]] = {}

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
        still_open = self._server.session.open_sources_of(stem)
        if still_open:
            self.schedule(still_open[0])
            return
        pending = self._pending.pop(stem, None)
        if pending is not None:
            pending.cancel()
        for cleared in self._published.pop(stem, set()):
            self._sent_first.pop(cleared, None)
            self._send(cleared, [])

    async def _check_later(self, source: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        title = f"Checking {os.path.basename(module_stem(source))}"
        loop = asyncio.get_running_loop()

        def first(part: Checked) -> None:  # (in the worker thread, while the module's other files are checked)
            loop.call_soon_threadsafe(self._publish_first, part)

        try:  # a re-check after an edit takes milliseconds: a bar is shown only for work that lasts
            checked = await shown_while(self._server, title, lambda report: self._server.in_worker(
                self._server.session.check, source, report, first), _told, interrupted="superseded by an edit")
        except CheckCancelled:
            return
        except Exception:
            log.exception("checking %s failed", source)
            return
        if checked is not None and await self._server.in_worker(self._server.session.is_current, checked, source):
            self._publish(checked)  # (else closed, or an edit made this module stale: its own check is scheduled)

    def _publish_first(self, part: Checked) -> None:
        """The HLO file's problems, published before its module's other files are checked: the file a user opens
        shows its own diagnostics seconds sooner."""
        self._published[part.stem] |= part.sources
        for source in part.sources:
            self._send(source, part.problems)
            self._sent_first[source] = (self._server.session.version_of(source), part.problems)

    def _publish(self, checked: Checked) -> None:
        by_source: dict[str, list[Problem]] = defaultdict(list)
        fallback = next((s for s in checked.sources if self._server.session.is_open(s)), None)
        for problem in checked.problems:
            owner = problem.source if problem.source in checked.sources else fallback or problem.source
            by_source[owner].append(problem)
        targets = checked.sources | self._published[checked.stem]
        self._published[checked.stem] = set(checked.sources)
        for source in targets:
            problems = by_source.get(source, [])
            if self._sent_first.pop(source, None) != (self._server.session.version_of(source), problems):
                self._send(source, problems)
        log.info("%s: %d problem(s) in %d file(s)", checked.stem, len(checked.problems), len(checked.sources))

    def _send(self, source: str, problems: list[Problem]) -> None:
        server = self._server
        if problems:
            uri, document = server.resolve(source)
        else:  # clearing: no positions to convert, and a closed module's files are not read again
            uri, document = server.uris.uri_of(source), None
        diagnostics = [convert.diagnostic(problem, server.resolve, server.positions, document) for problem in problems]
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=server.session.version_of(source)))


def _told(checked: Checked | None) -> str:
    """What the progress bar of a check ends with."""
    return "closed" if checked is None else f"{len(checked.problems)} problem(s)"
