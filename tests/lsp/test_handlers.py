"""The handlers stay thin: each converts the request, asks the session, converts the answer."""

from __future__ import annotations

import inspect
import textwrap

from hlo_lsp.lsp.handlers import AREAS
from hlo_lsp.lsp.server import build_server

LONGEST_HANDLER = 10  # lines of a handler's body, its docstring left out


def _registered() -> list:  # noqa: ANN401 - handler functions of any signature
    found = []
    for area in AREAS:
        handlers = [entry[0] if isinstance(entry, tuple) else entry for entry in area.HANDLERS.values()]
        found += handlers + list(getattr(area, "COMMANDS", {}).values())
    return found


def _body_lines(function) -> int:  # noqa: ANN001
    source = textwrap.dedent(inspect.getsource(function))
    body = source.split(":\n", 1)[1] if '"""' not in source else source.split('"""', 2)[2]
    return len([line for line in body.splitlines() if line.strip() and not line.strip().startswith("#")])


def test_every_handler_is_at_most_ten_lines() -> None:
    long = {function.__qualname__: _body_lines(function) for function in _registered()
            if _body_lines(function) > LONGEST_HANDLER}
    assert long == {}


def test_every_lsp_method_and_command_the_server_offers_has_one_handler() -> None:
    server = build_server()
    features = server.protocol.fm.features
    commands = server.protocol.fm.commands
    registered = _registered()
    assert len(registered) == len(features) + len(commands)
    assert {"hlo.memoryTimeline", "hlo.showPeakBuffers"} <= set(commands)
    assert {"textDocument/hover", "textDocument/definition", "textDocument/didOpen"} <= set(features)
