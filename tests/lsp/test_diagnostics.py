"""The diagnostics publisher on its own, with a stand-in for the server: what closing a module sends."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from helpers import SPLIT_MLP, copy_module
from hlo_lsp.lsp.diagnostics import DiagnosticsPublisher
from hlo_lsp.lsp.uris import Uris
from hlo_lsp.session import Document, Session


class StandInServer:
    """What the publisher uses of the server: the session, the URIs, and a record of what it sent."""

    def __init__(self) -> None:
        self.session = Session()
        self.uris = Uris()
        self.sent: list[types.PublishDiagnosticsParams] = []

    def resolve(self, source: str) -> tuple[str, Document | None]:  # as HloLanguageServer.resolve
        return self.uris.uri_of(source), self.session.document(source)

    def text_document_publish_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        self.sent.append(params)


def test_closing_a_module_clears_its_files_diagnostics_without_reading_them_again(tmp_path: Path) -> None:
    """The last file of a module closes: every file that was given diagnostics gets an empty list,
    and none of them is read from disk to say so (the store has let the module go)."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    server = StandInServer()
    publisher = DiagnosticsPublisher(server)  # type: ignore[arg-type]
    hlo = Path(f"{stem}.txt")
    files = [str(hlo), f"{stem}-buffer-assignment.txt", f"{stem}-live-range.txt"]
    server.session.open(str(hlo), hlo.read_text(), 1)
    publisher._published[str(stem)] = set(files)  # what an earlier check published to
    server.session.close(str(hlo))
    publisher.closed(str(hlo))
    assert sorted(params.uri for params in server.sent) == sorted(Path(path).as_uri() for path in files)
    assert all(params.diagnostics == [] for params in server.sent)
    assert not server.session.store._disk  # no file was read from disk to clear its diagnostics
