"""An edit made as soon as the opened HLO file shows its diagnostics, while the check still reads its companions.

    .venv/bin/python benchmarks/edit_early.py --dir /tmp/big40 [--edits 3] [--json PATH]
    .venv/bin/python benchmarks/edit_early.py --mb 40

hlo-lsp publishes the HLO file's diagnostics before it reads the buffer assignment's files: a user may edit then.
Over stdio, as benchmarks/load.py: didOpen, the HLO file's diagnostics, then at once one-line edits that keep the
file valid (load.py's), each followed by its own diagnostics before the next. Prints the seconds from didOpen to the
HLO file's diagnostics and to every file's, and from each edit to the diagnostics of the version it made (the
server waits 0.3 s after an edit before it checks: lsp/diagnostics.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from load import COMPANIONS, hlo_edits, hlo_module_of  # benchmarks/ is on sys.path when run as a script
from lsp_process import Server
from make_large_dump import make_large_dump


def measure(hlo: Path, edits: int) -> dict[str, object]:
    lines = hlo.read_text(encoding="utf-8").split("\n")
    uri = hlo.as_uri()
    companions = [path.as_uri() for suffix in COMPANIONS if (path := hlo.with_name(hlo.stem + suffix)).exists()]
    server = Server([sys.executable, "-m", "hlo_lsp"])
    try:
        server.start(hlo.parent)
        server.listen(lambda: False, 2.0)  # the server readies itself
        opened = time.perf_counter()
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "hlo", "version": 1,
                                                                "text": "\n".join(lines)}})
        server.listen(lambda: server.diagnostics_after(uri, opened) is not None, 600)
        first = time.perf_counter() - opened
        after: list[float] = []
        for version, (line, start, end, text) in enumerate(hlo_edits(lines, edits), start=2):
            edited = time.perf_counter()
            change = {"range": {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}},
                      "text": text}
            server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [change]})
            answered = server.diagnostics_after(uri, edited) if server.listen(
                lambda since=edited: server.diagnostics_after(uri, since) is not None, 600) else None
            if answered is None:
                raise RuntimeError(f"no diagnostics after edit {version - 1}")
            after.append(answered[0] - edited)
        server.listen(lambda: all(server.diagnostics_after(each, opened) for each in companions), 600)
        every = max([first, *((server.diagnostics_after(each, opened) or (opened, 0))[0] - opened
                              for each in companions)])
    finally:
        server.close()
    return {"file_mb": hlo.stat().st_size / 1e6, "hlo_file_diagnostics_s": first, "every_file_diagnostics_s": every,
            "edit_diagnostics_s": after}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--dir", type=Path, help="a dump folder already written")
    where.add_argument("--mb", type=float, help="write a dump whose HLO module is this many MB")
    parser.add_argument("--edits", type=int, default=3, help="one-line edits, made one after another")
    parser.add_argument("--json", type=Path, help="write the figures there")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hlo-edit-early-") as scratch:
        hlo = hlo_module_of(args.dir or make_large_dump(args.mb, "0.10.2", Path(scratch) / "dump")["hlo"].parent)
        figures = measure(hlo, args.edits)
    print(f"{hlo} ({figures['file_mb']:.1f} MB): the HLO file's diagnostics {figures['hlo_file_diagnostics_s']:.2f} s "
          f"after didOpen, every file's {figures['every_file_diagnostics_s']:.2f} s")
    for number, seconds in enumerate(figures["edit_diagnostics_s"], start=1):  # type: ignore[arg-type]
        print(f"edit {number}, made at once: its diagnostics {seconds:.2f} s after it (0.3 s of it the debounce)")
    if args.json:
        args.json.write_text(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
