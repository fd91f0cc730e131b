"""The editor's view of speed: drives the real server over stdio on large generated dumps.

    .venv/bin/python benchmarks/run.py [--style 0.10.2|0.4.38] [--sizes 1 10 40] [--samples 200] [--edits 20]
                                       [--json PATH]

For each size, benchmarks/make_large_dump.py writes a module with its buffer-assignment
companions (no JAX needed); the HLO file is opened like an editor opens it and the
server is asked what a user asks: the first hover and definition, the HLO file's diagnostics and every
file's (the full diagnostics, with $/progress), hovers and definitions at random names, the references of the most
used instruction (also timed on the wire: benchmarks/wire.py), and one-line edits. A second
session opens the file as VS Code does, with the requests it sends at once (benchmarks/wire.py:
outline, folds, links, lenses, the first screen's tokens and hints, a hover), and times their
answers and the diagnostics behind them (`editor_*`); then it types in op_name strings, and VS Code's
requests come again after each edit, each after its delay (`editor_edit_*`). Then the
engine's own whole-file lark parse of the same text (the naive baseline) and, when jax is
importable, XLA's C++ parser. Prints a table against the targets and writes the figures as
JSON (default benchmarks/out/run.json).

Every figure but the baselines is an answer of the real server, which asks the engine's facade
(`hlo_lsp.session.Session`) for all it does; the lark baseline alone reaches below it (the grammar, in a
subprocess).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from make_large_dump import make_large_dump  # benchmarks/ is on sys.path when run as a script
from pygls.lsp.client import LanguageClient
from run_inputs import (
    companion_names,
    lark_baseline,
    most_used,
    op_name_edits,
    positions,
    random_names,
    xla_parser,
)
from wire import (
    first_hover_after_open,
    json_round_trip,
    lsprotocol_round_trip,
    opened_like_vs_code,
    references_on_the_wire,
)

ROOT = Path(__file__).resolve().parents[1]
DEBOUNCE_SECONDS = 0.3  # the server waits this long after an edit before checking (lsp/diagnostics.py)


# metric -> (target, unit, how the figure is compared); the README states the same targets.
TARGETS = {
    "first_hover_s": (1.0, "s", "40 MB"),
    "first_hover_allocations_s": (1.0, "s", "40 MB"),
    "first_hover_values_s": (1.0, "s", "40 MB"),
    "first_hover_live_ranges_s": (1.0, "s", "40 MB"),
    "diagnostics_s": (10.0, "s", "40 MB"),
    "editor_diagnostics_s": (10.0, "s", "40 MB"),
    "hover_p99_ms": (10.0, "ms", "all"),
    "definition_p99_ms": (10.0, "ms", "all"),
    "references_wire_ms": (50.0, "ms", "all"),
    "edit_p95_ms": (20.0, "ms", "all"),
    "editor_edit_diagnostics_p95_ms": (20.0, "ms", "all"),
    "rss_ratio": (4.0, "x", "all"),
}


@dataclass
class Figures:
    size_mb: float
    lines: int
    values: dict[str, float] = field(default_factory=dict)


class Editor:
    """A language client that notes when diagnostics and progress arrive."""

    def __init__(self) -> None:
        self.client = LanguageClient("hlo-lsp-benchmark", "1")
        self.published: dict[str, list[float]] = {}
        self.progress: list[str] = []
        self._arrived = asyncio.Event()
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, []).append(time.perf_counter())
            self._arrived.set()

        def on_progress(params: types.ProgressParams) -> None:
            self.progress.append(str(params.value))

        def ignore(*args: object) -> None:
            pass

        self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(on_diagnostics)
        self.client.feature(types.PROGRESS)(on_progress)
        self.client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)(ignore)
        self.client.feature(types.WINDOW_LOG_MESSAGE)(ignore)

    async def start(self, root: Path) -> None:
        await self.client.start_io(sys.executable, "-m", "hlo_lsp")
        capabilities = types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]))
        await self.client.initialize_async(types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri()))
        self.client.initialized(types.InitializedParams())

    async def diagnostics_after(self, uri: str, since: float, timeout: float = 600) -> float:
        """Seconds from `since` to the first diagnostics for `uri` published after it."""
        deadline = time.perf_counter() + timeout
        while True:
            after = [t for t in self.published.get(uri, []) if t > since]
            if after:
                return after[0] - since
            self._arrived.clear()
            await asyncio.wait_for(self._arrived.wait(), max(0.0, deadline - time.perf_counter()))

    def server_rss_mb(self, field: str = "VmHWM") -> float:
        """The server's peak resident memory (VmHWM), or the current one (VmRSS)."""
        server = self.client._server  # the process pygls started
        status = Path(f"/proc/{server.pid}/status").read_text() if server else ""
        match = re.search(rf"{field}:\s+(\d+) kB", status)
        return int(match.group(1)) / 1024 if match else float("nan")

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def timed(request) -> float:  # noqa: ANN001
    start = time.perf_counter()
    await request
    return time.perf_counter() - start


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def measure(mb: float, style: str, samples: int, edits: int, folder: Path) -> Figures:
    files = make_large_dump(mb, style, folder)
    hlo = files["hlo"]
    hover_at, use_at, definitions, text_lines = positions(hlo)
    figures = Figures(hlo.stat().st_size / 1e6, len(text_lines))
    values = figures.values
    editor = Editor()
    await editor.start(folder)
    await asyncio.sleep(1)  # the server builds its grammar's parser in a thread as it starts
    values["rss_idle_mb"] = editor.server_rss_mb("VmRSS")
    # The server must hold the text of the module's files once: what any index adds to.
    values["files_mb"] = sum(path.stat().st_size for path in files.values()) / 1e6
    values["rss_floor_ratio"] = (values["rss_idle_mb"] + values["files_mb"]) / figures.size_mb
    client, uri = editor.client, hlo.as_uri()
    document = types.TextDocumentIdentifier(uri)

    opened = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="hlo", version=1, text="\n".join(text_lines))))
    first_hover = client.text_document_hover_async(types.HoverParams(document, hover_at))
    first_definition = client.text_document_definition_async(types.DefinitionParams(document, use_at))
    answer = await first_hover
    values["first_hover_s"] = time.perf_counter() - opened
    await first_definition
    values["first_definition_s"] = time.perf_counter() - opened
    assert answer is not None and "bytes" in answer.contents.value, answer  # type: ignore[union-attr]
    values["hlo_file_diagnostics_s"] = await editor.diagnostics_after(uri, opened)  # (published first)
    values["diagnostics_s"] = max([await editor.diagnostics_after(path.as_uri(), opened) for path in files.values()])
    values["progress_reports"] = len(editor.progress)

    hovers, jumps = [], []
    for position in random_names(definitions, samples):
        hovers.append(await timed(client.text_document_hover_async(types.HoverParams(document, position))))
        jumps.append(await timed(client.text_document_definition_async(types.DefinitionParams(document, position))))
    values["hover_p50_ms"], values["hover_p99_ms"] = percentile(hovers, 0.5) * 1e3, percentile(hovers, 0.99) * 1e3
    values["definition_p50_ms"] = percentile(jumps, 0.5) * 1e3
    values["definition_p99_ms"] = percentile(jumps, 0.99) * 1e3

    line, column, name, uses = most_used(text_lines)
    params = types.ReferenceParams(text_document=document, position=types.Position(line, column),
                                   context=types.ReferenceContext(include_declaration=True))
    values["references_first_ms"] = await timed(client.text_document_references_async(params)) * 1e3
    values["references_ms"] = await timed(client.text_document_references_async(params)) * 1e3
    values["references_count"] = uses

    await measure_edits(editor, document, hover_at, text_lines, edits, values)
    values["rss_mb"] = editor.server_rss_mb()
    values["rss_ratio"] = values["rss_mb"] / figures.size_mb
    client.text_document_did_close(types.DidCloseTextDocumentParams(document))
    await asyncio.sleep(2)  # the module is let go; a check still running stops at its next report
    values["rss_closed_mb"] = editor.server_rss_mb("VmRSS")
    await editor.stop()
    # The same references again from a second server, timed until their JSON is parsed (an editor
    # parses JSON natively; pygls' client above also builds 14,000 location objects in Python).
    (first, again), answer = references_on_the_wire(folder, hlo, line, column)
    values["references_wire_first_ms"], values["references_wire_ms"] = first * 1e3, again * 1e3
    values["references_json_ms"] = json_round_trip(answer) * 1e3
    values["references_lsprotocol_ms"] = lsprotocol_round_trip(answer) * 1e3
    for label, (path, line, column) in companion_names(files).items():
        seconds, answer = first_hover_after_open(folder, path, line, column)
        assert answer is not None and "bytes" in answer["contents"]["value"], (path, line, answer)
        values[f"first_hover_{label}_s"] = seconds
    session = opened_like_vs_code(folder, hlo, (hover_at.line, hover_at.character), op_name_edits(text_lines, edits))
    values["editor_diagnostics_s"] = session.diagnostics
    for label, seconds in session.answered.items():
        values[f"editor_{label}_s"] = seconds
    values["editor_answers_mb"] = sum(session.sizes.values()) / 1e6
    for label, took in session.after_edits.items():
        values[f"editor_edit_{label}_p95_ms"] = percentile(took, 0.95) * 1e3
    republished = [seconds - DEBOUNCE_SECONDS for seconds in session.diagnostics_after_edits]
    if republished:
        values["editor_edit_diagnostics_p95_ms"] = percentile(republished, 0.95) * 1e3
    return figures


