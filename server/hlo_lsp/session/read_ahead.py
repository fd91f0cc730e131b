"""A large file read from disk and scanned in the check process while the editor's didOpen of it is still on its way.

An editor sends a file it opens whole: 40 MB of JSON take the server a few hundred milliseconds to receive and parse
before its didOpen handler runs, and the check process then reads the file from disk (`same_text`) and starts. The
server tells the process the file's name as soon as the message's first bytes name it (`lsp/opening_soon.py`): the
process reads it and scans it meanwhile. When the file is then given to it from disk with the digest of those very
bytes, the process takes the document read ahead, scanned or being scanned, instead of reading the file again; a
file whose bytes differ from the editor's text, or a file never given, is let go.
"""

from __future__ import annotations

import os
import threading

from hlo_lsp.model.document import Document
from hlo_lsp.parsing.file_kinds import detect_kind
from hlo_lsp.session.same_text import bytes_on_disk, digest_of


class ReadAhead:
    """At most one document read ahead, until an open takes it or the next check lets it go."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[str, bytes, Document] | None = None  # source, the digest of its bytes, the document
        self._opened: set[str] = set()  # the sources opened since their read-ahead was asked: not read any more

    def asked(self, source: str) -> None:
        """The server named `source` (reader thread): it is read ahead unless opened before `read` runs."""
        with self._lock:
            self._opened.discard(source)

    def read(self, source: str) -> Document | None:
        """Reads `source` from disk and scans it (main thread), held meanwhile for `take`; None when it was opened
        meanwhile, or cannot be read as an ASCII text."""
        data = bytes_on_disk(source)
        if data is None or not data.isascii():
            return None
        text = data.decode("ascii")
        document = Document(text, detect_kind(os.path.basename(source), text), source)
        with self._lock:
            if source in self._opened:
                return None
            self._held = (source, digest_of(data), document)
        document.chunks  # noqa: B018 - the scan, while the server still reads the editor's message
        return document

    def take(self, source: str, digest: bytes | None) -> Document | None:
        """The document read ahead for `source` when its bytes had `digest` (reader thread, opening the file; None:
        nothing such is held, and `source` is not read ahead any more until asked again)."""
        with self._lock:
            self._opened.add(source)
            held = self._held
            if held is None or held[0] != source:
                return None
            self._held = None
            return held[2] if digest is not None and held[1] == digest else None

    def let_go(self) -> None:
        """A check starts: a document read ahead that no open took is not kept."""
        with self._lock:
            self._held = None
            self._opened.clear()
