"""The `hlo-lsp` command's first step: the language server runs under the system allocator, every other command
as it was started.

CPython's own allocator keeps each 1 MB arena while any object lives in it. A server that answered hovers on a
40 MB module keeps a few hundred objects made meanwhile that outlive it (the lexer's tables, caches), spread
over tens of those arenas: 20 MB more than before the module was opened, after it is closed. Under glibc's
allocator, which hands its free pages back when asked (`session/store.py: _give_memory_back`), the server
returns to within a few megabytes of its idle size. The server starts itself again with `PYTHONMALLOC=malloc`,
before importing anything else; the check process it starts runs under CPython's allocator, faster at
building a module, and gives all its memory back when it ends.

The server also keeps glibc to one arena (`MALLOC_ARENA_MAX=1`). glibc gives each thread that allocates an arena of
its own, and asked for its free pages it gives back those of every arena but the free top of all but the main one:
after a glance answered hovers on a 100 MB module from the server's worker threads, 15 to 20 MB stayed resident in
their arenas once the module was closed. With the interpreter's lock held around nearly every allocation, the threads
lose nothing by sharing one.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

ALLOCATOR_VARIABLE = "PYTHONMALLOC"
ARENAS_VARIABLE = "MALLOC_ARENA_MAX"
# The server started again: without the folder it runs in on the import path (an editor starts it in the folder it
# opened, which `python -m` would put first), as the `hlo-lsp` script runs.
START_AGAIN = ("import sys\nif sys.path and sys.path[0] == '':\n    del sys.path[0]\n"  # (none with PYTHONSAFEPATH)
               "from hlo_lsp.launch import main\nsys.exit(main())")
_COMMANDS_NOT_SERVING = frozenset(("check", "memory", "modules", "diff", "-h", "--help", "--version"))


def main() -> int:
    arguments = sys.argv[1:]
    if serves(arguments) and sys.platform.startswith("linux") and ALLOCATOR_VARIABLE not in os.environ \
            and sys.executable:
        with contextlib.suppress(OSError):  # (where it cannot, the server runs as it was started)
            os.execve(sys.executable, [sys.executable, "-c", START_AGAIN, *arguments], server_environment())
    from hlo_lsp.cli import main as run_command

    return run_command(arguments)  # (started again, sys.argv is ["-c", *arguments])


def server_environment() -> dict[str, str]:
    """The environment the server starts itself again in: the system allocator, one arena (a chosen allocator
    is left as it is, and so is a chosen number of arenas)."""
    return {ARENAS_VARIABLE: "1", **os.environ, ALLOCATOR_VARIABLE: "malloc"}


def serves(arguments: Sequence[str]) -> bool:
    """Whether these command-line arguments start the language server (no command, `serve`, `--stdio`, `--tcp`)."""
    return not arguments or arguments[0] not in _COMMANDS_NOT_SERVING and not arguments[0].startswith("-h")