async def measure_edits(editor: Editor, document: types.TextDocumentIdentifier, hover_at: types.Position,
                        text_lines: list[str], edits: int, values: dict[str, float]) -> None:
    """One-character edits inside op_name strings (the module stays valid): the time until a hover on
    the edited module answers (index updated), and until its diagnostics are published again."""
    client, uri = editor.client, document.uri
    indexed, republished = [], []
    for version, (number, column) in enumerate(op_name_edits(text_lines, edits, seed=11), start=2):
        edit = types.Range(types.Position(number, column), types.Position(number, column))
        sent = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=edit, text="x")]))
        await client.text_document_hover_async(types.HoverParams(document, hover_at))
        indexed.append(time.perf_counter() - sent)
        republished.append(await editor.diagnostics_after(uri, sent) - DEBOUNCE_SECONDS)
        text_lines[number] = text_lines[number][:column] + "x" + text_lines[number][column:]
    values["edit_index_p50_ms"] = percentile(indexed, 0.5) * 1e3
    values["edit_index_p95_ms"] = percentile(indexed, 0.95) * 1e3
    values["edit_p50_ms"] = percentile(republished, 0.5) * 1e3
    values["edit_p95_ms"] = percentile(republished, 0.95) * 1e3


def print_table(results: list[Figures]) -> None:
    rows = ["first_hover_s", "first_definition_s", "first_hover_allocations_s", "first_hover_values_s",
            "first_hover_live_ranges_s", "hlo_file_diagnostics_s", "diagnostics_s", "progress_reports", "hover_p50_ms",
            "hover_p99_ms", "definition_p50_ms", "definition_p99_ms", "references_first_ms", "references_ms",
            "references_wire_first_ms", "references_wire_ms", "references_json_ms",
            "references_lsprotocol_ms",
            "editor_hover_s", "editor_outline_s", "editor_folding_s", "editor_links_s", "editor_lenses_s",
            "editor_tokens_s", "editor_hints_s", "editor_answers_mb", "editor_diagnostics_s",
            "editor_edit_hints_p95_ms", "editor_edit_tokens_p95_ms", "editor_edit_folding_p95_ms",
            "editor_edit_lenses_p95_ms", "editor_edit_outline_p95_ms", "editor_edit_links_p95_ms",
            "editor_edit_diagnostics_p95_ms",
            "edit_index_p50_ms", "edit_index_p95_ms", "edit_p50_ms", "edit_p95_ms", "rss_mb", "rss_ratio",
            "rss_idle_mb", "rss_floor_ratio", "rss_closed_mb",
            "lark_parse_s", "lark_vs_first_hover", "xla_parse_s", "xla_vs_first_hover"]
    header = f"{'':30}" + "".join(f"{f'{r.size_mb:.1f} MB':>12}" for r in results) + "   target"
    print(header)
    print(f"{'lines':30}" + "".join(f"{r.lines:>12,}" for r in results))
    for row in rows:
        cells = "".join(f"{_cell(r.values.get(row)):>12}" for r in results)
        target = TARGETS.get(row)
        print(f"{row:30}{cells}   {f'<= {target[0]:g} {target[1]} ({target[2]})' if target else ''}")
    if len(results) > 1:
        small, large = results[0].values, results[-1].values
        print(f"edit p95 ratio {results[-1].size_mb:.0f} MB / {results[0].size_mb:.0f} MB: "
              f"{large['edit_p95_ms'] / small['edit_p95_ms']:.2f} (target <= 1.5)")


