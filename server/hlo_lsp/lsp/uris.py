"""The client's URIs and the engine's sources: a file URI's path, any other URI as it is."""

from __future__ import annotations

import os

from pygls.uris import from_fs_path, to_fs_path


class Uris:
    def __init__(self) -> None:
        self._known: dict[str, str] = {}  # the URI the client used, by source

    def source_of(self, uri: str) -> str:
        """The engine's name for a document: its path for file URIs, else the URI itself."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        source = path if path else uri
        self._known.setdefault(source, uri)
        return source

    def uri_of(self, source: str) -> str:
        """The URI the client knows `source` by (a companion found on disk: its file URI)."""
        known = self._known.get(source)
        if known is not None:
            return known
        return from_fs_path(source) or source if os.path.isabs(source) else source
