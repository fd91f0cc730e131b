"""JSON-RPC behaviour the LSP specification asks for where pygls' defaults stay silent.

pygls drops a request whose parameters fail validation, and every request after
`shutdown`, without an answer; the client then waits forever. Here both get the
error response the specification names, and `exit` records the process status.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest


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


def _is_request(data: dict[str, Any]) -> bool:
    return "method" in data and isinstance(data.get("id"), (int, str))
