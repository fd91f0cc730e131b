"""Timed on the wire: a bare JSON-RPC client, as an editor that parses JSON natively sees the server.

benchmarks/run.py drives the server with pygls' client, which turns every answer into lsprotocol
objects; for an answer of 14,000 locations that takes longer than the server's own work. Here the
time runs from writing the request to having its response parsed by `json.loads`, nothing more.
Two sessions: the references of one name (`references_on_the_wire`), and a file opened the way
VS Code opens it, with the requests it sends at once, then edited, with the requests it sends
again after each edit (`opened_like_vs_code`).
"""

from __future__ import annotations

import gc
import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any


class WireClient:
    """The LSP server over stdio, spoken to in plain JSON."""

    def __init__(self) -> None:
        self._server = subprocess.Popen([sys.executable, "-m", "hlo_lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._next_id = 0
        self._sending = threading.Lock()
        self._diagnosed: set[str] = set()  # the URIs given diagnostics while requests_at_once read

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin: IO[bytes] = self._server.stdin  # type: ignore[assignment]
        with self._sending:  # a reading thread answers the server's own requests
            stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            stdin.flush()

    def receive(self) -> dict[str, Any]:
        stdout: IO[bytes] = self._server.stdout  # type: ignore[assignment]
        length = 0
        while (header := stdout.readline()) not in (b"\r\n", b"\n", b""):
            if header.lower().startswith(b"content-length:"):
                length = int(header.split(b":")[1])
        message: dict[str, Any] = json.loads(stdout.read(length))
        if "method" in message and "id" in message:  # the server asks (progress bars, registrations)
            self.send({"id": message["id"], "result": None})
        return message

    def request(self, method: str, params: dict[str, Any]) -> tuple[Any, float]:
        """The result of `method` and the seconds from sending it to its response parsed. This
        process's own garbage collector is kept out of the time (an editor parses JSON natively; a
        collection here walks everything the benchmark holds, 100 ms and more)."""
        self._next_id += 1
        gc.collect()
        gc.disable()
        try:
            sent = time.perf_counter()
            self.send({"id": self._next_id, "method": method, "params": params})
            while True:
                message = self.receive()
                if message.get("id") == self._next_id and "method" not in message:
                    return message.get("result"), time.perf_counter() - sent
        finally:
            gc.enable()

    def requests_at_once(self, requests: dict[str, tuple[str, dict[str, Any]]], diagnostics_of: str,
                         since: float) -> tuple[dict[str, float], dict[str, int], float]:
        """Sends every request before reading any answer (as an editor does on opening a file):
        the seconds from `since` to each answer and to the first diagnostics of `diagnostics_of`,
        and each answer's size in bytes of JSON."""
        waiting = {}
        for label, (method, params) in requests.items():
            self._next_id += 1
            self.send({"id": self._next_id, "method": method, "params": params})
            waiting[self._next_id] = label
        answered: dict[str, float] = {}
        sizes: dict[str, int] = {}
        diagnostics = None
        while waiting or diagnostics is None:
            message = self.receive()
            now = time.perf_counter() - since
            if message.get("method") == "textDocument/publishDiagnostics":
                self._diagnosed.add(message["params"]["uri"])
                if diagnostics is None and message["params"]["uri"] == diagnostics_of:
                    diagnostics = now
            elif message.get("id") in waiting and "method" not in message:
                label = waiting.pop(message["id"])
                answered[label], sizes[label] = now, len(json.dumps(message.get("result")))
        return answered, sizes, diagnostics

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def wait_until_published(self, uris: list[str]) -> None:
        """Reads what the server sends until each of `uris` has been given diagnostics (since requests_at_once)."""
        while not self._diagnosed.issuperset(uris):
            message = self.receive()
            if message.get("method") == "textDocument/publishDiagnostics":
                self._diagnosed.add(message["params"]["uri"])

    def wait_for_diagnostics(self, uri: str) -> None:
        while True:
            message = self.receive()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return

    def initialize(self, folder: Path, capabilities: dict[str, Any]) -> None:
        self.request("initialize", {"processId": None, "rootUri": folder.as_uri(), "capabilities": capabilities})
        self.notify("initialized", {})

    def open(self, path: Path, text: str | None = None) -> str:
        """didOpen of the file `path` (with `text`, already read, when given); its URI."""
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "hlo", "version": 1,
                                                              "text": path.read_text() if text is None else text}})
        return uri

    def read_into(self, messages: queue.Queue[tuple[float, dict[str, Any] | None]]) -> None:
        """Puts each message read, with the time it was read, into `messages` (None at the end)."""
        while True:
            try:
                message = self.receive()
            except (OSError, ValueError):  # the server is gone
                messages.put((time.perf_counter(), None))
                return
            messages.put((time.perf_counter(), message))

    def edit_then_ask_again(self, uri: str, version: int, line: int, column: int,
                            messages: queue.Queue[tuple[float, dict[str, Any] | None]]) -> tuple[dict[str, float],
                                                                                                 float]:
        """Types "x" at (line, column), then sends what VS Code asks again, each after its delay
        (`messages` holds what the server sends, read on another thread): each answer's seconds after
        its request, and the seconds from the edit to the diagnostics of `version`."""
        requests = vs_code_requests(uri, max(line - SCREEN_LINES // 2, 0))
        at = {"start": {"line": line, "character": column}, "end": {"line": line, "character": column}}
        edited = time.perf_counter()
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"range": at, "text": "x"}]})
        due = sorted(VS_CODE_DELAYS_AFTER_EDIT.items(), key=lambda item: item[1])
        sent: dict[int, tuple[str, float]] = {}
        answered: dict[str, float] = {}
        checked = None
        while due or sent or checked is None:
            if due and time.perf_counter() >= edited + due[0][1]:
                label = due.pop(0)[0]
                self._next_id += 1
                sent[self._next_id] = (label, time.perf_counter())
                self.send({"id": self._next_id, "method": requests[label][0], "params": requests[label][1]})
                continue
            wait = max(edited + due[0][1] - time.perf_counter(), 0) if due else None
            try:
                when, message = messages.get(timeout=wait)
            except queue.Empty:
                continue
            if message is None:
                raise RuntimeError("the server stopped")
            if message.get("id") in sent and "method" not in message:
                label, asked = sent.pop(message["id"])
                answered[label] = when - asked
            elif message.get("method") == "textDocument/publishDiagnostics" and (
                    message["params"]["uri"] == uri and message["params"].get("version") == version):
                checked = when - edited
        return answered, checked

    def wait(self) -> None:
        self._server.wait(timeout=60)

    def stop(self) -> None:
        self.request("shutdown", {})
        self.notify("exit", {})
        self.wait()


