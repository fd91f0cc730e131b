"""The end-to-end tests' side of a session with the real server over stdio (pytest-lsp): the client
profiles, starting a session, opening a real dump, waiting for what the server publishes, finding
positions in a file. Raw JSON-RPC sessions are in helpers.raw."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from helpers.paths import DATA, SPLIT_HLO, SPLIT_MLP

# Each end-to-end test runs once per client profile: their capabilities differ.
CLIENTS = ["visual-studio-code", "neovim"]
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "hlo_lsp"])


async def start_session(lsp_client: LanguageClient, capabilities: types.ClientCapabilities,
                        initialization_options: object = None) -> None:
    """Initializes a session as a client with `capabilities` (and options), rooted at tests/data."""
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        """Real editors accept the server's file watchers; the test client just says yes."""

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=DATA.as_uri(), initialization_options=initialization_options))


def client_with(initialization_options: object) -> Any:
    """A module-scoped `client` fixture, once per client profile, whose server starts with `initialization_options`
    (assign it to `client` in a test module)."""
    @pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
    async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # noqa: ANN202
        await start_session(lsp_client, client_capabilities(request.param), initialization_options)
        yield
        await lsp_client.shutdown_session()

    return client


async def start_as(lsp_client: LanguageClient, profile: str, root: Path,
                   folders: tuple[Path, ...] = ()) -> types.InitializeResult:
    """Initializes a session as the client `profile` (one of CLIENTS) does, rooted at `root` (with `folders` as
    its workspace folders); the server's answer."""
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        """Real editors accept the server's file watchers; the test client just says yes."""

    lsp_client.profile = profile  # type: ignore[attr-defined]
    return await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(profile), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name=folder.name) for folder in folders] or None))


async def execute(client: LanguageClient, command: str, *arguments: Any) -> Any:
    """The answer of `workspace/executeCommand` of `command` (within a minute)."""
    return await asyncio.wait_for(client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments))), 60)


def open_file(client: LanguageClient, path: Path, language: str = "hlo") -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=1, text=path.read_text())))
    return uri


async def next_diagnostics(client: LanguageClient, uri: str, timeout: float = 30) -> list[types.Diagnostic]:
    """Waits for the server to publish diagnostics for `uri` (clear client.diagnostics[uri] first)."""
    async def published() -> list[types.Diagnostic]:
        while uri not in client.diagnostics:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return list(client.diagnostics[uri])
    return await asyncio.wait_for(published(), timeout)


async def open_and_check(client: LanguageClient, path: Path, watch: Path | None = None) -> list[types.Diagnostic]:
    """Opens `path` and returns the diagnostics then published for `watch` (default: `path`)."""
    watched = (watch or path).as_uri()
    client.diagnostics.pop(watched, None)
    open_file(client, path)
    return await next_diagnostics(client, watched)


async def edit_and_check(client: LanguageClient, uri: str, version: int, edit: types.Range, text: str,
                         watch: str | None = None) -> list[types.Diagnostic]:
    """Sends one incremental change and returns the diagnostics then published for `watch` (default: `uri`)."""
    watched = watch or uri
    client.diagnostics.pop(watched, None)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=edit, text=text)]))
    return await next_diagnostics(client, watched)


def position_of(path: Path, line_containing: str, name: str, occurrence: int = 0) -> types.Position:
    """The position of `name` on the one line of `path` that contains `line_containing`."""
    lines = [(number, text) for number, text in enumerate(path.read_text().split("\n")) if line_containing in text]
    assert len(lines) == 1, (line_containing, len(lines))
    number, text = lines[0]
    column = -1
    for _ in range(occurrence + 1):
        column = text.index(name, column + 1)
    return types.Position(number, column)


def line_number(path: Path, line_containing: str) -> int:
    return position_of(path, line_containing, line_containing).line


# ---- added for the hover, symbols, protocol and corpus tests --------------------------------

_ENCODINGS = {types.PositionEncodingKind.Utf8: "utf-8", types.PositionEncodingKind.Utf16: "utf-16-le",
              types.PositionEncodingKind.Utf32: "utf-32-le"}
_UNIT_BYTES = {types.PositionEncodingKind.Utf8: 1, types.PositionEncodingKind.Utf16: 2,
               types.PositionEncodingKind.Utf32: 4}


