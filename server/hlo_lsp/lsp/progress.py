"""Work-done progress: the editor's progress bar for long work done off the event loop."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types

from hlo_lsp.session import CheckCancelled

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)
REPORT_EVERY_SECONDS = 0.2
PROGRESS_AFTER_SECONDS = 0.2  # work done sooner shows no bar
T = TypeVar("T")


class ProgressBar:
    """One `$/progress` sequence; `report` may be called from any thread, and raises
    CheckCancelled once the work is no longer wanted (stopped here, or cancelled in the editor)."""

    def __init__(self, server: LanguageServer, title: str) -> None:
        self._server = server
        self._title = title
        self._loop = asyncio.get_running_loop()
        self._token: str | None = None
        self._stopped = threading.Event()
        self._last_report = 0.0

    async def begin(self) -> None:
        if not self._client_shows_progress():
            return
        token = f"hlo-lsp-{uuid.uuid4()}"
        try:
            # Shielded: cancelling the request's future while the client's answer is on its way makes
            # pygls fail on that answer (InvalidStateError); the request may finish on its own.
            await asyncio.shield(self._server.work_done_progress.create_async(token))
        except Exception as error:  # the client may refuse; the work goes on without a bar
            log.info("no progress bar: %s", error)
            return
        self._token = token
        self._server.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=self._title, cancellable=True, percentage=0))

    def report(self, fraction: float) -> None:
        if self._stopped.is_set() or self._cancelled_in_editor():
            raise CheckCancelled
        now = time.monotonic()
        if self._token is None or now - self._last_report < REPORT_EVERY_SECONDS:
            return
        self._last_report = now
        value = types.WorkDoneProgressReport(percentage=min(100, int(fraction * 100)))
        self._loop.call_soon_threadsafe(self._server.work_done_progress.report, self._token, value)

    def stop(self) -> None:
        self._stopped.set()

    def end(self, message: str) -> None:
        if self._token is None:
            return
        self._server.work_done_progress.end(self._token, types.WorkDoneProgressEnd(message=message))
        self._server.work_done_progress.tokens.pop(self._token, None)
        self._token = None

    def _client_shows_progress(self) -> bool:
        window = self._server.client_capabilities.window
        return bool(window and window.work_done_progress)

    def _cancelled_in_editor(self) -> bool:
        future = self._server.work_done_progress.tokens.get(self._token) if self._token else None
        return bool(future and future.cancelled())


async def shown_while(server: LanguageServer, title: str, work: Callable[[Callable[[float], None]], Awaitable[T]],
                      summary: Callable[[T], str], interrupted: str = "failed") -> T:
    """`work(report)`, with a progress bar from PROGRESS_AFTER_SECONDS on (a bar for work that lasts); its end says
    `summary` of the result, or `interrupted` when the awaiting task is cancelled (the work stops at its next
    report). Raises CheckCancelled when the bar is cancelled in the editor."""
    progress = ProgressBar(server, title)
    working = asyncio.ensure_future(work(progress.report))
    try:
        done, _ = await asyncio.wait({working}, timeout=PROGRESS_AFTER_SECONDS)
        if not done:
            await progress.begin()
        result = await working
    except CheckCancelled:
        progress.end("cancelled")
        raise
    except asyncio.CancelledError:
        progress.stop()
        working.cancel()  # its result, or CheckCancelled, is no longer awaited
        progress.end(interrupted)
        raise
    except Exception:
        progress.end("failed")
        raise
    progress.end(summary(result))
    return result
