"""The language server: `build_server` makes the pygls server (`language_server.HloLanguageServer`) and
registers the handlers of `lsp/handlers/` (one module per area). A handler converts the request (`convert`),
asks the engine's facade (`hlo_lsp.session.Session`) in a worker thread, and converts the answer; none holds
logic of its own.
"""

from __future__ import annotations

import sys

from hlo_lsp.lsp.handlers import register
from hlo_lsp.lsp.language_server import HloLanguageServer
from hlo_lsp.lsp.stdio import serve_stdio

# The event loop shares the interpreter with the threads that read a module (seconds at 40 MB).
# At CPython's default of 5 ms between switches, each message an editor sends on opening a file
# waited about 50 ms behind them before it was even dispatched.
SWITCH_INTERVAL_SECONDS = 0.001


def build_server() -> HloLanguageServer:
    server = HloLanguageServer()
    register(server)
    return server


def run(tcp: tuple[str, int] | None = None) -> int:
    """Serves over stdio, or over TCP for debugging; returns the process status LSP asks for
    (1 when the client sent `exit` without `shutdown`)."""
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    server = build_server()
    if tcp is not None:
        server.start_tcp(*tcp)
    else:
        serve_stdio(server)
    return server.protocol.exit_status