def _cell(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"


async def main_async(args: argparse.Namespace) -> list[Figures]:
    results = []
    for mb in args.sizes:
        with tempfile.TemporaryDirectory(prefix="hlo-bench-") as tmp:
            figures = await measure(mb, args.style, args.samples, args.edits, Path(tmp))
            hlo = next(Path(tmp).glob("*after_optimizations.txt"))
            if not args.no_lark:
                lark = lark_baseline(hlo, args.lark_timeout)
                figures.values["lark_parse_s"] = lark if lark is not None else float("nan")
                if lark is not None:
                    figures.values["lark_vs_first_hover"] = lark / figures.values["first_hover_s"]
            xla = xla_parser(hlo)
            if xla is not None:
                figures.values["xla_parse_s"] = xla
                figures.values["xla_vs_first_hover"] = xla / figures.values["first_hover_s"]
        print(f"{mb:g} MB done: first hover {figures.values['first_hover_s']:.2f} s", file=sys.stderr)
        results.append(figures)
    return results


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive count")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 10, 40], help="HLO module sizes in MB")
    parser.add_argument("--style", choices=("0.10.2", "0.4.38"), default="0.10.2",
                        help="the dump's JAX generation (benchmarks/make_large_dump.py)")
    parser.add_argument("--samples", type=int, default=200, help="random hover/definition positions")
    parser.add_argument("--edits", type=_positive, default=20, help="one-line edits (at least one)")
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks/out/run.json")
    parser.add_argument("--no-lark", action="store_true", help="skip the whole-file lark baseline")
    parser.add_argument("--lark-timeout", type=float, default=900)
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    print_table(results)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps([{"size_mb": r.size_mb, "lines": r.lines, **r.values} for r in results],
                                    indent=2))
    print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
