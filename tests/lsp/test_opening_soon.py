"""The file a didOpen opens, named by the message's first bytes: as an editor writes it (the URI before the text),
escaped as JSON escapes it; nothing for another message, or one whose URI comes after its text."""

from __future__ import annotations

import json

import pytest

from hlo_lsp.lsp.opening_soon import HEAD_BYTES, opened_uri

URI = "file:///dumps/module_0000.jit_f.cpu_after_optimizations.txt"


def head(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode()[:HEAD_BYTES]


def did_open(item: dict[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}}


def test_an_editor_s_did_open_names_its_file_in_its_first_bytes() -> None:
    text = 'HloModule f\n\nENTRY %main { "uri": "file:///elsewhere" }\n' * 10_000
    assert opened_uri(head(did_open({"uri": URI, "languageId": "hlo", "version": 1, "text": text}))) == URI


def test_a_did_open_written_params_first_names_its_file_by_its_text_document_item() -> None:
    message = {"params": {"textDocument": {"uri": URI, "languageId": "hlo", "version": 1, "text": "x" * 9000}},
               "method": "textDocument/didOpen", "jsonrpc": "2.0"}  # (as pygls's client writes it)
    assert opened_uri(head(message)) == URI


def test_neovim_s_did_open_names_its_file() -> None:
    written = (b'{"jsonrpc":"2.0","params":{"textDocument":{"languageId":"hlo","uri":"' + URI.encode()  # (Neovim 0.12)
               + b'","version":0,"text":"HloModule jit_fwd, is_scheduled=true' + b"x" * 9000)
    assert opened_uri(written[:HEAD_BYTES]) == URI


def test_an_escaped_uri_is_read_as_json_reads_it() -> None:
    uri = 'file:///dumps/a "quoted" name\\.txt'
    assert opened_uri(head(did_open({"uri": uri, "version": 1, "text": "x" * 9000}))) == uri
    assert opened_uri(b'{"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:\\/\\/\\/a.txt"') \
        == "file:///a.txt"


@pytest.mark.parametrize("message", [
    did_open({"text": '"uri": "file:///elsewhere"' + "x" * 9000, "uri": URI}),  # the URI after the text
    {"jsonrpc": "2.0", "method": "textDocument/didChange",
     "params": {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "x" * 9000}]}},
    {"jsonrpc": "2.0", "id": 1, "result": {"uri": URI}},
    {"params": {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "x" * 9000}]},
     "method": "textDocument/didChange"},  # (params first, and no text document item)
])
def test_another_message_or_a_uri_after_the_text_names_nothing(message: dict[str, object]) -> None:
    assert opened_uri(head(message)) is None


def test_a_garbled_head_names_nothing() -> None:
    assert opened_uri(b'{"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a\\x"') is None
    assert opened_uri(b"\xff\xfe" * 100) is None
