"""The diagnostics publisher on its own, with a stand-in for the server: what closing a module sends."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.workspace import PositionCodec

from helpers import SPLIT_MLP, copy_module
from hlo_lsp.lsp.convert import Positions
from hlo_lsp.lsp.diagnostics import DiagnosticsPublisher
from hlo_lsp.lsp.uris import Uris
from hlo_lsp.problems import Problem, Severity
from hlo_lsp.session import Checked, Document, Session
from hlo_lsp.text import Position, Range


class StandInServer:
    """What the publisher uses of the server: the session, the URIs, and a record of what it sent."""

    def __init__(self) -> None:
        self.session = Session()
        self.uris = Uris()
        self.sent: list[types.PublishDiagnosticsParams] = []
        self.positions = Positions(types.PositionEncodingKind.Utf16, PositionCodec())

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


def test_the_hlo_file_s_diagnostics_go_first_and_are_not_sent_again_when_the_whole_check_agrees(
        tmp_path: Path) -> None:
    """Its HLO file's problems are published as soon as the check has them, leaving its other files' diagnostics
    as they were; the module's problems then go to every file, but for the HLO file when they are the same."""
    stem = copy_module(SPLIT_MLP, tmp_path)
    hlo, ba = Path(f"{stem}.txt"), Path(f"{stem}-buffer-assignment.txt")
    server = StandInServer()
    publisher = DiagnosticsPublisher(server)  # type: ignore[arg-type]
    server.session.open(str(hlo), hlo.read_text(), 1)
    publisher._published[str(stem)] = {str(ba)}  # an earlier check's: kept until this one ends
    frame = Problem(str(hlo), Range(Position(50, 2), Position(50, 9)), Severity.ERROR, "undefined-stack-frame", "f")
    overlap = Problem(str(ba), Range(Position(6, 0), Position(6, 4)), Severity.ERROR, "overlapping-values", "o")

    publisher._publish_first(Checked(str(stem), frozenset((str(hlo),)), [frame], ()))
    assert [(params.uri, [d.code for d in params.diagnostics]) for params in server.sent] == [
        (hlo.as_uri(), ["undefined-stack-frame"])]
    publisher._publish(Checked(str(stem), frozenset((str(hlo), str(ba))), [frame, overlap], ()))
    assert [(params.uri, [d.code for d in params.diagnostics]) for params in server.sent[1:]] == [
        (ba.as_uri(), ["overlapping-values"])]

    server.sent.clear()  # the next check: its whole check finds what its first part did not
    publisher._publish_first(Checked(str(stem), frozenset((str(hlo),)), [], ()))
    publisher._publish(Checked(str(stem), frozenset((str(hlo), str(ba))), [frame], ()))
    assert sorted((params.uri, [d.code for d in params.diagnostics]) for params in server.sent) == sorted([
        (hlo.as_uri(), []), (hlo.as_uri(), ["undefined-stack-frame"]), (ba.as_uri(), [])])
