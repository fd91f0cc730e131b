"""A language server run as a child process over stdio, and the resident memory of its process tree."""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from wire import VS_CODE_CAPABILITIES, WireClient

MB = 1_000_000


def process_tree(root: int) -> list[int]:
    """`root` and every process it started, and they started, read from /proc."""
    children: dict[int, list[int]] = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        with suppress(OSError):  # gone meanwhile
            parent = int(Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(name))
    tree = [root]
    for pid in tree:  # the list grows as it is read
        tree += children.get(pid, [])
    return tree


def resident_mb(pids: list[int]) -> float:
    pages = 0
    for pid in pids:
        with suppress(OSError):  # gone meanwhile
            pages += int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / MB


class ResidentMemory:
    """The resident memory of a process tree, its peak sampled on a thread."""

    def __init__(self, root: int, every: float = 0.05) -> None:
        self.root, self.peak, self._every, self._stopped = root, 0.0, every, threading.Event()
        threading.Thread(target=self._sample, daemon=True).start()

    def now(self) -> float:
        return resident_mb(process_tree(self.root))

    def stop(self) -> None:
        self._stopped.set()

    def _sample(self) -> None:
        tree, samples = [self.root], 0
        while not self._stopped.wait(self._every):
            if samples % 20 == 0:  # the tree is found again each second: scanning /proc is the costly part
                tree = process_tree(self.root)
            samples += 1
            self.peak = max(self.peak, resident_mb(tree))


class Server(WireClient):
    """A language server over stdio, what it sends read on a thread and noted with the time it came."""

    def __init__(self, command: list[str]) -> None:
        self._server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self._next_id, self._sending, self.pid, self.whole_texts = 0, threading.Lock(), self._server.pid, False
        self.messages: queue.Queue[tuple[float, dict[str, Any] | None]] = queue.Queue()
        self.answered: dict[int, tuple[float, Any]] = {}  # id: when, result
        self.published: list[tuple[float, str, int]] = []  # diagnostics: when, uri, errors
        threading.Thread(target=self.read_into, args=(self.messages,), daemon=True).start()

    def ask(self, method: str, params: dict[str, Any] | None, seconds: float = 900.0) -> tuple[float, Any]:
        """Sends a request and notes what comes until its answer: when it was answered, and its result."""
        self._next_id += 1
        asked = self._next_id
        self.send({"id": asked, "method": method, "params": params})
        if not self.listen(lambda: asked in self.answered, seconds):
            raise RuntimeError(f"no answer to {method}")
        return self.answered[asked]

    def listen(self, done: Callable[[], bool], seconds: float = 900.0) -> bool:
        """Notes what the server sends until `done()` or `seconds` have passed; whether `done()`."""
        deadline = time.perf_counter() + seconds
        while not done():
            try:
                when, message = self.messages.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                return done()
            if message is None:
                raise RuntimeError("the server stopped")
            if "id" in message and "method" not in message:
                self.answered[message["id"]] = (when, message.get("result"))
            elif message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                errors = sum(1 for d in params["diagnostics"] if d.get("severity", 1) == 1)
                self.published.append((when, params["uri"], errors))
        return True

    def diagnostics_after(self, uri: str, since: float) -> tuple[float, int] | None:
        """When the first diagnostics of `uri` published after `since` came, and their errors."""
        return next(((when, errors) for when, at, errors in self.published if at == uri and when > since), None)

    def start(self, folder: Path) -> None:
        """initialize and initialized; notes whether the server takes whole texts only on a change."""
        _, result = self.ask("initialize", {"processId": os.getpid(), "rootUri": folder.as_uri(),
                                            "capabilities": VS_CODE_CAPABILITIES}, 120)
        sync = result["capabilities"].get("textDocumentSync")
        self.whole_texts = (sync.get("change") if isinstance(sync, dict) else sync) == 1
        self.notify("initialized", {})

    def close(self) -> None:
        try:
            self.ask("shutdown", None, 30)
            self.send({"method": "exit"})
            self._server.wait(timeout=30)
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            self._server.kill()  # the server this benchmark started, by its handle
