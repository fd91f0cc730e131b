"""The server's converter writes Locations as lsprotocol's own converter does, faster."""

from __future__ import annotations

import json

from lsprotocol import types
from pygls.protocol import default_converter

from hlo_lsp.lsp.convert import converter


def test_locations_are_written_as_lsprotocol_writes_them() -> None:
    locations = [types.Location(f"file:///tmp/é/m{number}.txt",
                                types.Range(types.Position(number, 2), types.Position(number + 1, 0)))
                 for number in range(3)]
    answer = types.ReferencesResponse(id=7, result=locations)
    ours, theirs = converter(), default_converter()
    assert json.dumps(ours.unstructure(answer)) == json.dumps(theirs.unstructure(answer))
    assert ours.unstructure(locations[0]) == {"uri": "file:///tmp/é/m0.txt", "range": {
        "start": {"line": 0, "character": 2}, "end": {"line": 1, "character": 0}}}
    diagnostic = types.PublishDiagnosticsParams("file:///m.txt", [types.Diagnostic(
        types.Range(types.Position(0, 0), types.Position(0, 1)), "m", related_information=[
            types.DiagnosticRelatedInformation(locations[1], "there")])])
    assert ours.unstructure(diagnostic) == theirs.unstructure(diagnostic)
