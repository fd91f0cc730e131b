"""The server reads only what it is given, writes nothing, makes no network calls and never evaluates
what a dump says, over stdio as VS Code and as Neovim.

The server runs in its own network namespace (`unshare -n`) under a Python audit hook (no strace): any
socket other than the event loop's local socketpair, any subprocess, any file opened for writing or
removed, and any file of the dump folder opened that is neither a module file nor its companion ends
the process at once with code 97, which the still_serving check then sees. The dump folder is a
read-only copy; its listing, bytes and mtimes are compared before and after the session.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client

from helpers import SPLIT_MLP, copy_module
from helpers.lsp import CLIENTS, SERVER, module_paths, next_diagnostics, open_file, position_of, still_serving

pytestmark = pytest.mark.asyncio(loop_scope="module")

SPLIT = SPLIT_MLP
ADD_MAXIMUM = "  %add_maximum_fusion = f32[32,256]{1,0} fusion(%ynn_fusion.1, %bs_1_.1)"
OP_NAME = 'op_name="jit(mlp)/jit(relu)/max"'

GUARD = r"""
import os, runpy, socket, sys
root = os.environ["GUARD_ROOT"]
allowed = set(os.environ["GUARD_ALLOWED"].split(os.pathsep))
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
FORBIDDEN = {"socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto",
             "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.remove",
             "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.truncate", "os.symlink", "os.link", "os.utime",
             "shutil.rmtree", "shutil.copyfile", "urllib.Request", "http.client.connect", "ftplib.connect",
             "smtplib.connect", "os.startfile", "pty.spawn", "webbrowser.open"}

def violation(what):
    os.write(2, ("GUARD VIOLATION: %r\n" % (what,)).encode())
    os._exit(97)

def hook(event, args):
    if event == "open":
        path, mode, flags = args
        if path is None or isinstance(path, int):
            return
        path = os.path.abspath(os.fsdecode(path))
        if (mode and any(c in mode for c in "wax+")) or (flags or 0) & WRITE:
            violation((event, path, mode, flags))
        if path.startswith(root + os.sep) and path not in allowed:
            violation((event, path))
    elif event in FORBIDDEN:
        violation((event, args[:2]))
    elif event == "socket.__new__" and args[1] != socket.AF_UNIX:
        violation((event, args[1:]))
    elif event in ("compile", "exec"):
        source = args[0]
        text = source.decode(errors="replace") if isinstance(source, bytes) else source
        if isinstance(text, str) and ("pwned" in text or "7*7" in text):
            violation((event, text[:80]))

sys.addaudithook(hook)
sys.argv = ["hlo_lsp"]
runpy.run_module("hlo_lsp", run_name="__main__", alter_sys=True)
"""


def snapshot(folder: Path) -> dict[str, tuple[int, int, int, str]]:
    """Every entry under `folder`: (mode, size, mtime in ns, sha256 of a regular file's bytes)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        status = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(status.st_mode) else ""
        found[str(path.relative_to(folder))] = (status.st_mode, status.st_size, status.st_mtime_ns, digest)
    return found


def read_only(folder: Path) -> None:
    for path in folder.iterdir():
        if path.is_file():
            path.chmod(0o444)
    folder.chmod(0o555)


def net_namespace(pid: int | str) -> str:
    return os.readlink(f"/proc/{pid}/ns/net")


def unshare_works() -> bool:
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Guarded:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.dumps = root / "dumps"
        self.scratch = root / "scratch"  # the server's cwd, HOME and TMPDIR: must stay empty
        self.pwned = root / "pwned"      # what the payload in the dump would create
        self.stem = self.dumps / SPLIT.name
        self.hlo = Path(f"{self.stem}.txt")
        self.ba = Path(f"{self.stem}-buffer-assignment.txt")
        self.payload = f"jit(mlp)/{{{{7*7}}}}/${{{{7*7}}}}/__import__('os').system('touch {self.pwned}')"
        self.client: LanguageClient | None = None
        self.before: dict[str, tuple[int, int, int, str]] = {}


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CLIENTS)
async def guarded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                  ) -> AsyncIterator[Guarded]:
    if shutil.which("unshare") is None or not unshare_works():
        pytest.skip("`unshare -n` is missing or not permitted here: the network cannot be cut off")
    setup = Guarded(tmp_path_factory.mktemp("guarded"))
    setup.dumps.mkdir()
    setup.scratch.mkdir()
    copy_module(SPLIT, setup.dumps)
    lines = setup.hlo.read_text().split("\n")
    [row] = [number for number, line in enumerate(lines) if line.startswith(ADD_MAXIMUM)]
    assert lines[row].count(OP_NAME) == 1
    lines[row] = lines[row].replace(OP_NAME, f'op_name="{setup.payload}"')
    setup.hlo.write_text("\n".join(lines))
    # Sentinels: FIFOs (reading one would block the server; one is named like an HLO module) and files, none of
    # them a file of the module. Of those, workspace/symbol reads the other HLO module of the workspace folder
    # (it searches every module file there), never a side file or a companion of a module no one opened.
    for name in ("sentinel.txt", f"{SPLIT.name}-sentinel.txt", f"{SPLIT.name}.before_optimizations.txt"):
        os.mkfifo(setup.dumps / name)
    other = setup.dumps / "module_0001.other.cpu_after_optimizations.txt"
    other.write_text("HloModule other\n")
    Path(f"{other.with_suffix('')}-buffer-assignment.txt").write_text("BufferAssignment:\n")
    (setup.dumps / "module_0001.other.tpu_comp_env.txt").write_text("xla_tpu_flag: true\n")
    allowed = [str(path) for path in module_paths(setup.stem) if path.is_file()] + [str(other)]
    read_only(setup.dumps)
    setup.before = snapshot(setup.dumps)

    # (under the allocator the server starts itself again with, hlo_lsp.launch: started so, it goes on as it is, and
    # the guard stays; an exec would end it)
    env = dict(os.environ, HOME=str(setup.scratch), TMPDIR=str(setup.scratch), PYTHONDONTWRITEBYTECODE="1",
               GUARD_ROOT=str(setup.root), GUARD_ALLOWED=os.pathsep.join(allowed), PYTHONMALLOC="malloc")
    assert SERVER.server_command[1:] == ["-m", "hlo_lsp"]  # the same server as the other tests, guarded
    client = make_test_lsp_client()
    await client.start_io("unshare", "-n", SERVER.server_command[0], "-c", GUARD, env=env, cwd=str(setup.scratch))

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        """The test client accepts the file watchers."""

    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(request.param), root_uri=setup.dumps.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=setup.dumps.as_uri(), name="dumps")]))
    setup.client = client
    yield setup
    await client.shutdown_session()
    assert client._server is not None and client._server.returncode == 0  # noqa: SLF001


