"""Tells the client that dump files changed on disk (`hlo/modulesChanged`), once a burst of changes settles: a
list of modules it shows (`hlo.listModules`) is stale. A program writing a dump writes hundreds of files in a
second; the client hears of them once."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

MODULES_CHANGED = "hlo/modulesChanged"
SETTLE_SECONDS = 0.5


class FolderChanges:
    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self._pending: asyncio.TimerHandle | None = None

    def files_changed(self) -> None:
        """Files changed (called on the event loop): the client hears of it SETTLE_SECONDS after the last."""
        if self._pending is not None:
            self._pending.cancel()
        self._pending = asyncio.get_running_loop().call_later(SETTLE_SECONDS, self._tell)

    def _tell(self) -> None:
        self._pending = None
        self._server.protocol.notify(MODULES_CHANGED, {})