def references_on_the_wire(folder: Path, hlo: Path, line: int, column: int,
                           repeats: int = 2) -> tuple[list[float], list[Any]]:
    """Seconds for each of `repeats` references requests at (line, column) of `hlo`, once its check is
    done, and the last answer as parsed."""
    client = WireClient()
    client.initialize(folder, {})
    uri = client.open(hlo)
    client.wait_for_diagnostics(uri)
    params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": column},
              "context": {"includeDeclaration": True}}
    seconds, answer = [], []
    for _ in range(repeats):
        answer, took = client.request("textDocument/references", params)
        seconds.append(took)
    client.stop()
    return seconds, answer


def first_hover_after_open(folder: Path, path: Path, line: int, column: int) -> tuple[float, Any]:
    """Seconds from didOpen of `path`, alone in a fresh server, to the answer of a hover at (line,
    column) parsed, and that answer."""
    client = WireClient()
    client.initialize(folder, {})
    time.sleep(1)  # the server builds its grammar's parser in a thread as it starts
    text = path.read_text()
    opened = time.perf_counter()
    uri = client.open(path, text)
    answer, _ = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                      "position": {"line": line, "character": column}})
    took = time.perf_counter() - opened
    client.stop()
    return took, answer


# What VS Code declares that changes the answers to its on-open requests.
VS_CODE_CAPABILITIES = {
    "textDocument": {
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "foldingRange": {"rangeLimit": 5000, "lineFoldingOnly": True},  # editor.foldingMaximumRegions
        "documentLink": {"tooltipSupport": True},
    },
    "window": {"workDoneProgress": True},
}
SCREEN_LINES = 60


def vs_code_requests(uri: str, first_line: int) -> dict[str, tuple[str, dict[str, Any]]]:
    """What VS Code asks of a file it shows, its screen from `first_line` on: the outline (for the
    breadcrumbs and sticky scroll), folds, links, lenses, and the screen's tokens and inlay hints."""
    document = {"textDocument": {"uri": uri}}
    screen = {**document, "range": {"start": {"line": first_line, "character": 0},
                                    "end": {"line": first_line + SCREEN_LINES, "character": 0}}}
    return {
        "outline": ("textDocument/documentSymbol", document),
        "folding": ("textDocument/foldingRange", document),
        "links": ("textDocument/documentLink", document),
        "lenses": ("textDocument/codeLens", document),
        "tokens": ("textDocument/semanticTokens/range", screen),
        "hints": ("textDocument/inlayHint", screen),
    }