def identifier(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


async def test_the_server_runs_without_network(guarded: Guarded) -> None:
    client = guarded.client
    assert client is not None and client._server is not None  # noqa: SLF001
    assert net_namespace(client._server.pid) != net_namespace("self")  # noqa: SLF001
    await still_serving(client)


async def test_a_full_session_on_a_read_only_folder_changes_nothing(guarded: Guarded) -> None:
    client = guarded.client
    assert client is not None
    hlo, ba = guarded.hlo, guarded.ba
    uris = [path.as_uri() for path in module_paths(guarded.stem) if path.is_file()]
    for uri in uris:
        client.diagnostics.pop(uri, None)
    uri = open_file(client, hlo)
    assert await next_diagnostics(client, uri) == []

    name = position_of(hlo, ADD_MAXIMUM, "add_maximum_fusion")
    answer = await client.text_document_hover_async(types.HoverParams(identifier(uri), name))
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    assert "- 32,768 bytes (32.0KiB) in allocation 14 (preallocated-temp), offset 0" in \
        answer.contents.value.split("\n")
    operand = position_of(hlo, ADD_MAXIMUM, "ynn_fusion.1")
    target = position_of(hlo, "  %ynn_fusion.1 = ", "ynn_fusion.1")
    found = await client.text_document_definition_async(types.DefinitionParams(identifier(uri), operand))
    assert isinstance(found, list) and [(item.uri, item.range.start) for item in found] == [(uri, target)]
    used = await client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=True), text_document=identifier(uri), position=operand))
    assert used is not None and {item.uri for item in used} >= {uri, ba.as_uri()}
    assert await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="ynn_fusion"))

    # A watched-file event and a document never opened: still only the module's files are read.
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        [types.FileEvent(uri=(guarded.dumps / "sentinel.txt").as_uri(), type=types.FileChangeType.Changed),
         types.FileEvent(uri=ba.as_uri(), type=types.FileChangeType.Changed)]))
    web = "https://example.com/dumps/module_0000.jit_mlp.cpu_after_optimizations.txt"
    assert await client.text_document_hover_async(types.HoverParams(identifier(web), name)) is None

    # No file of the folder stays open in the process (a listing of the folder under way, in the background, holds
    # it for a moment: looked at again until then).
    assert client._server is not None  # noqa: SLF001
    assert held_under(client._server.pid, guarded.root, seconds=2) == []  # noqa: SLF001

    client.text_document_did_close(types.DidCloseTextDocumentParams(identifier(uri)))
    await still_serving(client)
    assert snapshot(guarded.dumps) == guarded.before
    assert list(guarded.scratch.iterdir()) == []


def held_under(pid: int, root: Path, seconds: float) -> list[str]:
    """What process `pid` holds open under `root`, looked at until it holds nothing there or `seconds` passed."""
    deadline = time.monotonic() + seconds
    while True:
        fds = Path(f"/proc/{pid}/fd")
        held = [target for fd in fds.iterdir() if fd.is_symlink() and (target := os.readlink(fd)).startswith(str(root))]
        if not held or time.monotonic() > deadline:
            return held
        time.sleep(0.05)


async def test_dump_text_is_shown_never_evaluated(guarded: Guarded) -> None:
    """The op_name carries Python, a template and a shell-ish payload: the hover shows it verbatim
    (49 appears nowhere but in the temporary folder's own name) and nothing it names is created."""
    client = guarded.client
    assert client is not None
    uri = open_file(client, guarded.hlo)
    answer = await client.text_document_hover_async(
        types.HoverParams(identifier(uri), position_of(guarded.hlo, ADD_MAXIMUM, "add_maximum_fusion")))
    assert answer is not None and isinstance(answer.contents, types.MarkupContent)
    op_name = [line for line in answer.contents.value.split("\n") if line.startswith("- op_name ")]
    assert op_name == [f"- op_name `{guarded.payload}`"]
    assert "49" not in answer.contents.value.replace(str(guarded.root), "<root>")
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier(uri)))
    assert symbols
    client.text_document_did_close(types.DidCloseTextDocumentParams(identifier(uri)))
    await still_serving(client)
    assert not guarded.pwned.exists()
    assert snapshot(guarded.dumps) == guarded.before
