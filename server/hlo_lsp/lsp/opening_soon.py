"""A file the editor opens, named by the first bytes of its didOpen, before the rest of the message is read.

An editor sends a file it opens whole: at 40 MB the server receives the message and pygls parses its JSON for a few
hundred milliseconds before the didOpen handler runs. The message's first bytes already name the file (VS Code and
Neovim write the URI before the text), so the session is told then (`Session.opening`): the check process reads a large
module's file from disk and scans it meanwhile (`session/read_ahead.py`).
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hlo_lsp.lsp.language_server import HloLanguageServer

log = logging.getLogger(__name__)
FROM_BYTES = 1 << 20  # a message this long or longer is read in two reads, its first HEAD_BYTES first
HEAD_BYTES = 4096
_METHOD = re.compile(rb'"method"\s*:\s*"([^"]*)"')
_ITEM = re.compile(rb'"languageId"\s*:')  # (a TextDocumentItem's key: only a didOpen sends one)
# (No `"uri"` inside a JSON string: its quotes would be escaped. So this is a key, the text document's.)
_URI = re.compile(rb'"uri"\s*:\s*("(?:[^"\\]|\\.)*")')


def opened_uri(head: bytes) -> str | None:
    """The URI of the file a didOpen message opens, when its first bytes `head` name it (None: another message, or
    its URI comes after the text). The method may come after the params, as pygls's client writes them."""
    method = _METHOD.search(head)
    if (method.group(1) != b"textDocument/didOpen") if method is not None else _ITEM.search(head) is None:
        return None  # (a writer that puts the method after the params: a text document item says it is a didOpen)
    found = _URI.search(head)
    if found is None:
        return None
    try:
        uri = json.loads(found.group(1))
    except ValueError:
        return None
    return uri if isinstance(uri, str) else None


def tell_opening(server: HloLanguageServer, head: bytes) -> None:
    """Tells the session of the file a long message opens, from its first bytes (nothing when it opens none)."""
    uri = opened_uri(head)
    if uri is None:
        return
    try:
        server.session.opening(server.uris.source_of(uri))
    except Exception:  # (the file is then read when opened, as any other)
        log.exception("reading %s ahead failed", uri)
