"""The server's handlers, one module per area; `register` puts them all on a server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlo_lsp.lsp.handlers import configuration, insight, navigation, outline, sync

if TYPE_CHECKING:
    from hlo_lsp.lsp.language_server import HloLanguageServer

AREAS = (sync, configuration, navigation, outline, insight)


def register(server: HloLanguageServer) -> None:
    for area in AREAS:
        for method, handler in area.HANDLERS.items():
            function, options = handler if isinstance(handler, tuple) else (handler, None)
            server.feature(method, options)(function)
        commands: dict[str, Any] = getattr(area, "COMMANDS", {})
        for name, function in commands.items():
            server.command(name)(function)
