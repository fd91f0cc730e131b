"""The language server runs under the system allocator: it starts itself again with PYTHONMALLOC=malloc and glibc kept
to one arena, the same process, without the folder it runs in on its import path. The other commands, and a server
started with an allocator chosen, run as they were started."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hlo_lsp.cli import _parser
from hlo_lsp.launch import serves

ARENAS = "MALLOC_ARENA_MAX"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; the rule is Linux's")


@pytest.mark.parametrize(("arguments", "serving"), [
    ([], True), (["--stdio"], True), (["serve"], True), (["serve", "--tcp", "127.0.0.1:0"], True),
    (["--tcp=127.0.0.1:0"], True), (["check", "x.txt"], False), (["memory", "x"], False), (["modules", "d"], False),
    (["diff", "a", "b"], False), (["--version"], False), (["-h"], False), (["--help"], False)])
def test_which_arguments_start_the_server(arguments: list[str], serving: bool) -> None:
    assert serves(arguments) is serving


def test_the_commands_that_do_not_serve_are_the_command_lines_others() -> None:
    commands = next(action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction))
    assert {name for name in commands.choices if not serves([name])} == set(commands.choices) - {"serve"}


def _allocator_of(process: subprocess.Popen[bytes], settled: float = 10.0,
                  variable: str = "PYTHONMALLOC") -> str | None:
    """The PYTHONMALLOC (or another `variable`) of a running process, once it has imported the server (its
    environment is final then)."""
    deadline = time.monotonic() + settled
    while time.monotonic() < deadline:
        if b"-c" in _proc(process.pid, "cmdline"):  # `python -c ...`: what the server starts itself again as
            break
        time.sleep(0.05)
    found = [entry.split(b"=", 1)[1].decode() for entry in _proc(process.pid, "environ")
             if entry.startswith(variable.encode() + b"=")]
    return found[0] if found else None


def _proc(pid: int, name: str) -> list[bytes]:
    return Path(f"/proc/{pid}/{name}").read_bytes().split(b"\0")


def _server(environment: dict[str, str]) -> subprocess.Popen[bytes]:
    console_script = os.path.join(os.path.dirname(sys.executable), "hlo-lsp")
    return subprocess.Popen([console_script, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=environment)


def test_the_server_starts_itself_again_under_the_system_allocator_in_the_same_process() -> None:
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONMALLOC"}
    server = _server(environment)
    try:
        assert _allocator_of(server) == "malloc"
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        assert server.wait(timeout=30) == 0  # the process the client started is the one that served


def test_the_server_started_again_keeps_glibc_to_one_arena() -> None:
    """Each thread's arena keeps its free top when the server gives its memory back: one arena has none."""
    environment = {name: value for name, value in os.environ.items() if name not in ("PYTHONMALLOC", ARENAS)}
    server = _server(environment)
    try:
        assert _allocator_of(server, variable=ARENAS) == "1"
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        assert server.wait(timeout=30) == 0


def test_a_number_of_arenas_chosen_for_the_server_is_kept() -> None:
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONMALLOC"}
    server = _server({**environment, ARENAS: "4"})
    try:
        assert _allocator_of(server) == "malloc"
        assert _allocator_of(server, settled=0, variable=ARENAS) == "4"
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=30)


def test_an_allocator_chosen_for_the_server_is_kept() -> None:
    server = _server({**os.environ, "PYTHONMALLOC": "pymalloc"})
    try:
        time.sleep(0.5)
        assert _allocator_of(server, settled=0) == "pymalloc"
        assert b"-c" not in _proc(server.pid, "cmdline")
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=30)


def test_the_server_started_again_imports_nothing_from_the_folder_it_runs_in(tmp_path: Path) -> None:
    planted = tmp_path / "hlo_lsp"
    planted.mkdir()
    (planted / "__init__.py").write_text("raise SystemExit(42)\n")  # what a folder opened in an editor might hold
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONMALLOC"}
    console_script = os.path.join(os.path.dirname(sys.executable), "hlo-lsp")
    server = subprocess.Popen([console_script, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, env=environment, cwd=tmp_path)
    try:
        assert _allocator_of(server) == "malloc"
        time.sleep(1.0)
        assert server.poll() is None  # serving, not the planted package's exit
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        assert server.wait(timeout=30) == 0
