"""Server logs go to the client's output (window/logMessage), from any thread."""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types
from pygls.lsp.server import LanguageServer

_MESSAGE_TYPES = (
    (logging.ERROR, types.MessageType.Error),
    (logging.WARNING, types.MessageType.Warning),
    (logging.INFO, types.MessageType.Info),
)


class ClientLogHandler(logging.Handler):
    def __init__(self, server: LanguageServer, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(logging.INFO)
        self._server = server
        self._loop = loop
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = next((kind for level, kind in _MESSAGE_TYPES if record.levelno >= level), types.MessageType.Log)
            params = types.LogMessageParams(type=kind, message=self.format(record))
            self._loop.call_soon_threadsafe(self._server.window_log_message, params)
        except Exception:  # a log line must never take the server down
            self.handleError(record)


def forward_logs_to_client(server: LanguageServer) -> None:
    """Sends the hlo_lsp loggers' records (INFO and up) to the client once the session is up."""
    logger = logging.getLogger("hlo_lsp")
    if any(isinstance(handler, ClientLogHandler) for handler in logger.handlers):
        return
    logger.addHandler(ClientLogHandler(server, asyncio.get_running_loop()))
    logger.setLevel(logging.INFO)