def negotiated_encoding(capabilities: types.ClientCapabilities | None) -> types.PositionEncodingKind:
    """The position encoding a server settles on with these client capabilities: the first of the
    client's `general.positionEncodings` it supports (pygls supports all three), else UTF-16.
    The Neovim profile lists utf-8 first, the VS Code profile lists none."""
    general = capabilities.general if capabilities is not None else None
    for encoding in (general.position_encodings or ()) if general is not None else ():
        if encoding in _ENCODINGS:
            return types.PositionEncodingKind(encoding)
    return types.PositionEncodingKind.Utf16


def column_of(text: str, index: int, encoding: types.PositionEncodingKind) -> int:
    """The LSP column of the Python index `index` of `text`, counted in `encoding`'s code units."""
    return len(text[:index].encode(_ENCODINGS[encoding])) // _UNIT_BYTES[encoding]


def close_file(client: LanguageClient, path: Path) -> None:
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(path.as_uri())))


def module_paths(stem: Path) -> list[Path]:
    """Every file of the module `stem` on disk (the HLO module and its companions)."""
    return sorted(stem.parent.glob(stem.name + "*"))


def forget_diagnostics(client: LanguageClient, uris: list[str]) -> None:
    for uri in uris:
        client.diagnostics.pop(uri, None)


async def all_diagnostics(client: LanguageClient, uris: list[str], timeout: float = 30
                          ) -> dict[str, list[types.Diagnostic]]:
    """Waits until the server has published diagnostics for every one of `uris` (forget them first)."""
    async def published() -> dict[str, list[types.Diagnostic]]:
        while any(uri not in client.diagnostics for uri in uris):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return {uri: list(client.diagnostics[uri]) for uri in uris}
    return await asyncio.wait_for(published(), timeout)


async def log_message_containing(client: LanguageClient, text: str, since: int = 0,
                                 timeout: float = 10) -> types.LogMessageParams:
    """The first window/logMessage (from index `since` of client.log_messages) whose text contains `text`."""
    async def logged() -> types.LogMessageParams:
        while True:
            found = [item for item in client.log_messages[since:] if text in item.message]
            if found:
                return found[0]
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)
    return await asyncio.wait_for(logged(), timeout)


# ---- added for the edge-case and security tests ------------------------------------------------------


def server_is_running(client: LanguageClient) -> bool:
    """The server process the client started has not exited."""
    process = client._server  # noqa: SLF001 - pygls keeps the subprocess there
    return process is not None and process.returncode is None


async def still_serving(client: LanguageClient) -> None:
    """The server process is alive and answers a hover on a bundled dump with the size XLA printed."""
    assert server_is_running(client)
    printed = Path(f"{SPLIT_MLP}-buffer-assignment.txt").read_text()
    assert " value: <64 add_maximum_fusion @0> (size=32768,offset=0): f32[32,256]{1,0}" in printed
    uri = open_file(client, SPLIT_HLO)
    position = position_of(SPLIT_HLO, "  %add_maximum_fusion = ", "add_maximum_fusion")
    answer = await asyncio.wait_for(
        client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position)), 30)
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    assert "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0" in \
        answer.contents.value.split("\n")
    assert server_is_running(client)


def write_large_module(folder: Path, hlo: Path, copies: int = 760) -> Path:
    """About 5 MB: the module `hlo` with its computations repeated `copies` times under new names,
    a valid module of its own (no companions)."""
    lines = hlo.read_text().split("\n")
    first = next(i for i, text in enumerate(lines) if text.startswith("%fused_computation "))
    entry = next(i for i, text in enumerate(lines) if text.startswith("ENTRY "))
    body = "\n".join(lines[first:entry])
    params = re.compile(r"(?<=[( ])([A-Za-z_][\w.]*)(?=: )")

    def renamed(copy: int) -> str:
        out = []
        for text in body.split("\n"):
            text = re.sub(r"%([A-Za-z_][\w.\-]*)", lambda m: f"%{m.group(1)}_r{copy}", text)
            out.append(params.sub(lambda m: f"{m.group(1)}_r{copy}", text) if text.startswith("%") else text)
        return "\n".join(out)

    parts = ["\n".join(lines[:first]), body, *(renamed(copy) for copy in range(copies)), "\n".join(lines[entry:])]
    path = folder / "module_0007.jit_large.cpu_after_optimizations.txt"
    path.write_text("\n".join(parts))
    return path
