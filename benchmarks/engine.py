"""Engine speed on a large HLO module: indexing, lookups, a one-line edit, and lark as the baseline.

    .venv/bin/python benchmarks/engine.py [--mb 40] [--source PATH]

The module is made by repeating a real one (by default the 96-layer
large_fwd_unrolled module of the shared corpus) with its names renamed per copy,
until it reaches the requested size. Prints one line per measurement.

The text is opened and edited through the engine's facade (`hlo_lsp.session.Session`), as an editor's
buffer is; the lookups are those of the session's Document (its index, which every answer reads). The
grammar's syntax check and the lark baseline reach below the facade on purpose: they time the grammar alone.
"""

from __future__ import annotations

import argparse
import re
import resource
import time
from pathlib import Path

from hlo_lsp.analysis.syntax import syntax_problems
from hlo_lsp.parsing.hlo_syntax import parse_module
from hlo_lsp.session import Document, Session
from hlo_lsp.text import Position, Range

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared/corpus"
DEFAULT_SOURCE = CORPUS / "jax-0.10.2/large_fwd_unrolled/module_0000.jit_fwd.cpu_after_optimizations.txt"
FALLBACK_SOURCE = ROOT / "tests/data/jax-0.10.2/control_flow/module_0000.jit_f.cpu_after_optimizations.txt"
_NAME = re.compile(r"%([A-Za-z_][A-Za-z0-9_.\-]*)")
SOURCE = "big.txt"


def scaled_module(source: str, megabytes: float) -> str:
    """`source` with its computations repeated (names suffixed per copy) up to `megabytes`."""
    header, _, body = source.partition("\n\n")
    body = body.replace("ENTRY ", "")
    copies = [body]
    copy = 1
    while len(header) + sum(map(len, copies)) < megabytes * 1e6:
        copies.append(_NAME.sub(lambda m, c=copy: f"%{m.group(1)}.c{c}", body))
        copy += 1
    return header + "\n\n" + "\n".join(copies)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _opened(session: Session, text: str) -> Document:
    """`text` opened in `session` as an editor's buffer, and scanned."""
    session.open(SOURCE, text, 1)
    document = session.snapshot(SOURCE)
    assert document is not None
    document.scan(0)  # a Document scans its text on the first question about it
    return document


def _edited(session: Session, edit: Range, text: str) -> Document:
    session.change(SOURCE, 2, edit, text)
    document = session.snapshot(SOURCE)
    assert document is not None
    return document


def timed(action):  # noqa: ANN001, ANN201
    start = time.perf_counter()
    result = action()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40.0)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE if DEFAULT_SOURCE.exists() else FALLBACK_SOURCE)
    args = parser.parse_args()
    source = args.source.read_text()
    text = scaled_module(source, args.mb)
    size = len(text) / 1e6
    print(f"module: {size:.1f} MB, {text.count(chr(10)) + 1:,} lines (from {args.source.name})")

    before = _peak_rss_mb()
    session = Session()
    document, seconds = timed(lambda: _opened(session, text))
    print(f"index (scan all lines):          {seconds:7.2f} s  {size / seconds:6.1f} MB/s")
    name = document.scan(document.line_count // 2).refs[0].name if document.scan(
        document.line_count // 2).refs else "add.1"
    _, seconds = timed(lambda: document.definitions(name))
    print(f"first definition lookup:         {seconds * 1000:7.1f} ms")
    _, seconds = timed(lambda: document.definitions(name))
    print(f"next definition lookup:          {seconds * 1000:7.1f} ms")
    indexed = _peak_rss_mb()
    _, seconds = timed(lambda: document.uses(name))
    print(f"first references (reads uses):   {seconds:7.2f} s")
    print(f"memory: index {indexed - before:.0f} MB ({(indexed - before) / size:.1f}x the text), "
          f"with uses {_peak_rss_mb() - before:.0f} MB ({(_peak_rss_mb() - before) / size:.1f}x)")
    _, seconds = timed(lambda: document.uses(name))
    print(f"next references:                 {seconds * 1000:7.1f} ms")
    middle = document.line_count // 2
    edit = Range(Position(middle, 2), Position(middle, 2))
    edited, seconds = timed(lambda: _edited(session, edit, " "))
    print(f"one-line edit (apply_edit):      {seconds * 1000:7.2f} ms")
    _, seconds = timed(lambda: edited.uses(name))
    print(f"references after the edit:       {seconds * 1000:7.1f} ms")
    problems, seconds = timed(lambda: syntax_problems(document))
    print(f"syntax of every line (grammar):  {seconds:7.2f} s  {size / seconds:6.1f} MB/s  {len(problems)} problems")
    _, seconds = timed(lambda: parse_module(source))
    baseline = len(source) / 1e6 / seconds
    print(f"baseline: one lark parse of the {len(source) / 1e6:.1f} MB source: {seconds:.2f} s  {baseline:.1f} MB/s")
    indexing = timed(lambda: _opened(Session(), text))[1]
    print(f"indexing is {size / indexing / baseline:.1f}x "
          "faster than parsing the file with lark")


if __name__ == "__main__":
    main()
