"""JSON-RPC behaviour the LSP specification asks for where pygls' defaults stay silent.

pygls drops a request whose parameters fail validation, and every request after
`shutdown`, without an answer; the client then waits forever. Here both get the
error response the specification names, and `exit` records the process status.

pygls also keeps its own copy of every open document and rebuilds its whole text on
each change (half a second per keystroke in a 40 MB module). The document store
(session/store.py) keeps the text, indexed and edited in place, so here the
text-synchronisation notifications go straight to the server's handlers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.protocol.language_server import lsp_method


class HloProtocol(LanguageServerProtocol):
    exit_status = 0

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if _is_request(data):
                self._send_response(data["id"], error=error.to_response_error())
            raise

    def handle_message(self, message: Any) -> None:
        if self._shutdown and isinstance(message, RPCRequest) and message.method != types.EXIT:
            refusal = JsonRpcInvalidRequest(f"{message.method} after shutdown")
            self._send_response(message.id, error=refusal.to_response_error())
            return
        if getattr(message, "method", None) == types.EXIT:
            self.exit_status = 0 if self._shutdown else 1
        super().handle_message(message)

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Iterator[Any]:
        yield from self._server_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Iterator[Any]:
        yield from self._server_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Iterator[Any]:
        yield from self._server_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def _server_handler(self, method: str, params: Any) -> Iterator[Any]:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None


def _is_request(data: dict[str, Any]) -> bool:
    return "method" in data and isinstance(data.get("id"), (int, str))