@dataclass
class EditorSession:
    """What a file opened and edited as VS Code does it was answered in."""

    answered: dict[str, float]  # the seconds from didOpen to each answer asked on opening
    sizes: dict[str, int]  # those answers' bytes of JSON
    diagnostics: float  # the seconds from didOpen to the diagnostics
    after_edits: dict[str, list[float]] = field(default_factory=dict)  # per request asked again, its seconds
    diagnostics_after_edits: list[float] = field(default_factory=list)  # from each edit to its diagnostics


def opened_like_vs_code(folder: Path, hlo: Path, hover: tuple[int, int],
                        edits: list[tuple[int, int]] | None = None) -> EditorSession:
    """Opens `hlo` and at once asks what VS Code asks of a file it shows (the outline for the
    breadcrumbs and sticky scroll, folds, links, lenses, the tokens and inlay hints of the first
    screen) and a hover at `hover`: the seconds to each answer and to the file's diagnostics, and
    each answer's size in bytes. Then, once it is checked, types one character at each (line,
    column) of `edits`: after each, VS Code's requests come again, each after its delay; for each
    request, the seconds from sending it to its answer, one per edit, and the seconds from each edit
    to the diagnostics of the edited version."""
    client = WireClient()
    client.initialize(folder, VS_CODE_CAPABILITIES)
    uri = hlo.as_uri()
    position = {"line": hover[0], "character": hover[1]}
    requests = {**vs_code_requests(uri, 0),
                "hover": ("textDocument/hover", {"textDocument": {"uri": uri}, "position": position})}
    opened = time.perf_counter()
    client.open(hlo)
    session = EditorSession(*client.requests_at_once(requests, uri, opened))
    if not edits:
        client.stop()
        return session
    # the HLO file's diagnostics come first: the module is checked once its other files have theirs too
    client.wait_until_published([path.as_uri() for path in hlo.parent.glob(hlo.stem + "-*.txt")])
    messages: queue.Queue[tuple[float, dict[str, Any] | None]] = queue.Queue()
    threading.Thread(target=client.read_into, args=(messages,), daemon=True).start()
    session.after_edits = {label: [] for label in VS_CODE_DELAYS_AFTER_EDIT}
    gc.collect()
    gc.disable()  # as in WireClient.request: this process's collections are not the server's time
    try:
        for version, (line, column) in enumerate(edits, start=2):
            took, checked = client.edit_then_ask_again(uri, version, line, column, messages)
            for label, seconds in took.items():
                session.after_edits[label].append(seconds)
            session.diagnostics_after_edits.append(checked)
    finally:
        gc.enable()
    client.send({"id": 0, "method": "shutdown"})  # its answer goes to the reading thread
    client.notify("exit", {})
    client.wait()
    return session


# After an edit VS Code asks again, each feature after its own delay: these are the shortest (the
# `min` of each feature's debounce in VS Code's source; the delays grow when answers are slow).
VS_CODE_DELAYS_AFTER_EDIT = {"hints": 0.025, "tokens": 0.1, "folding": 0.2, "lenses": 0.25, "outline": 0.35,
                             "links": 1.0}


def json_round_trip(result: Any, repeats: int = 3) -> float:
    """The fastest of `repeats` times to write a response holding `result` with the json module (as
    pygls does) and parse it back (as benchmarks/wire.py does): the floor under any server's answer."""
    message = {"jsonrpc": "2.0", "id": 1, "result": result}
    return _fastest(lambda: json.loads(json.dumps(message)), repeats)


def lsprotocol_round_trip(locations: list[dict[str, Any]], repeats: int = 3) -> float:
    """The fastest of `repeats` times to do, for a references answer, what any pygls server answering
    with lsprotocol types does besides finding the places: build the Locations, serialize the
    response as pygls does (its converter, then the json module), and parse it back as the wire
    client does. The floor under this server's answer."""
    from lsprotocol import types
    from pygls.protocol import default_converter

    converter = default_converter()
    response_type = types.METHOD_TO_TYPES[types.TEXT_DOCUMENT_REFERENCES][1]
    places = [(place["uri"], place["range"]["start"], place["range"]["end"]) for place in locations]

    def answer() -> None:
        built = [types.Location(uri, types.Range(types.Position(begin["line"], begin["character"]),
                                                 types.Position(end["line"], end["character"])))
                 for uri, begin, end in places]
        json.loads(json.dumps(response_type(id=1, result=built), default=converter.unstructure))

    return _fastest(answer, repeats)


def _fastest(work: Callable[[], object], repeats: int) -> float:
    """The fastest of `repeats` runs of `work`, in seconds, with no garbage collection counted."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            start = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - start)
    finally:
        gc.enable()
    return best
